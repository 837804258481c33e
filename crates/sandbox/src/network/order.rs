//! The `order` upsert: Get, Sync (the patient's draft order, or a new one),
//! Update (prescriptions, pharmacy), Send (`SUBMITTED`, after its checks) and
//! Cancel (only from `SUBMITTED`); exceptions once sent. A repeated Send or
//! Cancel, and removing a prescription that is not on the order, change nothing
//! and are not errors (a client retrying a lost answer).

use std::sync::Arc;

use async_graphql::ID;

use super::call::Call;
use super::call_shape::{OrderCall, OrderWrite};
use super::changes::Changes;
use super::present;
use super::types::{
    AmbiguousOrderMatch, Change, ChangeCategory, ChangeOperation, OrderCandidate,
    OrderExceptionType, OrderPayload, OrderPrescriptionsPatch, OrderResult, OrderState,
    PrescriptionReferenceInput,
};
use super::validate;
use crate::catalog::pharmacies::OfferFor;
use crate::store::StoreError;
use crate::store::records::{self, ExceptionDoc, OrderDoc, PrescriptionDoc, new_id, now};

fn payload(
    call: &Call<'_>,
    doc: Option<&OrderDoc>,
    changes: Changes,
) -> Result<OrderResult, StoreError> {
    Ok(OrderResult::OrderPayload(Box::new(OrderPayload {
        order: doc.map(|d| present::order(call, d)).transpose()?,
        applied_changes: changes.applied,
        unapplied_changes: changes.unapplied,
    })))
}

fn rejected(key: &str, category: ChangeCategory, reason: impl Into<String>) -> Change {
    Change::rejected(key, "Order", category, reason)
}

fn unknown(call: &Call<'_>, id: &ID) -> Result<OrderResult, StoreError> {
    let mut changes = Changes::default();
    changes.push(rejected(
        "id",
        ChangeCategory::InvalidInput,
        format!("No order with id `{}` in your organization", id.as_str()),
    ));
    payload(call, None, changes)
}

pub fn run(call: &Call<'_>, shape: OrderCall) -> Result<OrderResult, StoreError> {
    let input = match shape {
        OrderCall::Get { id } => {
            return match call.order(id.as_str())? {
                Some(stored) => payload(call, Some(&stored), Changes::default()),
                None => unknown(call, &id),
            };
        }
        OrderCall::Draft(write)
        | OrderCall::Update(write)
        | OrderCall::Send(write)
        | OrderCall::Cancel(write) => write,
    };
    if let Some(id) = input.id.clone() {
        let Some(stored) = call.order(id.as_str())? else {
            return unknown(call, &id);
        };
        let stored = Arc::unwrap_or_clone(stored);
        let mut changes = Changes::default();
        if let Some(p) = input.patient.as_ref().and_then(|p| p.id.as_ref())
            && p.as_str() != stored.patient_id
        {
            changes.push(rejected(
                "patient.id",
                ChangeCategory::InvalidInput,
                "An order's patient cannot change",
            ));
        }
        if let Some(external) = &input.external_id
            && stored.external_id.as_ref() != Some(external)
        {
            changes.push(rejected(
                "externalId",
                ChangeCategory::InvalidInput,
                "An order's externalId cannot change",
            ));
        }
        return update(call, Some(stored.clone()), stored, input, changes);
    }
    if let Some(external_id) = input.external_id.as_deref()
        && let Some(existing) = records::order_by_external_id(call.conn()?, call.org, external_id)?
    {
        // A known key with another patient is not a repeat: refused in words,
        // nothing saved, no record answered.
        if let Some(other) = input.patient.as_ref().and_then(|p| p.id.as_ref())
            && other.as_str() != existing.patient_id
        {
            let mut changes = Changes::default();
            changes.push(super::prescription::external_id_of_another_patient("order"));
            return payload(call, None, changes);
        }
        return payload(call, Some(&existing), Changes::default());
    }
    let mut changes = Changes::default();
    let Some(patient_id) = input.patient.as_ref().and_then(|p| p.id.clone()) else {
        changes.push(rejected(
            "patient.id",
            ChangeCategory::MissingInput,
            "An order needs the patient's id (or send the order's id)",
        ));
        return payload(call, None, changes);
    };
    if records::patient(call.conn()?, call.org, patient_id.as_str())?.is_none() {
        changes.push(super::patient::unknown_id(patient_id.as_str()).with_key("patient.id"));
        return payload(call, None, changes);
    }
    let drafts = if input.external_id.is_some() {
        Vec::new()
    } else {
        records::draft_orders(call.conn()?, call.org, patient_id.as_str())?
    };
    if drafts.len() > 1 {
        return Ok(OrderResult::AmbiguousOrderMatch(AmbiguousOrderMatch {
            reason: format!(
                "The patient has {} draft orders: send again with the id of the one you mean",
                drafts.len()
            ),
            candidates: drafts
                .into_iter()
                .map(|o| OrderCandidate {
                    id: o.id.into(),
                    pharmacy_id: o.pharmacy_id.map(Into::into),
                    prescription_ids: o.prescription_ids.into_iter().map(Into::into).collect(),
                })
                .collect(),
        }));
    }
    match drafts.into_iter().next() {
        Some(draft) => update(call, Some(draft.clone()), draft, input, changes),
        None => {
            let doc = OrderDoc {
                id: new_id("ord"),
                organization_id: call.org.to_owned(),
                external_id: input.external_id.clone(),
                patient_id: patient_id.to_string(),
                state: OrderState::Draft,
                prescription_ids: Vec::new(),
                pharmacy_id: None,
                exceptions: Vec::new(),
                created_at: now(),
                submitted_at: None,
            };
            update(call, None, doc, input, changes)
        }
    }
}

