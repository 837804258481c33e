//! Sign-in and the session, as the UI may know them (who and what they may do,
//! never the token): the session and where it is kept, sign-in progress and
//! failure, sign-out, and everything the UI needs at start ([`AppStatus`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::environments::{EnvironmentInfo, NetworkPreset};
use super::links::LinkEvent;

/// Event carrying sign-in progress and outcome ([`SignInEvent`]).
pub const EVENT_SIGN_IN: &str = "rxdesk://sign-in";

/// Event sent whenever the session changes ([`SessionEvent`]).
pub const EVENT_SESSION: &str = "rxdesk://session";

/// Where the session is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SessionStorage {
    /// The OS keyring (Keychain, Credential Manager, Secret Service).
    Keyring,
    /// The keyring cannot keep the session, and the app stores it nowhere
    /// else: a session lives in memory, for this run only. Signing in needs
    /// the user's choice of that (`this_run_only`), except after a sign-in
    /// whose session the keyring then refused to store: it goes on for this
    /// run. `detail` is the keyring's own words.
    #[serde(rename_all = "camelCase")]
    MemoryOnly {
        problem: KeyringProblem,
        detail: String,
        this_run_only: bool,
    },
}

/// Why the keyring cannot keep the session, so the UI can say what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum KeyringProblem {
    /// No keyring service answers (on Linux: no Secret Service, such as GNOME
    /// Keyring or KWallet, on the desktop session).
    NotRunning,
    /// The keyring is locked and was not unlocked (its prompt dismissed).
    Locked,
    /// The keyring answered but refused to keep the session.
    Refused,
}

/// Who is signed in, as the UI may know it (never the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub environment_id: String,
    /// The user's stable id at the network (OpenID Connect `sub`): whose the
    /// forms kept across a sign-in are. `None` when the network gave none: then
    /// no form is kept for anyone.
    pub subject: Option<String>,
    pub user_name: String,
    pub user_email: String,
    pub role: String,
    pub organization_id: String,
    pub organization_name: String,
    pub permissions: Vec<String>,
    /// RFC 3339.
    pub expires_at: String,
    /// This computer's clock, when the sign-in found it further from the
    /// network's than the leeway: the UI says so. `None` when it is right or
    /// could not be measured.
    pub wrong_clock: Option<WrongClock>,
}

/// How wrong this computer's clock is against the network's (beyond
/// `rxdesk_client::CLOCK_LEEWAY`). Sign-in and renewal work regardless; the
/// times a person reads may not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WrongClock {
    /// Minutes off, rounded up.
    pub minutes: u32,
    /// True when this computer's clock is ahead of the network's, false when behind.
    pub ahead: bool,
}

/// Why a session ended, so the UI can say it in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SessionEnd {
    /// The user signed out.
    SignedOut,
    /// No input for the idle time (while the app ran, or since it was last
    /// used): the session was ended at the network; a fresh sign-in is needed.
    #[serde(rename_all = "camelCase")]
    Locked { idle_minutes: u32 },
    /// The network refused the session and it could not be renewed.
    Expired,
    /// The environment in use was removed in Settings.
    EnvironmentRemoved,
    /// Another environment was chosen.
    EnvironmentChanged,
    /// The environment in use was saved with other addresses: its session,
    /// which they would not accept, was ended at the old ones.
    EnvironmentEdited,
    /// The stored session could not be read (saved in another shape, by
    /// another version of Rx Desk, or damaged): it was removed; sign in again.
    Unreadable,
}

/// The session changed (signed in, renewed, signed out, switched environment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionEvent {
    pub session: Option<SessionInfo>,
    /// Where the session is kept now (a keyring that refused a write means memory only).
    pub storage: SessionStorage,
    /// Why the session ended, when this event says it did.
    pub ended: Option<SessionEnd>,
}

/// Whether the network was told to end a session at sign-out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Revocation {
    /// The network ended the session (its tokens revoked, its sign-in ended
    /// where the network offers that): it works nowhere any more.
    Revoked,
    /// There was nothing the network could be asked to end.
    NothingToRevoke,
    /// The network could not be told everything; what it was not told may work
    /// until it expires.
    Failed { message: String },
}

/// What signing out did. The session is gone from the app either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignOutSummary {
    pub revocation: Revocation,
    /// The keyring did not remove the stored session: why (it is unusable
    /// without the app, and the next sign-in replaces it).
    pub keyring_problem: Option<String>,
}

/// Everything the UI needs at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub environments: Vec<EnvironmentInfo>,
    pub active_environment: String,
    pub session: Option<SessionInfo>,
    pub storage: SessionStorage,
    /// Problems with the environments file or variables, shown on the settings screen.
    pub environment_problems: Vec<String>,
    /// The vendor's networks, for the settings screen.
    pub presets: Vec<NetworkPreset>,
    /// The `rxdesk://` link the app was started with, handed over once.
    pub link: Option<LinkEvent>,
    /// Seconds without input after which the app locks (0: never): the
    /// user's or `RXDESK_IDLE_LOCK_MINUTES`, never more than the IT policy allows.
    pub idle_lock_seconds: u32,
    /// Why the stored session was not taken up at start (locked: too long since
    /// the app was last used), told once.
    pub ended: Option<SessionEnd>,
    /// Why the lists of records opened here (recent patients, drafts, open
    /// orders) are kept in memory for this run only: the index file was
    /// written by a newer version, or cannot be opened. Shown on the workspace.
    pub index_problem: Option<String>,
}

/// Why a sign-in ended without a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum SignInFailure {
    /// The user pressed Cancel on the sign-in page (`access_denied`).
    AccessDenied,
    /// No callback arrived in time.
    Timeout,
    /// The network could not be reached.
    Network,
    /// The user cancelled in the app.
    Cancelled,
    /// Anything else the server or the listener reported.
    Other,
}

/// Sign-in progress and outcome, sent as [`EVENT_SIGN_IN`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "stage", rename_all = "camelCase")]
pub enum SignInEvent {
    /// The browser was asked to open `url`; waiting for the callback.
    Waiting {
        url: String,
        #[serde(rename = "browserOpened")]
        browser_opened: bool,
    },
    #[serde(rename_all = "camelCase")]
    SignedIn { session: SessionInfo },
    Failed {
        reason: SignInFailure,
        message: String,
    },
}
