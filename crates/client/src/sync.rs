//! The backend sync behind `examples/backend_sync.rs`, as a library function so
//! it is tested as it runs: read a CSV of patients and what to prescribe them,
//! upsert each patient by `externalId`, draft a prescription and an order for
//! each row, then send every one of those orders whose prescriptions a
//! prescriber has signed. Every create carries an `externalId` derived from the
//! row, so a second run creates nothing. A row that fails validation (ours or
//! the server's) is reported with its line number and field, and the others go
//! on. Nothing here logs row contents.

use std::collections::HashMap;
use std::io::Read;

use serde::Deserialize;

use crate::api::Api;
use crate::api::types::{
    Medication, NewOrder, NewPatient, NewPatientName, NewPrescription, Order, OrderFilter,
    OrderState, PageRequest, Patient, PatientFilter, Prescription, PrescriptionFilter,
    PrescriptionState, Sex,
};
use crate::error::ClientError;

/// The CSV's columns, in order.
pub const COLUMNS: [&str; 12] = [
    "external_id",
    "first_name",
    "last_name",
    "date_of_birth",
    "sex",
    "phone",
    "email",
    "medication",
    "quantity",
    "unit",
    "days_supply",
    "instructions",
];

/// Why the whole sync stopped (a bad row does not stop it).
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("the CSV cannot be read: {0}")]
    Csv(String),
    #[error("the CSV header lacks the column {0}")]
    MissingColumn(&'static str),
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// A row that was skipped: its line in the file, the column at fault, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    pub line: u64,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.field, self.message)
    }
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub patients_created: usize,
    pub prescriptions_created: usize,
    pub orders_created: usize,
    pub orders_sent: usize,
    /// Rows already fully present from an earlier run.
    pub rows_unchanged: usize,
    pub rejected: Vec<RowError>,
}

impl SyncReport {
    /// Records created by this run (patients, prescriptions, orders).
    pub fn created(&self) -> usize {
        self.patients_created + self.prescriptions_created + self.orders_created
    }
}

#[derive(Debug, Deserialize)]
struct Row {
    external_id: String,
    first_name: String,
    last_name: String,
    date_of_birth: String,
    sex: String,
    phone: String,
    email: String,
    medication: String,
    quantity: String,
    unit: String,
    days_supply: String,
    instructions: String,
}

/// A row checked and ready to send.
struct Checked {
    patient: NewPatient,
    medication: String,
    quantity: f64,
    unit: String,
    days_supply: i64,
    instructions: String,
}

