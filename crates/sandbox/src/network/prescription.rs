//! The `prescription` upsert: Get, drug and diagnosis look-ups, drafting (from a treatment or a
//! template, continuing a draft in progress), Update and Sign by content hash
//! (a signer repeating their own signature gets the signed prescription back,
//! unchanged). Every answer is screened against the patient's record as it is now.

use async_graphql::ID;

use super::call::Call;
use super::call_shape::{PrescriptionCall, PrescriptionEdit};
use super::changes::{Changes, entity_option};
use super::clinical::{self, At, ListKind};
use super::present;
use super::types::{
    AmbiguousPrescriptionMatch, Change, ChangeCategory, ChangeOperation, ChangeSeverity,
    ChangeStatus, DiagnosisReferenceInput, DispenseInput, DraftStatus, EntityMatchType,
    PatientReferenceInput, PrescriptionCandidate, PrescriptionPayload, PrescriptionResult,
    PrescriptionSigningDetailsInput, Treatment, TreatmentReferenceInput,
};
use crate::catalog::resolve::{self, Found};
use crate::catalog::{DiagnosisEntry, MedicationEntry, TemplateEntry};
use crate::store::StoreError;
use crate::store::records::{self, PatientDoc, PrescriptionDoc, new_id, now};

struct Answer<'a> {
    doc: Option<&'a PrescriptionDoc>,
    patient: Option<&'a PatientDoc>,
    invalidated: bool,
}

impl Answer<'_> {
    /// No prescription: a refusal, a look-up, nothing found.
    const NONE: Answer<'static> = Answer {
        doc: None,
        patient: None,
        invalidated: false,
    };
}

fn payload(call: &Call<'_>, answer: Answer<'_>, changes: Changes) -> PrescriptionResult {
    PrescriptionResult::PrescriptionPayload(Box::new(PrescriptionPayload {
        prescription: answer
            .doc
            .map(|d| present::prescription(call.catalog, d, answer.patient, answer.invalidated)),
        applied_changes: changes.applied,
        unapplied_changes: changes.unapplied,
    }))
}

fn only(changes: Change) -> Changes {
    let mut all = Changes::default();
    all.push(changes);
    all
}

fn unknown_id(id: &str) -> Change {
    Change::rejected(
        "id",
        "Prescription",
        ChangeCategory::InvalidInput,
        format!("No prescription with id `{id}` in your organization"),
    )
}

/// The refusal of a create whose `externalId` already names a `record` (a
/// prescription, an order) of another patient; shared with `order.rs`.
pub(super) fn external_id_of_another_patient(record: &str) -> Change {
    Change::rejected(
        "externalId",
        "External id",
        ChangeCategory::InvalidInput,
        format!(
            "This externalId already names a {record} of another patient: an externalId names one record for good, and a repeat must send the same patient. Nothing was saved; make a new externalId for this {record}"
        ),
    )
}

pub fn run(call: &Call<'_>, shape: PrescriptionCall) -> Result<PrescriptionResult, StoreError> {
    match shape {
        PrescriptionCall::Sign { id, signing, alone } => sign(call, id, signing, alone),
        PrescriptionCall::Get { id } => get(call, id.as_str()),
        PrescriptionCall::Update {
            id,
            external_id,
            patient,
            edit,
        } => update(call, id.as_str(), external_id, patient, edit),
        PrescriptionCall::LookUp {
            external_id,
            treatment,
        } => match by_external_id(call, external_id.as_deref(), None)? {
            Some(existing) => Ok(existing),
            None => Ok(look_up(call, &treatment)),
        },
        PrescriptionCall::LookUpDiagnoses { entries } => Ok(look_up_diagnoses(call, &entries)),
        PrescriptionCall::Draft {
            external_id,
            patient,
            edit,
        } => match (
            by_external_id(
                call,
                external_id.as_deref(),
                patient
                    .as_ref()
                    .and_then(|p| p.id.as_ref())
                    .map(|id| id.as_str()),
            )?,
            patient,
        ) {
            (Some(existing), _) => Ok(existing),
            (None, Some(patient)) => draft(call, external_id, patient, edit),
            (None, None) => Ok(payload(
                call,
                Answer::NONE,
                only(Change::rejected(
                    "patient",
                    "Patient",
                    ChangeCategory::MissingInput,
                    "A draft needs the patient's id (a treatment alone is a look-up)",
                )),
            )),
        },
    }
}

