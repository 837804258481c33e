//! The simulated pharmacy's steps. A sent order moves one step each time its step
//! falls due, each step one transaction that updates the order (its pharmacy, its
//! exceptions), emits its events and records the new [`Stage`]:
//!
//! | stage | next step |
//! | --- | --- |
//! | `CHOOSING` (sent without a pharmacy) | the patient picks one (preferred pharmacy, else the fixture's choice, else the first pick-up pharmacy): `order:placed` |
//! | `SENT`, `REROUTED` | `order:placed` at the order's pharmacy |
//! | `PLACED` | a closed pharmacy → `PHARMACY_CLOSED`, rerouted (`order:rerouted`); an error rule → `ORDER_ERROR` (`order:error`, the order halts); else the first fulfillment step |
//! | `RECEIVED` → `READY` → `PICKED_UP` | pick-up (`order:fulfillment` each; `order:completed` with `PICKED_UP`) |
//! | `FILLING` → `SHIPPED` → `DELIVERED` | mail order (carrier and tracking number from `SHIPPED`; `order:completed` with `DELIVERED`) |
//!
//! A pharmacy that offers pick-up fills for pick-up; a mail-order-only pharmacy ships.

use rusqlite::Connection;
use sha2::{Digest as _, Sha256};

use super::settings::Rules;
use super::stage::{Stage, subject};
use super::store::{self, Tracked};
use crate::catalog::{Catalog, PharmacyEntry};
use crate::network::Call;
use crate::store::StoreError;
use crate::store::records::{self, ExceptionDoc, OrderDoc, new_id};
use crate::webhooks::events::{self, FulfillmentData, NewEvent};
use crate::wire::{FulfillmentType, OrderExceptionType, OrderState};

/// `PICK_UP` when the pharmacy offers it, else `MAIL_ORDER`.
fn fulfillment_type(pharmacy: &PharmacyEntry) -> &'static str {
    if pharmacy
        .fulfillment_types
        .contains(&FulfillmentType::PickUp)
    {
        "PICK_UP"
    } else {
        "MAIL_ORDER"
    }
}

/// What one step leads to: the new stage and the events it sends.
struct Step {
    stage: Stage,
    events: Vec<NewEvent>,
}

/// Takes the step of `tracked` that fell due at `at_ms`, inside the caller's
/// transaction.
pub fn take(
    conn: &Connection,
    catalog: &Catalog,
    rules: &Rules,
    tracked: &Tracked,
    at_ms: i64,
) -> Result<(), StoreError> {
    let org = tracked.organization.as_str();
    let Some(mut order) = records::order(conn, org, &tracked.order_id)? else {
        return store::track(conn, &tracked.order_id, org, Stage::Canceled, at_ms);
    };
    if order.state != OrderState::Submitted {
        return store::track(conn, &order.id, org, Stage::Canceled, at_ms);
    }
    let call = Call::in_transaction(conn, catalog, org, None);
    let pharmacy = order
        .pharmacy_id
        .as_deref()
        .and_then(|id| catalog.pharmacy(id));
    let step = match (tracked.stage, pharmacy) {
        (Stage::Choosing, _) | (_, None) => choose(&call, rules, &mut order, at_ms)?,
        (Stage::Sent | Stage::Rerouted, Some(pharmacy)) => Step {
            stage: Stage::Placed,
            events: vec![subject(&order).placed(at_ms, pharmacy)],
        },
        (Stage::Placed, Some(pharmacy)) => at_pharmacy(&call, rules, &mut order, pharmacy, at_ms)?,
        (stage, Some(pharmacy)) => progress(&order, stage, pharmacy, at_ms),
    };
    for event in &step.events {
        events::emit(conn, event)?;
    }
    store::track(conn, &order.id, org, step.stage, at_ms)
}

/// The patient picks a pharmacy, and the order is placed there.
fn choose(
    call: &Call<'_>,
    rules: &Rules,
    order: &mut OrderDoc,
    at_ms: i64,
) -> Result<Step, StoreError> {
    let catalog = call.catalog;
    let preferred = records::patient(call.conn()?, call.org, &order.patient_id)?
        .and_then(|p| p.preferred_pharmacy)
        .filter(|id| catalog.pharmacy(id).is_some());
    let first_pick_up = catalog
        .pharmacies
        .iter()
        .find(|p| p.fulfillment_types.contains(&FulfillmentType::PickUp))
        .or_else(|| catalog.pharmacies.first())
        .map(|p| p.id.clone());
    let Some(pharmacy) = preferred
        .or_else(|| rules.patient_choice.clone())
        .or(first_pick_up)
        .and_then(|id| catalog.pharmacy(&id))
    else {
        // A catalog without pharmacies: nowhere to go.
        return Ok(Step {
            stage: Stage::Choosing,
            events: Vec::new(),
        });
    };
    order.pharmacy_id = Some(pharmacy.id.clone());
    crate::network::order::refresh_exceptions(call, order)?;
    records::save_order(call.conn()?, order)?;
    Ok(Step {
        stage: Stage::Placed,
        events: vec![subject(order).placed(at_ms, pharmacy)],
    })
}

