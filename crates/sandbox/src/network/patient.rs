//! The `patient` upsert: Get, Sync (matching) and Update, with demographics,
//! benefits, the preferred pharmacy and the clinical patches. Runs inside the
//! caller's transaction; saves only when no input blocks.

use std::sync::Arc;

use super::call::Call;
use super::call_shape::{PatientCall, PatientEdit};
use super::changes::Changes;
use super::clinical::{self, At, ListKind};
use super::present;
use super::types::{
    AmbiguousPatientMatch, Change, ChangeCategory, ChangeOperation, ChangeOption, PatientCandidate,
    PatientDemographicInput, PatientPayload, PatientResult, PharmacyChangeOption,
    PharmacyReferenceInput,
};
use super::validate;
use crate::catalog::pharmacies;
use crate::store::StoreError;
use crate::store::records::{self, BenefitDoc, PatientDoc, PatientFilter, new_id, now};

/// At most this many candidates are offered.
const MAX_CANDIDATES: usize = 20;

pub fn run(call: &Call<'_>, shape: PatientCall) -> Result<PatientResult, StoreError> {
    match shape {
        PatientCall::Get { id } => get(call, id.as_str()),
        PatientCall::Update { id, edit } => update(call, id.as_str(), edit),
        PatientCall::Sync(edit) => sync(call, edit),
    }
}

fn payload(call: &Call<'_>, doc: Option<&PatientDoc>, changes: Changes) -> PatientResult {
    PatientResult::PatientPayload(Box::new(PatientPayload {
        patient: doc.map(|d| present::patient_record(call.catalog, d)),
        applied_changes: changes.applied,
        unapplied_changes: changes.unapplied,
    }))
}

/// The answer to an id that names no patient of the organization.
pub fn unknown_id(id: &str) -> Change {
    Change::rejected(
        "id",
        "Patient",
        ChangeCategory::InvalidInput,
        format!("No patient with id `{id}` in your organization"),
    )
}

fn get(call: &Call<'_>, id: &str) -> Result<PatientResult, StoreError> {
    let mut changes = Changes::default();
    let Some(stored) = call.patient(id)? else {
        changes.push(unknown_id(id));
        return Ok(payload(call, None, changes));
    };
    Ok(payload(call, Some(&stored), changes))
}

fn update(call: &Call<'_>, id: &str, input: PatientEdit) -> Result<PatientResult, StoreError> {
    let mut changes = Changes::default();
    let Some(stored) = call.patient(id)? else {
        changes.push(unknown_id(id));
        return Ok(payload(call, None, changes));
    };
    let stored = Arc::unwrap_or_clone(stored);
    let mut doc = stored.clone();
    apply_input(call, &mut doc, input, &mut changes);
    save_or_roll_back(call, stored, doc, changes)
}

fn save_or_roll_back(
    call: &Call<'_>,
    before: PatientDoc,
    after: PatientDoc,
    changes: Changes,
) -> Result<PatientResult, StoreError> {
    if changes.blocked() {
        return Ok(payload(call, Some(&before), changes.roll_back()));
    }
    records::save_patient(call.conn()?, &after)?;
    Ok(payload(call, Some(&after), changes))
}