/// The prescription already written under `external_id`, answered as it is —
/// unless the call names another patient (`patient`): a known key with another
/// patient is not a repeat, so it is refused in words, nothing saved and no
/// record answered (as a payment API answers a reused idempotency key with other
/// parameters).
fn by_external_id(
    call: &Call<'_>,
    external_id: Option<&str>,
    patient: Option<&str>,
) -> Result<Option<PrescriptionResult>, StoreError> {
    if let Some(external_id) = external_id
        && let Some(existing) =
            records::prescription_by_external_id(call.conn()?, call.org, external_id)?
    {
        if patient.is_some_and(|other| other != existing.patient_id) {
            return Ok(Some(payload(
                call,
                Answer::NONE,
                only(external_id_of_another_patient("prescription")),
            )));
        }
        let patient = records::patient(call.conn()?, call.org, &existing.patient_id)?;
        let answer = Answer {
            doc: Some(&existing),
            patient: patient.as_ref(),
            invalidated: false,
        };
        return Ok(Some(payload(call, answer, Changes::default())));
    }
    Ok(None)
}

/// Exactly one identifier of the treatment, resolved against the catalog.
fn resolve_treatment<'c>(
    call: &Call<'c>,
    reference: &TreatmentReferenceInput,
) -> Result<(&'c MedicationEntry, EntityMatchType), Box<Change>> {
    let catalog = call.catalog;
    let given = [
        reference.id.is_some(),
        reference.rx_norm_id.is_some(),
        reference.name.is_some(),
        reference.ndc.is_some(),
        reference.upc.is_some(),
    ];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(Box::new(Change::rejected(
            "treatment",
            "Treatment",
            ChangeCategory::InvalidInput,
            "Name the treatment by exactly one of id, rxNormId, name, ndc or upc",
        )));
    }
    let found = if let Some(id) = &reference.id {
        catalog.medication(id.as_str()).map_or(Found::Nothing, |m| {
            Found::One(m, EntityMatchType::ExactNameMatch)
        })
    } else if let Some(code) = &reference.rx_norm_id {
        resolve::by_code(
            &catalog.medications,
            code,
            |m| m.rx_norm_id.as_deref(),
            EntityMatchType::RxnormCodeMatch,
        )
    } else if let Some(code) = &reference.ndc {
        resolve::by_code(
            &catalog.medications,
            code,
            |m| m.ndc.as_deref(),
            EntityMatchType::ExactNameMatch,
        )
    } else if let Some(code) = &reference.upc {
        resolve::by_code(
            &catalog.medications,
            code,
            |m| m.upc.as_deref(),
            EntityMatchType::ExactNameMatch,
        )
    } else {
        resolve::by_name(
            &catalog.medications,
            reference.name.as_deref().unwrap_or_default(),
            |m| &m.name,
        )
    };
    let input = input_text(reference);
    match found {
        Found::One(m, how) => Ok((m, how)),
        Found::Several(items) => {
            let n = items.len();
            Err(Box::new(Change::ambiguous(
                "treatment",
                "Treatment",
                Some(&input),
                format!(
                    "\"{input}\" matches {n} treatments: send again with one of the options' treatment.id, or a more specific reference"
                ),
                items
                    .into_iter()
                    .map(|(m, how)| {
                        entity_option("prescription", "treatment.id", &m.id, &m.name, how)
                    })
                    .collect(),
            )))
        }
        Found::Nothing => Err(Box::new(Change::rejected(
            "treatment",
            "Treatment",
            ChangeCategory::InvalidInput,
            format!("No treatment in the catalog fits \"{input}\""),
        ))),
    }
}

fn input_text(reference: &TreatmentReferenceInput) -> String {
    [
        reference.name.as_deref(),
        reference.rx_norm_id.as_deref(),
        reference.id.as_ref().map(|i| i.as_str()),
        reference.ndc.as_deref(),
        reference.upc.as_deref(),
    ]
    .into_iter()
    .flatten()
    .next()
    .unwrap_or_default()
    .to_owned()
}

fn treatment_of(m: &MedicationEntry) -> Treatment {
    Treatment {
        id: m.id.clone().into(),
        name: m.name.clone(),
        rx_norm_id: m.rx_norm_id.clone(),
        ndc: m.ndc.clone(),
        upc: m.upc.clone(),
    }
}

