//! Patients both ways: the network's record and candidates as the UI's record and
//! summaries; the patient form and clinical edits, checked, as the network's
//! demographics and list patches.

use rxdesk_client::network::documents as net;

use super::input::{id, plain_text, trimmed};
use super::vocabulary::{medication_status, net_medication_status, net_sex, sex};
use crate::ipc::{
    ClinicalEdit, ClinicalEntry, CommandError, EntryInput, MedicationEntry, PatientInput,
    PatientRecord, PatientSummary, RecordKind,
};
use crate::links::link;

fn full_name(first: &str, middle: Option<&str>, last: &str) -> String {
    [Some(first), middle, Some(last)]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn patient_record(p: net::Patient) -> PatientRecord {
    let id = p.id.into_inner();
    let d = p.demographic;
    let name = d.as_ref().map(|d| d.name.clone());
    let first = name
        .as_ref()
        .and_then(|n| n.first.clone())
        .unwrap_or_default();
    let middle = name.as_ref().and_then(|n| n.middle.clone());
    let last = name
        .as_ref()
        .and_then(|n| n.last.clone())
        .unwrap_or_default();
    let clinical = p.clinical;
    PatientRecord {
        link: link(RecordKind::Patient, &id),
        full_name: full_name(&first, middle.as_deref(), &last),
        id,
        first_name: first,
        middle_name: middle,
        last_name: last,
        date_of_birth: d
            .as_ref()
            .and_then(|d| d.date_of_birth.clone())
            .map(|d| d.0),
        sex: d.as_ref().and_then(|d| d.sex).map(sex),
        email: d.as_ref().and_then(|d| d.email.clone()),
        phone: d.as_ref().and_then(|d| d.phone.clone()),
        allergies: clinical
            .iter()
            .flat_map(|c| &c.allergies)
            .map(|a| ClinicalEntry {
                id: a.id.inner().to_owned(),
                name: a.name.clone(),
                code: a.rx_norm_id.clone(),
            })
            .collect(),
        medications: clinical
            .iter()
            .flat_map(|c| &c.medications)
            .map(|m| MedicationEntry {
                id: m.id.inner().to_owned(),
                name: m.name.clone(),
                code: m.rx_norm_id.clone(),
                status: medication_status(m.status),
            })
            .collect(),
        diagnoses: clinical
            .iter()
            .flat_map(|c| &c.diagnoses)
            .map(diagnosis)
            .collect(),
    }
}

pub(crate) fn diagnosis(d: &net::Diagnosis) -> ClinicalEntry {
    ClinicalEntry {
        id: d.id.inner().to_owned(),
        name: d
            .name
            .clone()
            .or_else(|| d.icd10_code.clone())
            .unwrap_or_default(),
        code: d.icd10_code.clone(),
    }
}

pub fn patient_summary(record: &PatientRecord) -> PatientSummary {
    PatientSummary {
        id: record.id.clone(),
        name: record.full_name.clone(),
        date_of_birth: record.date_of_birth.clone(),
    }
}

pub fn candidate_summary(c: &net::PatientCandidate) -> PatientSummary {
    PatientSummary {
        id: c.id.inner().to_owned(),
        name: full_name(
            &c.first_name,
            None,
            c.last_name.as_deref().unwrap_or_default(),
        ),
        date_of_birth: c.date_of_birth.clone().map(|d| d.0),
    }
}

/// Every text of the patient form, checked.
pub fn check_patient_input(input: &PatientInput) -> Result<(), CommandError> {
    plain_text("firstName", "First name", &input.first_name)?;
    plain_text("lastName", "Last name", &input.last_name)?;
    plain_text("dateOfBirth", "Date of birth", &input.date_of_birth)?;
    plain_text("email", "Email", input.email.as_deref().unwrap_or_default())?;
    plain_text("phone", "Phone", input.phone.as_deref().unwrap_or_default())
}

/// Every name typed into a clinical edit, checked.
pub fn check_clinical_edit(edit: &ClinicalEdit) -> Result<(), CommandError> {
    for (entries, field, label) in [
        (&edit.add_allergies, "allergy", "The allergy"),
        (&edit.add_medications, "medication", "The medication"),
        (&edit.add_diagnoses, "diagnosis", "The diagnosis"),
    ] {
        for entry in entries {
            plain_text(field, label, entry.name.as_deref().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// The patient form as the network's demographics: every field sent as typed
/// (trimmed), so a blank required field comes back named by the network.
pub fn demographic_input(input: &PatientInput) -> net::PatientDemographicInput {
    net::PatientDemographicInput {
        name: Some(net::HumanNameInput {
            first: Some(input.first_name.trim().to_owned()),
            last: Some(input.last_name.trim().to_owned()),
            ..Default::default()
        }),
        date_of_birth: trimmed(Some(&input.date_of_birth)).map(net::Date),
        sex: input.sex.map(net_sex),
        email: trimmed(input.email.as_deref()),
        phone: trimmed(input.phone.as_deref()),
        ..Default::default()
    }
}

fn some_vec<T>(v: Vec<T>) -> Option<Vec<T>> {
    (!v.is_empty()).then_some(v)
}

/// The clinical edit as the network's patches (lists left alone when untouched).
pub fn clinical_input(edit: &ClinicalEdit) -> net::PatientClinicalInput {
    let allergies_add: Vec<_> = edit
        .add_allergies
        .iter()
        .map(|e| net::AllergyReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            ..Default::default()
        })
        .collect();
    let allergies_remove: Vec<_> = edit
        .remove_allergies
        .iter()
        .map(|i| net::AllergyReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let allergies = if edit.no_known_allergies {
        Some(net::AllergiesPatch {
            none: Some(true),
            ..Default::default()
        })
    } else if allergies_add.is_empty() && allergies_remove.is_empty() {
        None
    } else {
        Some(net::AllergiesPatch {
            add: some_vec(allergies_add),
            remove: some_vec(allergies_remove),
            none: None,
        })
    };
    let medications_add: Vec<_> = edit
        .add_medications
        .iter()
        .map(|e| net::MedicationReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            status: e.status.map(net_medication_status),
            ..Default::default()
        })
        .collect();
    let medications_remove: Vec<_> = edit
        .remove_medications
        .iter()
        .map(|i| net::MedicationReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let medications = (!medications_add.is_empty() || !medications_remove.is_empty()).then(|| {
        net::MedicationsPatch {
            add: some_vec(medications_add),
            remove: some_vec(medications_remove),
            ..Default::default()
        }
    });
    let diagnoses_add: Vec<_> = edit
        .add_diagnoses
        .iter()
        .map(|e| net::DiagnosisReferenceInput {
            id: e.id.as_deref().map(id),
            name: entry_name(e),
            ..Default::default()
        })
        .collect();
    let diagnoses_remove: Vec<_> = edit
        .remove_diagnoses
        .iter()
        .map(|i| net::DiagnosisReferenceInput {
            id: Some(id(i)),
            ..Default::default()
        })
        .collect();
    let diagnoses =
        (!diagnoses_add.is_empty() || !diagnoses_remove.is_empty()).then(|| net::DiagnosesPatch {
            add: some_vec(diagnoses_add),
            remove: some_vec(diagnoses_remove),
            none: None,
        });
    net::PatientClinicalInput {
        allergies,
        medications,
        diagnoses,
        notes: None,
    }
}

/// A name only when no id was chosen (an entry names itself one way).
fn entry_name(e: &EntryInput) -> Option<String> {
    if e.id.is_some() {
        None
    } else {
        trimmed(e.name.as_deref())
    }
}
