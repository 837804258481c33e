//! Strict validation: every document is validated against the served schema by
//! apollo-compiler before async-graphql runs it. async-graphql alone accepts some
//! documents the GraphQL specification (and so the real network) refuses, e.g. a
//! string literal where an enum belongs (`sex: "FEMALE"`).
//!
//! Clients send the same few documents again and again, so each distinct
//! document text is checked and parsed once: its verdict and, when valid, the
//! document as apollo-compiler validated it and as async-graphql parsed it are
//! kept (at most [`CACHE_LIMIT`] documents). Each request's variables are then
//! coerced against the types its operation declares ([`Accepted::check_variables`],
//! the specification's CoerceVariableValues): a value that does not fit refuses
//! the whole request before any field runs. A request so checked whole
//! ([`Coverage::Whole`]) has nothing left for async-graphql's own validation
//! rules to find: it runs on the schema built without them
//! (`schema::CHECKED`: only the limits — depth, complexity — are computed), with
//! async-graphql's parse handed on so it is not parsed again. The parsed schema
//! is also what `introspection.rs` answers `__schema` from.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use apollo_compiler::response::{JsonMap, JsonValue};
use apollo_compiler::validation::Valid;
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{Value, Variables};

use super::measured::Measurement;

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
    /// The first control or text-direction character it holds (a carriage
    /// return is allowed), if any: then it is not validated.
    forbidden: Option<char>,
    /// Why it is not valid for the served schema, if it is not.
    problem: Option<String>,
    /// The document as apollo-compiler validated it (`None` when strict
    /// checks are off).
    valid: Option<Valid<apollo_compiler::ExecutableDocument>>,
    /// async-graphql's parse of a valid document.
    parsed: Option<ExecutableDocument>,
    /// Its limits as `measured.rs` remembers them, for a valid document with
    /// one operation (with several, what is measured depends on the one run).
    measurement: Option<Measurement>,
    /// Whether it may select `__schema` or `__type` (`introspection.rs`).
    mentions_introspection: bool,
}

/// Why a document is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It holds this control or text-direction character.
    Forbidden(char),
    /// It is not valid for the served schema: the validator's words.
    Invalid(String),
}

/// A document the served schema accepts (or one left unchecked because
/// strict checks are off).
#[derive(Debug, Clone)]
pub struct Accepted(Arc<Checked>);

/// How much of a request strict validation covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The document and the request's variables: async-graphql's validation
    /// rules have nothing left to find.
    Whole,
    /// Not the variables (strict checks are off, or the operation to run
    /// could not be told): async-graphql's validation runs as well.
    DocumentOnly,
}

impl Accepted {
    /// async-graphql's parse of the document, to give the request with
    /// `set_parsed_query` (`None`: let async-graphql parse it and report why not).
    pub fn parsed(&self) -> Option<ExecutableDocument> {
        self.0.parsed.clone()
    }

    /// Whether it may select `__schema` or `__type`: then the request is kept
    /// for `introspection.rs` to answer those fields.
    pub fn mentions_introspection(&self) -> bool {
        self.0.mentions_introspection
    }

    /// Where its limits are remembered once measured (`measured.rs`), to give
    /// a request covered whole as data; `None`: measure every request.
    pub fn measurement(&self) -> Option<Measurement> {
        self.0.measurement.clone()
    }

    /// Coerces `variables` against the variables operation `operation_name`
    /// declares. `Err` says which value does not fit.
    pub fn check_variables(
        &self,
        operation_name: Option<&str>,
        variables: &Variables,
    ) -> Result<Coverage, String> {
        let (Some(schema), Some(document)) = (SCHEMA.as_ref(), self.0.valid.as_ref()) else {
            return Ok(Coverage::DocumentOnly);
        };
        // An unknown operation name, or several operations and none named:
        // async-graphql answers it in its own words.
        let Ok(operation) = document.operations.get(operation_name) else {
            return Ok(Coverage::DocumentOnly);
        };
        let values: JsonMap = variables
            .iter()
            .map(|(name, value)| (name.as_str().into(), json(value)))
            .collect();
        apollo_compiler::request::coerce_variable_values(schema, operation, &values)
            .map(|_| Coverage::Whole)
            .map_err(|e| format!("Invalid value: {}", e.message()))
    }
}