/// A look-up: every fitting drug as an option; nothing is created.
fn look_up(call: &Call<'_>, reference: &TreatmentReferenceInput) -> PrescriptionResult {
    let input = input_text(reference);
    let items: Vec<(&MedicationEntry, EntityMatchType)> = match &reference.name {
        Some(name)
            if reference.id.is_none()
                && reference.rx_norm_id.is_none()
                && reference.ndc.is_none()
                && reference.upc.is_none() =>
        {
            resolve::matches_by_name(&call.catalog.medications, name, |m| &m.name)
        }
        _ => match resolve_treatment(call, reference) {
            Ok(one) => vec![one],
            Err(change) if change.status == ChangeStatus::Ambiguous => {
                let mut change = *change;
                change.severity = ChangeSeverity::Info;
                return payload(call, Answer::NONE, only(change));
            }
            Err(change) => {
                return payload(call, Answer::NONE, only(*change));
            }
        },
    };
    let change = if items.is_empty() {
        Change::rejected(
            "treatment",
            "Treatment",
            ChangeCategory::InvalidInput,
            format!("No treatment in the catalog fits \"{input}\""),
        )
    } else {
        let n = items.len();
        let mut change = Change::ambiguous(
            "treatment",
            "Treatment",
            Some(&input),
            format!(
                "{n} treatment(s) fit \"{input}\": draft with one of the options' treatment.id. Nothing was created"
            ),
            items
                .into_iter()
                .map(|(m, how)| entity_option("prescription", "treatment.id", &m.id, &m.name, how))
                .collect(),
        );
        change.severity = ChangeSeverity::Info;
        change
    };
    payload(call, Answer::NONE, only(change))
}

/// A diagnosis look-up: for each entry to add, every fitting ICD-10 diagnosis
/// of the catalog as an option (`clinical.diagnoses.add.N.id`); nothing is
/// created. An entry names itself by exactly one of `id`, `icd10Code` (both
/// exact) or `name`: the diagnoses whose name has every word typed, and those
/// whose code starts with it (`e11` finds `E11.9`, `E11.65`, …).
fn look_up_diagnoses(call: &Call<'_>, entries: &[DiagnosisReferenceInput]) -> PrescriptionResult {
    let mut changes = Changes::default();
    for (n, entry) in entries.iter().enumerate() {
        changes.push(look_up_diagnosis(call, n, entry));
    }
    payload(call, Answer::NONE, changes)
}

fn look_up_diagnosis(call: &Call<'_>, n: usize, entry: &DiagnosisReferenceInput) -> Change {
    let key = format!("clinical.diagnoses.add.{n}");
    let catalog = call.catalog;
    let named = [
        entry.id.is_some(),
        entry.name.is_some(),
        entry.icd10_code.is_some(),
    ];
    if named.iter().filter(|x| **x).count() != 1 {
        return Change::rejected(
            key,
            "Diagnosis",
            ChangeCategory::InvalidInput,
            "Name the diagnosis by exactly one of id, name or icd10Code",
        );
    }
    fn exact(d: Option<&DiagnosisEntry>) -> Vec<(&DiagnosisEntry, EntityMatchType)> {
        d.map(|d| (d, EntityMatchType::ExactNameMatch))
            .into_iter()
            .collect()
    }
    let (input, items) = if let Some(id) = &entry.id {
        (
            id.as_str().to_owned(),
            exact(catalog.diagnosis(id.as_str())),
        )
    } else if let Some(code) = &entry.icd10_code {
        (code.clone(), exact(catalog.diagnosis_by_code(code.trim())))
    } else {
        let text = entry.name.clone().unwrap_or_default();
        let mut items = resolve::matches_by_name(&catalog.diagnoses, &text, |d| &d.name);
        let code = code_key(&text);
        if code.len() >= 2 {
            for d in &catalog.diagnoses {
                let full = code_key(&d.icd10_code);
                if full.starts_with(&code) && !items.iter().any(|(i, _)| i.id() == d.id()) {
                    let how = if full == code {
                        EntityMatchType::ExactNameMatch
                    } else {
                        EntityMatchType::FuzzyNameMatch
                    };
                    items.push((d, how));
                }
            }
        }
        items.truncate(resolve::MAX_OPTIONS);
        (text, items)
    };
    if items.is_empty() {
        return Change::rejected(
            key,
            "Diagnosis",
            ChangeCategory::InvalidInput,
            format!("No diagnosis in the catalog fits \"{input}\""),
        );
    }
    let count = items.len();
    let argument = format!("{key}.id");
    let mut change = Change::ambiguous(
        key,
        "Diagnosis",
        Some(&input),
        format!(
            "{count} diagnosis(es) fit \"{input}\": draft with one of the options' id in clinical.diagnoses.add. Nothing was created"
        ),
        items
            .into_iter()
            .map(|(d, how)| {
                entity_option(
                    "prescription",
                    &argument,
                    &d.id(),
                    &format!("{} {}", d.icd10_code, d.name),
                    how,
                )
            })
            .collect(),
    );
    change.severity = ChangeSeverity::Info;
    change
}

