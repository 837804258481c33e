//! The network's vocabularies as string unions in TypeScript: sex, medication
//! status, draft status, signing state, alert severity and kind, order state,
//! fulfillment, change status and severity, and the kinds of record.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A patient's sex as the network records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Sex {
    Female,
    Male,
    Unknown,
}

/// Whether the patient takes a medication of their history now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MedicationStatus {
    Active,
    Historical,
    Unknown,
}

/// A draft's screening verdict: `BLOCKED` drafts cannot be signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DraftStatus {
    Ready,
    Warning,
    Blocked,
}

/// Where a prescription stands with its signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SigningState {
    Unsigned,
    Signed,
    /// The content changed after it was reviewed: review and sign again.
    InvalidatedSign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlertSeverity {
    Minor,
    Moderate,
    Major,
}

/// What a screening alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlertKind {
    Drug,
    Allergen,
    Condition,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

/// What went wrong with a sent order, as the network names it
/// (`OrderExceptionType`): the pharmacy was closed, could not be reached…
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExceptionKind {
    OrderError,
    DemographicMismatch,
    PharmacyUnreachable,
    PharmacyClosed,
    ExternalTransfer,
    PharmacyDoesNotAcceptInsurance,
    PharmacyNeedsInsuranceInfo,
    SupervisingPhysicianNeeded,
    DoctorNotLicensedInState,
}

/// How a pharmacy hands prescriptions over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Fulfillment {
    PickUp,
    MailOrder,
}

/// What the network did with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeStatus {
    Applied,
    Rejected,
    /// Several things could be meant: a person chooses one of the options.
    Ambiguous,
}

/// How much a change matters: `BLOCKING` means nothing was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeSeverity {
    Info,
    Advisory,
    Blocking,
}

/// The kinds of record a link or the local index names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum RecordKind {
    Patient,
    Prescription,
    Order,
}
