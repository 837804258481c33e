//! `POST /graphql`: the route and its handler. The request plumbing of
//! `crate::graphql` reads the token and the body; a request holding a forbidden
//! character ([`forbidden_text`]) or failing strict validation (`strict.rs`: the
//! document, then the variables against it) is refused whole; a valid document
//! goes on parsed (`strict.rs` keeps each distinct document's parse), and a
//! request strict validation covered whole runs on the schema without
//! async-graphql's own validation rules (`schema::CHECKED`), its limits measured
//! once per document (`measured.rs`); the rest runs on the schema (`schema.rs`) with the
//! store, the catalog, the caller and any `UpstreamFault` the link layer chose in
//! its context, and a query's `__schema` and `__type` are answered from the
//! served SDL (`introspection.rs`).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;

use super::call::Given;
use super::introspection::Asked;
use super::schema::{CHECKED, SCHEMA};
use super::strict::{Coverage, Refused};
use super::{strict, validate};
use crate::graphql::{self, Caller};
use crate::state::AppState;

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/graphql", post(graphql))
}

async fn graphql(
    State(state): State<AppState>,
    upstream_fault: Option<axum::Extension<crate::link::UpstreamFault>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (claims, request) = match graphql::read_request(&state, &headers, body) {
        Ok(parts) => parts,
        Err(response) => return *response,
    };
    let refused = |error: async_graphql::ServerError| {
        graphql::respond(async_graphql::Response::from_errors(vec![error]))
    };
    if let Some((field, c)) = validate::forbidden_text(&request.variables, "variables") {
        return refused(forbidden_text(field, c));
    }
    let accepted = match strict::check(&request.query) {
        Ok(accepted) => accepted,
        Err(Refused::Forbidden(c)) => {
            return refused(forbidden_text("the document".to_owned(), c));
        }
        Err(Refused::Invalid(problem)) => {
            return refused(async_graphql::ServerError::new(problem, None));
        }
    };
    let coverage =
        match accepted.check_variables(request.operation_name.as_deref(), &request.variables) {
            Ok(coverage) => coverage,
            Err(problem) => return refused(async_graphql::ServerError::new(problem, None)),
        };
    let mut request = request;
    if let Some(parsed) = accepted.parsed() {
        request.set_parsed_query(parsed);
    }
    let asked = accepted
        .mentions_introspection()
        .then(|| Asked::of(&request));
    let mut request = request.data(Given {
        caller: Caller { claims },
        db: state.db.clone(),
        catalog: Arc::clone(&state.catalog),
        fault: upstream_fault.map(|axum::Extension(fault)| fault),
    });
    let schema = match coverage {
        Coverage::Whole => {
            if let Some(measurement) = accepted.measurement() {
                request = request.data(measurement);
            }
            &*CHECKED
        }
        Coverage::DocumentOnly => &*SCHEMA,
    };
    let response = schema.execute(request).await;
    graphql::respond(match asked {
        Some(asked) => asked.answer(response),
        None => response,
    })
}

/// The refusal of a request whose variables or document hold a control or
/// direction-override character: the whole request, with the path of the
/// first one (`INVALID_INPUT`). The variables are looked at first.
fn forbidden_text(field: String, c: char) -> async_graphql::ServerError {
    use async_graphql::ErrorExtensions as _;
    let message = format!(
        "{field} holds the character U+{:04X}: control and text-direction characters are not allowed in any field",
        u32::from(c)
    );
    let error = async_graphql::Error::new(message).extend_with(|_, ext| {
        ext.set("code", graphql::codes::INVALID_INPUT);
        ext.set("field", field.clone());
    });
    error.into_server_error(async_graphql::Pos::default())
}
