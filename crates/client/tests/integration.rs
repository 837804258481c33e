//! The client's integration tests, one module per file beside this one, built
//! as one test binary: one link and one copy of the client and the sandbox on
//! disk instead of one per file (each was about 75 MB). `clinic_network` stays
//! a binary of its own: it re-runs itself as a child process with the proxy
//! variables set. `Cargo.toml` lists the binaries (`autotests = false`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod backend_sync;
mod bad_link;
mod compatibility;
mod listener;
mod logs;
mod machine_tokens;
mod network;
mod refusals;
mod sessions;
mod sign_in;
mod webhooks;
