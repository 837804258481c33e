//! What every domain's answers share: [`CommandError`], the one error every
//! command returns, and the network's answer about one input ([`ChangeNote`])
//! with the options to answer it ([`ChoiceView`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::vocabulary::{ChangeSeverity, ChangeStatus};

/// The one error every command returns. `kind` tells the UI what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, thiserror::Error)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum CommandError {
    /// No valid session: open sign-in, keep what the user typed, let them resubmit.
    #[error("signed out: {message}")]
    SignedOut { message: String },
    /// The network refused: shown as it came (code, message, permission).
    #[error("refused ({code}): {message}")]
    #[serde(rename_all = "camelCase")]
    Refused {
        code: String,
        message: String,
        required_permission: Option<String>,
    },
    /// Input rejected; `field` names the form field when known.
    #[error("invalid ({code}): {message}")]
    Invalid {
        code: String,
        message: String,
        field: Option<String>,
    },
    #[error("not found: {message}")]
    NotFound { message: String },
    #[error("network trouble: {message}")]
    Network { message: String },
    #[error("server trouble: {message}")]
    Server { message: String },
    #[error("unexpected answer: {message}")]
    Protocol { message: String },
    /// The user cancelled the action (`cancel_action`) before it ended. A
    /// read did nothing; a create may have been saved, and its "Try again"
    /// (same key) finds it.
    #[error("cancelled: {message}")]
    Cancelled { message: String },
    /// A local problem: environment file, sandbox start, keyring, app state.
    #[error("{message}")]
    App { message: String },
}

impl CommandError {
    pub fn app(message: impl Into<String>) -> Self {
        Self::App {
            message: message.into(),
        }
    }
}

/// One way to answer a change, as the network offered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    pub label: String,
    pub reason: Option<String>,
    /// Where `value` goes in the input, e.g. `treatment.id`.
    pub argument: Option<String>,
    pub value: Option<String>,
    /// The network says it matched exactly (name or RxNorm code).
    pub exact: bool,
    /// Pharmacy options: the network's offers.
    pub offers: Vec<OfferView>,
}

/// A pharmacy option's offer, as the network made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OfferView {
    /// Who makes the offer.
    pub source: String,
    pub promoted: bool,
    /// How it fulfils, in the network's words ("Pick-up", "Mail order").
    pub tags: Vec<String>,
    /// What the patient pays, when the network has a price there.
    pub price: Option<PriceView>,
    /// When, per prescription, in the network's words.
    pub delivery: Vec<String>,
}

/// An offer's price for all of the order's prescriptions, in dollars.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PriceView {
    pub kind: Option<PriceKind>,
    /// What the patient pays.
    pub total: Option<f64>,
    /// The list price.
    pub retail: Option<f64>,
    pub savings: Option<f64>,
}

/// How a price is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum PriceKind {
    Cash,
    Insurance,
    Membership,
}

/// One input the network applied, rejected or could not decide.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangeNote {
    /// The input it is about, e.g. `clinical.allergies.add.0`.
    pub key: String,
    pub label: String,
    pub status: ChangeStatus,
    pub severity: ChangeSeverity,
    pub reason: Option<String>,
    pub options: Vec<ChoiceView>,
}
