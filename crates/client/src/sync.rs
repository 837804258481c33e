//! The backend sync behind `examples/backend_sync.rs`, as a library function so
//! it is tested as it runs, on the Network API: read a CSV of patients and what
//! to prescribe them; for each row sync the patient (the network matches by name
//! and date of birth; an ambiguity is reported by line, never guessed), draft the
//! prescription and the order with the row's id as their idempotency key
//! (`externalId`: a second run, or a call retried after a lost answer, creates
//! nothing), then send every order whose prescriptions a prescriber has signed.
//! Every call goes through the client's retry policy: transient trouble is
//! retried within each call's deadline, and every call of a row is safe to
//! repeat, so running the sync again after a failure picks up where it stopped.
//! A row that fails validation (ours or the network's) is reported
//! with its line number and column, and the others go on. Nothing here logs row
//! contents.
//!
//! **Persistent trouble.** A row whose call still fails after all its attempts
//! (or its deadline) is reported as [`Unfinished`] — its line, what was done,
//! the step it stopped at and why — and the run goes on with the next row:
//! running again finishes it. When [`DOWN_AFTER`] rows in a row end that way,
//! the network is taken to be down and the run stops early, with the report so
//! far ([`StoppedEarly`]); so does an error every row would meet again (signed
//! out, refused, an untrusted certificate, answers we cannot read).

use std::collections::HashMap;
use std::io::Read;

use serde::Deserialize;

use crate::error::ClientError;
use crate::idempotency::{IdempotencyKey, InvalidKey};
use crate::network::documents::{
    Change, ChangeSeverity, Date, DispenseInput, HumanNameInput, Order, OrderCandidate, OrderState,
    PatientDemographicInput, PatientInput, PatientReferenceInput, PrescriptionInput,
    PrescriptionSigningState, Sex, TreatmentReferenceInput,
};
use crate::network::{Network, Outcome};

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

/// Rows in a row that end on network trouble after all their attempts before
/// the run takes the network to be down and stops early (each such row has
/// spent a call's deadline or attempts, so this is about a minute and a half
/// of a dead link at most, never one bad moment).
pub const DOWN_AFTER: usize = 3;

/// Why the sync could not start or read its file (a bad row, or the network's
/// trouble, does not end it with an error: see [`SyncReport`]).
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("the CSV cannot be read: {0}")]
    Csv(String),
    #[error("the CSV header lacks the column {0}")]
    MissingColumn(&'static str),
}

/// One step of a row, in the order they are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    LookUpMedication,
    SyncPatient,
    DraftPrescription,
    DraftOrder,
    ReadOrder,
    SendOrder,
}

impl Step {
    /// "drafting the prescription".
    pub fn doing(self) -> &'static str {
        match self {
            Self::LookUpMedication => "looking up the medication",
            Self::SyncPatient => "syncing the patient",
            Self::DraftPrescription => "drafting the prescription",
            Self::DraftOrder => "drafting the order",
            Self::ReadOrder => "reading the order's signatures",
            Self::SendOrder => "sending the order",
        }
    }

    /// "prescription drafted".
    pub fn done(self) -> &'static str {
        match self {
            Self::LookUpMedication => "medication found",
            Self::SyncPatient => "patient synced",
            Self::DraftPrescription => "prescription drafted",
            Self::DraftOrder => "order drafted",
            Self::ReadOrder => "order read",
            Self::SendOrder => "order sent",
        }
    }
}

/// A row the run could not finish because a call to the network failed after
/// all its attempts: its line, the steps done, the step it stopped at and the
/// call's error. Running the sync again finishes it: a row's drafts carry its
/// `external_id` as their key and the patient is matched, so nothing is made
/// twice (a write whose answer was lost may already be saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    pub line: u64,
    pub done: Vec<Step>,
    pub stopped_at: Step,
    pub error: ClientError,
}

impl std::fmt::Display for Unfinished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let done = if self.done.is_empty() {
            "nothing done".to_owned()
        } else {
            self.done
                .iter()
                .map(|s| s.done())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "line {}: not finished ({done}); stopped {}: {}. Run again to finish: the row's key makes that safe",
            self.line,
            self.stopped_at.doing(),
            self.error
        )
    }
}