/// An ICD-10 code as compared: upper case, without its dot or spaces. Text
/// that cannot begin a code (a letter, then a digit) compares as nothing.
fn code_key(text: &str) -> String {
    let key: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '.')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let mut chars = key.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_ascii_alphabetic() && b.is_ascii_digit() => key,
        _ => String::new(),
    }
}

/// Applies the sig, dispense, diagnoses and notes of `input` to `doc`.
fn apply_fields(
    call: &Call<'_>,
    doc: &mut PrescriptionDoc,
    input: &PrescriptionEdit,
    changes: &mut Changes,
) {
    // The drug (`template_id`, `treatment`) is `chosen_drug`'s; every other
    // field of the edit is applied here.
    let PrescriptionEdit {
        template_id: _,
        treatment: _,
        instructions,
        dispense,
        clinical,
    } = input;
    if let Some(instructions) = instructions {
        let value = instructions.trim();
        if value.is_empty() {
            changes.push(Change::rejected(
                "instructions",
                "Instructions",
                ChangeCategory::InvalidInput,
                "The sig cannot be blank",
            ));
        } else if doc.instructions.as_deref() != Some(value) {
            changes.push(Change::field(
                "instructions",
                "Instructions",
                doc.instructions.as_deref(),
                Some(value),
            ));
            doc.instructions = Some(value.to_owned());
        }
    }
    if let Some(dispense) = dispense {
        apply_dispense(doc, dispense, changes);
    }
    if let Some(clinical) = clinical {
        if let Some(patch) = clinical.diagnoses.clone() {
            let at = At {
                key: "clinical.diagnoses",
                operation: "prescription",
            };
            clinical::apply(
                call.catalog,
                ListKind::Diagnoses,
                at,
                &mut doc.diagnoses,
                patch.into(),
                changes,
            );
        }
        if let Some(notes) = &clinical.notes {
            let value = Some(notes.trim().to_owned()).filter(|n| !n.is_empty());
            if doc.notes != value {
                changes.push(Change::field(
                    "clinical.notes",
                    "Notes",
                    doc.notes.as_deref(),
                    value.as_deref(),
                ));
                doc.notes = value;
            }
        }
    }
}

fn apply_dispense(doc: &mut PrescriptionDoc, input: &DispenseInput, changes: &mut Changes) {
    let d = &mut doc.dispense;
    let bad = |key: &str, reason: &str| {
        Change::rejected(key, "Dispense", ChangeCategory::InvalidInput, reason)
    };
    if let Some(q) = input.quantity {
        if q.is_finite() && q > 0.0 && q <= 10_000.0 {
            if d.quantity != Some(q) {
                changes.push(Change::field(
                    "dispense.quantity",
                    "Quantity",
                    d.quantity.map(|v| v.to_string()).as_deref(),
                    Some(&q.to_string()),
                ));
                d.quantity = Some(q);
            }
        } else {
            changes.push(bad(
                "dispense.quantity",
                "The quantity must be above 0 (and at most 10,000)",
            ));
        }
    }
    if let Some(unit) = &input.unit {
        if unit.trim().is_empty() {
            changes.push(bad("dispense.unit", "The unit cannot be blank"));
        } else if d.unit.as_deref() != Some(unit.trim()) {
            changes.push(Change::field(
                "dispense.unit",
                "Unit",
                d.unit.as_deref(),
                Some(unit.trim()),
            ));
            d.unit = Some(unit.trim().to_owned());
        }
    }
    if let Some(days) = input.days_supply {
        if (1..=365).contains(&days) {
            if d.days_supply != Some(days) {
                changes.push(Change::field(
                    "dispense.daysSupply",
                    "Days supply",
                    d.days_supply.map(|v| v.to_string()).as_deref(),
                    Some(&days.to_string()),
                ));
                d.days_supply = Some(days);
            }
        } else {
            changes.push(bad("dispense.daysSupply", "Days of supply must be 1–365"));
        }
    }
    if let Some(refills) = input.refills_allowed {
        if (0..=11).contains(&refills) {
            if d.refills_allowed != Some(refills) {
                changes.push(Change::field(
                    "dispense.refillsAllowed",
                    "Refills",
                    d.refills_allowed.map(|v| v.to_string()).as_deref(),
                    Some(&refills.to_string()),
                ));
                d.refills_allowed = Some(refills);
            }
        } else {
            changes.push(bad(
                "dispense.refillsAllowed",
                "Refills allowed must be 0–11",
            ));
        }
    }
    if let Some(daw) = input.dispense_as_written
        && d.dispense_as_written != Some(daw)
    {
        changes.push(Change::field(
            "dispense.dispenseAsWritten",
            "Dispense as written",
            d.dispense_as_written.map(|v| v.to_string()).as_deref(),
            Some(&daw.to_string()),
        ));
        d.dispense_as_written = Some(daw);
    }
}

