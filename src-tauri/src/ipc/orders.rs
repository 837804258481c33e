//! Orders: pharmacies, exceptions, the order, the network's answer to a change of
//! one, and the pharmacy search with its answer.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::actions::Resumed;
use super::common::{ChangeNote, ChoiceView};
use super::prescriptions::PrescriptionView;
use super::vocabulary::{ExceptionKind, Fulfillment, OrderState};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PharmacyView {
    pub id: String,
    pub name: String,
    pub address: String,
    pub fulfillment: Vec<Fulfillment>,
}

/// Something that happened to a sent order (the pharmacy needs insurance details…).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionView {
    pub kind: ExceptionKind,
    /// The network's words for a person, when it gave any.
    pub message: Option<String>,
    /// When it happened (RFC 3339, as the network sends it).
    pub created_at: String,
}

#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderView {
    pub id: String,
    pub state: OrderState,
    pub patient_id: Option<String>,
    pub patient_name: Option<String>,
    pub prescriptions: Vec<PrescriptionView>,
    /// `null`: the patient chooses.
    pub pharmacy: Option<PharmacyView>,
    pub exceptions: Vec<ExceptionView>,
    /// `rxdesk://order/…`
    pub link: String,
}

/// The network's answer to a change of an order (drafting, sending, cancelling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum OrderOutcome {
    /// The order as it is now; `notes` are the inputs not applied (e.g. why it
    /// was not sent).
    Saved {
        order: Box<OrderView>,
        notes: Vec<ChangeNote>,
        /// Set when an earlier attempt of this new order had saved it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        resumed: Option<Resumed>,
    },
    NotSaved {
        problems: Vec<ChangeNote>,
    },
}

/// A pharmacy search for an order: any of the fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PharmacySearch {
    pub name: Option<String>,
    /// A US postal code, a city (`Boston, MA`), or a latitude and longitude
    /// (`42.35, -71.06`).
    pub near: Option<String>,
    /// Miles around a latitude and longitude; without it the nearest come first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub radius_miles: Option<u32>,
    pub fulfillment: Option<Fulfillment>,
}

/// The network's answer to a pharmacy search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PharmacyAnswer {
    /// Exactly one fitted: the network set it on the order.
    Chosen { order: Box<OrderView> },
    /// Choose one (with the offers shown).
    Options { options: Vec<ChoiceView> },
    /// None fitted: the network's reasons.
    Nothing { reasons: Vec<ChangeNote> },
}

// Patient data: `Debug` prints ids and states only.
rxdesk_client::redacted_debug! {
    OrderView { id, state }
}