/// Why the run stopped before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// [`DOWN_AFTER`] rows in a row could not be finished on network trouble.
    NetworkDown { rows: usize },
    /// An error every other row would meet again (signed out, refused, an
    /// untrusted certificate, answers we cannot read).
    Lasting(ClientError),
}

/// The run stopped at `line`: the rows after it, and the orders of earlier
/// rows still to be sent, were not tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoppedEarly {
    pub line: u64,
    pub reason: StopReason,
}

impl std::fmt::Display for StoppedEarly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            StopReason::NetworkDown { rows } => write!(
                f,
                "stopped at line {}: {rows} rows in a row met network trouble after all their attempts, so the network looks down; the rest was not tried. Run again to finish when it is back",
                self.line
            ),
            StopReason::Lasting(error) => write!(
                f,
                "stopped at line {}: {error}; every other row would meet it too, so the rest was not tried. Run again once it is fixed",
                self.line
            ),
        }
    }
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
    /// Rows stopped by network trouble: running again finishes them.
    pub unfinished: Vec<Unfinished>,
    /// Set when the run did not reach the end of the file.
    pub stopped_early: Option<StoppedEarly>,
}

impl SyncReport {
    /// Records created by this run (patients, prescriptions, orders).
    pub fn created(&self) -> usize {
        self.patients_created + self.prescriptions_created + self.orders_created
    }

    /// Whether every row was done (none rejected, unfinished or left untried).
    pub fn is_complete(&self) -> bool {
        self.rejected.is_empty() && self.unfinished.is_empty() && self.stopped_early.is_none()
    }
}

/// What a failed call means for the run.
enum Verdict {
    /// Network trouble: the row is unfinished, the run goes on.
    Trouble,
    /// The network answered about this row's input: the row is rejected.
    Row,
    /// Every row would meet it: the run stops.
    Lasting,
}

fn verdict(error: &ClientError) -> Verdict {
    match error {
        ClientError::GaveUp { .. }
        | ClientError::TimedOut { .. }
        | ClientError::RateLimited { .. }
        | ClientError::Network { .. }
        | ClientError::Server { .. }
        | ClientError::Upstream { .. } => Verdict::Trouble,
        ClientError::Invalid { .. } | ClientError::NotFound { .. } => Verdict::Row,
        ClientError::SignedOut { .. }
        | ClientError::Refused { .. }
        | ClientError::Untrusted { .. }
        | ClientError::Protocol { .. } => Verdict::Lasting,
    }
}

/// A row's call failed: where, after what.
struct Stopped {
    done: Vec<Step>,
    at: Step,
    error: ClientError,
}

/// Counts rows in a row ending on network trouble, and files each failure.
#[derive(Default)]
struct Trouble {
    in_a_row: usize,
}

impl Trouble {
    /// A row got through to the network.
    fn answered(&mut self) {
        self.in_a_row = 0;
    }

    /// Files the failure of the row at `line`; `Some` when the run must stop.
    fn file(
        &mut self,
        report: &mut SyncReport,
        line: u64,
        stopped: Stopped,
    ) -> Option<StoppedEarly> {
        match verdict(&stopped.error) {
            Verdict::Trouble => {
                report.unfinished.push(Unfinished {
                    line,
                    done: stopped.done,
                    stopped_at: stopped.at,
                    error: stopped.error,
                });
                self.in_a_row += 1;
                (self.in_a_row >= DOWN_AFTER).then_some(StoppedEarly {
                    line,
                    reason: StopReason::NetworkDown {
                        rows: self.in_a_row,
                    },
                })
            }
            Verdict::Row => {
                self.answered();
                report.rejected.push(RowError {
                    line,
                    field: "row".to_owned(),
                    message: format!("{} {}", stopped.at.doing(), stopped.error),
                });
                None
            }
            Verdict::Lasting => Some(StoppedEarly {
                line,
                reason: StopReason::Lasting(stopped.error),
            }),
        }
    }
}

#[derive(Deserialize)]
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
    key: IdempotencyKey,
    patient: PatientInput,
    medication: String,
    quantity: f64,
    unit: String,
    days_supply: i32,
    instructions: String,
}

// Patient data: `Debug` prints the row's external id only.
crate::redacted_debug! {
    Row { external_id }
}

/// A row the network did not take: the column at fault and why.
type Rejection = (String, String);

