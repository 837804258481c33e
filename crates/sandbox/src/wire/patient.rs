//! Patients: the record (demographics and clinical lists), candidates of an
//! ambiguous match, and the inputs with their list patches.

use async_graphql::{Enum, ID, InputObject, SimpleObject, Union};
use serde::{Deserialize, Serialize};

use super::errors::UpstreamServiceError;
use super::location::AddressInput;
use super::pharmacy::{Pharmacy, PharmacyReferenceInput};
use super::scalars::Date;

#[derive(Debug, Clone, SimpleObject)]
pub struct Patient {
    pub id: ID,
    pub demographic: Option<PatientDemographic>,
    pub clinical: Option<PatientClinical>,
}

/// A patient as read back after a call, or why it could not be read.
#[derive(Debug, Clone, Union)]
pub enum PatientRecordResult {
    Patient(Box<Patient>),
    UpstreamServiceError(UpstreamServiceError),
}

#[derive(Clone, SimpleObject)]
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

#[derive(Clone, SimpleObject)]
pub struct HumanName {
    pub title: Option<String>,
    pub first: Option<String>,
    pub middle: Option<String>,
    pub last: Option<String>,
}

#[derive(Clone, Default, PartialEq, Eq, SimpleObject, Serialize, Deserialize)]
pub struct PatientAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

#[derive(Clone, SimpleObject)]
pub struct Benefit {
    pub id: ID,
    pub bin: String,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: String,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PatientClinical {
    pub allergies: Vec<Allergy>,
    pub medications: Vec<MedicationHistoryEntry>,
    pub diagnoses: Vec<Diagnosis>,
    pub notes: Option<String>,
}

#[derive(Clone, SimpleObject)]
pub struct Allergy {
    pub id: ID,
    pub name: String,
    pub rx_norm_id: Option<String>,
}

#[derive(Clone, SimpleObject)]
pub struct MedicationHistoryEntry {
    pub id: ID,
    pub name: String,
    pub rx_norm_id: Option<String>,
    pub status: MedicationHistoryStatus,
}

#[derive(Clone, SimpleObject)]
pub struct Diagnosis {
    pub id: ID,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Sex {
    Male,
    Female,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MedicationHistoryStatus {
    Active,
    Historical,
    Unknown,
}

/// Several patients could be meant: nothing was saved.
#[derive(Debug, Clone, SimpleObject)]
pub struct AmbiguousPatientMatch {
    pub candidates: Vec<PatientCandidate>,
    pub reason: String,
}

#[derive(Clone, SimpleObject)]
pub struct PatientCandidate {
    pub id: ID,
    pub first_name: String,
    pub last_name: Option<String>,
    pub date_of_birth: Option<Date>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PatientInput {
    pub id: Option<ID>,
    pub demographic: Option<PatientDemographicInput>,
    pub clinical: Option<PatientClinicalInput>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PatientReferenceInput {
    pub id: Option<ID>,
    pub demographic: Option<PatientDemographicInput>,
}

#[derive(Clone, Default, InputObject)]
pub struct PatientDemographicInput {
    pub name: Option<HumanNameInput>,
    pub date_of_birth: Option<Date>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    /// Required to send an order (the patient is texted a link); not to add a patient.
    pub phone: Option<String>,
    pub address: Option<AddressInput>,
    pub benefits: Option<BenefitsPatch>,
    pub preferred_pharmacy: Option<PharmacyReferenceInput>,
}

#[derive(Clone, Default, InputObject)]
pub struct HumanNameInput {
    pub first: Option<String>,
    pub last: Option<String>,
    pub middle: Option<String>,
    pub title: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct BenefitsPatch {
    pub add: Option<Vec<BenefitReferenceInput>>,
    pub update: Option<Vec<BenefitReferenceInput>>,
    pub remove: Option<Vec<BenefitReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Clone, Default, InputObject)]
pub struct BenefitReferenceInput {
    pub id: Option<ID>,
    pub bin: Option<String>,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct PatientClinicalInput {
    pub allergies: Option<AllergiesPatch>,
    pub medications: Option<MedicationsPatch>,
    pub diagnoses: Option<DiagnosesPatch>,
    pub notes: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct AllergiesPatch {
    pub add: Option<Vec<AllergyReferenceInput>>,
    pub remove: Option<Vec<AllergyReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Clone, Default, InputObject)]
pub struct AllergyReferenceInput {
    pub id: Option<ID>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct MedicationsPatch {
    pub add: Option<Vec<MedicationReferenceInput>>,
    pub update: Option<Vec<MedicationReferenceInput>>,
    pub remove: Option<Vec<MedicationReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Clone, Default, InputObject)]
pub struct MedicationReferenceInput {
    pub id: Option<ID>,
    pub name: Option<String>,
    pub rx_norm_id: Option<String>,
    pub status: Option<MedicationHistoryStatus>,
}

#[derive(Debug, Clone, Default, InputObject)]
pub struct DiagnosesPatch {
    pub add: Option<Vec<DiagnosisReferenceInput>>,
    pub remove: Option<Vec<DiagnosisReferenceInput>>,
    pub none: Option<bool>,
}

#[derive(Clone, Default, InputObject)]
pub struct DiagnosisReferenceInput {
    pub id: Option<ID>,
    pub name: Option<String>,
    pub icd10_code: Option<String>,
}

// Patient data: `Debug` prints ids and states only.
crate::redact::redacted_debug! {
    HumanName {  }
    PatientDemographic { sex }
    PatientAddress {  }
    Benefit { id }
    Allergy { id }
    MedicationHistoryEntry { id }
    Diagnosis { id }
    PatientCandidate { id }
    PatientDemographicInput { sex }
    HumanNameInput {  }
    BenefitReferenceInput { id }
    AllergyReferenceInput { id }
    MedicationReferenceInput { id }
    DiagnosisReferenceInput { id }
}