/// The template's drug, sig and dispense on `doc`.
fn apply_template(
    doc: &mut PrescriptionDoc,
    template: &TemplateEntry,
    treatment: &MedicationEntry,
    changes: &mut Changes,
) {
    doc.template_id = Some(template.id.clone());
    doc.treatment = treatment_of(treatment);
    doc.instructions = Some(template.instructions.clone());
    doc.dispense.quantity = Some(template.dispense.quantity);
    doc.dispense.unit = Some(template.dispense.unit.clone());
    doc.dispense.days_supply = Some(template.dispense.days_supply);
    doc.dispense.refills_allowed = Some(template.dispense.refills_allowed);
    changes.push(Change::resolved(
        "templateId",
        "Template",
        Some(&template.name),
        &template.id,
        ChangeOperation::Added,
    ));
}

/// The template and the drug a draft or update names, or the change that says why not.
fn chosen_drug<'c>(
    call: &Call<'c>,
    input: &PrescriptionEdit,
    changes: &mut Changes,
) -> (Option<&'c TemplateEntry>, Option<&'c MedicationEntry>) {
    let template = match &input.template_id {
        Some(id) => match call.catalog.template(call.org, id.as_str()) {
            Some(t) => Some(t),
            None => {
                changes.push(Change::rejected(
                    "templateId",
                    "Template",
                    ChangeCategory::InvalidInput,
                    format!("No template `{}` in your organization", id.as_str()),
                ));
                None
            }
        },
        None => None,
    };
    let drug = match &input.treatment {
        Some(reference) => match resolve_treatment(call, reference) {
            Ok((m, _)) => Some(m),
            Err(change) => {
                changes.push(*change);
                None
            }
        },
        None => template.and_then(|t| call.catalog.medication(&t.treatment)),
    };
    (template, drug)
}

