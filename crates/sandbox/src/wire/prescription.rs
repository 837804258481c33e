//! Prescriptions: the record with its screening answer and signing details,
//! candidates of an ambiguous draft match, and the inputs.

use async_graphql::{Enum, ID, InputObject, SimpleObject};
use serde::{Deserialize, Serialize};

use super::change::{ChangeCategory, ChangeOption};
use super::patient::{DiagnosesPatch, Diagnosis, PatientDemographic, PatientReferenceInput};
use super::scalars::Date;

#[derive(Clone, SimpleObject)]
pub struct Prescription {
    pub id: ID,
    pub status: Option<DraftStatus>,
    pub template_id: Option<ID>,
    pub patient: Option<PatientReference>,
    pub treatment: Treatment,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
    pub clinical: Option<PrescriptionClinical>,
    pub screening_alerts: Option<Vec<ScreeningAlert>>,
    pub signing: PrescriptionSigningDetails,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PatientReference {
    pub id: ID,
    pub demographic: Option<PatientDemographic>,
}

#[derive(Debug, Clone, PartialEq, Eq, SimpleObject, Serialize, Deserialize)]
pub struct Treatment {
    pub id: ID,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, SimpleObject, Serialize, Deserialize)]
pub struct Dispense {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PrescriptionClinical {
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(Clone, SimpleObject)]
pub struct ScreeningAlert {
    pub severity: ScreeningSeverity,
    #[graphql(name = "type")]
    pub kind: ScreeningAlertType,
    pub description: String,
    pub involved_entities: Vec<InvolvedEntity>,
    pub category: ChangeCategory,
    pub options: Option<Vec<ChangeOption>>,
}

#[derive(Clone, SimpleObject)]
pub struct InvolvedEntity {
    pub id: ID,
    pub name: String,
}

/// `contentHash` covers the drug, the sig and the dispense (not notes or diagnoses).
#[derive(Debug, Clone, SimpleObject)]
pub struct PrescriptionSigningDetails {
    pub state: PrescriptionSigningState,
    pub content_hash: String,
    pub message: Option<String>,
    pub signed_at: Option<Date>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum DraftStatus {
    Ready,
    Warning,
    Blocked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum PrescriptionSigningState {
    Unsigned,
    Signed,
    InvalidatedSign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ScreeningSeverity {
    Minor,
    Moderate,
    Major,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ScreeningAlertType {
    Drug,
    Allergen,
    Condition,
}

/// Documented by the network without saying where it is used; part of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum CatalogEntityKind {
    Medication,
    MedicalEquipment,
    Compound,
    Substance,
}

/// The patient has several drafts in progress: nothing was saved.
#[derive(Debug, Clone, SimpleObject)]
pub struct AmbiguousPrescriptionMatch {
    pub candidates: Vec<PrescriptionCandidate>,
    pub reason: String,
}

#[derive(Clone, SimpleObject)]
pub struct PrescriptionCandidate {
    pub id: ID,
    pub instructions: Option<String>,
    pub dispense: Option<Dispense>,
}

#[derive(Clone, Default, InputObject)]
pub struct PrescriptionInput {
    pub id: Option<ID>,
    pub external_id: Option<String>,
    pub patient: Option<PatientReferenceInput>,
    pub template_id: Option<ID>,
    pub treatment: Option<TreatmentReferenceInput>,
    /// The sig.
    pub instructions: Option<String>,
    pub dispense: Option<DispenseInput>,
    pub clinical: Option<PrescriptionClinicalInput>,
    /// Sent alone (no other change in the same call), by a prescriber's user token.
    pub signing: Option<PrescriptionSigningDetailsInput>,
}

/// Exactly one of the fields.
#[derive(Debug, Clone, Default, InputObject)]
pub struct TreatmentReferenceInput {
    pub id: Option<ID>,
    pub rx_norm_id: Option<String>,
    pub name: Option<String>,
    pub ndc: Option<String>,
    pub upc: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct DispenseInput {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills_allowed: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PrescriptionClinicalInput {
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PrescriptionSigningDetailsInput {
    pub signed_hash: Option<String>,
    pub message: Option<String>,
}

// Patient data: `Debug` prints ids and states only.
crate::redact::redacted_debug! {
    Prescription { id }
    ScreeningAlert { severity }
    InvolvedEntity { id }
    PrescriptionCandidate { id }
    PrescriptionInput { id }
}
