//! The `prescriptions` table: drafting (idempotent on `externalId`), signing
//! (`DRAFT` → `ACTIVE`, one transaction per batch so concurrent signers cannot both
//! win), canceling, reading and listing, always within one organization.

use rusqlite::{Connection, Row, Transaction, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::catalog::{self, Medication};
use super::clinical::{
    Created, Key, Page, Paged, Record, existing, find, json, json_opt, new_id, now_rfc3339,
    page_of, to_json, written,
};
use super::patients;

/// The signer of a prescription, copied into it when signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prescriber {
    pub id: String,
    pub name: String,
    pub npi: String,
}

/// A stored prescription.
#[derive(Debug, Clone, PartialEq)]
pub struct Prescription {
    pub id: String,
    pub external_id: Option<String>,
    /// `DRAFT`, `ACTIVE` or `CANCELED`.
    pub state: String,
    pub patient_id: String,
    pub treatment: Medication,
    pub dispense_as_written: bool,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    pub fills_allowed: i64,
    pub days_supply: i64,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
    pub expiration_date: Option<String>,
    pub prescriber: Option<Prescriber>,
    pub written_at: Option<String>,
    pub created_at: String,
}

/// A validated new draft.
#[derive(Debug, Clone)]
pub struct NewPrescription {
    pub external_id: Option<String>,
    pub patient_id: String,
    pub treatment_id: String,
    pub dispense_as_written: bool,
    pub dispense_quantity: f64,
    pub dispense_unit: String,
    pub fills_allowed: i64,
    pub days_supply: i64,
    pub instructions: String,
    pub notes: Option<String>,
    pub effective_date: Option<String>,
    pub expiration_date: Option<String>,
}

/// What `prescriptions(filter:)` narrows by.
#[derive(Debug, Clone, Default)]
pub struct PrescriptionFilter {
    pub patient_id: Option<String>,
    pub state: Option<String>,
}

/// Result of drafting a prescription.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CreateOutcome {
    Done(Created<Prescription>),
    PatientNotFound,
    TreatmentNotFound,
}

/// Result of signing one prescription.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum SignOutcome {
    Signed(Prescription),
    NotFound,
    NotDraft(Prescription),
}

/// Result of canceling a prescription.
// Returned once per call and consumed at once: boxing the record buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CancelOutcome {
    Canceled(Prescription),
    NotFound,
    /// The prescription is signed and the caller may not cancel signed ones.
    SignedNeedsWrite,
}

impl Record for Prescription {
    const TABLE: &'static str = "prescriptions";
    const COLUMNS: &'static str = "seq, id, external_id, state, patient_id, treatment, \
        dispense_as_written, dispense_quantity, dispense_unit, fills_allowed, days_supply, \
        instructions, notes, effective_date, expiration_date, prescriber, written_at, created_at";

    fn from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Self)> {
        Ok((
            row.get(0)?,
            Prescription {
                id: row.get(1)?,
                external_id: row.get(2)?,
                state: row.get(3)?,
                patient_id: row.get(4)?,
                treatment: json(row, 5)?,
                dispense_as_written: row.get(6)?,
                dispense_quantity: row.get(7)?,
                dispense_unit: row.get(8)?,
                fills_allowed: row.get(9)?,
                days_supply: row.get(10)?,
                instructions: row.get(11)?,
                notes: row.get(12)?,
                effective_date: row.get(13)?,
                expiration_date: row.get(14)?,
                prescriber: json_opt(row, 15)?,
                written_at: row.get(16)?,
                created_at: row.get(17)?,
            },
        ))
    }
}

