//! Prescriptions both ways: the network's prescription as the UI's view; the
//! draft form, checked, as the network's prescription input; a saved draft's
//! template as the local index keeps it, and as the draft form offers it.

use rxdesk_client::network::Choice;
use rxdesk_client::network::documents as net;

use super::common::choice_view;
use super::input::{id, plain_text, trimmed};
use super::patients::diagnosis;
use super::vocabulary::{alert_kind, alert_severity, draft_status, signing_state};
use crate::index::UsedTemplate;
use crate::ipc::{
    AlertView, CommandError, DiagnosisPick, DispenseView, DraftForm, DrugView, PrescriptionView,
    RecordKind, TemplateView,
};
use crate::links::link;

pub fn prescription_view(p: net::Prescription) -> PrescriptionView {
    let id = p.id.into_inner();
    let dispense = p.dispense.unwrap_or_default();
    PrescriptionView {
        link: link(RecordKind::Prescription, &id),
        id,
        patient_id: p.patient.map(|r| r.id.into_inner()),
        status: p.status.map(draft_status),
        signing: signing_state(p.signing.state),
        content_hash: p.signing.content_hash,
        signed_at: p.signing.signed_at.map(|d| d.0),
        template_id: p.template_id.map(cynic::Id::into_inner),
        drug: DrugView {
            id: p.treatment.id.into_inner(),
            name: p.treatment.name,
            rx_norm_id: p.treatment.rx_norm_id,
        },
        instructions: p.instructions,
        dispense: DispenseView {
            quantity: dispense.quantity,
            unit: dispense.unit,
            days_supply: dispense.days_supply,
            refills: dispense.refills_allowed,
            dispense_as_written: dispense.dispense_as_written,
        },
        diagnoses: p
            .clinical
            .iter()
            .flat_map(|c| &c.diagnoses)
            .map(diagnosis)
            .collect(),
        notes: p.clinical.as_ref().and_then(|c| c.notes.clone()),
        alerts: p
            .screening_alerts
            .unwrap_or_default()
            .iter()
            .map(|a| AlertView {
                severity: alert_severity(a.severity),
                kind: alert_kind(a.kind),
                description: a.description.clone(),
                involved: a.involved_entities.iter().map(|e| e.name.clone()).collect(),
                alternatives: a
                    .options
                    .iter()
                    .flatten()
                    .map(|o| choice_view(&Choice::from(o)))
                    .collect(),
            })
            .collect(),
    }
}

/// Every text of the draft form, checked.
pub fn check_draft_form(form: &DraftForm) -> Result<(), CommandError> {
    plain_text(
        "instructions",
        "Instructions",
        form.instructions.as_deref().unwrap_or_default(),
    )?;
    plain_text("unit", "Unit", form.unit.as_deref().unwrap_or_default())?;
    plain_text(
        "notes",
        "Note to the pharmacy",
        form.notes.as_deref().unwrap_or_default(),
    )?;
    for pick in &form.add_diagnoses {
        plain_text("diagnoses", "Diagnosis", &pick.name)?;
        plain_text(
            "diagnoses",
            "Diagnosis id",
            pick.id.as_deref().unwrap_or_default(),
        )?;
    }
    for removed in &form.remove_diagnoses {
        plain_text("diagnoses", "Diagnosis id", removed)?;
    }
    plain_text(
        "templateId",
        "Template id",
        form.template_id.as_deref().unwrap_or_default(),
    )
}