/// Runs the sync over `csv` with `network` (a machine token's, typically).
pub async fn sync_csv(network: &Network, csv: impl Read) -> Result<SyncReport, SyncError> {
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
    let mut medications: HashMap<String, Result<String, String>> = HashMap::new();
    let mut orders: Vec<(u64, String)> = Vec::new();
    let mut trouble = Trouble::default();
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
        let reject = |report: &mut SyncReport, field: &str, message: String| {
            report.rejected.push(RowError {
                line,
                field: field.to_owned(),
                message,
            });
        };
        let row: Row = match record.deserialize(Some(&headers)) {
            Ok(row) => row,
            Err(e) => {
                reject(&mut report, "row", e.to_string());
                continue;
            }
        };
        let checked = match check(row) {
            Ok(c) => c,
            Err((field, message)) => {
                reject(&mut report, field, message);
                continue;
            }
        };
        let key = checked.medication.to_lowercase();
        let medication = match medications.get(&key) {
            Some(found) => found.clone(),
            None => match find_medication(network, &checked.medication).await {
                Ok(found) => {
                    medications.insert(key, found.clone());
                    found
                }
                Err(error) => {
                    let stopped = Stopped {
                        done: Vec::new(),
                        at: Step::LookUpMedication,
                        error,
                    };
                    match trouble.file(&mut report, line, stopped) {
                        Some(stop) => {
                            report.stopped_early = Some(stop);
                            return Ok(report);
                        }
                        None => continue,
                    }
                }
            },
        };
        let medication = match medication {
            Ok(id) => id,
            Err(message) => {
                reject(&mut report, "medication", message);
                continue;
            }
        };
        match sync_row(network, &checked, &medication, &mut report).await {
            Ok(Ok(order_id)) => {
                trouble.answered();
                orders.push((line, order_id));
            }
            Ok(Err((field, message))) => {
                trouble.answered();
                reject(&mut report, &field, message);
            }
            Err(stopped) => {
                if let Some(stop) = trouble.file(&mut report, line, stopped) {
                    report.stopped_early = Some(stop);
                    return Ok(report);
                }
            }
        }
    }
    for (line, order_id) in orders {
        match send_if_signed(network, &order_id).await {
            Ok(None) => trouble.answered(),
            Ok(Some(sent)) => {
                trouble.answered();
                match first_blocking(sent.unapplied()) {
                    None => report.orders_sent += 1,
                    Some((field, message)) => report.rejected.push(RowError {
                        line,
                        field,
                        message,
                    }),
                }
            }
            Err(stopped) => {
                if let Some(stop) = trouble.file(&mut report, line, stopped) {
                    report.stopped_early = Some(stop);
                    return Ok(report);
                }
            }
        }
    }
    Ok(report)
}

/// Sends the order when it is a draft whose prescriptions are all signed:
/// the network's answer, or `None` when it is not to be sent (yet).
async fn send_if_signed(
    network: &Network,
    order_id: &str,
) -> Result<Option<Outcome<Order, OrderCandidate>>, Stopped> {
    let done = vec![Step::SyncPatient, Step::DraftPrescription, Step::DraftOrder];
    let order = network.get_order(order_id).await.map_err(|error| Stopped {
        done: done.clone(),
        at: Step::ReadOrder,
        error,
    })?;
    let Some(order) = order.into_record() else {
        return Ok(None);
    };
    let signed = !order.prescriptions.is_empty()
        && order
            .prescriptions
            .iter()
            .all(|p| p.signing.state == PrescriptionSigningState::Signed);
    if order.state != OrderState::Draft || !signed {
        return Ok(None);
    }
    let mut done = done;
    done.push(Step::ReadOrder);
    network
        .send_order(order_id)
        .await
        .map(Some)
        .map_err(|error| Stopped {
            done,
            at: Step::SendOrder,
            error,
        })
}

/// The first blocking change, as the CSV column it is about and why.
fn first_blocking(unapplied: &[Change]) -> Option<Rejection> {
    unapplied
        .iter()
        .find(|c| c.severity == ChangeSeverity::Blocking)
        .map(|c| {
            (
                column_of(&c.key).to_owned(),
                c.reason
                    .clone()
                    .unwrap_or_else(|| format!("{} was not accepted", c.label)),
            )
        })
}

