//! The Network API's records in SQLite: patients, prescriptions and orders, each a
//! JSON document beside the columns it is found by (`migrations/0003_network.sql`).
//! Every function takes the connection (inside the caller's transaction) and the
//! organization: no query here crosses an organization's wall. Rules live in
//! `crate::network`; this file only reads and writes.

use rusqlite::{Connection, OptionalExtension as _, params};
use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::wire::{
    Dispense, MedicationHistoryStatus, OrderExceptionType, OrderState, PatientAddress, Sex,
    Treatment,
};

/// A new id: `prefix` + `_` + a ULID.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", ulid::Ulid::new())
}

/// Now, RFC 3339 UTC.
pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// One entry of a clinical list (allergy, medication, diagnosis).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryDoc {
    /// The catalog's id when coded, else a fresh id.
    pub id: String,
    pub name: String,
    /// RxNorm id (allergies, medications) or ICD-10 code (diagnoses).
    pub code: Option<String>,
    /// True when the entry resolved to the catalog (screening can use it).
    pub coded: bool,
    /// Medications only.
    pub status: Option<MedicationHistoryStatus>,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenefitDoc {
    pub id: String,
    pub bin: String,
    pub pcn: Option<String>,
    pub group_id: Option<String>,
    pub member_id: String,
}

#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatientDoc {
    pub id: String,
    pub organization_id: String,
    pub title: Option<String>,
    pub first: Option<String>,
    pub middle: Option<String>,
    pub last: Option<String>,
    pub date_of_birth: Option<String>,
    pub sex: Option<Sex>,
    pub gender: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<PatientAddress>,
    pub benefits: Vec<BenefitDoc>,
    pub preferred_pharmacy: Option<String>,
    pub allergies: Vec<EntryDoc>,
    pub medications: Vec<EntryDoc>,
    pub diagnoses: Vec<EntryDoc>,
    pub notes: Option<String>,
    pub created_at: String,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct PrescriptionDoc {
    pub id: String,
    pub organization_id: String,
    pub external_id: Option<String>,
    pub patient_id: String,
    pub template_id: Option<String>,
    /// A snapshot of the catalog's drug when it was chosen.
    pub treatment: Treatment,
    pub instructions: Option<String>,
    pub dispense: Dispense,
    pub diagnoses: Vec<EntryDoc>,
    pub notes: Option<String>,
    /// `YYYY-MM-DD`, set when signed.
    pub signed_at: Option<String>,
    /// The signer's user id.
    pub signed_by: Option<String>,
    pub signing_message: Option<String>,
    pub created_at: String,
}