/// The draft form as the network's prescription input (fields left empty are
/// not sent; the patient only on a new draft).
pub fn prescription_input(patient_id: Option<&str>, form: &DraftForm) -> net::PrescriptionInput {
    // One exhaustive destructure: a field added to the form does not compile
    // until it is placed here (sent, or said why not), so none is dropped silently.
    let DraftForm {
        template_id,
        drug_id,
        instructions,
        quantity,
        unit,
        days_supply,
        refills,
        dispense_as_written,
        notes,
        add_diagnoses,
        remove_diagnoses,
    } = form;
    let dispense = net::DispenseInput {
        quantity: *quantity,
        unit: trimmed(unit.as_deref()),
        days_supply: *days_supply,
        refills_allowed: *refills,
        dispense_as_written: *dispense_as_written,
    };
    let has_dispense = dispense.quantity.is_some()
        || dispense.unit.is_some()
        || dispense.days_supply.is_some()
        || dispense.refills_allowed.is_some()
        || dispense.dispense_as_written.is_some();
    net::PrescriptionInput {
        patient: patient_id.map(|p| net::PatientReferenceInput { id: Some(id(p)) }),
        template_id: trimmed(template_id.as_deref()).map(|t| id(&t)),
        treatment: trimmed(drug_id.as_deref()).map(|d| net::TreatmentReferenceInput {
            id: Some(id(&d)),
            ..Default::default()
        }),
        instructions: trimmed(instructions.as_deref()),
        dispense: has_dispense.then_some(dispense),
        clinical: prescription_clinical(notes.as_deref(), add_diagnoses, remove_diagnoses),
        // The rest is not the form's: `id` and `externalId` are set by the
        // workflow (an Update names the draft; a create carries its key), and
        // `signing` is only ever sent by the Sign call.
        ..Default::default()
    }
}

/// The form's note and diagnoses as the network's `clinical` input: the
/// diagnoses as a patch (`add`, `remove`), so a repeat changes nothing.
fn prescription_clinical(
    notes: Option<&str>,
    add_diagnoses: &[DiagnosisPick],
    remove_diagnoses: &[String],
) -> Option<net::PrescriptionClinicalInput> {
    let add: Vec<net::DiagnosisReferenceInput> = add_diagnoses
        .iter()
        .filter_map(|pick| match trimmed(pick.id.as_deref()) {
            Some(dx) => Some(net::DiagnosisReferenceInput {
                id: Some(id(&dx)),
                ..Default::default()
            }),
            None => trimmed(Some(&pick.name)).map(|name| net::DiagnosisReferenceInput {
                name: Some(name),
                ..Default::default()
            }),
        })
        .collect();
    let remove: Vec<net::DiagnosisReferenceInput> = remove_diagnoses
        .iter()
        .filter_map(|dx| trimmed(Some(dx)))
        .map(|dx| net::DiagnosisReferenceInput {
            id: Some(id(&dx)),
            ..Default::default()
        })
        .collect();
    let diagnoses = (!add.is_empty() || !remove.is_empty()).then(|| net::DiagnosesPatch {
        add: (!add.is_empty()).then_some(add),
        remove: (!remove.is_empty()).then_some(remove),
        none: None,
    });
    let notes = trimmed(notes);
    (diagnoses.is_some() || notes.is_some())
        .then_some(net::PrescriptionClinicalInput { diagnoses, notes })
}

/// The draft form of "Prescribe again": the signed prescription's drug, sig and
/// dispense (dispense-as-written included) and its diagnoses, as they were
/// signed (a renewal is a new prescription; the network screens it afresh).
/// A coded diagnosis is named by its id, an uncoded one by its name (the
/// network keeps it uncoded again). The note to the pharmacy was about that
/// fill and is not carried.
pub fn again_form(signed: &PrescriptionView) -> DraftForm {
    DraftForm {
        template_id: None,
        drug_id: Some(signed.drug.id.clone()),
        instructions: signed.instructions.clone(),
        quantity: signed.dispense.quantity,
        unit: signed.dispense.unit.clone(),
        days_supply: signed.dispense.days_supply,
        refills: signed.dispense.refills,
        dispense_as_written: signed.dispense.dispense_as_written,
        notes: None,
        add_diagnoses: signed
            .diagnoses
            .iter()
            .map(|d| DiagnosisPick {
                id: d.code.is_some().then(|| d.id.clone()),
                name: d.name.clone(),
            })
            .collect(),
        remove_diagnoses: Vec::new(),
    }
}

