//! The bearer access token of a request to a protected endpoint (`POST /graphql`,
//! `GET /userinfo`): the `Authorization: Bearer <token>` header is verified with
//! the sandbox's own key (signature, `iss`, `aud`, `exp`), then the sign-in it
//! belongs to (`sid`) is checked against the ended ones (`sign_ins.rs`: signed
//! out or revoked), before anything else of the request is read.
//! [`authenticate`] gives the token's claims or why there are none
//! ([`BearerFailure`]). A token's verification is done once and then answered
//! from `verified.rs`'s cache until the token expires; the sign-in check is
//! never cached. Each endpoint answers a failure in its own shape (a GraphQL
//! error in `crate::graphql`, an RFC 6750 challenge in `userinfo.rs`).
//! The token itself is never logged.

use std::sync::Arc;

use axum::http::{HeaderMap, header};

use super::state::TokenCheck;
use crate::auth::claims::AccessClaims;
use crate::auth::keys::TokenRejection;

/// The exact message of a missing token, as the real network words it.
pub const MISSING_TOKEN_MESSAGE: &str = "Authentication token is not present";

/// Why a request carries no usable token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BearerFailure {
    /// No `Authorization` header, an empty one, or `Bearer` without a token.
    #[error("{MISSING_TOKEN_MESSAGE}")]
    Missing,
    #[error("The Authorization header must be `Bearer <access token>`")]
    NotBearer,
    #[error("The authorization token is invalid: {0}")]
    Rejected(TokenRejection),
    /// A user token whose sign-in ended (signed out, revoked, or a replayed
    /// refresh token), though it has not expired.
    #[error(
        "The authorization token is invalid: the sign-in it belongs to has ended (signed out or revoked); sign in again"
    )]
    SignInEnded,
}

impl BearerFailure {
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
            Self::SignInEnded => "sign_in_ended",
        }
    }
}

/// Verifies the request's bearer token, checks that its sign-in has not ended,
/// and returns its claims.
pub fn authenticate(
    headers: &HeaderMap,
    check: TokenCheck<'_>,
) -> Result<Arc<AccessClaims>, BearerFailure> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(BearerFailure::Missing);
    };
    let value = value.to_str().map_err(|_| BearerFailure::NotBearer)?.trim();
    if value.is_empty() {
        return Err(BearerFailure::Missing);
    }
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(BearerFailure::NotBearer);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(BearerFailure::Missing);
    }
    let claims = check
        .verified_tokens
        .verify(token, check.keys, check.issuer, check.audience)
        .map_err(BearerFailure::Rejected)?;
    // Only the verification above is cached. On every request, however the
    // claims were obtained: a sign-in can end at any moment.
    if let Some(sid) = claims.sid.as_deref()
        && check.ended_sign_ins.contains(sid)
    {
        return Err(BearerFailure::SignInEnded);
    }
    Ok(claims)
}