fn draft(
    call: &Call<'_>,
    external_id: Option<String>,
    patient_ref: PatientReferenceInput,
    input: PrescriptionEdit,
) -> Result<PrescriptionResult, StoreError> {
    let mut changes = Changes::default();
    let none = |changes: Changes| payload(call, Answer::NONE, changes.roll_back());
    let Some(patient_id) = patient_ref.id else {
        changes.push(Change::rejected(
            "patient.id",
            "Patient",
            ChangeCategory::MissingInput,
            "Send the patient's id (sync the patient first to get it)",
        ));
        return Ok(none(changes));
    };
    let Some(patient) = records::patient(call.conn()?, call.org, patient_id.as_str())? else {
        changes.push(super::patient::unknown_id(patient_id.as_str()).with_key("patient.id"));
        return Ok(none(changes));
    };
    let (template, drug) = chosen_drug(call, &input, &mut changes);
    let Some(drug) = drug else {
        if !changes.blocked() {
            changes.push(Change::rejected(
                "treatment",
                "Treatment",
                ChangeCategory::MissingInput,
                "A draft needs a treatment or a templateId",
            ));
        }
        return Ok(none(changes));
    };
    let existing = if external_id.is_some() {
        Vec::new()
    } else {
        records::drafts_in_progress(call.conn()?, call.org, &patient.id, &drug.id)?
    };
    if existing.len() > 1 {
        return Ok(PrescriptionResult::AmbiguousPrescriptionMatch(
            AmbiguousPrescriptionMatch {
                reason: format!(
                    "The patient has {} drafts of {} in progress: send again with the id of the one you mean",
                    existing.len(),
                    drug.name
                ),
                candidates: existing
                    .into_iter()
                    .map(|d| PrescriptionCandidate {
                        id: d.id.into(),
                        instructions: d.instructions,
                        dispense: Some(d.dispense),
                    })
                    .collect(),
            },
        ));
    }
    let continued = existing.into_iter().next();
    let mut doc = continued.clone().unwrap_or_else(|| PrescriptionDoc {
        id: new_id("rx"),
        organization_id: call.org.to_owned(),
        external_id: external_id.clone(),
        patient_id: patient.id.clone(),
        template_id: None,
        treatment: treatment_of(drug),
        instructions: None,
        dispense: Default::default(),
        diagnoses: Vec::new(),
        notes: None,
        signed_at: None,
        signed_by: None,
        signing_message: None,
        created_at: now(),
    });
    match template {
        Some(t) => apply_template(&mut doc, t, drug, &mut changes),
        None if continued.is_none() => changes.push(Change::resolved(
            "treatment",
            "Treatment",
            Some(&drug.name),
            &drug.id,
            ChangeOperation::Added,
        )),
        None => {}
    }
    doc.treatment = treatment_of(drug);
    apply_fields(call, &mut doc, &input, &mut changes);
    if changes.blocked() {
        let answer = Answer {
            doc: continued.as_ref(),
            patient: Some(&patient),
            invalidated: false,
        };
        return Ok(payload(call, answer, changes.roll_back()));
    }
    records::save_prescription(call.conn()?, &doc)?;
    Ok(payload(
        call,
        Answer {
            doc: Some(&doc),
            patient: Some(&patient),
            invalidated: false,
        },
        changes,
    ))
}

fn unknown(call: &Call<'_>, id: &str) -> PrescriptionResult {
    payload(call, Answer::NONE, only(unknown_id(id)))
}

fn get(call: &Call<'_>, id: &str) -> Result<PrescriptionResult, StoreError> {
    let Some(stored) = call.prescription(id)? else {
        return Ok(unknown(call, id));
    };
    let patient = call.patient(&stored.patient_id)?;
    let answer = Answer {
        doc: Some(&stored),
        patient: patient.as_deref(),
        invalidated: false,
    };
    Ok(payload(call, answer, Changes::default()))
}

fn update(
    call: &Call<'_>,
    id: &str,
    external_id: Option<String>,
    patient_ref: Option<PatientReferenceInput>,
    input: PrescriptionEdit,
) -> Result<PrescriptionResult, StoreError> {
    let Some(stored) = call.prescription(id)? else {
        return Ok(unknown(call, id));
    };
    let patient = call.patient(&stored.patient_id)?;
    let mut changes = Changes::default();
    if stored.is_signed() {
        changes.push(Change::rejected(
            "id",
            "Prescription",
            ChangeCategory::InvalidInput,
            "A signed prescription is final: a change means writing a new prescription",
        ));
    }
    if let Some(p) = patient_ref.as_ref().and_then(|p| p.id.as_ref())
        && p.as_str() != stored.patient_id
    {
        changes.push(Change::rejected(
            "patient.id",
            "Patient",
            ChangeCategory::InvalidInput,
            "A prescription's patient cannot change",
        ));
    }
    if let Some(external) = &external_id
        && stored.external_id.as_ref() != Some(external)
    {
        changes.push(Change::rejected(
            "externalId",
            "External id",
            ChangeCategory::InvalidInput,
            "A prescription's externalId cannot change",
        ));
    }
    let mut doc = PrescriptionDoc::clone(&stored);
    let (template, drug) = chosen_drug(call, &input, &mut changes);
    if let (Some(t), Some(m)) = (template, drug) {
        apply_template(&mut doc, t, m, &mut changes);
    } else if let Some(m) = drug
        && doc.treatment.id.as_str() != m.id
    {
        changes.push(Change::field(
            "treatment",
            "Treatment",
            Some(&doc.treatment.name),
            Some(&m.name),
        ));
        doc.treatment = treatment_of(m);
    }
    apply_fields(call, &mut doc, &input, &mut changes);
    let answer_doc = if changes.blocked() { &stored } else { &doc };
    if changes.blocked() {
        let answer = Answer {
            doc: Some(answer_doc),
            patient: patient.as_deref(),
            invalidated: false,
        };
        return Ok(payload(call, answer, changes.roll_back()));
    }
    records::save_prescription(call.conn()?, &doc)?;
    Ok(payload(
        call,
        Answer {
            doc: Some(&doc),
            patient: patient.as_deref(),
            invalidated: false,
        },
        changes,
    ))
}