/// What `form` says that the prescription `saved` does not hold, as a form of
/// only those fields; `None` when it holds all of it. Empty fields of the form
/// were not sent and are not compared. Used when an earlier attempt of a new
/// draft saved it from an older form: the difference becomes an Update.
pub fn form_changes(form: &DraftForm, saved: &PrescriptionView) -> Option<DraftForm> {
    fn differs<T: PartialEq>(sent: Option<T>, held: Option<T>) -> Option<T> {
        match sent {
            Some(value) if Some(&value) != held.as_ref() => Some(value),
            _ => None,
        }
    }
    let d = &saved.dispense;
    let changes = DraftForm {
        template_id: differs(
            trimmed(form.template_id.as_deref()),
            saved.template_id.clone(),
        ),
        drug_id: differs(
            trimmed(form.drug_id.as_deref()),
            Some(saved.drug.id.clone()),
        ),
        instructions: differs(
            trimmed(form.instructions.as_deref()),
            saved.instructions.clone(),
        ),
        quantity: differs(form.quantity, d.quantity),
        unit: differs(trimmed(form.unit.as_deref()), d.unit.clone()),
        days_supply: differs(form.days_supply, d.days_supply),
        refills: differs(form.refills, d.refills),
        dispense_as_written: differs(form.dispense_as_written, d.dispense_as_written),
        notes: differs(trimmed(form.notes.as_deref()), saved.notes.clone()),
        add_diagnoses: form
            .add_diagnoses
            .iter()
            .filter(|pick| {
                !saved.diagnoses.iter().any(|held| match &pick.id {
                    Some(id) => *id == held.id,
                    None => held.code.is_none() && held.name.eq_ignore_ascii_case(pick.name.trim()),
                })
            })
            .cloned()
            .collect(),
        remove_diagnoses: form
            .remove_diagnoses
            .iter()
            .filter(|id| saved.diagnoses.iter().any(|held| held.id == **id))
            .cloned()
            .collect(),
    };
    (changes != DraftForm::default()).then_some(changes)
}

/// The template `form` drafted `saved` from, named as the network answered:
/// `None` unless the form named a template alone (a drug chosen beside it
/// wins, so the drug would not be the template's) and the network applied it.
pub fn used_template(
    form: &DraftForm,
    saved: &net::Prescription,
    applied: &[net::Change],
) -> Option<UsedTemplate> {
    let asked = trimmed(form.template_id.as_deref())?;
    if trimmed(form.drug_id.as_deref()).is_some()
        || saved.template_id.as_ref().map(cynic::Id::inner) != Some(asked.as_str())
    {
        return None;
    }
    // The applied `templateId` change resolves the template, naming it.
    let name = applied
        .iter()
        .filter(|c| c.key == "templateId" && c.status == net::ChangeStatus::Applied)
        .find_map(|c| match &c.detail {
            net::ChangeDetail::EntityResolutionDetail(d) => d.input_text.clone(),
            _ => None,
        })
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty() && *name != asked);
    Some(UsedTemplate {
        id: asked,
        name,
        drug_name: saved.treatment.name.clone(),
    })
}

/// The template of `form` when the network refused it as unknown in the
/// organization (`templateId` rejected as invalid input, blocking the call;
/// not one only rolled back because another input failed).
pub fn refused_template(form: &DraftForm, unapplied: &[net::Change]) -> Option<String> {
    let asked = trimmed(form.template_id.as_deref())?;
    unapplied
        .iter()
        .any(|c| {
            c.key == "templateId"
                && c.status == net::ChangeStatus::Rejected
                && c.severity == net::ChangeSeverity::Blocking
                && c.category == Some(net::ChangeCategory::InvalidInput)
        })
        .then_some(asked)
}

pub fn template_view(template: UsedTemplate) -> TemplateView {
    TemplateView {
        id: template.id,
        name: template.name,
        drug_name: template.drug_name,
    }
}
