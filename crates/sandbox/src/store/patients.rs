//! The `patients` table: create (idempotent on `externalId`), update, read and
//! list, always within one organization.

use rusqlite::{Connection, Row, TransactionBehavior, params};

use super::StoreError;
use super::clinical::{
    Address, Created, Key, Page, Paged, Record, existing, find, json_opt, new_id, now_rfc3339,
    page_of, to_json, written,
};

/// A stored patient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patient {
    pub id: String,
    pub external_id: Option<String>,
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub date_of_birth: String,
    /// `MALE`, `FEMALE` or `UNKNOWN`.
    pub sex: String,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
    pub created_at: String,
}

/// A validated new patient.
#[derive(Debug, Clone)]
pub struct NewPatient {
    pub external_id: Option<String>,
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub date_of_birth: String,
    pub sex: String,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
}

/// Validated changes; `None` leaves a field as it is, `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct PatientChanges {
    /// First, middle, last: the name changes as a whole.
    pub name: Option<(String, Option<String>, String)>,
    pub date_of_birth: Option<String>,
    pub sex: Option<String>,
    pub gender: Option<Option<String>>,
    pub email: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub address: Option<Option<Address>>,
}

/// What `patients(filter:)` narrows by.
#[derive(Debug, Clone, Default)]
pub struct PatientFilter {
    /// Case-insensitive substring of the full name.
    pub name: Option<String>,
    pub external_id: Option<String>,
}

impl Record for Patient {
    const TABLE: &'static str = "patients";
    const COLUMNS: &'static str = "seq, id, external_id, first_name, middle_name, last_name, \
        date_of_birth, sex, gender, email, phone, address, created_at";

    fn from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Self)> {
        Ok((
            row.get(0)?,
            Patient {
                id: row.get(1)?,
                external_id: row.get(2)?,
                first_name: row.get(3)?,
                middle_name: row.get(4)?,
                last_name: row.get(5)?,
                date_of_birth: row.get(6)?,
                sex: row.get(7)?,
                gender: row.get(8)?,
                email: row.get(9)?,
                phone: row.get(10)?,
                address: json_opt(row, 11)?,
                created_at: row.get(12)?,
            },
        ))
    }
}

/// Creates a patient, or returns the one already holding `external_id` in `org`.
pub fn create(
    conn: &mut Connection,
    org: &str,
    new: NewPatient,
) -> Result<Created<Patient>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if let Some(existing) = existing(&tx, org, new.external_id.as_deref())? {
        return Ok(Created::Existing(existing));
    }
    let id = new_id("pat");
    let address = new.address.as_ref().map(to_json).transpose()?;
    tx.execute(
        "INSERT INTO patients (id, organization_id, external_id, first_name, middle_name, last_name,
                               date_of_birth, sex, gender, email, phone, address, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id,
            org,
            new.external_id,
            new.first_name,
            new.middle_name,
            new.last_name,
            new.date_of_birth,
            new.sex,
            new.gender,
            new.email,
            new.phone,
            address,
            now_rfc3339()
        ],
    )?;
    let created = written(&tx, org, &id)?;
    tx.commit()?;
    Ok(Created::New(created))
}

/// Applies `changes` to the patient `id` of `org`; `None` when there is no such patient.
pub fn update(
    conn: &mut Connection,
    org: &str,
    id: &str,
    changes: PatientChanges,
) -> Result<Option<Patient>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some(mut p) = get(&tx, org, id)? else {
        return Ok(None);
    };
    if let Some((first, middle, last)) = changes.name {
        p.first_name = first;
        p.middle_name = middle;
        p.last_name = last;
    }
    if let Some(dob) = changes.date_of_birth {
        p.date_of_birth = dob;
    }
    if let Some(sex) = changes.sex {
        p.sex = sex;
    }
    if let Some(gender) = changes.gender {
        p.gender = gender;
    }
    if let Some(email) = changes.email {
        p.email = email;
    }
    if let Some(phone) = changes.phone {
        p.phone = phone;
    }
    if let Some(address) = changes.address {
        p.address = address;
    }
    let address = p.address.as_ref().map(to_json).transpose()?;
    tx.execute(
        "UPDATE patients SET first_name = ?3, middle_name = ?4, last_name = ?5, date_of_birth = ?6,
                sex = ?7, gender = ?8, email = ?9, phone = ?10, address = ?11
         WHERE organization_id = ?1 AND id = ?2",
        params![
            org,
            id,
            p.first_name,
            p.middle_name,
            p.last_name,
            p.date_of_birth,
            p.sex,
            p.gender,
            p.email,
            p.phone,
            address
        ],
    )?;
    tx.commit()?;
    Ok(Some(p))
}

/// The patient `id` if it belongs to `org`.
pub fn get(conn: &Connection, org: &str, id: &str) -> Result<Option<Patient>, StoreError> {
    find(conn, org, Key::Id, id)
}

/// One page of the organization's patients, oldest first.
pub fn list(
    conn: &Connection,
    org: &str,
    filter: &PatientFilter,
    page: Page,
) -> Result<Paged<Patient>, StoreError> {
    page_of(
        conn,
        org,
        page,
        "(?3 IS NULL OR instr(lower(first_name || ' ' || coalesce(middle_name || ' ', '') || last_name),
                             lower(?3)) > 0)
         AND (?4 IS NULL OR external_id = ?4)",
        [&filter.name, &filter.external_id],
    )
}
