//! Where a `rxdesk://` link or a typed id leads, and the event that hands one
//! over. Opening one only navigates.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::vocabulary::RecordKind;

/// Event carrying a link the OS handed over ([`LinkEvent`]).
pub const EVENT_OPEN_LINK: &str = "rxdesk://open-link";

/// Where a link or typed id leads. Opening one only navigates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LinkTarget {
    pub kind: RecordKind,
    pub id: String,
}

/// Sent as [`EVENT_OPEN_LINK`] when the OS hands the app a `rxdesk://` link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LinkEvent {
    Open { target: LinkTarget },
    Invalid { message: String },
}
