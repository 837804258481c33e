//! One user action on a slow or failing link, as the UI and the core speak of
//! it: the [`ActionId`] the UI gives each run of a command (to match the
//! [`RetryEvent`]s sent while it runs, and to cancel it), and the [`CreateKey`]
//! of an action that creates a record (kept with the form until it succeeds,
//! so "Try again" finds what an earlier attempt saved). What the core does with
//! them is in `core/actions.rs`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Event carrying a [`RetryEvent`].
pub const EVENT_RETRY: &str = "rxdesk://retry";

/// The id the UI gives one run of a command: its retries are reported under
/// it, and `cancel_action` names it. Made fresh for every run (a click, a
/// keystroke's search), never reused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct ActionId(pub String);

/// The idempotency key of one user action that creates a record (a new draft,
/// a new order): sent as the record's `externalId`, so a repeat — an attempt
/// after a lost answer, or the user's "Try again" — answers the record the first
/// attempt made instead of making a second one. The UI makes it once per action
/// and keeps it with the form until the record is saved.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct CreateKey(pub String);

impl std::fmt::Debug for CreateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not secret, but it names a user action: keep it out of logs whole.
        f.write_str("CreateKey(..)")
    }
}

/// Why a call is being tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum RetryReason {
    /// The connection failed or broke, or no answer came in time.
    Network,
    /// The server answered 502, 503 or 504.
    Server,
    /// The server asked for fewer requests (429).
    RateLimited,
    /// A service behind the network failed and said asking again may help.
    Upstream,
}

/// A call of a running action is about to be tried again, sent as
/// [`EVENT_RETRY`]: the UI shows "Still trying (attempt n)".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RetryEvent {
    pub action: ActionId,
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    /// Milliseconds until it starts.
    pub wait_ms: u32,
    pub reason: RetryReason,
    /// The record the call is about, when the action handles several (the
    /// prescription id of one signature in a batch).
    pub record: Option<String>,
}

/// Said with a saved record when an earlier attempt of the same action had
/// already made it (its answer was lost on the way): the record shown is that
/// one, and no second record was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Resumed {
    /// The form had changed since that attempt: the changes were sent as an
    /// Update of that record (its notes are the Update's).
    pub updated: bool,
}