/// Applies `input` to `doc`; saves unless an input blocks (then answers `before`).
fn update(
    call: &Call<'_>,
    before: Option<OrderDoc>,
    mut doc: OrderDoc,
    input: OrderWrite,
    mut changes: Changes,
) -> Result<OrderResult, StoreError> {
    // The order's identity (`id`, `external_id`, `patient`) is `run`'s; every
    // other field of the write is applied here.
    let OrderWrite {
        id: _,
        external_id: _,
        patient: _,
        prescriptions: patch,
        pharmacy: choice,
        state,
    } = input;
    if let Some(patch) = patch {
        prescriptions(call, &mut doc, patch, &mut changes)?;
    }
    let mut pharmacy_changed = false;
    if let Some(choice) = choice {
        pharmacy_changed = pharmacy(call, &mut doc, choice, &mut changes)?;
    }
    match state {
        None => {}
        Some(OrderState::Draft) if doc.state == OrderState::Draft => {}
        Some(OrderState::Draft) => changes.push(rejected(
            "state",
            ChangeCategory::InvalidInput,
            "A sent order cannot go back to DRAFT",
        )),
        Some(OrderState::Submitted) => send(call, &mut doc, &mut changes)?,
        // A repeated cancel (its first answer lost): the order as it is.
        Some(OrderState::Canceled) if doc.state == OrderState::Canceled => {}
        Some(OrderState::Canceled) => {
            if doc.state == OrderState::Submitted {
                doc.state = OrderState::Canceled;
                changes.push(Change::field(
                    "state",
                    "Order state",
                    Some("SUBMITTED"),
                    Some("CANCELED"),
                ));
            } else {
                changes.push(rejected(
                    "state",
                    ChangeCategory::InvalidInput,
                    format!(
                        "Only a sent (SUBMITTED) order can be canceled; this one is {}",
                        doc.state.as_str()
                    ),
                ));
            }
        }
    }
    if pharmacy_changed && doc.state == OrderState::Submitted {
        // An order error was that pharmacy's: changing the pharmacy is what
        // resolves it (the halted order resumes), so a Get no longer lists it;
        // its `photon:order:error` event stays the record of it. A closed
        // pharmacy's reroute is the network's own doing and stays listed.
        doc.exceptions
            .retain(|e| e.kind != OrderExceptionType::OrderError);
        refresh_exceptions(call, &mut doc)?;
    }
    if changes.blocked() {
        return payload(call, before.as_ref(), changes.roll_back());
    }
    records::save_order(call.conn()?, &doc)?;
    crate::fulfillment::hooks::order_saved(call, before.as_ref(), &doc)?;
    payload(call, Some(&doc), changes)
}

fn find_prescription(
    call: &Call<'_>,
    reference: &PrescriptionReferenceInput,
) -> Result<Option<PrescriptionDoc>, StoreError> {
    match (&reference.id, &reference.external_id) {
        (Some(id), None) => records::prescription(call.conn()?, call.org, id.as_str()),
        (None, Some(external)) => {
            records::prescription_by_external_id(call.conn()?, call.org, external)
        }
        _ => Ok(None),
    }
}

fn describe(reference: &PrescriptionReferenceInput) -> String {
    reference
        .id
        .as_ref()
        .map(|i| i.to_string())
        .or_else(|| reference.external_id.clone())
        .unwrap_or_default()
}

