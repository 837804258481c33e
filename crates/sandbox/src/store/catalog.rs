//! The medication and pharmacy catalog tables: replaced as a whole at start-up
//! (built-in lists or the fixture's), searched by name, looked up by id.

use rusqlite::{Connection, OptionalExtension as _, Row, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::catalog::legacy::{MedicationEntry, PharmacyEntry};

/// A catalog medication, also the snapshot kept in a prescription (`treatment`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Medication {
    pub id: String,
    pub name: String,
    pub strength: String,
    pub form: String,
    pub rxcui: Option<String>,
}

/// A catalog pharmacy, also the snapshot kept in an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pharmacy {
    pub id: String,
    pub name: String,
    pub phone: Option<String>,
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
}

/// Replaces both catalog tables in one transaction. Records keep their own
/// snapshots, so nothing else changes.
pub fn replace(
    conn: &mut Connection,
    medications: &[MedicationEntry],
    pharmacies: &[PharmacyEntry],
) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM medications", [])?;
    tx.execute("DELETE FROM pharmacies", [])?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO medications (id, name, strength, form, rxcui, position)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (position, m) in medications.iter().enumerate() {
            insert.execute(params![
                m.id,
                m.name,
                m.strength,
                m.form,
                m.rxcui,
                position as i64
            ])?;
        }
        let mut insert = tx.prepare(
            "INSERT INTO pharmacies (id, name, phone, street1, street2, city, state, postal_code, position)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for (position, p) in pharmacies.iter().enumerate() {
            insert.execute(params![
                p.id,
                p.name,
                p.phone,
                p.street1,
                p.street2,
                p.city,
                p.state,
                p.postal_code,
                position as i64
            ])?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn medication(row: &Row<'_>) -> rusqlite::Result<Medication> {
    Ok(Medication {
        id: row.get(0)?,
        name: row.get(1)?,
        strength: row.get(2)?,
        form: row.get(3)?,
        rxcui: row.get(4)?,
    })
}

fn pharmacy(row: &Row<'_>) -> rusqlite::Result<Pharmacy> {
    Ok(Pharmacy {
        id: row.get(0)?,
        name: row.get(1)?,
        phone: row.get(2)?,
        street1: row.get(3)?,
        street2: row.get(4)?,
        city: row.get(5)?,
        state: row.get(6)?,
        postal_code: row.get(7)?,
    })
}

/// Medications whose name contains `name` (case-insensitive), in catalog order.
pub fn search_medications(
    conn: &Connection,
    name: Option<&str>,
    limit: usize,
) -> Result<Vec<Medication>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, name, strength, form, rxcui FROM medications
         WHERE ?1 IS NULL OR instr(lower(name), lower(?1)) > 0
         ORDER BY position LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![name, limit as i64], medication)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One medication by id.
pub fn medication_by_id(conn: &Connection, id: &str) -> Result<Option<Medication>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id, name, strength, form, rxcui FROM medications WHERE id = ?1",
            [id],
            medication,
        )
        .optional()?)
}

/// Pharmacies whose name contains `name` (case-insensitive), in catalog order.
pub fn search_pharmacies(
    conn: &Connection,
    name: Option<&str>,
    limit: usize,
) -> Result<Vec<Pharmacy>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, name, phone, street1, street2, city, state, postal_code FROM pharmacies
         WHERE ?1 IS NULL OR instr(lower(name), lower(?1)) > 0
         ORDER BY position LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![name, limit as i64], pharmacy)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One pharmacy by id.
pub fn pharmacy_by_id(conn: &Connection, id: &str) -> Result<Option<Pharmacy>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id, name, phone, street1, street2, city, state, postal_code
             FROM pharmacies WHERE id = ?1",
            [id],
            pharmacy,
        )
        .optional()?)
}
