//! Strict validation: every document is validated against the served schema by
//! apollo-compiler before async-graphql runs it. async-graphql alone accepts some
//! documents the GraphQL specification (and so the real network) refuses, e.g. a
//! string literal where an enum belongs (`sex: "FEMALE"`).
//!
//! Clients send the same few documents again and again, so each distinct
//! document text is checked and parsed once: its verdict and, when valid, the
//! document as async-graphql parsed it are kept (at most [`CACHE_LIMIT`]
//! documents) and handed to async-graphql with the request, which then skips
//! its own parse. async-graphql still validates every request against its
//! variables and limits. The parsed schema is also what `introspection.rs`
//! answers `__schema` from.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use apollo_compiler::validation::Valid;
use async_graphql::parser::types::ExecutableDocument;

/// How many distinct documents are kept.
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

/// What is known about one document text.
#[derive(Debug)]
struct Checked {
    /// Why it is not valid for the served schema, if it is not.
    problem: Option<String>,
    /// async-graphql's parse of a valid document.
    parsed: Option<ExecutableDocument>,
}

static DOCUMENTS: LazyLock<Mutex<HashMap<String, Arc<Checked>>>> = LazyLock::new(Mutex::default);

/// The verdict on `query`: `Err` says why it is not a valid document for the
/// served schema; `Ok` carries async-graphql's parse of it when there is one
/// (to give the request with `set_parsed_query`).
pub fn check(query: &str) -> Result<Option<ExecutableDocument>, String> {
    let checked = {
        let cached = documents().get(query).cloned();
        match cached {
            Some(checked) => checked,
            None => {
                // Checked outside the lock: other requests are not held up by it.
                let checked = Arc::new(check_now(query));
                let mut documents = documents();
                if documents.len() >= CACHE_LIMIT {
                    documents.clear();
                }
                documents.insert(query.to_owned(), Arc::clone(&checked));
                checked
            }
        }
    };
    match &checked.problem {
        Some(problem) => Err(problem.clone()),
        None => Ok(checked.parsed.clone()),
    }
}

fn check_now(query: &str) -> Checked {
    let problem = SCHEMA.as_ref().and_then(|schema| {
        apollo_compiler::ExecutableDocument::parse_and_validate(schema, query, "request.graphql")
            .err()
            .map(|e| {
                e.errors
                    .iter()
                    .map(|d| d.error.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            })
    });
    // A document async-graphql cannot parse is left to it: it reports its own error.
    let parsed = match problem {
        None => async_graphql::parser::parse_query(query).ok(),
        Some(_) => None,
    };
    Checked { problem, parsed }
}

fn documents() -> std::sync::MutexGuard<'static, HashMap<String, Arc<Checked>>> {
    // Entries are inserted whole: a panic elsewhere leaves nothing half-written.
    DOCUMENTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_valid_document_comes_back_parsed_each_time() {
        let query = "query StrictPing { ping }";

        let first = check(query).unwrap().unwrap();
        let second = check(query).unwrap().unwrap();

        assert_eq!(first.operations.iter().count(), 1);
        assert_eq!(
            format!("{:?}", first.operations.iter().next().map(|(n, _)| n)),
            format!("{:?}", second.operations.iter().next().map(|(n, _)| n))
        );
    }

    #[test]
    fn an_invalid_document_is_refused_each_time_with_the_validator_s_words() {
        let query = "query StrictNoSuchField { noSuchField }";

        let first = check(query).unwrap_err();
        let second = check(query).unwrap_err();

        assert!(first.contains("noSuchField"), "{first}");
        assert_eq!(first, second);
    }
}