fn exception(kind: OrderExceptionType, message: String, at_ms: i64) -> ExceptionDoc {
    ExceptionDoc {
        id: new_id("exc"),
        kind,
        message,
        created_at: crate::clock::rfc3339_ms(at_ms),
    }
}

/// The first step at the pharmacy: closed, an error, or it starts filling.
fn at_pharmacy(
    call: &Call<'_>,
    rules: &Rules,
    order: &mut OrderDoc,
    pharmacy: &PharmacyEntry,
    at_ms: i64,
) -> Result<Step, StoreError> {
    if let Some(to) = rules
        .reroute_for(&pharmacy.id)
        .and_then(|id| call.catalog.pharmacy(id))
    {
        order.exceptions.push(exception(
            OrderExceptionType::PharmacyClosed,
            format!(
                "{} is closed: the order was rerouted to {}",
                pharmacy.name, to.name
            ),
            at_ms,
        ));
        order.pharmacy_id = Some(to.id.clone());
        crate::network::order::refresh_exceptions(call, order)?;
        records::save_order(call.conn()?, order)?;
        return Ok(Step {
            stage: Stage::Rerouted,
            events: vec![subject(order).rerouted(at_ms, to)],
        });
    }
    let mut medications = Vec::new();
    for id in &order.prescription_ids {
        if let Some(p) = records::prescription(call.conn()?, call.org, id)? {
            medications.push(p.treatment.id.as_str().to_owned());
        }
    }
    if let Some(reason) = rules.error_for(&pharmacy.id, &medications) {
        order.exceptions.push(exception(
            OrderExceptionType::OrderError,
            reason.to_owned(),
            at_ms,
        ));
        records::save_order(call.conn()?, order)?;
        return Ok(Step {
            stage: Stage::Halted,
            events: vec![subject(order).error(at_ms, reason)],
        });
    }
    Ok(progress(order, Stage::Placed, pharmacy, at_ms))
}

/// The next fulfillment step from `stage`.
fn progress(order: &OrderDoc, stage: Stage, pharmacy: &PharmacyEntry, at_ms: i64) -> Step {
    let kind = fulfillment_type(pharmacy);
    let (next, state) = match (stage, kind) {
        (Stage::Placed, "PICK_UP") => (Stage::Received, "RECEIVED"),
        (Stage::Placed, _) => (Stage::Filling, "FILLING"),
        (Stage::Received, _) => (Stage::Ready, "READY"),
        (Stage::Ready, _) => (Stage::Completed, "PICKED_UP"),
        (Stage::Filling, _) => (Stage::Shipped, "SHIPPED"),
        (Stage::Shipped, _) => (Stage::Completed, "DELIVERED"),
        // Not due: nothing happens.
        (other, _) => {
            return Step {
                stage: other,
                events: Vec::new(),
            };
        }
    };
    let shipped = matches!(state, "SHIPPED" | "DELIVERED");
    let subject = subject(order);
    let mut events = vec![subject.fulfillment(
        at_ms,
        FulfillmentData {
            kind,
            state,
            carrier: shipped.then(|| "USPS".to_owned()),
            tracking_number: shipped.then(|| tracking_number(&order.id)),
        },
    )];
    if next == Stage::Completed {
        events.push(subject.completed(at_ms));
    }
    Step {
        stage: next,
        events,
    }
}

/// A made-up USPS-style tracking number, the same for the same order.
fn tracking_number(order_id: &str) -> String {
    let digest = Sha256::digest(order_id.as_bytes());
    let digits: String = digest
        .iter()
        .take(18)
        .map(|b| char::from(b'0' + b % 10))
        .collect();
    format!("9400{digits}")
}

#[cfg(test)]
mod tests {
    use super::tracking_number;

    #[test]
    fn a_tracking_number_is_stable_per_order() {
        let number = tracking_number("ord_1");
        assert_eq!(number, tracking_number("ord_1"));
        assert_eq!(number.len(), 22);
        assert!(number.bytes().all(|b| b.is_ascii_digit()));
    }
}
