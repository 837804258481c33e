//! Orders: the order with its exceptions, candidates of an ambiguous order match,
//! and the inputs (pharmacies are in `pharmacy.rs`).

use async_graphql::{Enum, ID, InputObject, SimpleObject};
use serde::{Deserialize, Serialize};

use super::patient::{PatientRecordResult, PatientReferenceInput};
use super::pharmacy::{Pharmacy, PharmacyReferenceInput};
use super::prescription::Prescription;
use super::scalars::DateTime;

#[derive(Debug, Clone, SimpleObject)]
pub struct Order {
    pub id: ID,
    pub state: OrderState,
    pub patient: Option<PatientRecordResult>,
    pub prescriptions: Vec<Prescription>,
    pub pharmacy: Option<Pharmacy>,
    pub exceptions: Vec<OrderException>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OrderException {
    pub id: ID,
    #[graphql(name = "type")]
    pub kind: OrderExceptionType,
    pub message: Option<String>,
    pub created_at: DateTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

impl OrderState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Submitted => "SUBMITTED",
            Self::Canceled => "CANCELED",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderExceptionType {
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

/// The patient has several draft orders: nothing was saved.
#[derive(Debug, Clone, SimpleObject)]
pub struct AmbiguousOrderMatch {
    pub candidates: Vec<OrderCandidate>,
    pub reason: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OrderCandidate {
    pub id: ID,
    pub pharmacy_id: Option<ID>,
    pub prescription_ids: Vec<ID>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderInput {
    pub id: Option<ID>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub prescriptions: Option<OrderPrescriptionsPatch>,
    /// `{ pharmacy: … }` to choose one, `{ none: true }` to leave it to the patient.
    pub pharmacy: Option<OrderPharmacyInput>,
    /// `SUBMITTED` sends; `CANCELED` only from `SUBMITTED`.
    pub state: Option<OrderState>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderPrescriptionsPatch {
    pub add: Option<Vec<PrescriptionReferenceInput>>,
    pub remove: Option<Vec<PrescriptionReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PrescriptionReferenceInput {
    pub id: Option<ID>,
    pub external_id: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct OrderPharmacyInput {
    pub pharmacy: Option<PharmacyReferenceInput>,
    pub none: Option<bool>,
}
