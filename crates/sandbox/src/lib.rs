//! `rxdesk-sandbox`: a faithful local copy of the prescribing network.
//!
//! One origin serves both halves of the network described in
//! `shared/service-contract.md`:
//!
//! - [`auth`]: the OAuth authorization server (discovery, JWKS, browser sign-in with
//!   authorization code + PKCE, client credentials, refresh tokens, revocation);
//! - [`api`]: the GraphQL API at `POST /graphql` (patients, prescriptions, orders,
//!   permissions and refusals).
//!
//! State lives in SQLite ([`store`]), accounts come from a TOML [`fixture`], and the
//! medication/pharmacy [`catalog`] is built in. [`Sandbox::start`] runs it all
//! in-process (tests, the desktop app); `main.rs` is the command-line wrapper.
//! Nothing here is shared with the client crate except the exported
//! `schema.graphql`.

pub mod api;
pub mod auth;
pub mod catalog;
pub mod config;
pub mod fixture;
mod server;
mod state;
pub mod store;

pub use config::{Config, FixtureSource, Storage};
pub use server::{Sandbox, StartError};