fn sign(
    call: &Call<'_>,
    id: Option<ID>,
    signing: PrescriptionSigningDetailsInput,
    alone: bool,
) -> Result<PrescriptionResult, StoreError> {
    let nothing = |change: Change| payload(call, Answer::NONE, only(change));
    let Some(id) = id.as_ref() else {
        return Ok(nothing(Change::rejected(
            "id",
            "Prescription",
            ChangeCategory::MissingInput,
            "Signing needs the prescription's id",
        )));
    };
    let Some(stored) = records::prescription(call.conn()?, call.org, id.as_str())? else {
        return Ok(nothing(unknown_id(id.as_str())));
    };
    let patient = records::patient(call.conn()?, call.org, &stored.patient_id)?;
    let refuse = |change: Change, invalidated: bool| {
        let answer = Answer {
            doc: Some(&stored),
            patient: patient.as_ref(),
            invalidated,
        };
        payload(call, answer, only(change))
    };
    if !alone {
        return Ok(refuse(
            Change::rejected(
                "signing",
                "Signature",
                ChangeCategory::InvalidInput,
                "Send signing alone: the id and signing, with no other change in the same call",
            ),
            false,
        ));
    }
    if stored.is_signed() {
        // The same signer sending the same hash again (its first answer was
        // lost): the prescription as it is, no change. Anything else is refused.
        let repeated = signing
            .signed_hash
            .as_deref()
            .is_some_and(|h| h.trim() == present::content_hash(&stored))
            && stored.signed_by.as_deref() == call.user;
        if repeated {
            let answer = Answer {
                doc: Some(&stored),
                patient: patient.as_ref(),
                invalidated: false,
            };
            return Ok(payload(call, answer, Changes::default()));
        }
        return Ok(refuse(
            Change::rejected(
                "signing",
                "Signature",
                ChangeCategory::InvalidInput,
                "Already signed: a signed prescription is final",
            ),
            false,
        ));
    }
    let Some(signed_hash) = signing.signed_hash.as_deref() else {
        return Ok(refuse(
            Change::rejected(
                "signing.signedHash",
                "Signature",
                ChangeCategory::MissingInput,
                "Send the contentHash of what the prescriber reviewed as signedHash",
            ),
            false,
        ));
    };
    if signed_hash.trim() != present::content_hash(&stored) {
        return Ok(refuse(
            Change::rejected(
                "signing.signedHash",
                "Signature",
                ChangeCategory::ConfirmationRequired,
                "INVALIDATED_SIGN: the prescription changed since it was reviewed. Show the prescriber the new content and sign again",
            ),
            true,
        ));
    }
    let (status, alerts) = super::screening::screen(call.catalog, &stored, patient.as_ref());
    if status == DraftStatus::Blocked {
        let why: Vec<String> = alerts.iter().map(|a| a.description.clone()).collect();
        return Ok(refuse(
            Change::rejected(
                "signing",
                "Signature",
                ChangeCategory::Safety,
                format!(
                    "Screening blocks this prescription, so it cannot be signed: {}",
                    why.join(" ")
                ),
            ),
            false,
        ));
    }
    if stored.instructions.is_none() || stored.dispense.quantity.is_none() {
        return Ok(refuse(
            Change::rejected(
                if stored.instructions.is_none() {
                    "instructions"
                } else {
                    "dispense.quantity"
                },
                "Prescription",
                ChangeCategory::MissingInput,
                "A prescription needs its instructions and a dispense quantity before it is signed",
            ),
            false,
        ));
    }
    let mut doc = stored.clone();
    doc.signed_at = Some(super::types::Date(time::OffsetDateTime::now_utc().date()).to_iso());
    doc.signed_by = call.user.map(str::to_owned);
    doc.signing_message = signing.message;
    records::save_prescription(call.conn()?, &doc)?;
    crate::fulfillment::hooks::prescription_signed(call, &doc)?;
    let changes = only(Change::field(
        "signing",
        "Signature",
        Some("UNSIGNED"),
        Some("SIGNED"),
    ));
    Ok(payload(
        call,
        Answer {
            doc: Some(&doc),
            patient: patient.as_ref(),
            invalidated: false,
        },
        changes,
    ))
}
