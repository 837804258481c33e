//! `GET /userinfo` (OpenID Connect Core §5.3, as the real network's authorization
//! server offers it): who a user access token acts for, so that a client learns
//! the signed-in user and organization without reading the token.
//!
//! The bearer token is verified exactly as on `POST /graphql`
//! (`super::bearer`: signature, issuer, audience, expiry). A user token is
//! answered with JSON `{ sub, name, email, role, org_id, org_name }`. Refusals
//! are RFC 6750 §3: 401 with `WWW-Authenticate: Bearer` when the request carries
//! no bearer token, 401 `error="invalid_token"` when the token does not verify,
//! its sign-in has ended, or it names a user or organization the sandbox no
//! longer knows, 403
//! `error="insufficient_scope"` for a machine token (it acts for no user). Each
//! refusal's body is `{ error?, error_description }`. Permissions are not here:
//! they are the token response's `scope`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::bearer::{self, BearerFailure};
use super::db;
use super::state::AuthState;

/// An RFC 6750 §3 refusal of `/userinfo`.
struct Refusal {
    status: StatusCode,
    /// The `error` code; `None` when the request had no bearer token at all.
    error: Option<&'static str>,
    description: String,
}

impl Refusal {
    fn invalid_token(description: impl Into<String>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            error: Some("invalid_token"),
            description: description.into(),
        }
    }
}

impl From<BearerFailure> for Refusal {
    fn from(failure: BearerFailure) -> Self {
        match failure {
            // RFC 6750 §3.1: no error code when the request lacks bearer
            // authentication, or tried an unsupported scheme.
            BearerFailure::Missing | BearerFailure::NotBearer => Self {
                status: StatusCode::UNAUTHORIZED,
                error: None,
                description: failure.to_string(),
            },
            BearerFailure::Rejected(_) | BearerFailure::SignInEnded => {
                Self::invalid_token(failure.to_string())
            }
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        // Descriptions are our own sentences: no quote or backslash to escape.
        let description = self.description.replace(['"', '\\'], "'");
        let challenge = match self.error {
            Some(error) => format!("Bearer error=\"{error}\", error_description=\"{description}\""),
            None => "Bearer".to_owned(),
        };
        let body = match self.error {
            Some(error) => json!({ "error": error, "error_description": self.description }),
            None => json!({ "error_description": self.description }),
        };
        let mut response = (self.status, Json(body)).into_response();
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        no_store(headers);
        response
    }
}

fn no_store(headers: &mut HeaderMap) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// `GET /userinfo`
pub(super) async fn userinfo(State(state): State<AuthState>, headers: HeaderMap) -> Response {
    match answer(&state, &headers).await {
        Ok(response) => {
            tracing::info!(outcome = "ok", "userinfo answered");
            response
        }
        Err(refusal) => refusal,
    }
}

async fn answer(state: &AuthState, headers: &HeaderMap) -> Result<Response, Response> {
    let claims = bearer::authenticate(headers, state.token_check()).map_err(|failure| {
        tracing::info!(refusal = failure.label(), "userinfo refused: token");
        Refusal::from(failure).into_response()
    })?;
    if claims.is_machine() {
        tracing::info!(refusal = "machine_token", "userinfo refused: token");
        return Err(Refusal {
            status: StatusCode::FORBIDDEN,
            error: Some("insufficient_scope"),
            description: "A machine token acts for no user: /userinfo answers user tokens only"
                .to_owned(),
        }
        .into_response());
    }
    let (user_id, org_id) = (claims.sub.clone(), claims.org_id.clone());
    let profile = state
        .db
        .call(move |conn| Ok(db::profile(conn, &user_id, &org_id)?))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "userinfo failed on a store error");
            let body = json!({ "error": "server_error", "error_description": "The sandbox could not read the user" });
            (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response()
        })?;
    let Some(profile) = profile else {
        tracing::info!(refusal = "unknown_user", "userinfo refused: token");
        return Err(Refusal::invalid_token(
            "The token's user or organization is no longer known to this network",
        )
        .into_response());
    };
    let body = json!({
        "sub": claims.sub,
        "name": profile.name,
        "email": profile.email,
        "role": profile.role,
        "org_id": claims.org_id,
        "org_name": profile.org_name,
    });
    let mut response = (StatusCode::OK, Json(body)).into_response();
    no_store(response.headers_mut());
    Ok(response)
}
