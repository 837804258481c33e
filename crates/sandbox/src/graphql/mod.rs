//! The plumbing of the GraphQL endpoint (`POST /graphql`, the Network API in
//! `crate::network`): what happens to a request before its operation runs and to
//! the answer after.
//!
//! - `read_request`: the bearer token verified (`crate::auth::bearer`; a failure
//!   is a whole-request 401 in the GraphQL error shape), then the body read
//!   within the server's limit (`body_too_large`) and parsed as one GraphQL
//!   request;
//! - [`MAX_DEPTH`], [`MAX_COMPLEXITY`]: the limits every schema is built with;
//! - `respond`: every error of the answer labelled with an `extensions.code`
//!   ([`codes`]);
//! - [`Caller`] and [`Permission`] ([`caller`]): who is calling, put in the
//!   GraphQL context for the resolvers.

pub mod caller;

use std::sync::Arc;

use async_graphql::ServerError;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use self::caller::{Caller, Permission};
use crate::auth::bearer::{self, BearerFailure};
use crate::auth::claims::AccessClaims;
use crate::state::AppState;

/// Deepest selection accepted. The Network API's documents nest about six levels
/// (a payload's record, its changes, their options, their matches); the standard
/// introspection query's `ofType` chains go deeper.
pub const MAX_DEPTH: usize = 16;
/// Most expensive document accepted (each field costs 1).
pub const MAX_COMPLEXITY: usize = 5000;

/// The codes of whole-request failures and of the errors the endpoint labels.
pub mod codes {
    /// A variable or the document holds a forbidden character (`crate::network`).
    pub const INVALID_INPUT: &str = "INVALID_INPUT";
    /// No token (RFC 6750: the request had no authentication).
    pub const EMPTY_AUTHORIZATION_HEADER: &str = "EMPTY_AUTHORIZATION_HEADER";
    /// A token that is not a bearer token, malformed, forged, expired, for
    /// another audience or issuer, or of a sign-in that has ended.
    pub const INVALID_AUTHORIZATION_HEADER: &str = "INVALID_AUTHORIZATION_HEADER";
    /// A body that is not one GraphQL request.
    pub const BAD_REQUEST: &str = "BAD_REQUEST";
    /// A body over the server's limit.
    pub const REQUEST_TOO_LARGE: &str = "REQUEST_TOO_LARGE";
    /// A document the schema does not allow, or over a limit.
    pub const GRAPHQL_VALIDATION_FAILED: &str = "GRAPHQL_VALIDATION_FAILED";
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
            crate::body_limit::MAX_BODY_BYTES
        ),
    )
}

/// A request without a usable token: HTTP 401, `WWW-Authenticate: Bearer`, one
/// error with its code, no `data`.
fn unauthenticated(failure: &BearerFailure) -> Response {
    let (code, challenge) = match failure {
        // RFC 6750 §3.1: no error code when the request had no authentication.
        BearerFailure::Missing => (
            codes::EMPTY_AUTHORIZATION_HEADER,
            HeaderValue::from_static("Bearer"),
        ),
        BearerFailure::NotBearer | BearerFailure::Rejected(_) | BearerFailure::SignInEnded => (
            codes::INVALID_AUTHORIZATION_HEADER,
            HeaderValue::from_static("Bearer error=\"invalid_token\""),
        ),
    };
    let mut response = request_error(StatusCode::UNAUTHORIZED, code, &failure.to_string());
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    response
}

/// The front of the GraphQL endpoint: the bearer token verified, then the body
/// read and parsed as one GraphQL request. `Err` is the whole-request failure.
pub(crate) fn read_request(
    state: &AppState,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(Arc<AccessClaims>, async_graphql::Request), Box<Response>> {
    let claims = match bearer::authenticate(headers, state.token_check()) {
        Ok(claims) => claims,
        Err(failure) => {
            tracing::info!(refusal = failure.label(), "graphql request refused: token");
            return Err(Box::new(unauthenticated(&failure)));
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

/// The back of the GraphQL endpoint: every error labelled with a code.
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
