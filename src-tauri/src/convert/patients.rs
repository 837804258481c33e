//! Patients both ways: the network's record and candidates as the UI's record and
//! summaries; the patient form and clinical edits, checked, as the network's
//! demographics and list patches.

use rxdesk_client::network::documents as net;

use super::input::{id, plain_text, trimmed};
use super::orders::pharmacy_view;
use super::vocabulary::{medication_status, net_medication_status, net_sex, sex};
use crate::ipc::{
    BenefitEdit, BenefitInput, BenefitView, ClinicalEdit, ClinicalEntry, CommandError, EntryInput,
    MedicationEntry, PatientAddress, PatientInput, PatientRecord, PatientSummary, RecordKind,
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
        gender: d.as_ref().and_then(|d| d.gender.clone()),
        address: d.as_ref().and_then(|d| d.address.as_ref()).map(address),
        benefits: d
            .iter()
            .flat_map(|d| &d.benefits)
            .map(|b| BenefitView {
                id: b.id.inner().to_owned(),
                bin: b.bin.clone(),
                pcn: b.pcn.clone(),
                group_id: b.group_id.clone(),
                member_id: b.member_id.clone(),
            })
            .collect(),
        preferred_pharmacy: d
            .as_ref()
            .and_then(|d| d.preferred_pharmacy.clone())
            .map(pharmacy_view),
        notes: clinical.as_ref().and_then(|c| c.notes.clone()),
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

fn address(a: &net::PatientAddress) -> PatientAddress {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    PatientAddress {
        street1: text(&a.street1),
        street2: text(&a.street2),
        city: text(&a.city),
        state: text(&a.state),
        postal_code: text(&a.postal_code),
        country: text(&a.country),
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
    plain_text("phone", "Phone", input.phone.as_deref().unwrap_or_default())?;
    plain_text(
        "middleName",
        "Middle name",
        input.middle_name.as_deref().unwrap_or_default(),
    )?;
    plain_text(
        "gender",
        "Gender",
        input.gender.as_deref().unwrap_or_default(),
    )?;
    if let Some(a) = &input.address {
        for (field, label, value) in [
            ("street1", "Street", &a.street1),
            ("street2", "Street, second line", &a.street2),
            ("city", "City", &a.city),
            ("state", "State", &a.state),
            ("postalCode", "Postal code", &a.postal_code),
            ("country", "Country", &a.country),
        ] {
            plain_text(field, label, value)?;
        }
    }
    plain_text("notes", "Notes", input.notes.as_deref().unwrap_or_default())
}

/// Every text of an insurance edit, checked.
pub fn check_benefit_edit(edit: &BenefitEdit) -> Result<(), CommandError> {
    let (BenefitEdit::Add { benefit } | BenefitEdit::Correct { benefit, .. }) = edit else {
        return Ok(());
    };
    for (field, label, value) in [
        ("bin", "BIN", &benefit.bin),
        ("pcn", "PCN", &benefit.pcn),
        ("groupId", "Group id", &benefit.group_id),
        ("memberId", "Member id", &benefit.member_id),
    ] {
        plain_text(field, label, value)?;
    }
    Ok(())
}

/// An insurance edit as the network's benefits patch. A card's bin and member
/// id are sent trimmed, and left out when blank, so the network names what is
/// missing; pcn and group id sent blank on a correction clear them.
pub fn benefits_input(edit: &BenefitEdit) -> net::BenefitsPatch {
    let card = |b: &BenefitInput| net::BenefitReferenceInput {
        id: None,
        bin: trimmed(Some(&b.bin)),
        pcn: trimmed(Some(&b.pcn)),
        group_id: trimmed(Some(&b.group_id)),
        member_id: trimmed(Some(&b.member_id)),
    };
    let on_file = |benefit_id: &str| net::BenefitReferenceInput {
        id: Some(id(benefit_id)),
        ..Default::default()
    };
    match edit {
        BenefitEdit::Add { benefit } => net::BenefitsPatch {
            add: Some(vec![card(benefit)]),
            ..Default::default()
        },
        BenefitEdit::Remove { id: benefit_id } => net::BenefitsPatch {
            remove: Some(vec![on_file(benefit_id)]),
            ..Default::default()
        },
        BenefitEdit::Correct {
            on_file: was,
            benefit,
        } => {
            let same = benefit.bin.trim() == was.bin && benefit.member_id.trim() == was.member_id;
            if same {
                net::BenefitsPatch {
                    update: Some(vec![net::BenefitReferenceInput {
                        pcn: Some(benefit.pcn.trim().to_owned()),
                        group_id: Some(benefit.group_id.trim().to_owned()),
                        ..on_file(&was.id)
                    }]),
                    ..Default::default()
                }
            } else {
                net::BenefitsPatch {
                    remove: Some(vec![on_file(&was.id)]),
                    add: Some(vec![card(benefit)]),
                    ..Default::default()
                }
            }
        }
    }
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
/// The middle name, gender and notes as set (`""` clears); the address when
/// any part of it is given (blank parts left out, so a missing country comes
/// back named by the network).
pub fn demographic_input(input: &PatientInput) -> net::PatientDemographicInput {
    let set = |v: &Option<String>| v.as_deref().map(|v| v.trim().to_owned());
    net::PatientDemographicInput {
        name: Some(net::HumanNameInput {
            first: Some(input.first_name.trim().to_owned()),
            last: Some(input.last_name.trim().to_owned()),
            middle: set(&input.middle_name),
            ..Default::default()
        }),
        date_of_birth: trimmed(Some(&input.date_of_birth)).map(net::Date),
        sex: input.sex.map(net_sex),
        gender: set(&input.gender),
        email: trimmed(input.email.as_deref()),
        phone: trimmed(input.phone.as_deref()),
        address: input.address.as_ref().and_then(address_input),
        ..Default::default()
    }
}

fn address_input(a: &PatientAddress) -> Option<net::AddressInput> {
    let address = net::AddressInput {
        street1: trimmed(Some(&a.street1)),
        street2: trimmed(Some(&a.street2)),
        city: trimmed(Some(&a.city)),
        state: trimmed(Some(&a.state)),
        postal_code: trimmed(Some(&a.postal_code)),
        country: trimmed(Some(&a.country)),
    };
    let given = [
        &address.street1,
        &address.street2,
        &address.city,
        &address.state,
        &address.postal_code,
        &address.country,
    ]
    .iter()
    .any(|p| p.is_some());
    given.then_some(address)
}

/// The form as sent to add someone: a blank middle name, gender or notes is
/// left out rather than sent as "clear it" — the network may match someone on
/// record, whom a Sync updates with what was sent.
pub fn for_adding(input: &PatientInput) -> PatientInput {
    let given = |v: &Option<String>| v.as_deref().and_then(|v| trimmed(Some(v)));
    PatientInput {
        middle_name: given(&input.middle_name),
        gender: given(&input.gender),
        notes: given(&input.notes),
        ..input.clone()
    }
}

/// The record's notes from the patient form, when it sets them (`""` clears).
pub fn notes_input(input: &PatientInput) -> Option<net::PatientClinicalInput> {
    input.notes.as_ref().map(|notes| net::PatientClinicalInput {
        notes: Some(notes.trim().to_owned()),
        ..Default::default()
    })
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
    let medications_update: Vec<_> = edit
        .update_medications
        .iter()
        .map(|m| net::MedicationReferenceInput {
            id: Some(id(&m.id)),
            status: Some(net_medication_status(m.status)),
            ..Default::default()
        })
        .collect();
    let medications = (!medications_add.is_empty()
        || !medications_remove.is_empty()
        || !medications_update.is_empty())
    .then(|| net::MedicationsPatch {
        add: some_vec(medications_add),
        update: some_vec(medications_update),
        remove: some_vec(medications_remove),
        none: None,
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
