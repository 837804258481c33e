//! Test plumbing shared by the tests of the sandbox (`crates/sandbox/tests`),
//! the client (`crates/client/tests`) and the app (`src-tauri/tests`): a
//! dev-dependency only, never shipped.
//!
//! What lives here, one concept a file: the demo fixture's accounts and ids
//! ([`demo`]), starting an in-process sandbox ([`sandbox`]), the process's
//! rustls crypto provider ([`crypto`]), the tests' own HTTP clients ([`http`]),
//! the sign-in pages read like a person reads them — by heading, label and
//! button ([`sign_in_page`]), a person walking those pages from the authorize
//! URL to the app's loopback listener ([`person`]), and a tracing log capture
//! ([`logs`]).
//!
//! What does not: anything one crate alone uses (the sandbox's OAuth `Flow`
//! and GraphQL builders, the client's fault-injecting proxy and clinic network,
//! the app's mock-runtime harness and typed command calls stay in each crate's
//! `tests/support`, which re-exports what it needs from here), and no
//! assertion about the behaviour under test — only "this setup step worked".
//! Depends on `rxdesk-sandbox` (to start one), not on the client or the app.
//! A failed setup step panics with what failed: `unwrap` is allowed here as in
//! any test code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod crypto;
pub mod demo;
pub mod http;
pub mod logs;
pub mod person;
pub mod sandbox;
pub mod sign_in_page;

pub use crypto::install_crypto;
pub use http::{browser, http};
pub use logs::CapturedLogs;
pub use sandbox::{start_demo, start_with};
