//! `rxdesk-sandbox`: a faithful local copy of the prescribing network.
//!
//! One origin serves both halves of the prescribing network:
//!
//! - [`auth`]: the OAuth authorization server (discovery, JWKS, browser sign-in with
//!   authorization code + PKCE, client credentials, refresh tokens, revocation);
//! - [`network`]: the real network's Network API at `POST /graphql` (`ping` and the
//!   upserts `patient`, `prescription`, `order`; `docs/network-api.md`), on the
//!   request plumbing of [`graphql`] (bearer token, body, limits, error codes).
//!
//! After Send, a simulated pharmacy ([`fulfillment`]) carries each sent order
//! through the documented sequence, and [`webhooks`] tells subscribed backends,
//! both on the simulated [`clock`] that tests advance at once ([`after_send`] runs
//! them beside the API).
//!
//! State lives in SQLite ([`store`]), accounts come from a TOML [`fixture`], and the
//! [`catalog`] (medications, allergens, screening rules, diagnoses, pharmacies) is
//! built in, replaceable by the fixture; the wire vocabulary they and the network
//! share ([`wire`], the GraphQL types) and the field rules ([`validate`]) stand
//! below them all. The [`link`] layer makes the network
//! slow or faulty on demand, set at runtime through the [`control`] endpoint
//! (a second, loopback-only listener); [`audit`] reads a database for the
//! duplicates a client that retried badly leaves. [`Sandbox::start`] runs it all
//! in-process (tests, the desktop app); `main.rs` is the command-line wrapper.
//! Nothing here is shared with the client crate except the exported schema.

pub mod after_send;
pub mod audit;
pub mod auth;
mod body_limit;
pub mod catalog;
pub mod clock;
pub mod config;
pub mod control;
pub mod fixture;
pub mod fulfillment;
pub mod graphql;
mod host_check;
pub mod link;
pub mod network;
mod redact;
mod server;
mod state;
pub mod store;
pub mod validate;
pub mod webhooks;
pub mod wire;

pub use after_send::TestClock;
pub use clock::ClockReading;
pub use config::{AfterSendFlags, Config, FixtureSource, Storage};
pub use server::{Sandbox, StartError};
pub use webhooks::Webhooks;