/// True when the call saved something new (a creation answers applied changes;
/// a retry of a known `externalId` answers the record as it was).
fn created<T, C>(outcome: &Outcome<T, C>) -> bool {
    matches!(outcome, Outcome::Record { applied, .. } if !applied.is_empty())
}

/// Syncs the row's patient, prescription and order; the order's id, or why the
/// network did not take the row.
async fn sync_row(
    network: &Network,
    row: &Checked,
    medication_id: &str,
    report: &mut SyncReport,
) -> Result<Result<String, Rejection>, Stopped> {
    let mut done = Vec::new();
    let failed = |done: &Vec<Step>, at: Step| {
        let done = done.clone();
        move |error| Stopped { done, at, error }
    };
    let patient = network
        .sync_patient(row.patient.clone())
        .await
        .map_err(failed(&done, Step::SyncPatient))?;
    let patient_created = patient
        .record()
        .is_some_and(|_| matches!(&patient, Outcome::Record { applied, .. } if applied.iter().any(|c| c.key == "demographic.name.first")));
    let patient_id = match patient {
        Outcome::Ambiguous { candidates, .. } => {
            return Ok(Err((
                "row".to_owned(),
                format!(
                    "{} patients on the network could be this one: resolve it by hand",
                    candidates.len()
                ),
            )));
        }
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        Outcome::Record { unapplied, .. } => {
            return Ok(Err(first_blocking(&unapplied).unwrap_or_else(|| {
                ("row".to_owned(), "the patient was not saved".to_owned())
            })));
        }
    };
    // Counted as soon as made: a row stopped later still made them.
    report.patients_created += usize::from(patient_created);
    done.push(Step::SyncPatient);
    let prescription = network
        .draft_prescription(
            PrescriptionInput {
                patient: Some(PatientReferenceInput {
                    id: Some(cynic::Id::new(&patient_id)),
                }),
                treatment: Some(TreatmentReferenceInput {
                    id: Some(cynic::Id::new(medication_id)),
                    ..Default::default()
                }),
                instructions: Some(row.instructions.clone()),
                dispense: Some(DispenseInput {
                    quantity: Some(row.quantity),
                    unit: Some(row.unit.clone()),
                    days_supply: Some(row.days_supply),
                    ..Default::default()
                }),
                ..Default::default()
            },
            &row.key,
        )
        .await
        .map_err(failed(&done, Step::DraftPrescription))?;
    let prescription_created = created(&prescription);
    let prescription_id = match prescription {
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        Outcome::Record { unapplied, .. } => {
            return Ok(Err(first_blocking(&unapplied).unwrap_or_else(|| {
                (
                    "row".to_owned(),
                    "the prescription was not saved".to_owned(),
                )
            })));
        }
        Outcome::Ambiguous { .. } => {
            return Ok(Err((
                "row".to_owned(),
                "the patient has several drafts in progress".to_owned(),
            )));
        }
    };
    report.prescriptions_created += usize::from(prescription_created);
    done.push(Step::DraftPrescription);
    let order = network
        .draft_order(&patient_id, &[prescription_id], &row.key)
        .await
        .map_err(failed(&done, Step::DraftOrder))?;
    let order_created = created(&order);
    let order_id = match order {
        Outcome::Record {
            record: Some(o), ..
        } => o.id.into_inner(),
        Outcome::Record { unapplied, .. } => {
            return Ok(Err(first_blocking(&unapplied).unwrap_or_else(|| {
                ("row".to_owned(), "the order was not saved".to_owned())
            })));
        }
        Outcome::Ambiguous { .. } => {
            return Ok(Err((
                "row".to_owned(),
                "the patient has several draft orders".to_owned(),
            )));
        }
    };
    report.orders_created += usize::from(order_created);
    if !(patient_created || prescription_created || order_created) {
        report.rows_unchanged += 1;
    }
    Ok(Ok(order_id))
}

