//! The delivery log as a developer reads it (the Rust API and the control
//! endpoint's JSON): one [`DeliveryRecord`] per delivery — which event, which
//! subscription, which copy — with every attempt, its answer and its outcome.
//! Event ids, record ids and HTTP statuses only: no event `data`, no secret.

use serde::Serialize;

use super::outbox::{LoggedDelivery, Outcome};
use crate::clock::rfc3339_ms;

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeliveryState {
    /// Not yet delivered: its first attempt, or a retry, is due at `nextAttemptAt`.
    Pending,
    /// Answered `2xx`.
    Delivered,
    /// Answered another `4xx` (or a redirect): not sent again.
    Dropped,
    /// Every allowed attempt failed.
    GaveUp,
}

/// What one attempt led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AttemptOutcome {
    Delivered,
    Retry,
    Dropped,
    GaveUp,
}

/// One attempt and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptEntry {
    /// 1 for the first attempt.
    pub attempt: i64,
    /// When it was sent (real time, the request's `X-Photon-Timestamp`).
    pub sent_at: String,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// Why no answer came (refused, timed out, …).
    pub error: Option<String>,
    pub outcome: AttemptOutcome,
}

/// One delivery of one event to one subscription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRecord {
    /// The delivery's number in the log.
    pub delivery: i64,
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// The record the event is about (`ord_…`, `rx_…`).
    pub subject: String,
    /// When the event happened (simulated clock).
    pub event_time: String,
    pub subscription: String,
    /// 1, or 2 for the second copy of an event chosen to arrive twice.
    pub copy: i64,
    pub state: DeliveryState,
    /// When the next attempt is due (simulated clock), while pending.
    pub next_attempt_at: Option<String>,
    pub attempts: Vec<AttemptEntry>,
}

impl From<LoggedDelivery> for DeliveryRecord {
    fn from(d: LoggedDelivery) -> Self {
        let state = match d.state.as_str() {
            "DELIVERED" => DeliveryState::Delivered,
            "DROPPED" => DeliveryState::Dropped,
            "GAVE_UP" => DeliveryState::GaveUp,
            _ => DeliveryState::Pending,
        };
        Self {
            delivery: d.seq,
            event_id: d.event_id,
            kind: d.kind,
            subject: d.subject,
            event_time: rfc3339_ms(d.event_time_ms),
            subscription: d.subscription_id,
            copy: d.copy,
            state,
            next_attempt_at: (state == DeliveryState::Pending).then(|| rfc3339_ms(d.due_ms)),
            attempts: d
                .attempts
                .into_iter()
                .map(|a| AttemptEntry {
                    attempt: a.attempt,
                    sent_at: rfc3339_ms(a.sent_at_ms),
                    status: a.status,
                    error: a.error,
                    outcome: match a.outcome {
                        Outcome::Delivered => AttemptOutcome::Delivered,
                        Outcome::Retry { .. } => AttemptOutcome::Retry,
                        Outcome::Dropped => AttemptOutcome::Dropped,
                        Outcome::GaveUp => AttemptOutcome::GaveUp,
                    },
                })
                .collect(),
        }
    }
}

/// Which deliveries to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogQuery {
    /// Only events about this record (`ord_…`, `rx_…`).
    pub subject: Option<String>,
    /// At most this many, newest first (default and ceiling 500).
    pub limit: Option<u32>,
}