/// Runs the sync over `csv` with `api` (a machine token's, typically).
pub async fn sync_csv(api: &Api, csv: impl Read) -> Result<SyncReport, SyncError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(csv);
    let headers = reader
        .headers()
        .map_err(|e| SyncError::Csv(e.to_string()))?
        .clone();
    for column in COLUMNS {
        if !headers.iter().any(|h| h == column) {
            return Err(SyncError::MissingColumn(column));
        }
    }
    let mut report = SyncReport::default();
    let mut medications: HashMap<String, Result<Medication, String>> = HashMap::new();
    let mut orders: Vec<Order> = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(e) => match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    pos: Some(pos),
                    expected_len,
                    len,
                } => {
                    report.rejected.push(RowError {
                        line: pos.line(),
                        field: "row".to_owned(),
                        message: format!("has {len} fields, the header has {expected_len}"),
                    });
                    continue;
                }
                csv::ErrorKind::Utf8 { pos: Some(pos), .. } => {
                    report.rejected.push(RowError {
                        line: pos.line(),
                        field: "row".to_owned(),
                        message: "is not valid UTF-8".to_owned(),
                    });
                    continue;
                }
                _ => return Err(SyncError::Csv(e.to_string())),
            },
        };
        let line = record.position().map_or(0, csv::Position::line);
        let row: Row = match record.deserialize(Some(&headers)) {
            Ok(row) => row,
            Err(e) => {
                report.rejected.push(RowError {
                    line,
                    field: "row".to_owned(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let checked = match check(row) {
            Ok(c) => c,
            Err((field, message)) => {
                report.rejected.push(RowError {
                    line,
                    field: field.to_owned(),
                    message,
                });
                continue;
            }
        };
        let medication = match medications.get(&checked.medication.to_lowercase()) {
            Some(found) => found.clone(),
            None => {
                let found = find_medication(api, &checked.medication).await?;
                medications.insert(checked.medication.to_lowercase(), found.clone());
                found
            }
        };
        let medication = match medication {
            Ok(m) => m,
            Err(message) => {
                report.rejected.push(RowError {
                    line,
                    field: "medication".to_owned(),
                    message,
                });
                continue;
            }
        };
        match sync_row(api, &checked, &medication, &mut report).await {
            Ok(order) => orders.push(order),
            Err(ClientError::Invalid { field, message, .. }) => report.rejected.push(RowError {
                line,
                field: field.as_deref().map_or("row", column_of).to_owned(),
                message,
            }),
            Err(ClientError::NotFound { message }) => report.rejected.push(RowError {
                line,
                field: "row".to_owned(),
                message,
            }),
            Err(other) => return Err(other.into()),
        }
    }
    for order in orders {
        if order.state == OrderState::Draft
            && !order.fills.is_empty()
            && order
                .fills
                .iter()
                .all(|f| f.prescription.state == PrescriptionState::Active)
        {
            api.send_order(&order.id).await?;
            report.orders_sent += 1;
        }
    }
    Ok(report)
}

/// Upserts the row's patient, prescription and order; returns the order.
async fn sync_row(
    api: &Api,
    row: &Checked,
    medication: &Medication,
    report: &mut SyncReport,
) -> Result<Order, ClientError> {
    let external_id = row.patient.external_id.clone().unwrap_or_default();
    let mut created = false;
    let patient = match existing_patient(api, &external_id).await? {
        Some(p) => p,
        None => {
            let p = api.create_patient(&row.patient).await?;
            created = true;
            report.patients_created += 1;
            p
        }
    };
    let rx_external_id = format!("{external_id}/rx/{}", medication.id);
    let prescription = match existing_prescription(api, &patient.id, &rx_external_id).await? {
        Some(p) => p,
        None => {
            let p = api
                .create_prescription(&NewPrescription {
                    external_id: Some(rx_external_id.clone()),
                    patient_id: patient.id.clone(),
                    treatment_id: medication.id.clone(),
                    dispense_as_written: None,
                    dispense_quantity: row.quantity,
                    dispense_unit: row.unit.clone(),
                    fills_allowed: 1,
                    days_supply: row.days_supply,
                    instructions: row.instructions.clone(),
                    notes: None,
                    effective_date: None,
                })
                .await?;
            created = true;
            report.prescriptions_created += 1;
            p
        }
    };
    let order_external_id = format!("{external_id}/order/{}", medication.id);
    let order = match existing_order(api, &patient.id, &order_external_id).await? {
        Some(o) => o,
        None => {
            let o = api
                .create_order(&NewOrder {
                    external_id: Some(order_external_id),
                    patient_id: patient.id.clone(),
                    prescription_ids: vec![prescription.id.clone()],
                    pharmacy_id: None,
                    address: None,
                })
                .await?;
            created = true;
            report.orders_created += 1;
            o
        }
    };
    if !created {
        report.rows_unchanged += 1;
    }
    Ok(order)
}

async fn existing_patient(api: &Api, external_id: &str) -> Result<Option<Patient>, ClientError> {
    let filter = PatientFilter {
        external_id: Some(external_id.to_owned()),
        ..PatientFilter::default()
    };
    let page = api.patients(&filter, &PageRequest::first(1)).await?;
    Ok(page
        .items
        .into_iter()
        .find(|p| p.external_id.as_deref() == Some(external_id)))
}

async fn existing_prescription(
    api: &Api,
    patient_id: &str,
    external_id: &str,
) -> Result<Option<Prescription>, ClientError> {
    let filter = PrescriptionFilter {
        patient_id: Some(patient_id.to_owned()),
        state: None,
    };
    Ok(api
        .all_prescriptions(&filter)
        .await?
        .into_iter()
        .find(|p| p.external_id.as_deref() == Some(external_id)))
}

async fn existing_order(
    api: &Api,
    patient_id: &str,
    external_id: &str,
) -> Result<Option<Order>, ClientError> {
    let filter = OrderFilter {
        patient_id: Some(patient_id.to_owned()),
        state: None,
    };
    Ok(api
        .all_orders(&filter)
        .await?
        .into_iter()
        .find(|o| o.external_id.as_deref() == Some(external_id)))
}

/// The catalog entry a CSV `medication` names: `name`, `name strength` or
/// `name strength form` (case-insensitive), or an id. A bare name shared by
/// several strengths is ambiguous. Searches by ever shorter word prefixes, since
/// the catalog search matches names only.
async fn find_medication(
    api: &Api,
    wanted: &str,
) -> Result<Result<Medication, String>, ClientError> {
    let wanted_lc = wanted.to_lowercase();
    let words: Vec<&str> = wanted.split_whitespace().collect();
    for n in (1..=words.len()).rev() {
        let query = words[..n].join(" ");
        let found = api.medications(&query, Some(100)).await?;
        if let Some(m) = found.iter().find(|m| {
            m.id.eq_ignore_ascii_case(wanted)
                || format!("{} {} {}", m.name, m.strength, m.form).to_lowercase() == wanted_lc
                || format!("{} {}", m.name, m.strength).to_lowercase() == wanted_lc
        }) {
            return Ok(Ok(m.clone()));
        }
        let by_name: Vec<&Medication> = found
            .iter()
            .filter(|m| m.name.to_lowercase() == wanted_lc)
            .collect();
        match by_name.as_slice() {
            [only] => return Ok(Ok((*only).clone())),
            [first, ..] => {
                return Ok(Err(format!(
                    "{} catalog entries are named so; add the strength and form, e.g. \"{} {} {}\"",
                    by_name.len(),
                    first.name,
                    first.strength,
                    first.form
                )));
            }
            [] => {}
        }
    }
    Ok(Err("not found in the medication catalog".to_owned()))
}

/// Checks one row; on failure, the column at fault and why.
fn check(row: Row) -> Result<Checked, (&'static str, String)> {
    let required = |field: &'static str, value: &str| {
        if value.is_empty() {
            Err((field, "is required".to_owned()))
        } else {
            Ok(())
        }
    };
    required("external_id", &row.external_id)?;
    required("first_name", &row.first_name)?;
    required("last_name", &row.last_name)?;
    if !is_date(&row.date_of_birth) {
        return Err(("date_of_birth", "must be a date as YYYY-MM-DD".to_owned()));
    }
    let sex = match row.sex.to_ascii_lowercase().as_str() {
        "m" | "male" => Sex::Male,
        "f" | "female" => Sex::Female,
        "u" | "unknown" | "" => Sex::Unknown,
        _ => return Err(("sex", "must be male, female or unknown".to_owned())),
    };
    if !row.email.is_empty() && !row.email.contains('@') {
        return Err(("email", "is not an email address".to_owned()));
    }
    required("medication", &row.medication)?;
    let quantity: f64 = row
        .quantity
        .parse()
        .ok()
        .filter(|q: &f64| q.is_finite() && *q > 0.0)
        .ok_or(("quantity", "must be a number above zero".to_owned()))?;
    required("unit", &row.unit)?;
    let days_supply: i64 = row.days_supply.parse().ok().filter(|d| *d > 0).ok_or((
        "days_supply",
        "must be a whole number of days above zero".to_owned(),
    ))?;
    required("instructions", &row.instructions)?;
    let optional = |v: String| if v.is_empty() { None } else { Some(v) };
    Ok(Checked {
        patient: NewPatient {
            external_id: Some(row.external_id),
            name: NewPatientName {
                first: row.first_name,
                middle: None,
                last: row.last_name,
            },
            date_of_birth: row.date_of_birth,
            sex,
            gender: None,
            email: optional(row.email),
            phone: optional(row.phone),
            address: None,
        },
        medication: row.medication,
        quantity,
        unit: row.unit,
        days_supply,
        instructions: row.instructions,
    })
}

/// `YYYY-MM-DD` with a plausible month and day (the server checks the calendar).
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    digits(y, 4)
        && digits(m, 2)
        && digits(d, 2)
        && matches!(m.parse::<u8>(), Ok(1..=12))
        && matches!(d.parse::<u8>(), Ok(1..=31))
}

/// The CSV column behind a server-side input field name.
fn column_of(field: &str) -> &str {
    match field.rsplit('.').next().unwrap_or(field) {
        "externalId" => "external_id",
        "first" => "first_name",
        "last" => "last_name",
        "dateOfBirth" => "date_of_birth",
        "sex" => "sex",
        "phone" => "phone",
        "email" => "email",
        "treatmentId" => "medication",
        "dispenseQuantity" => "quantity",
        "dispenseUnit" => "unit",
        "daysSupply" => "days_supply",
        "instructions" => "instructions",
        _ => field,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn row() -> Row {
        Row {
            external_id: "p-1".into(),
            first_name: "Jo".into(),
            last_name: "Doe".into(),
            date_of_birth: "1980-02-29".into(),
            sex: "F".into(),
            phone: "".into(),
            email: "jo@example.org".into(),
            medication: "Lisinopril 10 mg tablet".into(),
            quantity: "30".into(),
            unit: "tablet".into(),
            days_supply: "30".into(),
            instructions: "1 tablet daily".into(),
        }
    }

    #[test]
    fn a_good_row_passes() {
        let checked = check(row()).unwrap();

        assert_eq!(checked.patient.sex, Sex::Female);
        assert_eq!(checked.patient.phone, None);
    }

    #[test]
    fn a_bad_date_names_its_column() {
        let bad = Row {
            date_of_birth: "29/02/1980".into(),
            ..row()
        };

        assert_eq!(check(bad).err().unwrap().0, "date_of_birth");
    }

    #[test]
    fn a_non_positive_quantity_names_its_column() {
        let bad = Row {
            quantity: "0".into(),
            ..row()
        };

        assert_eq!(check(bad).err().unwrap().0, "quantity");
    }

    #[test]
    fn server_fields_map_to_csv_columns() {
        assert_eq!(column_of("input.dateOfBirth"), "date_of_birth");
        assert_eq!(column_of("name.first"), "first_name");
    }
}
