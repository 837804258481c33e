//! The webhook outbox and delivery log in SQLite (`migrations/0007_after_send.sql`):
//! events written in the transaction that caused them, one delivery per event,
//! subscription and copy, and every attempt with its answer. Only reads and writes;
//! which subscriptions match, when to retry and what counts as delivered are decided
//! in [`super::delivery`].

use rusqlite::{Connection, params};

use crate::store::StoreError;

/// An event as the outbox stores it: its envelope already written (`body`).
#[derive(Debug, Clone, Copy)]
pub struct EventRow<'a> {
    pub id: &'a str,
    pub organization: &'a str,
    /// The event type, `photon:order:created`.
    pub kind: &'a str,
    pub subject: &'a str,
    pub time_ms: i64,
    pub body: &'a str,
}

pub fn insert_event(conn: &Connection, event: &EventRow<'_>) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO webhook_events (id, organization_id, type, subject, time_ms, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        event.id,
        event.organization,
        event.kind,
        event.subject,
        event.time_ms,
        event.body
    ])?;
    Ok(())
}

/// An event not yet fanned out to the subscriptions.
#[derive(Debug, Clone)]
pub struct UnsentEvent {
    pub seq: i64,
    pub organization: String,
    pub kind: String,
    pub time_ms: i64,
}

/// The events not yet fanned out, oldest first.
pub fn events_to_fan_out(conn: &Connection, limit: i64) -> Result<Vec<UnsentEvent>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT seq, organization_id, type, time_ms FROM webhook_events
         WHERE fanned_out = 0 ORDER BY seq LIMIT ?1",
    )?;
    let rows = statement
        .query_map(params![limit], |row| {
            Ok(UnsentEvent {
                seq: row.get(0)?,
                organization: row.get(1)?,
                kind: row.get(2)?,
                time_ms: row.get(3)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn insert_delivery(
    conn: &Connection,
    event_seq: i64,
    subscription_id: &str,
    copy: i64,
    due_ms: i64,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO webhook_deliveries (event_seq, subscription_id, copy, state, due_ms)
         VALUES (?1, ?2, ?3, 'PENDING', ?4)",
    )?
    .execute(params![event_seq, subscription_id, copy, due_ms])?;
    Ok(())
}

pub fn mark_fanned_out(conn: &Connection, event_seq: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE webhook_events SET fanned_out = 1 WHERE seq = ?1")?
        .execute(params![event_seq])?;
    Ok(())
}

/// A pending delivery whose time has come.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    pub seq: i64,
    pub subscription_id: String,
    pub copy: i64,
    /// Attempts made so far.
    pub attempts: i64,
    pub event_id: String,
    pub kind: String,
    pub body: String,
}

/// Pending deliveries due at `now_ms`, in the order they fell due.
pub fn due(conn: &Connection, now_ms: i64, limit: i64) -> Result<Vec<DueDelivery>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT d.seq, d.subscription_id, d.copy, d.attempts, e.id, e.type, e.body
         FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq
         WHERE d.state = 'PENDING' AND d.due_ms <= ?1
         ORDER BY d.due_ms, d.seq LIMIT ?2",
    )?;
    let rows = statement
        .query_map(params![now_ms, limit], |row| {
            Ok(DueDelivery {
                seq: row.get(0)?,
                subscription_id: row.get(1)?,
                copy: row.get(2)?,
                attempts: row.get(3)?,
                event_id: row.get(4)?,
                kind: row.get(5)?,
                body: row.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// When the next pending delivery falls due, if any is pending.
pub fn next_due_ms(conn: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT MIN(due_ms) FROM webhook_deliveries WHERE state = 'PENDING'")?
        .query_row([], |row| row.get::<_, Option<i64>>(0))?)
}

/// Where a delivery stands after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    /// Tried again at `due_ms` (simulated clock).
    Retry {
        due_ms: i64,
    },
    Dropped,
    GaveUp,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delivered => "DELIVERED",
            Self::Retry { .. } => "RETRY",
            Self::Dropped => "DROPPED",
            Self::GaveUp => "GAVE_UP",
        }
    }
}

/// One attempt and its answer, as the log keeps it.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub attempt: i64,
    pub sent_at_ms: i64,
    pub status: Option<u16>,
    pub error: Option<String>,
    pub outcome: Outcome,
}

/// Records an attempt and moves the delivery on, in one transaction.
pub fn record_attempt(
    conn: &mut Connection,
    delivery_seq: i64,
    record: &AttemptRecord,
) -> Result<(), StoreError> {
    let tx = conn.transaction()?;
    tx.prepare_cached(
        "INSERT INTO webhook_attempts (delivery_seq, attempt, sent_at_ms, status, error, outcome)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        delivery_seq,
        record.attempt,
        record.sent_at_ms,
        record.status,
        record.error,
        record.outcome.as_str()
    ])?;
    let (state, due_ms) = match record.outcome {
        Outcome::Retry { due_ms } => ("PENDING", Some(due_ms)),
        other => (other.as_str(), None),
    };
    tx.prepare_cached(
        "UPDATE webhook_deliveries SET state = ?2, attempts = ?3, due_ms = COALESCE(?4, due_ms)
         WHERE seq = ?1",
    )?
    .execute(params![delivery_seq, state, record.attempt, due_ms])?;
    tx.commit()?;
    Ok(())
}

/// One delivery with its event and attempts, newest deliveries first.
#[derive(Debug, Clone)]
pub struct LoggedDelivery {
    pub seq: i64,
    pub event_id: String,
    pub kind: String,
    pub subject: String,
    pub event_time_ms: i64,
    pub subscription_id: String,
    pub copy: i64,
    pub state: String,
    pub due_ms: i64,
    pub attempts: Vec<AttemptRecord>,
}

/// The last `limit` deliveries (of events about `subject` when given), newest first.
pub fn log(
    conn: &Connection,
    subject: Option<&str>,
    limit: i64,
) -> Result<Vec<LoggedDelivery>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT d.seq, e.id, e.type, e.subject, e.time_ms, d.subscription_id, d.copy, d.state, d.due_ms
         FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq
         WHERE (?1 IS NULL OR e.subject = ?1)
         ORDER BY d.seq DESC LIMIT ?2",
    )?;
    let mut deliveries = statement
        .query_map(params![subject, limit], |row| {
            Ok(LoggedDelivery {
                seq: row.get(0)?,
                event_id: row.get(1)?,
                kind: row.get(2)?,
                subject: row.get(3)?,
                event_time_ms: row.get(4)?,
                subscription_id: row.get(5)?,
                copy: row.get(6)?,
                state: row.get(7)?,
                due_ms: row.get(8)?,
                attempts: Vec::new(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut attempts = conn.prepare_cached(
        "SELECT attempt, sent_at_ms, status, error, outcome FROM webhook_attempts
         WHERE delivery_seq = ?1 ORDER BY attempt",
    )?;
    for delivery in &mut deliveries {
        delivery.attempts = attempts
            .query_map(params![delivery.seq], |row| {
                let outcome: String = row.get(4)?;
                Ok(AttemptRecord {
                    attempt: row.get(0)?,
                    sent_at_ms: row.get(1)?,
                    status: row.get(2)?,
                    error: row.get(3)?,
                    outcome: match outcome.as_str() {
                        "DELIVERED" => Outcome::Delivered,
                        "DROPPED" => Outcome::Dropped,
                        "GAVE_UP" => Outcome::GaveUp,
                        _ => Outcome::Retry {
                            due_ms: delivery.due_ms,
                        },
                    },
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
    }
    Ok(deliveries)
}