impl PrescriptionDoc {
    pub fn is_signed(&self) -> bool {
        self.signed_at.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionDoc {
    pub id: String,
    pub kind: OrderExceptionType,
    pub message: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderDoc {
    pub id: String,
    pub organization_id: String,
    pub external_id: Option<String>,
    pub patient_id: String,
    pub state: OrderState,
    pub prescription_ids: Vec<String>,
    pub pharmacy_id: Option<String>,
    pub exceptions: Vec<ExceptionDoc>,
    pub created_at: String,
    pub submitted_at: Option<String>,
}

fn to_json<T: Serialize>(doc: &T) -> Result<String, StoreError> {
    serde_json::to_string(doc).map_err(|e| StoreError::Document(e.to_string()))
}

fn from_json<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Document(e.to_string()))
}

fn docs<T: for<'de> Deserialize<'de>>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<T>, StoreError> {
    let mut statement = conn.prepare_cached(sql)?;
    let texts = statement
        .query_map(params, |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    texts.iter().map(|t| from_json(t)).collect()
}

fn one<T: for<'de> Deserialize<'de>>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<T>, StoreError> {
    let text: Option<String> = conn
        .prepare_cached(sql)?
        .query_row(params, |row| row.get(0))
        .optional()?;
    text.map(|t| from_json(&t)).transpose()
}

fn key(value: &Option<String>) -> Option<String> {
    value.as_ref().map(|v| v.trim().to_lowercase())
}

// ---------- patients

pub fn save_patient(conn: &Connection, doc: &PatientDoc) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO network_patients
             (id, organization_id, first_key, last_key, date_of_birth, email_key, phone, doc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(id) DO UPDATE SET first_key = excluded.first_key,
             last_key = excluded.last_key, date_of_birth = excluded.date_of_birth,
             email_key = excluded.email_key, phone = excluded.phone, doc = excluded.doc",
    )?
    .execute(params![
        doc.id,
        doc.organization_id,
        key(&doc.first),
        key(&doc.last),
        doc.date_of_birth,
        key(&doc.email),
        doc.phone,
        to_json(doc)?
    ])?;
    Ok(())
}

pub fn patient(conn: &Connection, org: &str, id: &str) -> Result<Option<PatientDoc>, StoreError> {
    one(
        conn,
        "SELECT doc FROM network_patients WHERE organization_id = ?1 AND id = ?2",
        params![org, id],
    )
}

/// Patients whose first and last names (ignoring case) and date of birth are these.
pub fn patients_named(
    conn: &Connection,
    org: &str,
    first: &str,
    last: &str,
    date_of_birth: &str,
) -> Result<Vec<PatientDoc>, StoreError> {
    docs(
        conn,
        "SELECT doc FROM network_patients WHERE organization_id = ?1 AND first_key = ?2
             AND last_key = ?3 AND date_of_birth = ?4 ORDER BY seq LIMIT 21",
        params![
            org,
            first.trim().to_lowercase(),
            last.trim().to_lowercase(),
            date_of_birth
        ],
    )
}

/// Patients with this email (ignoring case) and this phone.
pub fn patients_reachable_at(
    conn: &Connection,
    org: &str,
    email: &str,
    phone: &str,
) -> Result<Vec<PatientDoc>, StoreError> {
    docs(
        conn,
        "SELECT doc FROM network_patients WHERE organization_id = ?1 AND email_key = ?2
             AND phone = ?3 ORDER BY seq LIMIT 21",
        params![org, email.trim().to_lowercase(), phone],
    )
}

/// What a partial search sent; `None` fields are not compared.
#[derive(Debug, Default)]
pub struct PatientFilter {
    pub first_prefix: Option<String>,
    pub last_prefix: Option<String>,
    pub date_of_birth: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

fn like_prefix(value: &str) -> String {
    let escaped = value
        .trim()
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("{escaped}%")
}

/// The first `limit` patients that fit every field of `filter` (at least one is set).
pub fn patient_candidates(
    conn: &Connection,
    org: &str,
    filter: &PatientFilter,
    limit: usize,
) -> Result<Vec<PatientDoc>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    docs(
        conn,
        "SELECT doc FROM network_patients WHERE organization_id = ?1
             AND (?2 IS NULL OR first_key LIKE ?2 ESCAPE '\\')
             AND (?3 IS NULL OR last_key LIKE ?3 ESCAPE '\\')
             AND (?4 IS NULL OR date_of_birth = ?4)
             AND (?5 IS NULL OR email_key = ?5)
             AND (?6 IS NULL OR phone = ?6)
         ORDER BY last_key, first_key, seq LIMIT ?7",
        params![
            org,
            filter.first_prefix.as_deref().map(like_prefix),
            filter.last_prefix.as_deref().map(like_prefix),
            filter.date_of_birth,
            key(&filter.email),
            filter.phone,
            limit
        ],
    )
}

// ---------- prescriptions

pub fn save_prescription(conn: &Connection, doc: &PrescriptionDoc) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO network_prescriptions
             (id, organization_id, external_id, patient_id, treatment_id, signed, doc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(id) DO UPDATE SET treatment_id = excluded.treatment_id,
             signed = excluded.signed, doc = excluded.doc",
    )?
    .execute(params![
        doc.id,
        doc.organization_id,
        doc.external_id,
        doc.patient_id,
        doc.treatment.id.as_str(),
        doc.is_signed(),
        to_json(doc)?
    ])?;
    Ok(())
}

pub fn prescription(
    conn: &Connection,
    org: &str,
    id: &str,
) -> Result<Option<PrescriptionDoc>, StoreError> {
    one(
        conn,
        "SELECT doc FROM network_prescriptions WHERE organization_id = ?1 AND id = ?2",
        params![org, id],
    )
}

