//! The `orders` and `fills` tables: drafting (idempotent on `externalId`),
//! sending (`DRAFT` → `PLACED`/`ROUTING` once every prescription is signed, in one
//! transaction so concurrent senders send once), canceling, reading and listing.

use rusqlite::{Connection, Row, TransactionBehavior, params};

use super::StoreError;
use super::catalog::{self, Pharmacy};
use super::clinical::{
    Address, Created, Key, Page, Paged, Record, existing, find, json_opt, new_id, now_rfc3339,
    page_of, to_json, written,
};
use super::patients;
use super::prescriptions;

/// One fill of an order: a prescription sent to the pharmacy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fill {
    pub id: String,
    /// `NEW`, `SENT` or `CANCELED`.
    pub state: String,
    pub prescription_id: String,
}

/// A stored order with its fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub id: String,
    pub external_id: Option<String>,
    /// `DRAFT`, `ROUTING`, `PLACED` or `CANCELED`.
    pub state: String,
    pub patient_id: String,
    pub pharmacy: Option<Pharmacy>,
    pub address: Option<Address>,
    pub fills: Vec<Fill>,
    pub created_at: String,
    pub sent_at: Option<String>,
}

/// A validated new draft order.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub external_id: Option<String>,
    pub patient_id: String,
    pub prescription_ids: Vec<String>,
    pub pharmacy_id: Option<String>,
    pub address: Option<Address>,
}

/// What `orders(filter:)` narrows by.
#[derive(Debug, Clone, Default)]
pub struct OrderFilter {
    pub patient_id: Option<String>,
    pub state: Option<String>,
}

/// Result of drafting an order. Indexes point into `NewOrder::prescription_ids`.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CreateOutcome {
    Done(Created<Order>),
    PatientNotFound,
    PharmacyNotFound,
    PrescriptionNotFound(usize),
    PrescriptionOfAnotherPatient(usize),
    PrescriptionCanceled(usize),
}

/// Result of sending an order.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum SendOutcome {
    Sent(Order),
    NotFound,
    NotDraft(Order),
    /// How many prescriptions on the order are still drafts.
    Unsigned(usize),
    /// How many prescriptions on the order were canceled since it was drafted.
    CanceledPrescriptions(usize),
}

/// Result of canceling an order.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CancelOutcome {
    Canceled(Order),
    NotFound,
    /// The order was sent and the caller may not cancel sent ones.
    SentNeedsWrite,
}

impl Record for Order {
    const TABLE: &'static str = "orders";
    const COLUMNS: &'static str =
        "seq, id, external_id, state, patient_id, pharmacy, address, created_at, sent_at";

    /// An order without its fills: [`Record::complete`] reads them.
    fn from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Self)> {
        Ok((
            row.get(0)?,
            Order {
                id: row.get(1)?,
                external_id: row.get(2)?,
                state: row.get(3)?,
                patient_id: row.get(4)?,
                pharmacy: json_opt(row, 5)?,
                address: json_opt(row, 6)?,
                fills: Vec::new(),
                created_at: row.get(7)?,
                sent_at: row.get(8)?,
            },
        ))
    }

    /// Reads the order's fills, oldest first.
    fn complete(conn: &Connection, mut order: Self) -> Result<Self, StoreError> {
        let mut stmt = conn.prepare(
            "SELECT id, state, prescription_id FROM fills WHERE order_id = ?1 ORDER BY seq",
        )?;
        let fills = stmt.query_map([&order.id], |row| {
            Ok(Fill {
                id: row.get(0)?,
                state: row.get(1)?,
                prescription_id: row.get(2)?,
            })
        })?;
        order.fills = fills.collect::<Result<_, _>>()?;
        Ok(order)
    }
}

