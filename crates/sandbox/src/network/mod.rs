//! The Network API at `POST /graphql`: the real network's schema (`ping` and the
//! three upserts `patient`, `prescription`, `order`), served by async-graphql.
//!
//! A request goes: bearer token verified and body read (`crate::graphql`, called by
//! `endpoint.rs`) → the input classified once, by an exhaustive destructure, as the
//! call it is ([`call_shape`]: `PatientCall`, `PrescriptionCall`, `OrderCall`) → the
//! mutation's permission checked from that call alone ([`access`], called by `schema.rs`) → the call run (a write in one SQLite transaction)
//! ([`Call`], `call.rs`: [`patient`], [`prescription`], [`order`], with [`clinical`]
//! patches, [`screening`] and [`present`]) → a storage fault answered as
//! `UpstreamServiceError` (as is a fault the link layer chose for the request,
//! `crate::link::UpstreamFault`, before anything is touched). [`sdl`] is the
//! schema exported to
//! `crates/sandbox/schema.graphql`. The rules are written down in
//! `docs/network-api.md`.
//!
//! Dependencies run one way: `endpoint` → `introspection` → `strict` → `schema`
//! → `measured`; `endpoint` → `schema` → `access`, the record modules → `call_shape`,
//! `call`, `changes`, `present`, `validate` → [`types`]; this file only declares and re-exports.

pub mod access;
pub(crate) mod call;
pub mod call_shape;
pub mod changes;
pub mod clinical;
mod endpoint;
mod introspection;
mod measured;
mod operation;
pub mod order;
pub mod patient;
pub mod prescription;
pub mod present;
mod schema;
pub mod screening;
pub mod seed;
mod strict;

/// The field rules that need no store, shared with the catalog's checks
/// (`crate::validate`).
pub use crate::validate;
/// The Network API's GraphQL types: the wire vocabulary, kept below the
/// network (`crate::wire`) because the store, the catalog and the fixture share it.
pub use crate::wire as types;
pub use call::Call;
pub(crate) use endpoint::router;
pub(crate) use operation::classify_graphql;
pub use schema::{Mutation, NetworkSchema, Query, sdl};
