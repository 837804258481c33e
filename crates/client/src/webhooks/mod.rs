//! Receiving the network's webhooks: [`Verifier`] checks a request (signature over
//! the raw body in constant time, timestamp within a tolerance, the event's signed
//! `time` within the event window) and reads it into a typed [`Event`];
//! [`Deduplicator`] skips an event delivered twice (or replayed), in memory or kept
//! in a file across restarts; every refusal is a [`WebhookError`] that says what
//! to answer. `examples/webhook_receiver.rs` puts them together in a small server.
//!
//! ```
//! use rxdesk_client::webhooks::{Deduplicator, EventData, Verifier};
//! # fn handle(headers: &reqwest::header::HeaderMap, body: &[u8]) -> u16 {
//! // An empty secret (a variable never set) is refused here, not at the first request.
//! let Ok(verifier) = Verifier::new("the subscription's shared secret") else {
//!     return 500;
//! };
//! let mut seen = Deduplicator::default(); // or Deduplicator::open(path, capacity)
//! let event = match verifier.verify(headers, body) {
//!     Err(refused) => return refused.status(), // 401 or 400: the network drops it
//!     Ok(event) => event,
//! };
//! match seen.first_time(&event.id) {
//!     Err(not_recorded) => not_recorded.status(), // 503: the network sends it again
//!     Ok(false) => 200,                           // a duplicate: done already
//!     Ok(true) => {
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
mod error;
mod event;
mod verify;

pub use dedup::Deduplicator;
pub use error::WebhookError;
pub use event::{
    Address, Event, EventData, Fill, Fulfillment, FulfillmentState, FulfillmentType,
    OrderAtPharmacy, OrderCreated, OrderError, OrderFulfillment, Pharmacy, PrescriptionCreated,
    RecordEvent, RecordRef,
};
pub use verify::{EmptySecret, SIGNATURE_HEADER, TIMESTAMP_HEADER, Verifier};