fn sync(call: &Call<'_>, input: PatientEdit) -> Result<PatientResult, StoreError> {
    let d = input.demographic.clone().unwrap_or_default();
    let name = d.name.clone().unwrap_or_default();
    // A name sent blank is wrong input, not a name left out: say so before matching.
    let mut blank = Changes::default();
    for (value, key, label) in [
        (&name.first, "demographic.name.first", "First name"),
        (&name.last, "demographic.name.last", "Last name"),
    ] {
        if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
            blank.push(invalid(key, label, format!("{label} cannot be blank")));
        }
    }
    if blank.blocked() {
        return Ok(payload(call, None, blank));
    }
    let first = name
        .first
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let last = name
        .last
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let dob = d.date_of_birth.as_ref().map(super::types::Date::to_iso);

    // 1. Exact name and date of birth; 2. email and phone.
    let mut exact = Vec::new();
    if let (Some(f), Some(l), Some(b)) = (first, last, dob.as_deref()) {
        exact = records::patients_named(call.conn()?, call.org, f, l, b)?;
    }
    if exact.is_empty()
        && let (Some(email), Some(phone)) = (d.email.as_deref(), d.phone.as_deref())
    {
        exact = records::patients_reachable_at(call.conn()?, call.org, email, phone)?;
    }
    match exact.len() {
        0 => {}
        1 => {
            let stored = exact.remove(0);
            let mut doc = stored.clone();
            let mut changes = Changes::default();
            apply_input(call, &mut doc, input, &mut changes);
            return save_or_roll_back(call, stored, doc, changes);
        }
        _ => {
            return Ok(ambiguous(
                exact,
                "Several patients have exactly this name and date of birth (or email and phone): choose one by id",
            ));
        }
    }

    let enough = first.is_some() && last.is_some() && dob.is_some() && d.sex.is_some();
    if !enough {
        let filter = PatientFilter {
            first_prefix: first.map(str::to_owned),
            last_prefix: last.map(str::to_owned),
            date_of_birth: dob.clone(),
            email: d.email.clone(),
            phone: d.phone.clone(),
        };
        let identifying = filter.first_prefix.is_some()
            || filter.last_prefix.is_some()
            || filter.date_of_birth.is_some()
            || filter.email.is_some()
            || filter.phone.is_some();
        if identifying {
            let candidates =
                records::patient_candidates(call.conn()?, call.org, &filter, MAX_CANDIDATES)?;
            if !candidates.is_empty() {
                let n = candidates.len();
                return Ok(ambiguous(
                    candidates,
                    &format!(
                        "{n} patient(s) fit what was sent: choose one by id, or send first name, last name, date of birth and sex to add someone new"
                    ),
                ));
            }
        }
        let mut changes = Changes::default();
        for (key, label, present) in [
            ("demographic.name.first", "First name", first.is_some()),
            ("demographic.name.last", "Last name", last.is_some()),
            ("demographic.dateOfBirth", "Date of birth", dob.is_some()),
            ("demographic.sex", "Sex", d.sex.is_some()),
        ] {
            if !present {
                changes.push(Change::rejected(
                    key,
                    label,
                    ChangeCategory::MissingInput,
                    format!(
                        "No patient matches, and adding one needs {}",
                        label.to_lowercase()
                    ),
                ));
            }
        }
        return Ok(payload(call, None, changes.roll_back()));
    }

    // 4. A new patient.
    let mut doc = PatientDoc {
        id: new_id("pat"),
        organization_id: call.org.to_owned(),
        created_at: now(),
        ..PatientDoc::default()
    };
    let mut changes = Changes::default();
    apply_input(call, &mut doc, input, &mut changes);
    if changes.blocked() {
        return Ok(payload(call, None, changes.roll_back()));
    }
    records::save_patient(call.conn()?, &doc)?;
    Ok(payload(call, Some(&doc), changes))
}

fn ambiguous(candidates: Vec<PatientDoc>, reason: &str) -> PatientResult {
    PatientResult::AmbiguousPatientMatch(AmbiguousPatientMatch {
        candidates: candidates
            .into_iter()
            .take(MAX_CANDIDATES)
            .map(|p| PatientCandidate {
                id: p.id.into(),
                first_name: p.first.unwrap_or_default(),
                last_name: p.last,
                date_of_birth: p
                    .date_of_birth
                    .as_deref()
                    .and_then(super::types::Date::parse),
            })
            .collect(),
        reason: reason.to_owned(),
    })
}

/// Applies every field of `input` to `doc`, recording a change per input.
fn apply_input(call: &Call<'_>, doc: &mut PatientDoc, input: PatientEdit, changes: &mut Changes) {
    let PatientEdit {
        demographic: d,
        clinical: c,
    } = input;
    if let Some(d) = d {
        demographic(call, doc, d, changes);
    }
    if let Some(c) = c {
        let catalog = call.catalog;
        if let Some(p) = c.allergies {
            let at = At {
                key: "clinical.allergies",
                operation: "patient",
            };
            clinical::apply(
                catalog,
                ListKind::Allergies,
                at,
                &mut doc.allergies,
                p.into(),
                changes,
            );
        }
        if let Some(p) = c.medications {
            let at = At {
                key: "clinical.medications",
                operation: "patient",
            };
            clinical::apply(
                catalog,
                ListKind::Medications,
                at,
                &mut doc.medications,
                p.into(),
                changes,
            );
        }
        if let Some(p) = c.diagnoses {
            let at = At {
                key: "clinical.diagnoses",
                operation: "patient",
            };
            clinical::apply(
                catalog,
                ListKind::Diagnoses,
                at,
                &mut doc.diagnoses,
                p.into(),
                changes,
            );
        }
        if let Some(notes) = c.notes {
            set(
                &mut doc.notes,
                Some(notes),
                "clinical.notes",
                "Notes",
                changes,
            );
        }
    }
}

