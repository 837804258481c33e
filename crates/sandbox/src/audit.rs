//! The duplicate audit (`rxdesk-sandbox audit --data DIR`): reads a sandbox's
//! database — stopped, or running (read-only, in WAL mode a reader never blocks
//! it) — and reports what a client that retried a write without its
//! idempotency key (or with a new key per attempt) leaves behind. Ids only,
//! never a record's content. The rules ([`Rule`]) are in `docs/network-api.md`,
//! "Repeated calls and `externalId`".
//!
//! It reads the records' tables and `network_events` (migration 0006), and
//! writes nothing.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::network::present::content_hash;
use crate::store::records::{OrderDoc, PatientDoc, PrescriptionDoc};
use crate::wire::OrderState;

/// Records created this close together, alike, count as one action sent twice.
pub const WINDOW_SECS: i64 = 60;

/// Why the audit could not run.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("no sandbox database at {0} (give the directory the sandbox ran with as --data)")]
    NoDatabase(PathBuf),
    #[error("cannot read the sandbox database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("a stored record does not read back ({0}): is this a sandbox database?")]
    Document(String),
}

/// A rule the audit checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// Two patients of one organization with the same first and last name
    /// (ignoring case) and date of birth.
    DuplicatePatient,
    /// Two prescriptions of one patient, same drug and same content (the
    /// content hash: drug, sig, dispense), created within [`WINDOW_SECS`] of
    /// each other, whatever their `externalId`s — unless the earlier was
    /// signed before the later was created: that is a renewal ("Prescribe
    /// again" on a signed prescription), not a create sent twice (a repeat
    /// goes out before anyone could have reviewed and signed the first).
    DuplicatePrescription,
    /// Two orders of one patient, neither canceled, holding the same
    /// prescriptions (or both none, created within [`WINDOW_SECS`]).
    DuplicateOrder,
    /// A prescription on two orders that are not canceled.
    PrescriptionOnTwoOrders,
    /// A prescription signed more than once (its signature written twice).
    SignedTwice,
    /// An order sent more than once.
    SentTwice,
    /// One `externalId` on two records of one kind in one organization.
    ExternalIdTwice,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DuplicatePatient => "duplicate_patient",
            Self::DuplicatePrescription => "duplicate_prescription",
            Self::DuplicateOrder => "duplicate_order",
            Self::PrescriptionOnTwoOrders => "prescription_on_two_orders",
            Self::SignedTwice => "signed_twice",
            Self::SentTwice => "sent_twice",
            Self::ExternalIdTwice => "external_id_twice",
        }
    }
}

/// One duplicate found: the rule and the ids involved (ids only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    /// The records found twice (or the record that was written twice).
    pub ids: Vec<String>,
    /// Ids and counts that place it (the patient, the seconds apart, …).
    pub context: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.rule.as_str(),
            self.ids.join(" "),
            self.context
        )
    }
}

/// What was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub patients: usize,
    pub prescriptions: usize,
    pub signed: usize,
    pub orders: usize,
}

/// The audit's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditReport {
    pub counts: Counts,
    pub findings: Vec<Finding>,
}

impl AuditReport {
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// One line: the verdict and what was read.
    pub fn summary(&self) -> String {
        let c = self.counts;
        let read = format!(
            "{} patients, {} prescriptions ({} signed), {} orders",
            c.patients, c.prescriptions, c.signed, c.orders
        );
        if self.is_clean() {
            format!("audit: clean ({read})")
        } else {
            format!("audit: {} duplicates found ({read})", self.findings.len())
        }
    }
}

/// Audits the database of the sandbox whose `--data` was `dir`.
pub fn audit_data_dir(dir: &Path) -> Result<AuditReport, AuditError> {
    let path = dir.join("sandbox.db");
    if !path.is_file() {
        return Err(AuditError::NoDatabase(path));
    }
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    audit(&conn)
}

/// Audits an open connection (read in one transaction, so a running sandbox's
/// writes meanwhile are not half seen).
pub fn audit(conn: &Connection) -> Result<AuditReport, AuditError> {
    conn.execute_batch("BEGIN")?;
    let report = read_and_check(conn);
    let _ = conn.execute_batch("COMMIT");
    report
}