fn prescriptions(
    call: &Call<'_>,
    doc: &mut OrderDoc,
    patch: OrderPrescriptionsPatch,
    changes: &mut Changes,
) -> Result<(), StoreError> {
    const KEY: &str = "prescriptions";
    let add = patch.add.unwrap_or_default();
    let remove = patch.remove.unwrap_or_default();
    let none = patch.none == Some(true);
    if doc.state != OrderState::Draft {
        changes.push(rejected(KEY, ChangeCategory::InvalidInput, "A sent or canceled order's prescriptions cannot change: only its pharmacy, or canceling it"));
        return Ok(());
    }
    if add.is_empty() && remove.is_empty() && !none {
        changes.push(rejected(
            KEY,
            ChangeCategory::InvalidInput,
            "An empty patch changes nothing: send add, remove or none",
        ));
        return Ok(());
    }
    if none {
        if add.is_empty() && remove.is_empty() {
            doc.prescription_ids.clear();
            changes.push(
                Change::field(format!("{KEY}.none"), "Prescriptions", None, Some("none"))
                    .with_operation(ChangeOperation::Removed),
            );
        } else {
            changes.push(rejected(
                &format!("{KEY}.none"),
                ChangeCategory::InvalidInput,
                "`none: true` cannot be combined with add or remove",
            ));
        }
        return Ok(());
    }
    for (i, reference) in remove.iter().enumerate() {
        let key = format!("{KEY}.remove.{i}");
        let Some(found) = find_prescription(call, reference)? else {
            changes.push(rejected(
                &key,
                ChangeCategory::InvalidInput,
                format!(
                    "No prescription `{}` in your organization",
                    describe(reference)
                ),
            ));
            continue;
        };
        let mut change = Change::resolved(
            key,
            "Prescription",
            Some(&describe(reference)),
            &found.id,
            ChangeOperation::Removed,
        );
        match doc.prescription_ids.iter().position(|id| *id == found.id) {
            Some(pos) => {
                doc.prescription_ids.remove(pos);
            }
            // Removed already (a repeated remove whose answer was lost): a no-op.
            None => change.reason = Some("Not on this order: nothing to remove".to_owned()),
        }
        changes.push(change);
    }
    for (i, reference) in add.iter().enumerate() {
        let key = format!("{KEY}.add.{i}");
        if reference.id.is_some() == reference.external_id.is_some() {
            changes.push(rejected(
                &key,
                ChangeCategory::InvalidInput,
                "Name each prescription by exactly one of id or externalId",
            ));
            continue;
        }
        let Some(prescription) = find_prescription(call, reference)? else {
            changes.push(rejected(
                &key,
                ChangeCategory::InvalidInput,
                format!(
                    "No prescription `{}` in your organization",
                    describe(reference)
                ),
            ));
            continue;
        };
        if doc.prescription_ids.contains(&prescription.id) {
            let mut change = Change::resolved(
                &key,
                "Prescription",
                Some(&describe(reference)),
                &prescription.id,
                ChangeOperation::Added,
            );
            change.reason = Some("Already on this order: nothing to add".to_owned());
            changes.push(change);
            continue;
        }
        if let Some(other) = records::live_order_holding(call.conn()?, &prescription.id, &doc.id)? {
            changes.push(rejected(
                &key,
                ChangeCategory::InvalidInput,
                format!("This prescription is on order `{other}` already: a prescription sits on one order that is not canceled"),
            ));
            continue;
        }
        let mut change = Change::resolved(
            &key,
            "Prescription",
            Some(&describe(reference)),
            &prescription.id,
            ChangeOperation::Added,
        );
        if prescription.patient_id != doc.patient_id {
            change = change.advisory(
                ChangeCategory::InvalidInput,
                "This prescription belongs to another patient: the order cannot be sent until it is removed",
            );
        }
        changes.push(change);
        doc.prescription_ids.push(prescription.id);
    }
    Ok(())
}

/// The order's prescriptions with their medications, which the pharmacies'
/// offers are priced for.
fn offered_for(call: &Call<'_>, doc: &OrderDoc) -> Result<Vec<(String, String)>, StoreError> {
    let mut on_order = Vec::with_capacity(doc.prescription_ids.len());
    for id in &doc.prescription_ids {
        if let Some(rx) = records::prescription(call.conn()?, call.org, id)? {
            on_order.push((rx.id, rx.treatment.id.to_string()));
        }
    }
    Ok(on_order)
}