/// Sets a text field, recording the change when the value differs.
fn set(
    field: &mut Option<String>,
    value: Option<String>,
    key: &str,
    label: &str,
    changes: &mut Changes,
) {
    let value = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    if *field != value {
        changes.push(Change::field(
            key,
            label,
            field.as_deref(),
            value.as_deref(),
        ));
        *field = value;
    }
}

fn invalid(key: &str, label: &str, reason: impl Into<String>) -> Change {
    Change::rejected(key, label, ChangeCategory::InvalidInput, reason)
}

fn demographic(
    call: &Call<'_>,
    doc: &mut PatientDoc,
    d: PatientDemographicInput,
    changes: &mut Changes,
) {
    if let Some(name) = d.name {
        for (value, slot, key, label, required) in [
            (
                name.first,
                &mut doc.first,
                "demographic.name.first",
                "First name",
                true,
            ),
            (
                name.last,
                &mut doc.last,
                "demographic.name.last",
                "Last name",
                true,
            ),
            (
                name.middle,
                &mut doc.middle,
                "demographic.name.middle",
                "Middle name",
                false,
            ),
            (
                name.title,
                &mut doc.title,
                "demographic.name.title",
                "Title",
                false,
            ),
        ] {
            match value {
                Some(v) if required && v.trim().is_empty() => {
                    changes.push(invalid(key, label, format!("{label} cannot be blank")));
                }
                Some(v) => set(slot, Some(v), key, label, changes),
                None => {}
            }
        }
    }
    if let Some(dob) = d.date_of_birth {
        match validate::date_of_birth_problem(dob.0) {
            Some(problem) => {
                changes.push(invalid("demographic.dateOfBirth", "Date of birth", problem))
            }
            None => set(
                &mut doc.date_of_birth,
                Some(dob.to_iso()),
                "demographic.dateOfBirth",
                "Date of birth",
                changes,
            ),
        }
    }
    if let Some(sex) = d.sex
        && doc.sex != Some(sex)
    {
        let text = |s: super::types::Sex| format!("{s:?}").to_uppercase();
        changes.push(Change::field(
            "demographic.sex",
            "Sex",
            doc.sex.map(text).as_deref(),
            Some(&text(sex)),
        ));
        doc.sex = Some(sex);
    }
    if let Some(gender) = d.gender {
        set(
            &mut doc.gender,
            Some(gender),
            "demographic.gender",
            "Gender",
            changes,
        );
    }
    if let Some(email) = d.email {
        if validate::is_email(email.trim()) {
            set(
                &mut doc.email,
                Some(email),
                "demographic.email",
                "Email",
                changes,
            );
        } else {
            changes.push(invalid(
                "demographic.email",
                "Email",
                "Not an email address (name@domain.tld)",
            ));
        }
    }
    if let Some(phone) = d.phone {
        if validate::is_phone(phone.trim()) {
            set(
                &mut doc.phone,
                Some(phone),
                "demographic.phone",
                "Phone",
                changes,
            );
        } else {
            changes.push(invalid(
                "demographic.phone",
                "Phone",
                "Not a phone number in E.164 form (+ and 8–15 digits, e.g. +16175550103)",
            ));
        }
    }
    if let Some(a) = d.address {
        if a.country.as_deref().is_none_or(|c| c.trim().is_empty()) {
            changes.push(invalid(
                "demographic.address.country",
                "Address",
                "An address needs its country",
            ));
        } else {
            let address = super::types::PatientAddress {
                street1: a.street1,
                street2: a.street2,
                city: a.city,
                state: a.state,
                postal_code: a.postal_code,
                country: a.country,
            };
            if doc.address.as_ref() != Some(&address) {
                let show = |a: &super::types::PatientAddress| {
                    [
                        &a.street1,
                        &a.street2,
                        &a.city,
                        &a.state,
                        &a.postal_code,
                        &a.country,
                    ]
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
                };
                let before = doc.address.as_ref().map(show);
                changes.push(Change::field(
                    "demographic.address",
                    "Address",
                    before.as_deref(),
                    Some(&show(&address)),
                ));
                doc.address = Some(address);
            }
        }
    }
    if let Some(patch) = d.benefits {
        benefits(doc, patch, changes);
    }
    if let Some(reference) = d.preferred_pharmacy {
        preferred_pharmacy(call, doc, &reference, changes);
    }
}