fn read_and_check(conn: &Connection) -> Result<AuditReport, AuditError> {
    let patients: Vec<PatientDoc> = docs(conn, "SELECT doc FROM network_patients ORDER BY seq")?;
    let prescriptions: Vec<PrescriptionDoc> =
        docs(conn, "SELECT doc FROM network_prescriptions ORDER BY seq")?;
    let orders: Vec<OrderDoc> = docs(conn, "SELECT doc FROM network_orders ORDER BY seq")?;
    let mut report = AuditReport {
        counts: Counts {
            patients: patients.len(),
            prescriptions: prescriptions.len(),
            signed: prescriptions.iter().filter(|p| p.is_signed()).count(),
            orders: orders.len(),
        },
        findings: Vec::new(),
    };
    let findings = &mut report.findings;
    duplicate_patients(&patients, findings);
    let signed_at = first_events(conn, "prescription_signed")?;
    let created_at = first_events(conn, "prescription_created")?;
    duplicate_prescriptions(&prescriptions, findings, |earlier, later| {
        signed_at
            .get(earlier)
            .zip(created_at.get(later))
            .is_some_and(|(signed, created)| signed <= created)
    });
    duplicate_orders(&orders, findings);
    prescriptions_on_two_orders(&orders, findings);
    written_twice(conn, "prescription_signed", Rule::SignedTwice, findings)?;
    written_twice(conn, "order_submitted", Rule::SentTwice, findings)?;
    external_ids_twice(conn, findings)?;
    findings.sort_by(|a, b| (a.rule, &a.ids).cmp(&(b.rule, &b.ids)));
    Ok(report)
}

fn docs<T: for<'de> Deserialize<'de>>(conn: &Connection, sql: &str) -> Result<Vec<T>, AuditError> {
    let mut statement = conn.prepare(sql)?;
    let texts = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    texts
        .iter()
        .map(|t| serde_json::from_str(t).map_err(|e| AuditError::Document(e.to_string())))
        .collect()
}

fn seconds(rfc3339: &str) -> Option<i64> {
    OffsetDateTime::parse(rfc3339, &Rfc3339)
        .ok()
        .map(OffsetDateTime::unix_timestamp)
}

/// Within each group (records in creation order), each record created within
/// the window of the one before it is a duplicate of it.
fn close_pairs<'a>(group: &[Dated<'a>]) -> Vec<(&'a str, &'a str, i64)> {
    let mut sorted: Vec<&Dated<'a>> = group.iter().collect();
    sorted.sort_by_key(|(_, at)| *at);
    sorted
        .windows(2)
        .filter_map(|pair| {
            let ((a, at_a), (b, at_b)) = (pair[0], pair[1]);
            let apart = at_b.zip(*at_a).map(|(b, a)| b - a)?;
            (apart <= WINDOW_SECS).then_some((*a, *b, apart))
        })
        .collect()
}

fn duplicate_patients(patients: &[PatientDoc], findings: &mut Vec<Finding>) {
    let mut groups: BTreeMap<(String, String, String, String), Vec<&str>> = BTreeMap::new();
    for p in patients {
        let (Some(first), Some(last), Some(dob)) = (&p.first, &p.last, &p.date_of_birth) else {
            continue;
        };
        groups
            .entry((
                p.organization_id.clone(),
                first.trim().to_lowercase(),
                last.trim().to_lowercase(),
                dob.clone(),
            ))
            .or_default()
            .push(p.id.as_str());
    }
    for ((org, ..), ids) in groups {
        if ids.len() > 1 {
            findings.push(Finding {
                rule: Rule::DuplicatePatient,
                ids: ids.iter().map(|s| (*s).to_owned()).collect(),
                context: format!("organization {org}, same name and date of birth"),
            });
        }
    }
}

/// A record's id and when it was created (Unix seconds).
type Dated<'a> = (&'a str, Option<i64>);

