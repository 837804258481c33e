//! Prescriptions: the record (treatment, sig, dispense, screening alerts, signing
//! details with the content hash), its result and payload, candidates of an
//! ambiguous match, the inputs, and the call shapes on `prescription` (look up a
//! drug or a diagnosis, draft, update, sign, get).

use cynic::Id;

use super::change::{Change, ChangeCategory, ChangeOption};
use super::common::{
    Date, RequestMetadata, UnauthorizedError, UpstreamServiceError, call_shape, schema,
};
use super::patient::{DiagnosesPatch, Diagnosis, PatientReferenceInput};

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftStatus {
    Ready,
    Warning,
    Blocked,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrescriptionSigningState {
    Unsigned,
    Signed,
    InvalidatedSign,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ScreeningSeverity {
    Minor,
    Moderate,
    Major,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreeningAlertType {
    Drug,
    Allergen,
    Condition,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Prescription {
    pub id: Id,
    pub status: Option<DraftStatus>,
    pub template_id: Option<Id>,
    pub patient: Option<PatientReference>,
    pub treatment: Treatment,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
    pub clinical: Option<PrescriptionClinical>,
    pub screening_alerts: Option<Vec<ScreeningAlert>>,
    pub signing: PrescriptionSigningDetails,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientReference {
    pub id: Id,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Treatment {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone, Default, PartialEq)]
pub struct Dispense {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionClinical {
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct ScreeningAlert {
    pub severity: ScreeningSeverity,
    #[cynic(rename = "type")]
    pub kind: ScreeningAlertType,
    pub description: String,
    pub involved_entities: Vec<InvolvedEntity>,
    pub category: ChangeCategory,
    pub options: Option<Vec<ChangeOption>>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct InvolvedEntity {
    pub id: Id,
    pub name: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionSigningDetails {
    pub state: PrescriptionSigningState,
    pub content_hash: String,
    pub message: Option<String>,
    pub signed_at: Option<Date>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PrescriptionPayload {
    pub prescription: Option<Prescription>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousPrescriptionMatch {
    pub reason: String,
    pub candidates: Vec<PrescriptionCandidate>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PrescriptionCandidate {
    pub id: Id,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PrescriptionResult {
    PrescriptionPayload(PrescriptionPayload),
    AmbiguousPrescriptionMatch(AmbiguousPrescriptionMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct PrescriptionInput {
    pub id: Option<Id>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub template_id: Option<Id>,
    pub treatment: Option<TreatmentReferenceInput>,
    pub instructions: Option<String>,
    pub dispense: Option<DispenseInput>,
    pub clinical: Option<PrescriptionClinicalInput>,
    pub signing: Option<PrescriptionSigningDetailsInput>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct TreatmentReferenceInput {
    pub id: Option<Id>,
    pub rx_norm_id: Option<String>,
    pub name: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct DispenseInput {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionClinicalInput {
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PrescriptionSigningDetailsInput {
    pub signed_hash: Option<String>,
    pub message: Option<String>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PrescriptionArguments {
    pub prescription: PrescriptionInput,
    pub metadata: RequestMetadata,
}

call_shape! {
    LookUpDrug => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    LookUpDiagnosis => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    DraftPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    UpdatePrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    SignPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
    GetPrescription => prescription: PrescriptionResult, "PrescriptionArguments", (prescription: $prescription, metadata: $metadata);
}

// Patient data: `Debug` prints ids and states only.
crate::redacted_debug! {
    Prescription { id, status, signing }
    ScreeningAlert { severity, kind }
    InvolvedEntity { id }
    PrescriptionCandidate { id }
    PrescriptionInput { id, template_id }
}
