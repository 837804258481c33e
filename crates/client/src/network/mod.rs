//! The Network API: the real network's `ping` and three upserts (`patient`,
//! `prescription`, `order`), as one typed function per call shape.
//!
//! - [`documents`]: the GraphQL documents and the record types, checked against
//!   the schema at compile time (cynic);
//! - [`calls`]: [`Network`], the typed functions, metadata and retry policy;
//! - [`outcome`]: decoding answers into [`Outcome`]s and errors, [`Choice`]s and
//!   answering them ([`AnswerOption`]);
//! - [`compat`]: [`Network::check_compatibility`], every document validated
//!   against the network's introspected schema;
//! - `rendered`: request bodies with each document's text rendered once.

pub mod calls;
pub mod compat;
pub mod documents;
pub mod outcome;
mod rendered;

pub use calls::{
    Network, OrderChanges, PatientSearch, PharmacyMatches, SIGNING_IN_FLIGHT, Signing,
};
pub use compat::{Compatibility, OperationCheck};
pub use outcome::{AnswerOption, Choice, Outcome};
