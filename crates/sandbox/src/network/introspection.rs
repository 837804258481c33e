//! Schema introspection as the served schema declares it. async-graphql lists in
//! `__schema { types }` only the types some field reaches, so a type the real
//! network's schema declares and no field uses (`CatalogEntityKind`) would be
//! missing from introspection, although the SDL export (`schema.graphql`) has
//! it, and a client generated from introspection would differ from one
//! generated from the real schema. So the `__schema` and `__type` fields of a
//! query are answered by apollo-compiler's introspection executor against the
//! served SDL (as `strict.rs` parsed it), in place of async-graphql's answer to
//! those fields. Every other field, every limit and every error stays
//! async-graphql's; a document that selects neither is not looked at again.

use std::sync::LazyLock;

use apollo_compiler::Name;
use apollo_compiler::collections::HashMap;
use apollo_compiler::executable::ExecutableDocument;
use apollo_compiler::response::JsonMap;
use apollo_compiler::schema::Implementers;
use async_graphql::{Response, ServerError, Value};

/// Which types implement each interface, computed once for the executor.
static IMPLEMENTERS: LazyLock<HashMap<Name, Implementers>> = LazyLock::new(|| {
    super::strict::schema()
        .map(|schema| schema.implementers_map())
        .unwrap_or_default()
});

/// Whether `query` may select `__schema` or `__type` (not only `__typename`,
/// which nearly every document holds). `strict.rs` asks once per document
/// text: scanning every request's text again cost a Get some 2k instructions.
pub(super) fn mentioned(query: &str) -> bool {
    query.contains("__schema")
        || query
            .match_indices("__type")
            .any(|(at, word)| !query[at + word.len()..].starts_with("name"))
}

/// What a request asked, kept when its document may select `__schema` or
/// `__type` ([`mentioned`]; async-graphql consumes the request).
#[derive(Debug)]
pub(super) struct Asked {
    query: String,
    operation_name: Option<String>,
    variables: serde_json::Value,
}

impl Asked {
    /// What `request` asked.
    pub(super) fn of(request: &async_graphql::Request) -> Self {
        Self {
            query: request.query.clone(),
            operation_name: request.operation_name.clone(),
            variables: serde_json::to_value(&request.variables).unwrap_or_default(),
        }
    }

    /// `response` with the served schema's own answer to the operation's
    /// `__schema` and `__type` root fields. Unchanged when the operation is
    /// not a query selecting one of them, or when it answered no data (a
    /// refused request).
    pub(super) fn answer(self, mut response: Response) -> Response {
        let Value::Object(data) = &mut response.data else {
            return response;
        };
        let Some(schema) = super::strict::schema() else {
            return response;
        };
        // Strict validation accepted this document before it ran.
        let Ok(document) =
            ExecutableDocument::parse_and_validate(schema, &self.query, "request.graphql")
        else {
            return response;
        };
        let Ok(operation) = document.operations.get(self.operation_name.as_deref()) else {
            return response;
        };
        if !operation.operation_type.is_query() {
            return response;
        }
        let keys: Vec<&Name> = operation
            .root_fields(&document)
            .filter(|field| matches!(field.name.as_str(), "__schema" | "__type"))
            .map(|field| field.response_key())
            .collect();
        if keys.is_empty() {
            return response;
        }
        let refused =
            |message: String| Response::from_errors(vec![ServerError::new(message, None)]);
        let values: JsonMap = serde_json::from_value(self.variables).unwrap_or_default();
        let executed = apollo_compiler::introspection::check_max_depth(&document, operation)
            .and_then(|()| {
                apollo_compiler::request::coerce_variable_values(schema, operation, &values)
            })
            .and_then(|variables| {
                apollo_compiler::introspection::partial_execute(
                    schema,
                    &IMPLEMENTERS,
                    &document,
                    operation,
                    &variables,
                )
            });
        let executed = match executed {
            Ok(executed) => executed,
            Err(e) => return refused(e.message().to_string()),
        };
        let Some(answered) = executed.data else {
            return refused("the schema's introspection gave no answer".to_owned());
        };
        for key in keys {
            let Some(value) = answered.get(key.as_str()) else {
                continue;
            };
            let Ok(value) = serde_json::to_value(value).and_then(Value::from_json) else {
                continue;
            };
            data.insert(async_graphql::Name::new(key.as_str()), value);
        }
        response.errors.extend(
            executed
                .errors
                .into_iter()
                .map(|error| ServerError::new(error.message, None)),
        );
        response
    }
}

#[cfg(test)]
mod tests {
    use super::mentioned;

    #[test]
    fn a_document_selecting_only_typenames_is_not_kept_for_introspection() {
        assert!(!mentioned("query { ping __typename }"));
    }

    #[test]
    fn a_document_selecting_the_schema_or_a_type_is_kept_for_introspection() {
        assert!(mentioned("{ __schema { types { name } } }"));
        assert!(mentioned("{ __type(name: \"Patient\") { name } }"));
    }
}
