//! Prescriptions: the drug, dispense and screening alerts of a draft, the draft
//! form, the templates offered for it, the network's answer to it, and signing
//! (requests, results, progress).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::actions::Resumed;
use super::common::{ChangeNote, ChoiceView, CommandError};
use super::patients::ClinicalEntry;
use super::vocabulary::{AlertKind, AlertSeverity, DraftStatus, SigningState};

/// Event carrying signing progress ([`SigningProgress`]).
pub const EVENT_SIGNING: &str = "rxdesk://signing";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DrugView {
    pub id: String,
    pub name: String,
    pub rx_norm_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DispenseView {
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills: Option<i32>,
    pub dispense_as_written: Option<bool>,
}

/// A screening alert on a draft.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AlertView {
    pub severity: AlertSeverity,
    pub kind: AlertKind,
    pub description: String,
    /// The drugs, allergies or conditions involved, by name.
    pub involved: Vec<String>,
    /// An alternative drug, when the network offers one.
    pub alternatives: Vec<ChoiceView>,
}

/// A prescription, draft or signed, exactly as the network holds it now.
#[derive(Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionView {
    pub id: String,
    pub patient_id: Option<String>,
    /// `null` once signed.
    pub status: Option<DraftStatus>,
    pub signing: SigningState,
    /// What a signature of this content must quote.
    pub content_hash: String,
    pub signed_at: Option<String>,
    pub template_id: Option<String>,
    pub drug: DrugView,
    pub instructions: Option<String>,
    pub dispense: DispenseView,
    pub diagnoses: Vec<ClinicalEntry>,
    /// The note to the pharmacy (`clinical.notes`): signed with the rest, but
    /// not part of the content hash.
    pub notes: Option<String>,
    pub alerts: Vec<AlertView>,
    /// `rxdesk://prescription/…`
    pub link: String,
}

/// The draft form: a new draft (from a template or a drug) or changes to one.
/// Empty fields are not sent.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DraftForm {
    pub template_id: Option<String>,
    /// The drug chosen from the look-up's options.
    pub drug_id: Option<String>,
    pub instructions: Option<String>,
    pub quantity: Option<f64>,
    pub unit: Option<String>,
    pub days_supply: Option<i32>,
    pub refills: Option<i32>,
    /// No substitution: part of the dispense, so part of the content hash.
    #[serde(default)]
    pub dispense_as_written: Option<bool>,
    /// The note to the pharmacy (`clinical.notes`).
    #[serde(default)]
    pub notes: Option<String>,
    /// Diagnoses to add (`clinical.diagnoses.add`, a patch: adding one on
    /// file already changes nothing).
    #[serde(default)]
    pub add_diagnoses: Vec<DiagnosisPick>,
    /// Diagnoses on the draft to remove, by id (`clinical.diagnoses.remove`).
    #[serde(default)]
    pub remove_diagnoses: Vec<String>,
}

/// A diagnosis to add to a prescription: the id of a look-up's option (or of
/// a diagnosis the network has coded), or — kept uncoded by the network — a
/// name alone (`id` null).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosisPick {
    pub id: Option<String>,
    /// As shown to the user ("E11.9 Type 2 diabetes…"); sent only when `id` is null.
    pub name: String,
}

/// A template drafted from at this workstation, offered by name on the draft
/// form: catalog data, never patient data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TemplateView {
    pub id: String,
    /// The template's own name, when the network said it.
    pub name: Option<String>,
    /// The drug the template produced, as the network named it.
    pub drug_name: String,
}

/// The network's answer to drafting or changing a prescription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PrescriptionOutcome {
    Saved {
        prescription: Box<PrescriptionView>,
        notes: Vec<ChangeNote>,
        /// Set when an earlier attempt of this new draft had saved it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        resumed: Option<Resumed>,
    },
    NotSaved {
        problems: Vec<ChangeNote>,
    },
}

/// A signature request: the draft and the content hash the prescriber saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignRequest {
    pub id: String,
    pub content_hash: String,
}

/// What happened to one signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SignResult {
    Signed {
        prescription: PrescriptionView,
    },
    /// The prescription changed since it was reviewed: `current` is what it
    /// says now; review it and sign again.
    Invalidated {
        current: PrescriptionView,
        reason: String,
    },
    /// Not signed, for the network's reasons (blocked by screening, already signed…).
    Rejected {
        id: String,
        reasons: Vec<ChangeNote>,
    },
    /// The call itself failed (a refusal, trouble reaching the network).
    Failed {
        id: String,
        error: CommandError,
    },
}

/// Signing progress, sent as [`EVENT_SIGNING`] while a batch runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SigningProgress {
    pub done: u32,
    pub total: u32,
    /// The draft whose answer just came (none at the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub answered: Option<String>,
}

// Patient data: `Debug` prints ids and states only.
rxdesk_client::redacted_debug! {
    AlertView { severity, kind }
    PrescriptionView { id, status, signing }
    DraftForm { template_id, drug_id }
    DiagnosisPick { id }
}