fn benefits(doc: &mut PatientDoc, patch: super::types::BenefitsPatch, changes: &mut Changes) {
    const KEY: &str = "demographic.benefits";
    const LABEL: &str = "Insurance";
    let add = patch.add.unwrap_or_default();
    let update = patch.update.unwrap_or_default();
    let remove = patch.remove.unwrap_or_default();
    let none = patch.none == Some(true);
    if add.is_empty() && update.is_empty() && remove.is_empty() && !none {
        changes.push(invalid(
            KEY,
            LABEL,
            "An empty patch changes nothing: send add, update, remove or none",
        ));
        return;
    }
    if none {
        if !(add.is_empty() && update.is_empty() && remove.is_empty()) {
            changes.push(invalid(
                &format!("{KEY}.none"),
                LABEL,
                "`none: true` cannot be combined with add, update or remove",
            ));
        } else {
            doc.benefits.clear();
            changes.push(
                Change::field(format!("{KEY}.none"), LABEL, None, Some("none"))
                    .with_operation(ChangeOperation::Removed),
            );
        }
        return;
    }
    for (i, b) in remove.iter().enumerate() {
        let key = format!("{KEY}.remove.{i}");
        let Some(id) = b.id.as_ref() else {
            changes.push(invalid(
                &key,
                LABEL,
                "Name a benefit on file by its id to remove it",
            ));
            continue;
        };
        match doc.benefits.iter().position(|x| x.id == id.as_str()) {
            Some(pos) => {
                let gone = doc.benefits.remove(pos);
                changes.push(Change::field(key, LABEL, Some(&gone.member_id), None));
            }
            // Removed already (a repeated remove whose answer was lost): a no-op.
            None => {
                let mut change =
                    Change::field(key, LABEL, None, None).with_operation(ChangeOperation::Removed);
                change.reason = Some(format!(
                    "`{}` is not on file: nothing to remove",
                    id.as_str()
                ));
                changes.push(change);
            }
        }
    }
    for (i, b) in update.iter().enumerate() {
        let key = format!("{KEY}.update.{i}");
        match b
            .id
            .as_ref()
            .and_then(|id| doc.benefits.iter_mut().find(|x| x.id == id.as_str()))
        {
            Some(on_file) => {
                // `update` changes `pcn` and `groupId` only: a different bin or
                // member id is another benefit (remove it and add the new one),
                // refused in words rather than dropped without a word.
                let differs = |sent: &Option<String>, kept: &str| {
                    sent.as_deref().is_some_and(|s| s.trim() != kept)
                };
                let mut fixed = false;
                for (sent, kept, field, name) in [
                    (&b.bin, on_file.bin.as_str(), "bin", "bin"),
                    (
                        &b.member_id,
                        on_file.member_id.as_str(),
                        "memberId",
                        "member id",
                    ),
                ] {
                    if differs(sent, kept) {
                        fixed = true;
                        changes.push(invalid(
                            &format!("{key}.{field}"),
                            LABEL,
                            format!(
                                "An update changes only pcn and groupId: for another {name}, remove this benefit and add the corrected one"
                            ),
                        ));
                    }
                }
                if fixed {
                    continue;
                }
                // Sent blank: cleared.
                let text = |v: &Option<String>| {
                    v.as_deref()
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                };
                if b.pcn.is_some() {
                    on_file.pcn = text(&b.pcn);
                }
                if b.group_id.is_some() {
                    on_file.group_id = text(&b.group_id);
                }
                changes.push(Change::field(
                    key,
                    LABEL,
                    Some(&on_file.member_id),
                    Some(&on_file.member_id),
                ));
            }
            None => changes.push(invalid(
                &key,
                LABEL,
                "Name a benefit on file by its id to update it",
            )),
        }
    }
    for (i, b) in add.iter().enumerate() {
        let key = format!("{KEY}.add.{i}");
        let bin = b.bin.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let member = b
            .member_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        match (bin, member) {
            (Some(bin), Some(member)) => {
                let benefit = BenefitDoc {
                    id: new_id("ben"),
                    bin: bin.to_owned(),
                    pcn: b.pcn.clone(),
                    group_id: b.group_id.clone(),
                    member_id: member.to_owned(),
                };
                changes.push(Change::resolved(
                    &key,
                    LABEL,
                    Some(member),
                    &benefit.id,
                    ChangeOperation::Added,
                ));
                doc.benefits.push(benefit);
            }
            (None, _) => changes.push(Change::rejected(
                format!("{key}.bin"),
                LABEL,
                ChangeCategory::MissingInput,
                "Adding insurance needs its bin",
            )),
            (_, None) => changes.push(Change::rejected(
                format!("{key}.memberId"),
                LABEL,
                ChangeCategory::MissingInput,
                "Adding insurance needs its memberId",
            )),
        }
    }
}

