//! What the Network API tells the simulated pharmacy, one call in each place a
//! record's state changes, inside that call's transaction (so the events and the
//! change commit together, or neither):
//!
//! - [`order_saved`] after an order is saved: sent (`order:created`, tracking
//!   starts, `prescription:depleted` for prescriptions whose every fill is now on a
//!   sent order), canceled (`order:canceled`, `prescription:active` for those that
//!   have a fill again), its pharmacy changed after sending (`order:rerouted`, then
//!   placed again one step later);
//! - [`prescription_signed`]: `prescription:created` ("a draft became an active
//!   prescription").
//!
//! Nothing here refuses anything: the Network API has decided already.

use super::stage::{self, Stage};
use super::store;
use crate::network::call::Call;
use crate::store::StoreError;
use crate::store::records::{self, OrderDoc, PrescriptionDoc, new_id};
use crate::webhooks::events::{self, Fill, PrescriptionCreated, PrescriptionSubject, RecordRef};
use crate::wire::OrderState;

/// An order was saved: `before` is how it was (none for a new draft).
pub fn order_saved(
    call: &Call<'_>,
    before: Option<&OrderDoc>,
    after: &OrderDoc,
) -> Result<(), StoreError> {
    let was = before.map_or(OrderState::Draft, |b| b.state);
    match (was, after.state) {
        (OrderState::Draft, OrderState::Submitted) => sent(call, after),
        (OrderState::Submitted, OrderState::Canceled) => canceled(call, after),
        (OrderState::Submitted, OrderState::Submitted)
            if before.is_some_and(|b| b.pharmacy_id != after.pharmacy_id) =>
        {
            pharmacy_changed(call, after)
        }
        _ => Ok(()),
    }
}

fn sent(call: &Call<'_>, order: &OrderDoc) -> Result<(), StoreError> {
    let conn = call.conn()?;
    let now = crate::clock::now_ms(conn)?;
    let stage = if order.pharmacy_id.is_some() {
        Stage::Sent
    } else {
        Stage::Choosing
    };
    store::track(conn, &order.id, call.org, stage, now)?;
    let mut fills = Vec::new();
    let mut depleted = Vec::new();
    for id in &order.prescription_ids {
        let Some(prescription) = records::prescription(conn, call.org, id)? else {
            continue;
        };
        fills.push(Fill {
            id: new_id("fil"),
            prescription: RecordRef {
                id: prescription.id.clone(),
                external_id: prescription.external_id.clone(),
            },
        });
        let allowed = fills_allowed(&prescription);
        let in_use = store::fills_in_use(conn, id)?;
        if in_use >= allowed && in_use - 1 < allowed {
            depleted.push(prescription);
        }
    }
    let subject = stage::subject(order);
    events::emit(
        conn,
        &subject.created(now, order.pharmacy_id.as_deref(), fills),
    )?;
    for prescription in depleted {
        events::emit(conn, &prescription_subject(&prescription).depleted(now))?;
    }
    Ok(())
}

fn canceled(call: &Call<'_>, order: &OrderDoc) -> Result<(), StoreError> {
    let conn = call.conn()?;
    let now = crate::clock::now_ms(conn)?;
    store::track(conn, &order.id, call.org, Stage::Canceled, now)?;
    events::emit(conn, &stage::subject(order).canceled(now))?;
    for id in &order.prescription_ids {
        let Some(prescription) = records::prescription(conn, call.org, id)? else {
            continue;
        };
        let allowed = fills_allowed(&prescription);
        let in_use = store::fills_in_use(conn, id)?;
        if in_use < allowed && in_use + 1 >= allowed {
            events::emit(conn, &prescription_subject(&prescription).active(now))?;
        }
    }
    Ok(())
}

/// A sent order's pharmacy was changed (by the patient's or the clinic's choice):
/// rerouted, and placed at the new pharmacy one step later. Before it reached a
/// pharmacy it just goes to the new one; once completed nothing moves.
fn pharmacy_changed(call: &Call<'_>, order: &OrderDoc) -> Result<(), StoreError> {
    let conn = call.conn()?;
    let Some(tracked) = store::get(conn, &order.id)? else {
        return Ok(());
    };
    if matches!(tracked.stage, Stage::Completed | Stage::Canceled) {
        return Ok(());
    }
    let now = crate::clock::now_ms(conn)?;
    let pharmacy = order
        .pharmacy_id
        .as_deref()
        .and_then(|id| call.catalog.pharmacy(id));
    match pharmacy {
        None => store::track(conn, &order.id, call.org, Stage::Choosing, now),
        Some(_) if tracked.stage.is_before_placement() => {
            store::track(conn, &order.id, call.org, Stage::Sent, tracked.since_ms)
        }
        Some(pharmacy) => {
            events::emit(conn, &stage::subject(order).rerouted(now, pharmacy))?;
            store::track(conn, &order.id, call.org, Stage::Rerouted, now)
        }
    }
}

/// A prescription was signed.
pub fn prescription_signed(call: &Call<'_>, doc: &PrescriptionDoc) -> Result<(), StoreError> {
    let conn = call.conn()?;
    let now = crate::clock::now_ms(conn)?;
    let effective = doc
        .signed_at
        .as_deref()
        .and_then(crate::wire::Date::parse)
        .map(|d| d.0);
    let expiration = effective.map(|d| {
        d.replace_year(d.year() + 1)
            .unwrap_or_else(|_| d.saturating_add(time::Duration::days(365)))
    });
    let iso = |d: Option<time::Date>| d.map(|d| crate::wire::Date(d).to_iso()).unwrap_or_default();
    let fills = fills_allowed(doc);
    let data = PrescriptionCreated {
        id: doc.id.clone(),
        external_id: doc.external_id.clone(),
        treatment_id: doc.treatment.id.as_str().to_owned(),
        prescriber_id: doc.signed_by.clone(),
        instructions: doc.instructions.clone().unwrap_or_default(),
        notes: doc.notes.clone().unwrap_or_default(),
        dispense_quantity: doc.dispense.quantity,
        dispense_unit: doc.dispense.unit.clone(),
        dispense_as_written: doc.dispense.dispense_as_written.unwrap_or(false),
        fills_allowed: fills,
        refills_allowed: fills - 1,
        days_supply: doc.dispense.days_supply,
        effective_date: iso(effective),
        expiration_date: iso(expiration),
        patient: RecordRef::patient(&doc.patient_id),
    };
    events::emit(conn, &prescription_subject(doc).created(now, &data))?;
    Ok(())
}

/// How many times a prescription can be filled in all: its refills and one.
fn fills_allowed(doc: &PrescriptionDoc) -> i64 {
    i64::from(doc.dispense.refills_allowed.unwrap_or(0).max(0)) + 1
}

fn prescription_subject(doc: &PrescriptionDoc) -> PrescriptionSubject {
    PrescriptionSubject {
        organization: doc.organization_id.clone(),
        id: doc.id.clone(),
        external_id: doc.external_id.clone(),
        patient_id: doc.patient_id.clone(),
    }
}