/// A variable's value as apollo-compiler reads JSON, built straight from
/// async-graphql's parse of the request: the same value `serde_json` would
/// write and read back (an enum as its name, bytes as an array of numbers),
/// without building a `serde_json` tree and reading it into a second one.
fn json(value: &Value) -> JsonValue {
    match value {
        Value::Null => JsonValue::Null,
        Value::Number(n) => JsonValue::Number(n.clone()),
        Value::String(s) => JsonValue::String(s.as_str().into()),
        Value::Boolean(b) => JsonValue::Bool(*b),
        Value::Binary(bytes) => JsonValue::Array(
            bytes
                .iter()
                .map(|b| JsonValue::Number((*b).into()))
                .collect(),
        ),
        Value::Enum(name) => JsonValue::String(name.as_str().into()),
        Value::List(items) => JsonValue::Array(items.iter().map(json).collect()),
        Value::Object(fields) => JsonValue::Object(
            fields
                .iter()
                .map(|(name, value)| (name.as_str().into(), json(value)))
                .collect(),
        ),
    }
}

/// The cache by document text, hashed with foldhash: SipHash (std's default,
/// built against hash flooding) over a whole query text on every request cost
/// 2 % of a Get's CPU. foldhash is seeded per process too, and the cache is
/// bounded ([`CACHE_LIMIT`]) whatever its keys collide on.
type Documents = HashMap<String, Arc<Checked>, foldhash::fast::RandomState>;

static DOCUMENTS: LazyLock<Mutex<Documents>> = LazyLock::new(Mutex::default);

/// The verdict on `query`: `Err` says why it is refused.
pub fn check(query: &str) -> Result<Accepted, Refused> {
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
    if let Some(c) = checked.forbidden {
        return Err(Refused::Forbidden(c));
    }
    match &checked.problem {
        Some(problem) => Err(Refused::Invalid(problem.clone())),
        None => Ok(Accepted(checked)),
    }
}