/// Drafts a prescription, or returns the one already holding `external_id` in `org`.
pub fn create(
    conn: &mut Connection,
    org: &str,
    new: NewPrescription,
) -> Result<CreateOutcome, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if let Some(existing) = existing(&tx, org, new.external_id.as_deref())? {
        return Ok(CreateOutcome::Done(Created::Existing(existing)));
    }
    if patients::get(&tx, org, &new.patient_id)?.is_none() {
        return Ok(CreateOutcome::PatientNotFound);
    }
    let Some(treatment) = catalog::medication_by_id(&tx, &new.treatment_id)? else {
        return Ok(CreateOutcome::TreatmentNotFound);
    };
    let id = new_id("rx");
    tx.execute(
        "INSERT INTO prescriptions (id, organization_id, external_id, patient_id, state, treatment,
             dispense_as_written, dispense_quantity, dispense_unit, fills_allowed, days_supply,
             instructions, notes, effective_date, expiration_date, created_at)
         VALUES (?1, ?2, ?3, ?4, 'DRAFT', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        params![
            id,
            org,
            new.external_id,
            new.patient_id,
            to_json(&treatment)?,
            new.dispense_as_written,
            new.dispense_quantity,
            new.dispense_unit,
            new.fills_allowed,
            new.days_supply,
            new.instructions,
            new.notes,
            new.effective_date,
            new.expiration_date,
            now_rfc3339()
        ],
    )?;
    let created = written(&tx, org, &id)?;
    tx.commit()?;
    Ok(CreateOutcome::Done(Created::New(created)))
}

/// Signs each of `ids` (in order) as `prescriber`, in one transaction: each id is
/// checked and moved `DRAFT` → `ACTIVE` on its own, so one bad id does not stop
/// the others, and a second signer of the same draft finds it no longer a draft.
pub fn sign(
    conn: &mut Connection,
    org: &str,
    ids: &[String],
    prescriber: &Prescriber,
) -> Result<Vec<SignOutcome>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let snapshot = to_json(prescriber)?;
    let mut outcomes = Vec::with_capacity(ids.len());
    for id in ids {
        outcomes.push(sign_one(&tx, org, id, &snapshot)?);
    }
    tx.commit()?;
    Ok(outcomes)
}

fn sign_one(
    tx: &Transaction<'_>,
    org: &str,
    id: &str,
    snapshot: &str,
) -> Result<SignOutcome, StoreError> {
    let changed = tx.execute(
        "UPDATE prescriptions SET state = 'ACTIVE', prescriber = ?3, written_at = ?4
         WHERE organization_id = ?1 AND id = ?2 AND state = 'DRAFT'",
        params![org, id, snapshot, now_rfc3339()],
    )?;
    let Some(current) = get(tx, org, id)? else {
        return Ok(SignOutcome::NotFound);
    };
    Ok(if changed == 1 {
        SignOutcome::Signed(current)
    } else {
        SignOutcome::NotDraft(current)
    })
}

/// Cancels a prescription. A draft needs only drafting rights; a signed one
/// needs `may_cancel_signed`. Canceling a canceled prescription returns it as is.
pub fn cancel(
    conn: &mut Connection,
    org: &str,
    id: &str,
    may_cancel_signed: bool,
) -> Result<CancelOutcome, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(current) = get(&tx, org, id)? else {
        return Ok(CancelOutcome::NotFound);
    };
    match current.state.as_str() {
        "CANCELED" => return Ok(CancelOutcome::Canceled(current)),
        "ACTIVE" if !may_cancel_signed => return Ok(CancelOutcome::SignedNeedsWrite),
        _ => {}
    }
    tx.execute(
        "UPDATE prescriptions SET state = 'CANCELED' WHERE organization_id = ?1 AND id = ?2",
        [org, id],
    )?;
    let canceled = written(&tx, org, id)?;
    tx.commit()?;
    Ok(CancelOutcome::Canceled(canceled))
}

/// The prescription `id` if it belongs to `org`.
pub fn get(conn: &Connection, org: &str, id: &str) -> Result<Option<Prescription>, StoreError> {
    find(conn, org, Key::Id, id)
}

/// One page of the organization's prescriptions, oldest first.
pub fn list(
    conn: &Connection,
    org: &str,
    filter: &PrescriptionFilter,
    page: Page,
) -> Result<Paged<Prescription>, StoreError> {
    page_of(
        conn,
        org,
        page,
        "(?3 IS NULL OR patient_id = ?3) AND (?4 IS NULL OR state = ?4)",
        [&filter.patient_id, &filter.state],
    )
}