/// The catalog id of the medication a row names: the single exact match, or the
/// only entry that fits; several are reported, never guessed.
async fn find_medication(
    network: &Network,
    wanted: &str,
) -> Result<Result<String, String>, ClientError> {
    let choices = network
        .look_up_drug(TreatmentReferenceInput {
            name: Some(wanted.to_owned()),
            ..Default::default()
        })
        .await?;
    let exact: Vec<_> = choices.iter().filter(|c| c.exact).collect();
    let chosen = match (exact.as_slice(), choices.as_slice()) {
        ([one], _) => one.value.clone(),
        ([], [one]) => one.value.clone(),
        (_, []) => return Ok(Err("not found in the network's catalog".to_owned())),
        _ => {
            return Ok(Err(format!(
                "{} catalog entries fit; write one in full, e.g. \"{}\"",
                choices.len(),
                choices[0].display_name
            )));
        }
    };
    Ok(chosen.ok_or_else(|| "the network's option names no id".to_owned()))
}

/// A North American number written with punctuation, or E.164 as it is.
fn e164(phone: &str) -> Option<String> {
    if phone.starts_with('+') {
        return Some(phone.to_owned());
    }
    let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    match digits.len() {
        10 => Some(format!("+1{digits}")),
        11 if digits.starts_with('1') => Some(format!("+{digits}")),
        _ => None,
    }
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
    let key: IdempotencyKey = row
        .external_id
        .parse()
        .map_err(|e: InvalidKey| ("external_id", e.to_string()))?;
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
    let phone = match row.phone.as_str() {
        "" => None,
        written => Some(e164(written).ok_or((
            "phone",
            "must be a phone number (+ and country code, or 10 digits)".to_owned(),
        ))?),
    };
    required("medication", &row.medication)?;
    let quantity: f64 = row
        .quantity
        .parse()
        .ok()
        .filter(|q: &f64| q.is_finite() && *q > 0.0)
        .ok_or(("quantity", "must be a number above zero".to_owned()))?;
    required("unit", &row.unit)?;
    let days_supply: i32 = row
        .days_supply
        .parse()
        .ok()
        .filter(|d| (1..=365).contains(d))
        .ok_or((
            "days_supply",
            "must be a whole number of days from 1 to 365".to_owned(),
        ))?;
    required("instructions", &row.instructions)?;
    let optional = |v: String| if v.is_empty() { None } else { Some(v) };
    Ok(Checked {
        key,
        patient: PatientInput {
            id: None,
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some(row.first_name),
                    last: Some(row.last_name),
                    ..Default::default()
                }),
                date_of_birth: Some(Date(row.date_of_birth)),
                sex: Some(sex),
                email: optional(row.email),
                phone,
                ..Default::default()
            }),
            clinical: None,
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

/// The CSV column behind a Network API change key (`demographic.phone`, …).
fn column_of(key: &str) -> &str {
    match key {
        "demographic.name.first" => "first_name",
        "demographic.name.last" => "last_name",
        "demographic.dateOfBirth" => "date_of_birth",
        "demographic.sex" => "sex",
        "demographic.phone" | "state" => "phone",
        "demographic.email" => "email",
        "treatment" => "medication",
        "dispense.quantity" => "quantity",
        "dispense.unit" => "unit",
        "dispense.daysSupply" => "days_supply",
        "instructions" => "instructions",
        _ => "row",
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

        let demographic = checked.patient.demographic.unwrap();
        assert_eq!(demographic.sex, Some(Sex::Female));
        assert_eq!(demographic.phone, None);
    }

    #[test]
    fn a_written_phone_becomes_e164() {
        let written = Row {
            phone: "503-555-0110".into(),
            ..row()
        };

        let demographic = check(written).unwrap().patient.demographic.unwrap();

        assert_eq!(demographic.phone.as_deref(), Some("+15035550110"));
    }

    #[test]
    fn a_phone_that_is_no_number_names_its_column() {
        let bad = Row {
            phone: "call me".into(),
            ..row()
        };

        assert_eq!(check(bad).err().unwrap().0, "phone");
    }

    #[test]
    fn an_external_id_that_cannot_be_a_key_names_its_column() {
        let bad = Row {
            external_id: "crm 001".into(),
            ..row()
        };

        let (column, why) = check(bad).err().unwrap();

        assert_eq!(column, "external_id");
        assert!(why.contains("no spaces"), "{why}");
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
    fn network_change_keys_map_to_csv_columns() {
        assert_eq!(column_of("demographic.dateOfBirth"), "date_of_birth");
        assert_eq!(column_of("demographic.name.first"), "first_name");
        assert_eq!(column_of("clinical.notes"), "row");
    }
}
