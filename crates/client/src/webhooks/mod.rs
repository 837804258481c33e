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
pub use verify::{SIGNATURE_HEADER, TIMESTAMP_HEADER, Verifier};
