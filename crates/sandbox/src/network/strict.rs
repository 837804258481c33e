//! Strict validation: every document is validated against the served schema by
//! apollo-compiler before async-graphql runs it. async-graphql alone accepts some
//! documents the GraphQL specification (and so the real network) refuses, e.g. a
//! string literal where an enum belongs (`sex: "FEMALE"`). Verdicts are cached by
//! document text: clients send the same few documents again and again. The
//! parsed schema is also what `introspection.rs` answers `__schema` from.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use apollo_compiler::validation::Valid;

/// How many distinct documents' verdicts are kept.
const CACHE_LIMIT: usize = 512;

static SCHEMA: LazyLock<Option<Valid<apollo_compiler::Schema>>> = LazyLock::new(|| {
    match apollo_compiler::Schema::parse_and_validate(super::schema::sdl(), "schema.graphql") {
        Ok(schema) => Some(schema),
        Err(e) => {
            tracing::error!(errors = %e.errors, "the served schema does not validate; strict checks are off");
            None
        }
    }
});

/// The served schema as apollo-compiler parsed and validated it (`None`, and
/// an error logged, if it does not validate).
pub(super) fn schema() -> Option<&'static Valid<apollo_compiler::Schema>> {
    SCHEMA.as_ref()
}

static VERDICTS: LazyLock<Mutex<HashMap<String, Option<String>>>> = LazyLock::new(Mutex::default);

/// Why `query` is not a valid document for the served schema, if it is not.
pub fn problem(query: &str) -> Option<String> {
    let schema = schema()?;
    let mut verdicts = VERDICTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(verdict) = verdicts.get(query) {
        return verdict.clone();
    }
    let verdict =
        apollo_compiler::ExecutableDocument::parse_and_validate(schema, query, "request.graphql")
            .err()
            .map(|e| {
                e.errors
                    .iter()
                    .map(|d| d.error.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            });
    if verdicts.len() >= CACHE_LIMIT {
        verdicts.clear();
    }
    verdicts.insert(query.to_owned(), verdict.clone());
    verdict
}
