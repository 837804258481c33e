//! Patients: summaries and the record with its clinical lists, the patient form
//! and clinical edits, and the network's answer to them ([`PatientOutcome`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::common::ChangeNote;
use super::vocabulary::{MedicationStatus, Sex};

/// A patient as a search candidate or a row of "Recent patients": enough to
/// choose, nothing more.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientSummary {
    pub id: String,
    pub name: String,
    pub date_of_birth: Option<String>,
}

/// An allergy or diagnosis on the patient's record (or a prescription's).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClinicalEntry {
    pub id: String,
    pub name: String,
    /// RxNorm id (allergies) or ICD-10 code (diagnoses); `null` when uncoded.
    pub code: Option<String>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MedicationEntry {
    pub id: String,
    pub name: String,
    pub code: Option<String>,
    pub status: MedicationStatus,
}

/// A patient with their clinical record, fetched live.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientRecord {
    pub id: String,
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub full_name: String,
    pub date_of_birth: Option<String>,
    pub sex: Option<Sex>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub allergies: Vec<ClinicalEntry>,
    pub medications: Vec<MedicationEntry>,
    pub diagnoses: Vec<ClinicalEntry>,
    /// `rxdesk://patient/…`
    pub link: String,
}

/// The patient form (add and edit demographics).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientInput {
    pub first_name: String,
    pub last_name: String,
    /// `YYYY-MM-DD`.
    pub date_of_birth: String,
    pub sex: Option<Sex>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// One entry to add to a clinical list: by the name typed, or by the id of the
/// option the user chose when the network found the name ambiguous.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EntryInput {
    pub name: Option<String>,
    pub id: Option<String>,
    /// Medications only.
    pub status: Option<MedicationStatus>,
}

/// Changes to the clinical record, sent as the network's patches.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ClinicalEdit {
    pub add_allergies: Vec<EntryInput>,
    /// Ids of allergies on the record.
    pub remove_allergies: Vec<String>,
    /// Records "no known allergies" (clears the list).
    pub no_known_allergies: bool,
    pub add_medications: Vec<EntryInput>,
    pub remove_medications: Vec<String>,
    pub add_diagnoses: Vec<EntryInput>,
    pub remove_diagnoses: Vec<String>,
}

/// The network's answer to adding or changing a patient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PatientOutcome {
    /// Saved; `notes` are the inputs not applied as sent (ambiguous names with
    /// their options, advisories).
    Saved {
        patient: Box<PatientRecord>,
        notes: Vec<ChangeNote>,
    },
    /// The details fit people already on record: choose one, or add with more
    /// detail. Nothing was saved.
    Candidates {
        reason: String,
        candidates: Vec<PatientSummary>,
    },
    /// Nothing saved, for these reasons (missing or invalid fields, named).
    NotSaved { problems: Vec<ChangeNote> },
}

// Patient data: `Debug` prints ids and states only.
rxdesk_client::redacted_debug! {
    PatientSummary { id }
    ClinicalEntry { id, code }
    MedicationEntry { id, code, status }
    PatientRecord { id }
    PatientInput { sex }
    EntryInput { id, status }
    ClinicalEdit { no_known_allergies }
}
