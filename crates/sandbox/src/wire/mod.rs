//! The wire vocabulary: the Network API's GraphQL types, named and shaped exactly
//! as the real network's schema (`network-api.reference.graphql`), one file a
//! part of it. They stand below every module that speaks them — the store keeps
//! records in them, the catalog and the fixture name their enums — and
//! `crate::network` re-exports this module as `network::types`. The files: `scalars.rs`,
//! `request.rs` (request metadata), `errors.rs`, `location.rs` (addresses and places
//! in inputs), `pharmacy.rs`, `change.rs`, `patient.rs`, `prescription.rs`,
//! `order.rs`, `results.rs` (the result unions and payloads). Only shapes live here
//! (owned data, built by the resolvers); no rules. Each file names what it uses
//! from its siblings, which depend on each other one way (`results` → records →
//! `change`, `pharmacy`, `location`, `errors`, `scalars`); this file only declares
//! and re-exports them, so the rest of the crate writes `types::Name`.

// async-graphql's `#[graphql(field(name = …, ty = …))]` lists repeat `ty =` by design.
#![allow(clippy::duplicated_attributes)]

mod change;
mod errors;
mod location;
mod order;
mod patient;
mod pharmacy;
mod prescription;
mod request;
mod results;
mod scalars;

pub use change::*;
pub use errors::*;
pub use location::*;
pub use order::*;
pub use patient::*;
pub use pharmacy::*;
pub use prescription::*;
pub use request::*;
pub use results::*;
pub use scalars::*;
