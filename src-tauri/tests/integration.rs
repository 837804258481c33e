//! The app's integration tests, one module per file beside this one, built as
//! one test binary: one link and one copy of the app on disk instead of one per
//! file (each was about 120 MB). Binaries of their own, listed in `Cargo.toml`
//! (`autotests = false`): `logs` installs the process-wide tracing subscriber,
//! `real_keyring` and `bindings` are run by name (the platforms workflow; the
//! bindings' regeneration switch).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod bad_link;
mod commands;
mod keyring;
mod production;
mod round_trips;
mod updates;
