//! Updates: whether this copy updates itself, what a check found, and download
//! progress.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Event carrying an update's download progress ([`UpdateProgress`]).
pub const EVENT_UPDATE: &str = "rxdesk://update";

/// Whether this copy of Rx Desk updates itself, and if not, why. Where the IT
/// policy allows updates, `policy_note` says when a policy file was ignored
/// because no administrator owns it (Windows), naming the file and its owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum UpdatesStatus {
    /// Checking and installing are offered, each only on the user's click.
    #[serde(rename_all = "camelCase")]
    Offered {
        current_version: String,
        policy_note: Option<String>,
    },
    /// A build without the vendor's release key (e.g. built locally): it does not update itself.
    #[serde(rename_all = "camelCase")]
    NotConfigured { policy_note: Option<String> },
    /// The updater could not be set up on this installation (unsupported platform…).
    #[serde(rename_all = "camelCase")]
    Unavailable {
        problem: String,
        policy_note: Option<String>,
    },
    /// `updates = false` in the IT policy file at `path`.
    OffByPolicy { path: String },
    /// The IT policy file could not be read or understood (or its owner could
    /// not be read): updates stay off until it is fixed.
    PolicyBroken { problem: String },
}

/// What a check for updates found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum UpdateCheck {
    #[serde(rename_all = "camelCase")]
    UpToDate { current_version: String },
    /// A newer version: nothing is downloaded until the user chooses to install it.
    #[serde(rename_all = "camelCase")]
    Found {
        current_version: String,
        version: String,
        /// The release notes, as published (plain text).
        notes: Option<String>,
        /// RFC 3339, when published.
        date: Option<String>,
    },
}

/// Download progress of the update being installed, sent as [`EVENT_UPDATE`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProgress {
    /// Bytes received so far.
    #[ts(type = "number")]
    pub downloaded: u64,
    /// The bundle's size, when the server said.
    #[ts(type = "number | null")]
    pub total: Option<u64>,
    /// The download is complete and verified; installing follows, then a restart.
    pub verified: bool,
}
