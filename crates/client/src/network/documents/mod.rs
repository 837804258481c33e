//! The Network API's documents, checked at compile time against
//! `crates/sandbox/schema.graphql` (registered by `build.rs`; the sandbox's export
//! of the real network's schema) with cynic. Fragments are Rust types, written
//! once and shared by every call shape: the record types here are the client's
//! domain types too. One file a record kind, as `calls.rs` has one section each:
//! `common.rs` (scalars, request metadata, errors, `ping`, the cynic schema module
//! and the `call_shape!` macro), `change.rs`, `pharmacy.rs`, `patient.rs`,
//! `prescription.rs`, `order.rs`; each holds its record's fragments, inputs and
//! named operations (one per call shape). Every name is re-exported here, so
//! `documents::Name` is the one path outside this folder. The typed functions that
//! send them are in `calls.rs`.
//!
//! Input objects serialize absent fields as `null`, which the network reads as
//! "not sent".

// cynic generates marker types and variable field structs without Debug.
#![allow(missing_docs, missing_debug_implementations)]

mod change;
mod common;
mod order;
mod patient;
mod pharmacy;
mod prescription;

pub use change::*;
pub use common::*;
pub use order::*;
pub use patient::*;
pub use pharmacy::*;
pub use prescription::*;
