//! Authentication of `POST /graphql`: the `Authorization: Bearer <token>` header is
//! verified with the sandbox's own key (signature, `iss`, `aud`, `exp`) before the
//! GraphQL request is even parsed. A missing, empty or rejected token fails the
//! whole request: HTTP 401, `WWW-Authenticate: Bearer`, a top-level `errors` array
//! with `extensions.code`, and no `data`. The token itself is never logged.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::errors::codes;
use crate::auth::claims::AccessClaims;
use crate::auth::keys::TokenRejection;
use crate::state::AppState;

/// The exact message of a missing token (`shared/DESIGN.md`).
pub const MISSING_TOKEN_MESSAGE: &str = "Authentication token is not present";

/// Why a request carries no usable token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthFailure {
    #[error("{MISSING_TOKEN_MESSAGE}")]
    Missing,
    #[error("The Authorization header must be `Bearer <access token>`")]
    NotBearer,
    #[error("The authorization token is invalid: {0}")]
    Rejected(TokenRejection),
}

impl AuthFailure {
    fn code(&self) -> &'static str {
        match self {
            Self::Missing => codes::EMPTY_AUTHORIZATION_HEADER,
            Self::NotBearer | Self::Rejected(_) => codes::INVALID_AUTHORIZATION_HEADER,
        }
    }

    /// Short label for logs (never the token).
    pub fn label(&self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::NotBearer => "not_bearer",
            Self::Rejected(TokenRejection::Malformed) => "malformed",
            Self::Rejected(TokenRejection::BadSignature) => "bad_signature",
            Self::Rejected(TokenRejection::WrongAudience) => "wrong_audience",
            Self::Rejected(TokenRejection::WrongIssuer) => "wrong_issuer",
            Self::Rejected(TokenRejection::Expired) => "expired",
        }
    }
}

impl IntoResponse for AuthFailure {
    fn into_response(self) -> Response {
        let challenge = match self {
            // RFC 6750 §3.1: no error code when the request had no authentication.
            Self::Missing => HeaderValue::from_static("Bearer"),
            _ => HeaderValue::from_static("Bearer error=\"invalid_token\""),
        };
        let body = serde_json::json!({
            "errors": [{
                "message": self.to_string(),
                "extensions": { "code": self.code() },
            }]
        });
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
            axum::Json(body),
        )
            .into_response()
    }
}

/// Verifies the request's bearer token and returns its claims.
pub fn authenticate(headers: &HeaderMap, state: &AppState) -> Result<AccessClaims, AuthFailure> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(AuthFailure::Missing);
    };
    let value = value.to_str().map_err(|_| AuthFailure::NotBearer)?.trim();
    if value.is_empty() {
        return Err(AuthFailure::Missing);
    }
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthFailure::NotBearer);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(AuthFailure::Missing);
    }
    state
        .keys
        .verify(token, &state.issuer, &state.config.audience)
        .map_err(AuthFailure::Rejected)
}