/// Applies a pharmacy choice; true when the pharmacy changed.
fn pharmacy(
    call: &Call<'_>,
    doc: &mut OrderDoc,
    choice: super::types::OrderPharmacyInput,
    changes: &mut Changes,
) -> Result<bool, StoreError> {
    const KEY: &str = "pharmacy";
    if doc.state == OrderState::Canceled {
        changes.push(rejected(
            KEY,
            ChangeCategory::InvalidInput,
            "A canceled order cannot change",
        ));
        return Ok(false);
    }
    match (choice.pharmacy, choice.none == Some(true)) {
        (Some(_), true) | (None, false) => {
            changes.push(rejected(
                KEY,
                ChangeCategory::InvalidInput,
                "Send exactly one of `pharmacy` or `none: true`",
            ));
            Ok(false)
        }
        (None, true) => {
            let before = doc.pharmacy_id.take();
            if before.is_some() {
                changes.push(Change::field(
                    "pharmacy.none",
                    "Pharmacy",
                    before.as_deref(),
                    None,
                ));
            }
            Ok(before.is_some())
        }
        (Some(reference), false) => {
            let key = "pharmacy.pharmacy";
            let on_order = offered_for(call, doc)?;
            let prescriptions: Vec<OfferFor<'_>> = on_order
                .iter()
                .map(|(rx, medication)| OfferFor {
                    prescription_id: rx,
                    medication_id: medication,
                })
                .collect();
            match super::patient::pharmacy_change(
                call,
                &reference,
                key,
                "order",
                "pharmacy.pharmacy.id",
                &prescriptions,
            ) {
                Ok(id) => {
                    if doc.pharmacy_id.as_deref() == Some(&id) {
                        return Ok(false);
                    }
                    changes.push(Change::resolved(
                        key,
                        "Pharmacy",
                        reference.name.as_deref(),
                        &id,
                        ChangeOperation::Modified,
                    ));
                    doc.pharmacy_id = Some(id);
                    Ok(true)
                }
                Err(change) => {
                    changes.push(*change);
                    Ok(false)
                }
            }
        }
    }
}

fn send(call: &Call<'_>, doc: &mut OrderDoc, changes: &mut Changes) -> Result<(), StoreError> {
    let refuse = |changes: &mut Changes, category, reason: String| {
        changes.push(rejected("state", category, reason))
    };
    if doc.state == OrderState::Submitted {
        // A repeated send (its first answer lost): sent once, nothing changes.
        return Ok(());
    }
    if doc.state != OrderState::Draft {
        refuse(
            changes,
            ChangeCategory::InvalidInput,
            format!(
                "This order is {} already: only a draft is sent",
                doc.state.as_str()
            ),
        );
        return Ok(());
    }
    if doc.prescription_ids.is_empty() {
        refuse(
            changes,
            ChangeCategory::MissingInput,
            "The order has no prescription to send".to_owned(),
        );
    }
    for id in &doc.prescription_ids {
        let Some(p) = records::prescription(call.conn()?, call.org, id)? else {
            continue;
        };
        if !p.is_signed() {
            refuse(
                changes,
                ChangeCategory::MissingInput,
                format!(
                    "Prescription `{id}` ({}) is not signed yet: a prescriber signs it first",
                    p.treatment.name
                ),
            );
        }
        if p.patient_id != doc.patient_id {
            refuse(
                changes,
                ChangeCategory::InvalidInput,
                format!(
                    "Prescription `{id}` belongs to another patient: remove it from this order"
                ),
            );
        }
    }
    let patient = records::patient(call.conn()?, call.org, &doc.patient_id)?;
    match patient.as_ref().and_then(|p| p.phone.as_deref()) {
        None => refuse(
            changes,
            ChangeCategory::MissingInput,
            "The patient has no phone number: the network texts the patient their order link. Add a mobile number to the patient".to_owned(),
        ),
        Some(phone) if !validate::takes_texts(phone) => refuse(
            changes,
            ChangeCategory::InvalidInput,
            "The patient's phone cannot receive texts (a landline): the network texts the patient their order link. Record a mobile number".to_owned(),
        ),
        Some(_) => {}
    }
    if changes.blocked() {
        return Ok(());
    }
    doc.state = OrderState::Submitted;
    doc.submitted_at = Some(now());
    changes.push(Change::field(
        "state",
        "Order state",
        Some("DRAFT"),
        Some("SUBMITTED"),
    ));
    refresh_exceptions(call, doc)
}

/// The exceptions of a sent order, from the catalog's rules (also after the
/// simulated pharmacy moves it, `crate::fulfillment`).
pub(crate) fn refresh_exceptions(call: &Call<'_>, doc: &mut OrderDoc) -> Result<(), StoreError> {
    let patient = records::patient(call.conn()?, call.org, &doc.patient_id)?;
    let without_benefits = patient.as_ref().is_none_or(|p| p.benefits.is_empty());
    let pharmacy = doc
        .pharmacy_id
        .as_deref()
        .and_then(|id| call.catalog.pharmacy(id));
    let needs_info = pharmacy.is_some_and(|p| p.needs_insurance_info) && without_benefits;
    let kind = OrderExceptionType::PharmacyNeedsInsuranceInfo;
    doc.exceptions.retain(|e| e.kind != kind);
    if let (true, Some(p)) = (needs_info, pharmacy) {
        doc.exceptions.push(ExceptionDoc {
            id: new_id("exc"),
            kind,
            message: format!(
                "{} needs the patient's insurance information, and none is on file: add the patient's benefits",
                p.name
            ),
            created_at: now(),
        });
    }
    Ok(())
}