fn check_now(query: &str) -> Checked {
    let forbidden = query
        .chars()
        .find(|c| super::validate::is_forbidden_char(*c) && *c != '\r');
    let (valid, problem) = match SCHEMA.as_ref() {
        _ if forbidden.is_some() => (None, None),
        None => (None, None),
        Some(schema) => match apollo_compiler::ExecutableDocument::parse_and_validate(
            schema,
            query,
            "request.graphql",
        ) {
            Ok(valid) => (Some(valid), None),
            Err(e) => (
                None,
                Some(
                    e.errors
                        .iter()
                        .map(|d| d.error.to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                ),
            ),
        },
    };
    // A document async-graphql cannot parse is left to it: it reports its own error.
    let parsed = match problem {
        None => async_graphql::parser::parse_query(query).ok(),
        Some(_) => None,
    };
    let measurement = parsed
        .as_ref()
        .filter(|document| document.operations.iter().count() == 1)
        .map(|_| Measurement::default());
    Checked {
        forbidden,
        problem,
        valid,
        parsed,
        measurement,
        mentions_introspection: super::introspection::mentioned(query),
    }
}

fn documents() -> std::sync::MutexGuard<'static, Documents> {
    // Entries are inserted whole: a panic elsewhere leaves nothing half-written.
    DOCUMENTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use async_graphql::Name;
    use serde::Deserialize as _;

    use super::*;

    #[test]
    fn a_valid_document_comes_back_parsed_each_time() {
        let query = "query StrictPing { ping }";

        let first = check(query).unwrap().parsed().unwrap();
        let second = check(query).unwrap().parsed().unwrap();

        assert_eq!(first.operations.iter().count(), 1);
        assert_eq!(
            format!("{:?}", first.operations.iter().next().map(|(n, _)| n)),
            format!("{:?}", second.operations.iter().next().map(|(n, _)| n))
        );
    }

    #[test]
    fn an_invalid_document_is_refused_each_time_with_the_validator_s_words() {
        let query = "query StrictNoSuchField { noSuchField }";

        let Err(Refused::Invalid(first)) = check(query) else {
            panic!("not refused as invalid");
        };
        let second = check(query).unwrap_err();

        assert!(first.contains("noSuchField"), "{first}");
        assert_eq!(Refused::Invalid(first), second);
    }

    const GET: &str = "mutation StrictGet($patient: PatientInput!, $metadata: RequestMetadata!) { \
        patient(patient: $patient, metadata: $metadata) { __typename } }";

    #[test]
    fn variables_that_fit_their_declared_types_cover_the_whole_request() {
        let variables = Variables::from_json(serde_json::json!({
            "patient": { "id": "pat_1" },
            "metadata": { "source": "DIRECT_API" },
        }));

        let coverage = check(GET).unwrap().check_variables(None, &variables);

        assert_eq!(coverage, Ok(Coverage::Whole));
    }

    #[test]
    fn a_variable_that_does_not_fit_its_type_is_refused_with_the_coercion_s_words() {
        let missing_metadata = serde_json::json!({ "patient": { "id": "pat_1" } });
        let not_an_enum = serde_json::json!({
            "patient": { "demographic": { "sex": "SOMETIMES" } },
            "metadata": { "source": "DIRECT_API" },
        });
        let unknown_field = serde_json::json!({
            "patient": { "id": "pat_1", "nickname": "Gigi" },
            "metadata": { "source": "DIRECT_API" },
        });
        let accepted = check(GET).unwrap();

        let refusals: Vec<String> = [missing_metadata, not_an_enum, unknown_field]
            .iter()
            .map(|v| {
                accepted
                    .check_variables(None, &Variables::from_json(v.clone()))
                    .unwrap_err()
            })
            .collect();

        assert!(refusals[0].contains("metadata"), "{}", refusals[0]);
        assert!(refusals[1].contains("sex"), "{}", refusals[1]);
        assert!(refusals[2].contains("nickname"), "{}", refusals[2]);
    }

    #[test]
    fn a_variable_reads_as_the_json_serde_would_write_and_read_back() {
        let mut fields = async_graphql::indexmap::IndexMap::new();
        fields.insert(Name::new("zeta"), Value::Boolean(true));
        fields.insert(Name::new("alpha"), Value::Null);
        let value = Value::List(vec![
            Value::Number(7.into()),
            Value::Number(serde_json::Number::from_f64(2.5).unwrap()),
            Value::String("Ann".to_owned()),
            Value::Enum(Name::new("FEMALE")),
            Value::Binary(vec![1u8, 255].into()),
            Value::Object(fields),
        ]);

        let through_serde = JsonValue::deserialize(serde_json::to_value(&value).unwrap()).unwrap();

        assert_eq!(json(&value), through_serde);
    }

    #[test]
    fn an_operation_that_cannot_be_told_is_left_to_async_graphql() {
        let variables = Variables::default();

        let coverage = check(GET)
            .unwrap()
            .check_variables(Some("NoSuchOperation"), &variables);

        assert_eq!(coverage, Ok(Coverage::DocumentOnly));
    }

    #[test]
    fn a_document_with_one_operation_has_its_limits_remembered() {
        let accepted = check("query StrictOneOperation { ping }").unwrap();

        assert!(accepted.measurement().is_some());
    }

    #[test]
    fn a_document_with_several_operations_is_measured_on_every_request() {
        let accepted = check("query StrictFirst { ping } query StrictSecond { ping }").unwrap();

        assert!(accepted.measurement().is_none());
    }

    #[test]
    fn a_field_carrying_a_directive_twice_is_refused() {
        let query = "query StrictTwice { ping @include(if: true) @include(if: true) }";

        let refused = check(query).unwrap_err();

        assert!(
            matches!(&refused, Refused::Invalid(problem) if problem.contains("include")),
            "{refused:?}"
        );
    }

    #[test]
    fn a_document_is_marked_for_introspection_once_by_its_text() {
        let plain = check("query StrictPlain { ping __typename }").unwrap();
        let asking = check("query StrictAsking { __schema { queryType { name } } }").unwrap();

        assert!(!plain.mentions_introspection());
        assert!(asking.mentions_introspection());
    }

    #[test]
    fn a_document_holding_a_control_character_is_refused_for_it_each_time() {
        let query = "query StrictBell { ping } # \u{7}";

        let first = check(query).unwrap_err();
        let second = check(query).unwrap_err();

        assert_eq!(first, Refused::Forbidden('\u{7}'));
        assert_eq!(second, first);
    }
}
