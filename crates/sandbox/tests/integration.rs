//! The sandbox's integration tests, one module per file beside this one, built
//! as one test binary: one link and one copy of the sandbox on disk instead of
//! one per file (each was about 90 MB). The tests that install the
//! process-wide tracing subscriber (`auth_logs`, `network_logs`,
//! `network_link_logs`) stay binaries of their own; `Cargo.toml` lists them
//! (`autotests = false`), and `every_test_file_is_built` checks that no file
//! of `tests/` is left out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod after_send_support;
mod network_support;
mod support;

mod auth_restart;
mod auth_sessions;
mod auth_signin;
mod auth_tokens;
mod auth_userinfo;
mod binary_cli;
mod control_after_send;
mod fixture_files;
mod fulfillment;
mod network_audit;
mod network_auth;
mod network_cache;
mod network_catalog;
mod network_concurrency;
mod network_limits;
mod network_link;
mod network_order;
mod network_patient;
mod network_permissions;
mod network_prescription;
mod network_repeats;
mod network_requests;
mod network_restart;
mod network_schema;
mod network_storage;
mod network_walls;
mod sandbox_hardening;
mod webhooks;
