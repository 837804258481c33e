//! The GraphQL API at `POST /graphql` (async-graphql on axum).
//!
//! A request goes: bearer token verified ([`authn`]) → body read (within the
//! server's body limit) and parsed as one GraphQL request → executed against the
//! schema with the caller and the database in its context, under depth and
//! complexity limits. Permissions are checked by each resolver ([`query`],
//! [`mutation`]); records live in the store. [`sdl`] is the schema exported to
//! `crates/sandbox/schema.graphql`.

pub mod authn;
pub mod errors;
pub mod mutation;
pub mod pagination;
pub mod query;
mod trace;
pub mod types;
pub mod validate;

use std::sync::LazyLock;

use async_graphql::{EmptySubscription, Schema, SchemaBuilder, ServerError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use self::errors::{Caller, codes};
use crate::state::AppState;

/// The API's schema type.
pub type ApiSchema = Schema<query::Query, mutation::Mutation, EmptySubscription>;

/// Deepest selection accepted. The schema has no cycles; the deepest useful
/// query (`orders { nodes { fills { prescription { patient { address { city }}}}}}`)
/// is 7 levels, introspection's `ofType` chains go deeper.
pub const MAX_DEPTH: usize = 16;
/// Most expensive query accepted (each field costs 1; lists cost `first` × their items).
pub const MAX_COMPLEXITY: usize = 5000;

fn builder() -> SchemaBuilder<query::Query, mutation::Mutation, EmptySubscription> {
    Schema::build(query::Query, mutation::Mutation, EmptySubscription)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(64)
        .limit_directives(16)
}

static SCHEMA: LazyLock<ApiSchema> = LazyLock::new(|| builder().finish());

/// The schema in GraphQL SDL: what `crates/sandbox/schema.graphql` holds.
pub fn sdl() -> String {
    SCHEMA.sdl()
}

/// Routes of the GraphQL API.
pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/legacy/graphql", post(graphql))
}

/// A whole-request failure in the GraphQL error shape (no `data`).
fn request_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = serde_json::json!({
        "errors": [{ "message": message, "extensions": { "code": code } }]
    });
    (status, axum::Json(body)).into_response()
}

/// The answer to a body over the server's limit, whether the handler read it
/// (chunked) or the limit layer refused its `Content-Length` (see `server.rs`).
pub(crate) fn body_too_large() -> Response {
    request_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        codes::REQUEST_TOO_LARGE,
        &format!(
            "The request body is larger than {} bytes",
            crate::server::MAX_BODY_BYTES
        ),
    )
}

async fn graphql(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (claims, request) = match read_request(&state, &headers, body) {
        Ok(parts) => parts,
        Err(response) => return *response,
    };
    let request = request.data(state.db.clone()).data(Caller { claims });
    respond(SCHEMA.execute(request).await)
}

/// The front of every GraphQL endpoint: the bearer token verified, then the body
/// read and parsed as one GraphQL request. `Err` is the whole-request failure.
pub(crate) fn read_request(
    state: &AppState,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(crate::auth::claims::AccessClaims, async_graphql::Request), Box<Response>> {
    let claims = match authn::authenticate(headers, state) {
        Ok(claims) => claims,
        Err(failure) => {
            tracing::info!(refusal = failure.label(), "graphql request refused: token");
            return Err(Box::new(failure.into_response()));
        }
    };
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return Err(Box::new(body_too_large()));
        }
        Err(rejection) => {
            return Err(Box::new(request_error(
                rejection.status(),
                codes::BAD_REQUEST,
                "The request body could not be read",
            )));
        }
    };
    match serde_json::from_slice::<async_graphql::Request>(&body) {
        Ok(request) if !is_blank(&request) => Ok((claims, request)),
        _ => Err(Box::new(request_error(
            StatusCode::BAD_REQUEST,
            codes::BAD_REQUEST,
            "The body must be a JSON object with a `query` string (and optional `variables`, `operationName`)",
        ))),
    }
}

/// The back of every GraphQL endpoint: every error labelled with a code.
pub(crate) fn respond(mut response: async_graphql::Response) -> Response {
    for error in &mut response.errors {
        label_error(error);
    }
    async_graphql_axum::GraphQLResponse::from(response).into_response()
}

fn is_blank(request: &async_graphql::Request) -> bool {
    request.query.trim().is_empty()
}

/// Gives every error a `code`: parse, validation and limit errors come from
/// async-graphql without one.
fn label_error(error: &mut ServerError) {
    let extensions = error.extensions.get_or_insert_with(Default::default);
    if extensions.get("code").is_none() {
        extensions.set("code", codes::GRAPHQL_VALIDATION_FAILED);
    }
}
