//! Orders: the record (prescriptions, pharmacy, exceptions), its result and
//! payload, candidates of an ambiguous match, the inputs, and the call shapes on
//! `order` (get, draft, update, send, cancel, find pharmacies).

use cynic::Id;

use super::change::Change;
use super::common::{
    DateTime, RequestMetadata, UnauthorizedError, UpstreamServiceError, call_shape, schema,
};
use super::patient::{PatientRecordResult, PatientReferenceInput};
use super::pharmacy::{Pharmacy, PharmacyReferenceInput};
use super::prescription::Prescription;

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderState {
    Draft,
    Submitted,
    Canceled,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Order {
    pub id: Id,
    pub state: OrderState,
    pub patient: Option<PatientRecordResult>,
    pub prescriptions: Vec<Prescription>,
    pub pharmacy: Option<Pharmacy>,
    pub exceptions: Vec<OrderException>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderException {
    pub id: Id,
    #[cynic(rename = "type")]
    pub kind: OrderExceptionType,
    pub message: Option<String>,
    pub created_at: DateTime,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderPayload {
    pub order: Option<Order>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousOrderMatch {
    pub reason: String,
    pub candidates: Vec<OrderCandidate>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct OrderCandidate {
    pub id: Id,
    pub pharmacy_id: Option<Id>,
    pub prescription_ids: Vec<Id>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum OrderResult {
    OrderPayload(OrderPayload),
    AmbiguousOrderMatch(AmbiguousOrderMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub prescriptions: Option<OrderPrescriptionsPatch>,
    pub pharmacy: Option<OrderPharmacyInput>,
    pub state: Option<OrderState>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderPrescriptionsPatch {
    pub add: Option<Vec<PrescriptionReferenceInput>>,
    pub remove: Option<Vec<PrescriptionReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionReferenceInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct OrderPharmacyInput {
    pub pharmacy: Option<PharmacyReferenceInput>,
    pub none: Option<bool>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct OrderArguments {
    pub order: OrderInput,
    pub metadata: RequestMetadata,
}

call_shape! {
    GetOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    DraftOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    UpdateOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    SendOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    CancelOrder => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
    FindPharmacies => order: OrderResult, "OrderArguments", (order: $order, metadata: $metadata);
}