pub fn prescription_by_external_id(
    conn: &Connection,
    org: &str,
    external_id: &str,
) -> Result<Option<PrescriptionDoc>, StoreError> {
    one(
        conn,
        "SELECT doc FROM network_prescriptions WHERE organization_id = ?1 AND external_id = ?2",
        params![org, external_id],
    )
}

/// The patient's unsigned drafts of `treatment_id`: drafts in progress.
pub fn drafts_in_progress(
    conn: &Connection,
    org: &str,
    patient_id: &str,
    treatment_id: &str,
) -> Result<Vec<PrescriptionDoc>, StoreError> {
    docs(
        conn,
        "SELECT doc FROM network_prescriptions WHERE organization_id = ?1 AND patient_id = ?2
             AND treatment_id = ?3 AND signed = 0 ORDER BY seq LIMIT 20",
        params![org, patient_id, treatment_id],
    )
}

// ---------- orders

pub fn save_order(conn: &Connection, doc: &OrderDoc) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO network_orders (id, organization_id, external_id, patient_id, state, doc)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(id) DO UPDATE SET state = excluded.state, doc = excluded.doc",
    )?
    .execute(params![
        doc.id,
        doc.organization_id,
        doc.external_id,
        doc.patient_id,
        doc.state.as_str(),
        to_json(doc)?
    ])?;
    conn.prepare_cached("DELETE FROM network_order_items WHERE order_id = ?1")?
        .execute(params![doc.id])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO network_order_items (order_id, prescription_id) VALUES (?1, ?2)",
    )?;
    for prescription_id in &doc.prescription_ids {
        insert.execute(params![doc.id, prescription_id])?;
    }
    Ok(())
}

pub fn order(conn: &Connection, org: &str, id: &str) -> Result<Option<OrderDoc>, StoreError> {
    one(
        conn,
        "SELECT doc FROM network_orders WHERE organization_id = ?1 AND id = ?2",
        params![org, id],
    )
}

pub fn order_by_external_id(
    conn: &Connection,
    org: &str,
    external_id: &str,
) -> Result<Option<OrderDoc>, StoreError> {
    one(
        conn,
        "SELECT doc FROM network_orders WHERE organization_id = ?1 AND external_id = ?2",
        params![org, external_id],
    )
}

/// The patient's draft orders.
pub fn draft_orders(
    conn: &Connection,
    org: &str,
    patient_id: &str,
) -> Result<Vec<OrderDoc>, StoreError> {
    docs(
        conn,
        "SELECT doc FROM network_orders WHERE organization_id = ?1 AND patient_id = ?2
             AND state = 'DRAFT' ORDER BY seq LIMIT 20",
        params![org, patient_id],
    )
}

/// The order (other than `except`) that is not canceled and holds `prescription_id`.
pub fn live_order_holding(
    conn: &Connection,
    prescription_id: &str,
    except: &str,
) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT o.id FROM network_order_items i JOIN network_orders o ON o.id = i.order_id
             WHERE i.prescription_id = ?1 AND o.state != 'CANCELED' AND o.id != ?2 LIMIT 1",
        )?
        .query_row(params![prescription_id, except], |row| row.get(0))
        .optional()?)
}

// Patient data: `Debug` prints ids and states only.
crate::redact::redacted_debug! {
    EntryDoc { id, coded, status }
    BenefitDoc {  }
    PatientDoc { id, organization_id }
    PrescriptionDoc { id, organization_id, patient_id }
}

#[cfg(test)]
mod tests {
    use super::{EntryDoc, PatientDoc};

    #[test]
    fn printing_a_stored_patient_shows_no_patient_data() {
        let patient = PatientDoc {
            id: "pat_1".into(),
            first: Some("Rosa".into()),
            last: Some("Delgado".into()),
            date_of_birth: Some("1988-04-17".into()),
            email: Some("rosa.delgado@example.org".into()),
            allergies: vec![EntryDoc {
                id: "alg_1".into(),
                name: "Penicillins".into(),
                code: None,
                coded: true,
                status: None,
            }],
            ..PatientDoc::default()
        };

        let printed = format!("{patient:?} {:?}", patient.allergies);

        assert!(printed.contains("pat_1"), "{printed}");
        for secret in ["Rosa", "Delgado", "1988", "rosa.delgado", "Penicillins"] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }
}
