//! Patients: summaries and the record (address, insurance, preferred pharmacy,
//! clinical lists), the patient form, insurance and clinical edits, and the
//! network's answer to them ([`PatientOutcome`], [`PreferredPharmacyAnswer`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::common::{ChangeNote, ChoiceView};
use super::orders::PharmacyView;
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
    /// Free text, as the network keeps it.
    pub gender: Option<String>,
    pub address: Option<PatientAddress>,
    /// Insurance on file.
    pub benefits: Vec<BenefitView>,
    pub preferred_pharmacy: Option<PharmacyView>,
    /// The clinical record's notes.
    pub notes: Option<String>,
    pub allergies: Vec<ClinicalEntry>,
    pub medications: Vec<MedicationEntry>,
    pub diagnoses: Vec<ClinicalEntry>,
    /// `rxdesk://patient/…`
    pub link: String,
}

/// A postal address, each part as typed (`""` when not given). On the form, an
/// address with every part blank is no address; any part given sends it, and
/// the network wants its `country`.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PatientAddress {
    pub street1: String,
    pub street2: String,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
}

/// An insurance card (a benefit) on file.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BenefitView {
    pub id: String,
    pub bin: String,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: String,
}

/// An insurance card as typed on the form (`""` when not given).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BenefitInput {
    pub bin: String,
    pub pcn: String,
    pub group_id: String,
    pub member_id: String,
}

/// One change to the patient's insurance, sent as the network's benefits patch.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BenefitEdit {
    Add {
        benefit: BenefitInput,
    },
    /// `onFile` as it was shown, `benefit` as corrected. The network changes
    /// a card's pcn and group id in place; another bin or member id is another
    /// card: the one on file is removed and the corrected one added, in one call.
    #[serde(rename_all = "camelCase")]
    Correct {
        on_file: BenefitView,
        benefit: BenefitInput,
    },
    Remove {
        id: String,
    },
}

/// The patient form (add and edit demographics, and the record's notes).
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
    /// The fields below: `null` leaves what is on file; `""` clears it.
    #[serde(default)]
    #[ts(optional)]
    pub middle_name: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub gender: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub address: Option<PatientAddress>,
    #[serde(default)]
    #[ts(optional)]
    pub notes: Option<String>,
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
    /// Medications on the record whose status changes (the network's `update`).
    #[serde(default)]
    pub update_medications: Vec<MedicationStatusChange>,
    pub add_diagnoses: Vec<EntryInput>,
    pub remove_diagnoses: Vec<String>,
}

/// A medication on the record and its new status.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MedicationStatusChange {
    pub id: String,
    pub status: MedicationStatus,
}

/// The network's answer to a search for the patient's preferred pharmacy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PreferredPharmacyAnswer {
    /// Exactly one fitted: the network made it the preferred pharmacy.
    Chosen { patient: Box<PatientRecord> },
    /// Choose one (`choose_preferred_pharmacy` with its value).
    Options { options: Vec<ChoiceView> },
    /// None fitted: the network's reasons.
    Nothing { reasons: Vec<ChangeNote> },
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
    PatientAddress {  }
    BenefitView { id }
    BenefitInput {  }
    BenefitEdit {  }
    MedicationStatusChange { id, status }
    EntryInput { id, status }
    ClinicalEdit { no_known_allergies }
}
