//! `crates/sandbox/schema.graphql` is the schema the server serves, exactly: the
//! client crate compiles its operations against that file, so it must never drift.
//!
//! Regenerate after a schema change with:
//! `UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test api_schema`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

const HEADER: &str = "\
# The GraphQL schema of the sandbox's API, exported from the server (rxdesk-sandbox).
# Do not edit by hand: a test fails when this file and the server disagree.
# Regenerate: UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test api_schema
# Dates are ISO 8601 strings: YYYY-MM-DD for dates, RFC 3339 UTC for instants.

";

fn schema_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("legacy-schema.graphql")
}

fn exported() -> String {
    format!("{HEADER}{}", rxdesk_sandbox::api::sdl().trim_end()) + "\n"
}

#[test]
fn schema_file_is_the_servers_exported_schema() {
    let expected = exported();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(schema_file(), &expected).unwrap();
    }
    let on_disk = std::fs::read_to_string(schema_file()).unwrap();
    assert!(
        on_disk == expected,
        "crates/sandbox/legacy-schema.graphql differs from the server's schema; \
         regenerate it with `UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test api_schema`"
    );
}