/// Drafts an order, or returns the one already holding `external_id` in `org`.
pub fn create(
    conn: &mut Connection,
    org: &str,
    new: NewOrder,
) -> Result<CreateOutcome, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if let Some(existing) = existing(&tx, org, new.external_id.as_deref())? {
        return Ok(CreateOutcome::Done(Created::Existing(existing)));
    }
    if patients::get(&tx, org, &new.patient_id)?.is_none() {
        return Ok(CreateOutcome::PatientNotFound);
    }
    for (index, prescription_id) in new.prescription_ids.iter().enumerate() {
        let Some(rx) = prescriptions::get(&tx, org, prescription_id)? else {
            return Ok(CreateOutcome::PrescriptionNotFound(index));
        };
        if rx.patient_id != new.patient_id {
            return Ok(CreateOutcome::PrescriptionOfAnotherPatient(index));
        }
        if rx.state == "CANCELED" {
            return Ok(CreateOutcome::PrescriptionCanceled(index));
        }
    }
    let pharmacy = match &new.pharmacy_id {
        Some(pharmacy_id) => match catalog::pharmacy_by_id(&tx, pharmacy_id)? {
            Some(p) => Some(p),
            None => return Ok(CreateOutcome::PharmacyNotFound),
        },
        None => None,
    };
    let id = new_id("ord");
    tx.execute(
        "INSERT INTO orders (id, organization_id, external_id, patient_id, state, pharmacy, address, created_at)
         VALUES (?1, ?2, ?3, ?4, 'DRAFT', ?5, ?6, ?7)",
        params![
            id,
            org,
            new.external_id,
            new.patient_id,
            pharmacy.as_ref().map(to_json).transpose()?,
            new.address.as_ref().map(to_json).transpose()?,
            now_rfc3339()
        ],
    )?;
    for prescription_id in &new.prescription_ids {
        tx.execute(
            "INSERT INTO fills (id, order_id, prescription_id, state) VALUES (?1, ?2, ?3, 'NEW')",
            params![new_id("fill"), id, prescription_id],
        )?;
    }
    let created = written(&tx, org, &id)?;
    tx.commit()?;
    Ok(CreateOutcome::Done(Created::New(created)))
}

/// Sends a draft order once every prescription on it is signed: `PLACED` with a
/// pharmacy, `ROUTING` without; its fills become `SENT`. Nothing changes otherwise.
pub fn send(conn: &mut Connection, org: &str, id: &str) -> Result<SendOutcome, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(current) = get(&tx, org, id)? else {
        return Ok(SendOutcome::NotFound);
    };
    if current.state != "DRAFT" {
        return Ok(SendOutcome::NotDraft(current));
    }
    let (drafts, canceled): (usize, usize) = tx.query_row(
        "SELECT coalesce(sum(p.state = 'DRAFT'), 0), coalesce(sum(p.state = 'CANCELED'), 0)
         FROM fills f JOIN prescriptions p ON p.id = f.prescription_id
         WHERE f.order_id = ?1",
        [id],
        |row| {
            Ok((
                row.get::<_, i64>(0)? as usize,
                row.get::<_, i64>(1)? as usize,
            ))
        },
    )?;
    if drafts > 0 {
        return Ok(SendOutcome::Unsigned(drafts));
    }
    if canceled > 0 {
        return Ok(SendOutcome::CanceledPrescriptions(canceled));
    }
    let next = if current.pharmacy.is_some() {
        "PLACED"
    } else {
        "ROUTING"
    };
    tx.execute(
        "UPDATE orders SET state = ?3, sent_at = ?4 WHERE organization_id = ?1 AND id = ?2",
        params![org, id, next, now_rfc3339()],
    )?;
    tx.execute("UPDATE fills SET state = 'SENT' WHERE order_id = ?1", [id])?;
    let sent = written(&tx, org, id)?;
    tx.commit()?;
    Ok(SendOutcome::Sent(sent))
}

/// Cancels an order and its fills. A draft needs only drafting rights; a sent
/// order needs `may_cancel_sent`. Canceling a canceled order returns it as is.
pub fn cancel(
    conn: &mut Connection,
    org: &str,
    id: &str,
    may_cancel_sent: bool,
) -> Result<CancelOutcome, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(current) = get(&tx, org, id)? else {
        return Ok(CancelOutcome::NotFound);
    };
    match current.state.as_str() {
        "CANCELED" => return Ok(CancelOutcome::Canceled(current)),
        "DRAFT" => {}
        _ if !may_cancel_sent => return Ok(CancelOutcome::SentNeedsWrite),
        _ => {}
    }
    tx.execute(
        "UPDATE orders SET state = 'CANCELED' WHERE organization_id = ?1 AND id = ?2",
        [org, id],
    )?;
    tx.execute(
        "UPDATE fills SET state = 'CANCELED' WHERE order_id = ?1",
        [id],
    )?;
    let canceled = written(&tx, org, id)?;
    tx.commit()?;
    Ok(CancelOutcome::Canceled(canceled))
}

/// The order `id` (with its fills) if it belongs to `org`.
pub fn get(conn: &Connection, org: &str, id: &str) -> Result<Option<Order>, StoreError> {
    find(conn, org, Key::Id, id)
}

/// One page of the organization's orders (with fills), oldest first.
pub fn list(
    conn: &Connection,
    org: &str,
    filter: &OrderFilter,
    page: Page,
) -> Result<Paged<Order>, StoreError> {
    page_of(
        conn,
        org,
        page,
        "(?3 IS NULL OR patient_id = ?3) AND (?4 IS NULL OR state = ?4)",
        [&filter.patient_id, &filter.state],
    )
}
