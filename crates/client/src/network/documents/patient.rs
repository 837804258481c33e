//! Patients: the record (demographics, benefits, clinical lists), its result and
//! payload, candidates of an ambiguous match, the inputs with their list patches,
//! and the call shapes on `patient` (Get, Find, Sync, Update, FindPreferredPharmacy).

use cynic::Id;

use super::change::Change;
use super::common::{
    AddressInput, Date, RequestMetadata, UnauthorizedError, UpstreamServiceError, call_shape,
    schema,
};
use super::pharmacy::{Pharmacy, PharmacyReferenceInput};

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sex {
    Male,
    Female,
    Unknown,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MedicationHistoryStatus {
    Active,
    Historical,
    Unknown,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Patient {
    pub id: Id,
    pub demographic: Option<PatientDemographic>,
    pub clinical: Option<PatientClinical>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientDemographic {
    pub name: HumanName,
    pub date_of_birth: Option<Date>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<PatientAddress>,
    pub benefits: Vec<Benefit>,
    pub preferred_pharmacy: Option<Pharmacy>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct HumanName {
    pub title: Option<String>,
    pub first: Option<String>,
    pub middle: Option<String>,
    pub last: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Benefit {
    pub id: Id,
    pub bin: String,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientClinical {
    pub allergies: Vec<Allergy>,
    pub medications: Vec<MedicationHistoryEntry>,
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Allergy {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct MedicationHistoryEntry {
    pub id: Id,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub status: MedicationHistoryStatus,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct Diagnosis {
    pub id: Id,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PatientRecordResult {
    Patient(Patient),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PatientPayload {
    pub patient: Option<PatientRecordResult>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct AmbiguousPatientMatch {
    pub reason: String,
    pub candidates: Vec<PatientCandidate>,
}

#[derive(cynic::QueryFragment, Clone)]
pub struct PatientCandidate {
    pub id: Id,
    pub first_name: String,
    pub last_name: Option<String>,
    pub date_of_birth: Option<Date>,
}

// Decoded once and taken apart at once (outcome.rs): boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(cynic::InlineFragments, Debug, Clone)]
pub enum PatientResult {
    PatientPayload(PatientPayload),
    AmbiguousPatientMatch(AmbiguousPatientMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
    #[cynic(fallback)]
    Unknown,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientInput {
    pub id: Option<Id>,
    pub demographic: Option<PatientDemographicInput>,
    pub clinical: Option<PatientClinicalInput>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientReferenceInput {
    pub id: Option<Id>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct PatientDemographicInput {
    pub name: Option<HumanNameInput>,
    pub date_of_birth: Option<Date>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<AddressInput>,
    pub benefits: Option<BenefitsPatch>,
    pub preferred_pharmacy: Option<PharmacyReferenceInput>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct HumanNameInput {
    pub first: Option<String>,
    pub last: Option<String>,
    pub middle: Option<String>,
    pub title: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct BenefitsPatch {
    pub add: Option<Vec<BenefitReferenceInput>>,
    pub update: Option<Vec<BenefitReferenceInput>>,
    pub remove: Option<Vec<BenefitReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct BenefitReferenceInput {
    pub id: Option<Id>,
    pub bin: Option<String>,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct PatientClinicalInput {
    pub allergies: Option<AllergiesPatch>,
    pub medications: Option<MedicationsPatch>,
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct AllergiesPatch {
    pub add: Option<Vec<AllergyReferenceInput>>,
    pub remove: Option<Vec<AllergyReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct AllergyReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct MedicationsPatch {
    pub add: Option<Vec<MedicationReferenceInput>>,
    pub update: Option<Vec<MedicationReferenceInput>>,
    pub remove: Option<Vec<MedicationReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct MedicationReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
    pub status: Option<MedicationHistoryStatus>,
}

#[derive(cynic::InputObject, Debug, Clone, Default)]
pub struct DiagnosesPatch {
    pub add: Option<Vec<DiagnosisReferenceInput>>,
    pub remove: Option<Vec<DiagnosisReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(cynic::InputObject, Clone, Default)]
pub struct DiagnosisReferenceInput {
    pub id: Option<Id>,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PatientArguments {
    pub patient: PatientInput,
    pub metadata: RequestMetadata,
}

call_shape! {
    GetPatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    FindPatients => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    SyncPatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    UpdatePatient => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
    FindPreferredPharmacy => patient: PatientResult, "PatientArguments", (patient: $patient, metadata: $metadata);
}

// Patient data: `Debug` prints ids and states only.
crate::redacted_debug! {
    HumanName {  }
    PatientDemographic { sex }
    PatientAddress {  }
    Benefit { id }
    Allergy { id }
    MedicationHistoryEntry { id, status }
    Diagnosis { id }
    PatientCandidate { id }
    PatientDemographicInput { sex }
    HumanNameInput {  }
    BenefitReferenceInput { id }
    AllergyReferenceInput { id }
    MedicationReferenceInput { id, status }
    DiagnosisReferenceInput { id }
}
