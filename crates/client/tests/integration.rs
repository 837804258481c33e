//! The client's integration tests, one module per file beside this one, built
//! as one test binary: one link and one copy of the client and the sandbox on
//! disk instead of one per file (each was about 75 MB). Binaries of their own,
//! listed in `Cargo.toml` (`autotests = false`): `clinic_network` re-runs itself
//! as a child process with the proxy variables set, and `logs` captures what the
//! client logs, which needs a process where no other test runs the client. With
//! one subscriber registered, tracing caches a callsite's interest as computed
//! on the thread that reaches it first (tokio-rs/tracing#3611): a sibling test
//! without a subscriber made it "never", and the capture missed the client's
//! operation spans (one CI run in three).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod backend_sync;
mod bad_link;
mod clock_skew;
mod compatibility;
mod listener;
mod machine_tokens;
mod network;
mod refusals;
mod sessions;
mod sign_in;
mod webhooks;
