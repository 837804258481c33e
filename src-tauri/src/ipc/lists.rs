//! The work lists of the start screen and of a patient, read from the local index
//! (ids only) and fetched live.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::orders::OrderView;
use super::patients::PatientSummary;
use super::prescriptions::PrescriptionView;

/// A draft awaiting signature, as "Drafts awaiting signature" lists it.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DraftRow {
    pub prescription: PrescriptionView,
    pub patient_name: Option<String>,
}

/// The start screen's lists, read from the local index (ids only) and fetched
/// live; ids the network no longer answers for are dropped from the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkLists {
    pub recent_patients: Vec<PatientSummary>,
    pub drafts: Vec<DraftRow>,
    pub open_orders: Vec<OrderView>,
    /// How many indexed ids were dropped because the network no longer has them.
    pub dropped: u32,
}

/// A patient's prescriptions and orders that this workstation created or
/// opened (the network has no list queries), fetched live.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientWork {
    pub prescriptions: Vec<PrescriptionView>,
    pub orders: Vec<OrderView>,
}

// Patient data: `Debug` prints ids and states only.
rxdesk_client::redacted_debug! {
    DraftRow { prescription }
}
