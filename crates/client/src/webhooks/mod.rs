//! Receiving the network's webhooks: [`Verifier`] checks a request (signature over
//! the raw body in constant time, timestamp within a tolerance) and reads it into a
//! typed [`Event`]; [`Deduplicator`] skips an event delivered twice; every refusal
//! is a [`WebhookError`] that says what to answer. `examples/webhook_receiver.rs`
//! puts them together in a small server.
//!
//! ```
//! use rxdesk_client::webhooks::{Deduplicator, EventData, Verifier};
//! # fn handle(headers: &reqwest::header::HeaderMap, body: &[u8]) -> u16 {
//! let verifier = Verifier::new("the subscription's shared secret");
//! let mut seen = Deduplicator::default();
//! match verifier.verify(headers, body) {
//!     Err(refused) => refused.status(), // 401 or 400: the network drops it
//!     Ok(event) if !seen.first_time(&event.id) => 200, // a duplicate: done already
//!     Ok(event) => {
//!         if let EventData::OrderError(error) = &event.data {
//!             println!("{} needs attention: {}", error.id, error.reason);
//!         }
//!         200
//!     }
//! }
//! # }
//! ```
//!
//! Events arrive in any order: compare [`Event::time`] to tell which is the latest.

mod dedup;
mod event;
mod verify;

use std::time::Duration;

pub use dedup::Deduplicator;
pub use event::{
    Address, Event, EventData, Fill, Fulfillment, FulfillmentState, FulfillmentType,
    OrderAtPharmacy, OrderCreated, OrderError, OrderFulfillment, Pharmacy, PrescriptionCreated,
    RecordEvent, RecordRef,
};
pub use verify::{SIGNATURE_HEADER, TIMESTAMP_HEADER, Verifier};

/// Why a webhook request is not believed. [`WebhookError::status`] is the answer
/// to give: the network drops an event answered with a `4xx`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// A header the network always sends is missing (or not text).
    #[error("the request has no {0} header: it did not come from the network")]
    MissingHeader(&'static str),
    /// `X-Photon-Signature` is not hex.
    #[error("X-Photon-Signature is not a hex-encoded HMAC-SHA256")]
    MalformedSignature,
    /// The body's HMAC under the secret is another: a forgery, another
    /// subscription's secret, or a body changed on the way.
    #[error(
        "the signature does not match the body: not signed with this secret, or the body was changed"
    )]
    BadSignature,
    /// `X-Photon-Timestamp` is not Unix milliseconds.
    #[error("X-Photon-Timestamp is not Unix milliseconds")]
    MalformedTimestamp,
    /// Sent longer ago (or further ahead) than the tolerance: a replay, or a clock
    /// that is off.
    #[error(
        "the request was sent {skew:?} {}, more than the {tolerance:?} allowed: a replay, or a clock that is off",
        if *in_future { "ahead of this clock" } else { "ago" }
    )]
    StaleTimestamp {
        skew: Duration,
        in_future: bool,
        tolerance: Duration,
    },
    /// Signed, but not a network event this version can read.
    #[error("the body is not a network event: {0}")]
    MalformedEvent(String),
}

impl WebhookError {
    /// The HTTP status to answer: `401` for a request not proven to come from the
    /// network, `400` for a signed body that cannot be read.
    pub fn status(&self) -> u16 {
        match self {
            Self::MalformedEvent(_) => 400,
            _ => 401,
        }
    }
}