/// When each record first had an event of `kind` (`network_events.at`: one
/// format to the millisecond, so the texts compare as the times do).
fn first_events(conn: &Connection, kind: &str) -> Result<HashMap<String, String>, AuditError> {
    let mut statement = conn.prepare(
        "SELECT record_id, MIN(at) FROM network_events WHERE kind = ?1 GROUP BY record_id",
    )?;
    let rows = statement
        .query_map(params![kind], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<HashMap<_, _>, _>>()?;
    Ok(rows)
}

/// `renewal(earlier, later)`: the later prescription was made after the
/// earlier was signed (see [`Rule::DuplicatePrescription`]).
fn duplicate_prescriptions(
    prescriptions: &[PrescriptionDoc],
    findings: &mut Vec<Finding>,
    renewal: impl Fn(&str, &str) -> bool,
) {
    // Organization, patient, drug, content hash.
    let mut groups: HashMap<(&str, &str, &str, String), Vec<Dated<'_>>> = HashMap::new();
    for p in prescriptions {
        groups
            .entry((
                p.organization_id.as_str(),
                p.patient_id.as_str(),
                p.treatment.id.as_str(),
                content_hash(p),
            ))
            .or_default()
            .push((p.id.as_str(), seconds(&p.created_at)));
    }
    for ((_, patient, ..), group) in groups {
        for (a, b, apart) in close_pairs(&group) {
            if renewal(a, b) {
                continue;
            }
            findings.push(Finding {
                rule: Rule::DuplicatePrescription,
                ids: vec![a.to_owned(), b.to_owned()],
                context: format!("patient {patient}, same drug and content, {apart} s apart"),
            });
        }
    }
}

fn duplicate_orders(orders: &[OrderDoc], findings: &mut Vec<Finding>) {
    // Organization, patient, the prescriptions held (sorted).
    let mut groups: HashMap<(&str, &str, Vec<&str>), Vec<Dated<'_>>> = HashMap::new();
    for o in orders.iter().filter(|o| o.state != OrderState::Canceled) {
        let mut held: Vec<&str> = o.prescription_ids.iter().map(String::as_str).collect();
        held.sort_unstable();
        groups
            .entry((o.organization_id.as_str(), o.patient_id.as_str(), held))
            .or_default()
            .push((o.id.as_str(), seconds(&o.created_at)));
    }
    for ((_, patient, held), group) in groups {
        if held.is_empty() {
            for (a, b, apart) in close_pairs(&group) {
                findings.push(Finding {
                    rule: Rule::DuplicateOrder,
                    ids: vec![a.to_owned(), b.to_owned()],
                    context: format!("patient {patient}, both empty, {apart} s apart"),
                });
            }
        } else if group.len() > 1 {
            findings.push(Finding {
                rule: Rule::DuplicateOrder,
                ids: group.iter().map(|(id, _)| (*id).to_owned()).collect(),
                context: format!("patient {patient}, the same {} prescriptions", held.len()),
            });
        }
    }
}

fn prescriptions_on_two_orders(orders: &[OrderDoc], findings: &mut Vec<Finding>) {
    let mut holders: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for o in orders.iter().filter(|o| o.state != OrderState::Canceled) {
        for p in &o.prescription_ids {
            holders.entry(p.as_str()).or_default().push(o.id.as_str());
        }
    }
    for (prescription, orders) in holders {
        if orders.len() > 1 {
            findings.push(Finding {
                rule: Rule::PrescriptionOnTwoOrders,
                ids: vec![prescription.to_owned()],
                context: format!("on orders {}", orders.join(" ")),
            });
        }
    }
}

fn written_twice(
    conn: &Connection,
    kind: &str,
    rule: Rule,
    findings: &mut Vec<Finding>,
) -> Result<(), AuditError> {
    let mut statement = conn.prepare(
        "SELECT record_id, COUNT(*) FROM network_events WHERE kind = ?1
         GROUP BY record_id HAVING COUNT(*) > 1 ORDER BY record_id",
    )?;
    let rows = statement
        .query_map(params![kind], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, times) in rows {
        findings.push(Finding {
            rule,
            ids: vec![id],
            context: format!("{times} times"),
        });
    }
    Ok(())
}

fn external_ids_twice(conn: &Connection, findings: &mut Vec<Finding>) -> Result<(), AuditError> {
    for table in ["network_prescriptions", "network_orders"] {
        let mut statement = conn.prepare(&format!(
            "SELECT organization_id, group_concat(id, ' ') FROM {table}
             WHERE external_id IS NOT NULL GROUP BY organization_id, external_id
             HAVING COUNT(*) > 1"
        ))?;
        let rows = statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        for (org, ids) in rows {
            findings.push(Finding {
                rule: Rule::ExternalIdTwice,
                ids: ids.split(' ').map(str::to_owned).collect(),
                context: format!("organization {org}, one externalId"),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_close_in_time_pair_up_and_distant_ones_do_not() {
        let group = [("a", Some(100)), ("c", Some(400)), ("b", Some(130))];
        assert_eq!(close_pairs(&group), vec![("a", "b", 30)]);
        assert!(close_pairs(&[("a", Some(0)), ("b", None)]).is_empty());
    }
}