/// The change answering a pharmacy reference: applied (one fit), ambiguous (the
/// options, with offers for `prescriptions`), or rejected — on the field at
/// fault when one is (`…near.text`). `argument` is where an option's id goes.
pub fn pharmacy_change(
    call: &Call<'_>,
    reference: &PharmacyReferenceInput,
    key: &str,
    operation: &str,
    argument: &str,
    prescriptions: &[pharmacies::OfferFor<'_>],
) -> Result<String, Box<Change>> {
    let hits = match pharmacies::search(call.catalog, reference) {
        Ok(hits) => hits,
        Err(refusal) => {
            return Err(Box::new(invalid(
                &format!("{key}.{}", refusal.field),
                "Pharmacy",
                refusal.reason,
            )));
        }
    };
    let input = reference
        .name
        .clone()
        .or_else(|| reference.id.as_ref().map(|i| i.to_string()));
    match hits.len() {
        0 => Err(Box::new(invalid(
            key,
            "Pharmacy",
            "No pharmacy fits what was sent",
        ))),
        1 => Ok(hits[0].pharmacy.id.clone()),
        n => {
            let options = hits
                .into_iter()
                .map(|hit| {
                    ChangeOption::PharmacyChangeOption(PharmacyChangeOption {
                        display_name: format!(
                            "{}, {}, {}",
                            hit.pharmacy.name, hit.pharmacy.street1, hit.pharmacy.city
                        ),
                        reason: hit.miles.map(|m| format!("{m:.1} miles away")),
                        operation: operation.to_owned(),
                        argument: Some(argument.to_owned()),
                        value: Some(hit.pharmacy.id.clone()),
                        entity_match: None,
                        match_reasons: Some(hit.reasons),
                        offers: pharmacies::offers(call.catalog, hit.pharmacy, prescriptions),
                    })
                })
                .collect();
            Err(Box::new(Change::ambiguous(
                key,
                "Pharmacy",
                input.as_deref(),
                format!("{n} pharmacies fit: choose one by id"),
                options,
            )))
        }
    }
}

fn preferred_pharmacy(
    call: &Call<'_>,
    doc: &mut PatientDoc,
    reference: &PharmacyReferenceInput,
    changes: &mut Changes,
) {
    const KEY: &str = "demographic.preferredPharmacy";
    match pharmacy_change(
        call,
        reference,
        KEY,
        "patient",
        "demographic.preferredPharmacy.id",
        &[],
    ) {
        Ok(id) => {
            if doc.preferred_pharmacy.as_deref() != Some(&id) {
                changes.push(Change::resolved(
                    KEY,
                    "Preferred pharmacy",
                    reference.name.as_deref(),
                    &id,
                    ChangeOperation::Modified,
                ));
                doc.preferred_pharmacy = Some(id);
            }
        }
        Err(change) => changes.push(*change),
    }
}
