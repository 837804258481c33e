//! `POST /oauth/token` (authorization code + PKCE, client credentials, refresh
//! token with rotation) and `POST /oauth/revoke` (RFC 7009: a refresh token or a
//! user's access token, either ending its whole sign-in), with RFC 6749 §5.2
//! error bodies. Both take JSON (as the contract shows) or form-encoded bodies.
//! On the wire everything is a type: the request is a [`TokenRequest`] tagged by
//! `grant_type` (or a [`RevokeRequest`]), read through serde from either body
//! format; a refusal is an [`OAuthError`] whose variant gives its code and HTTP
//! status; an answer is the serde struct [`Issued`] or [`ErrorBody`].
//! Every response carries `Cache-Control: no-store`.
//!
//! Each code exchanged starts a sign-in (`sign_ins.rs`): its id is the `sid` of
//! the user tokens it leads to and the id of its refresh-token family. With
//! `openid` in the scope, an ID token (`claims::IdClaims`) comes beside the
//! access token.
//!
//! Client authentication: a Backend sends its secret in the body
//! (`client_secret_post`) or as HTTP Basic (`client_secret_basic`); an
//! Application is public and sends only `client_id`. The public Application
//! asking for client credentials gets `unauthorized_client` (400): it is
//! identified by its `client_id` as well as a public client ever is, and RFC 6749
//! §4.4 reserves that grant to confidential clients, so the fault is the grant
//! type for this client, not a failed authentication (`invalid_client`, 401, is
//! for unknown clients and wrong secrets).

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::claims::{AccessClaims, GTY_CLIENT_CREDENTIALS, IdClaims, MACHINE_PERMISSIONS};
use super::common::{OFFLINE_ACCESS, OPENID, now, parse_params, random_token, s256, sha256_hex};
use super::db;
use super::sign_ins;
use super::state::AuthState;
use crate::store::StoreError;

/// An RFC 6749 §5.2 error: each variant gives its `error` code ([`Self::code`])
/// and its HTTP status ([`Self::status`]).
#[derive(Debug)]
pub(super) enum OAuthError {
    /// `invalid_request`, 400.
    InvalidRequest(String),
    /// `invalid_request`, 413: the body is over the server's limit.
    BodyTooLarge,
    /// `invalid_client`, 401 (unknown client, wrong secret). `basic`: the
    /// client tried HTTP Basic, so the answer carries `WWW-Authenticate: Basic`.
    InvalidClient { basic: bool },
    /// `invalid_grant`, 400.
    InvalidGrant(&'static str),
    /// `unauthorized_client`, 400.
    UnauthorizedClient(&'static str),
    /// `unsupported_grant_type`, 400.
    UnsupportedGrantType,
    /// `server_error`, 500.
    ServerError(&'static str),
}

impl OAuthError {
    fn invalid_request(description: impl Into<String>) -> Self {
        Self::InvalidRequest(description.into())
    }

    /// The parameter `name` is missing (or empty).
    fn required(name: &str) -> Self {
        Self::InvalidRequest(format!("`{name}` is required"))
    }

    fn internal(e: &StoreError) -> Self {
        tracing::error!(error = %e, "token endpoint failed on a store error");
        Self::ServerError("the sandbox could not complete the request")
    }

    /// The RFC 6749 `error` code.
    fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest(_) | Self::BodyTooLarge => "invalid_request",
            Self::InvalidClient { .. } => "invalid_client",
            Self::InvalidGrant(_) => "invalid_grant",
            Self::UnauthorizedClient(_) => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::ServerError(_) => "server_error",
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            Self::InvalidClient { .. } => StatusCode::UNAUTHORIZED,
            Self::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::ServerError(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::InvalidRequest(_)
            | Self::InvalidGrant(_)
            | Self::UnauthorizedClient(_)
            | Self::UnsupportedGrantType => StatusCode::BAD_REQUEST,
        }
    }

    /// The `error_description`.
    fn description(&self) -> &str {
        match self {
            Self::InvalidRequest(description) => description,
            Self::BodyTooLarge => "request body too large",
            Self::InvalidClient { .. } => "client authentication failed",
            Self::InvalidGrant(description)
            | Self::UnauthorizedClient(description)
            | Self::ServerError(description) => description,
            Self::UnsupportedGrantType => {
                "grant_type must be authorization_code, client_credentials or refresh_token"
            }
        }
    }
}

/// The body of an error answer (RFC 6749 §5.2).
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'static str,
    error_description: &'a str,
}

/// The answer of `/oauth/token` and `/oauth/revoke` to a body over the server's
/// limit: an RFC 6749 error, status 413 (see `server.rs`).
pub(crate) fn body_too_large() -> Response {
    OAuthError::BodyTooLarge.into_response()
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.code(),
            error_description: self.description(),
        };
        let mut response = (self.status(), Json(body)).into_response();
        no_store(response.headers_mut());
        if let Self::InvalidClient { basic: true } = self {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"rxdesk-sandbox\""),
            );
        }
        response
    }
}

fn no_store(headers: &mut HeaderMap) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// A token request (RFC 6749 §4.1.3, §4.4.2, §6), tagged by `grant_type`; read
/// from [`Params`], so from a JSON or a form body alike. A missing parameter is
/// `None` here and refused by the grant, after the client is authenticated.
#[derive(Debug, Deserialize)]
#[serde(tag = "grant_type", rename_all = "snake_case")]
enum TokenRequest {
    AuthorizationCode {
        code: Option<String>,
        redirect_uri: Option<String>,
        code_verifier: Option<String>,
    },
    ClientCredentials {
        audience: Option<String>,
    },
    RefreshToken {
        refresh_token: Option<String>,
    },
    /// Any other `grant_type`: `unsupported_grant_type`.
    #[serde(other)]
    Unsupported,
}

/// A revocation request (RFC 7009 §2.1; `token_type_hint` is not read).
#[derive(Debug, Deserialize)]
struct RevokeRequest {
    token: Option<String>,
}

/// The client's own parameters of a token or revocation request (RFC 6749
/// §2.3.1: `client_secret_post`, or the public client's `client_id`).
#[derive(Default, Deserialize)]
struct ClientParams {
    client_id: Option<String>,
    client_secret: Option<String>,
}

impl std::fmt::Debug for ClientParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientParams")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The parameters of a token or revocation request, from either body format:
/// a JSON object of strings, every value a string, an empty one left out (an
/// empty parameter is an absent one). Read as a [`TokenRequest`],
/// [`RevokeRequest`] or [`ClientParams`].
struct Params(Value);

impl Params {
    fn parse(headers: &HeaderMap, body: &[u8]) -> Result<Self, OAuthError> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        let params: Vec<(String, String)> = match content_type.as_str() {
            "application/json" => {
                let object: serde_json::Map<String, Value> = serde_json::from_slice(body)
                    .map_err(|_| OAuthError::invalid_request("the body is not a JSON object"))?;
                let mut params = Vec::with_capacity(object.len());
                for (name, value) in object {
                    match value {
                        Value::String(s) => params.push((name, s)),
                        Value::Null => {}
                        _ => {
                            return Err(OAuthError::invalid_request(format!(
                                "`{name}` must be a string"
                            )));
                        }
                    }
                }
                params
            }
            "application/x-www-form-urlencoded" => parse_params(body)
                .map_err(|name| {
                    OAuthError::invalid_request(format!("`{name}` appears more than once"))
                })?
                .into_iter()
                .collect(),
            _ => {
                return Err(OAuthError::invalid_request(
                    "Content-Type must be application/json or application/x-www-form-urlencoded",
                ));
            }
        };
        Ok(Self(Value::Object(
            params
                .into_iter()
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| (name, Value::String(value)))
                .collect(),
        )))
    }

    /// The parameters as `T`. Every value is a string, so a `T` of optional
    /// strings (unknown parameters ignored) fails only on a missing enum tag.
    fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&self.0)
    }

    /// The client's own parameters: optional strings, so they always read.
    fn client(&self) -> ClientParams {
        self.read().unwrap_or_default()
    }
}

/// `value`, or the refusal of a request without the parameter `name`.
fn required(value: Option<String>, name: &str) -> Result<String, OAuthError> {
    value.ok_or_else(|| OAuthError::required(name))
}

/// Client credentials from the body or HTTP Basic (RFC 6749 §2.3.1).
struct ClientAuth {
    client_id: Option<String>,
    secret: Option<String>,
    basic: bool,
}

impl ClientAuth {
    fn from(headers: &HeaderMap, params: ClientParams) -> Result<Self, OAuthError> {
        let basic = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Basic ")
                    .or_else(|| v.strip_prefix("basic "))
            });
        match basic {
            Some(encoded) => {
                if params.client_secret.is_some() {
                    return Err(OAuthError::invalid_request(
                        "use one client authentication method, not HTTP Basic and client_secret",
                    ));
                }
                let decoded = STANDARD
                    .decode(encoded.trim())
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .ok_or(OAuthError::InvalidClient { basic: true })?;
                let (id, secret) = decoded
                    .split_once(':')
                    .ok_or(OAuthError::InvalidClient { basic: true })?;
                let id = form_decode(id);
                if params.client_id.is_some_and(|body_id| body_id != id) {
                    return Err(OAuthError::invalid_request(
                        "client_id differs from the HTTP Basic user",
                    ));
                }
                Ok(Self {
                    client_id: Some(id),
                    secret: Some(form_decode(secret)),
                    basic: true,
                })
            }
            None => Ok(Self {
                client_id: params.client_id,
                secret: params.client_secret,
                basic: false,
            }),
        }
    }
}

fn form_decode(value: &str) -> String {
    url::form_urlencoded::parse(format!("x={value}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// A successful token response (RFC 6749 §5.1). The fields are in
/// alphabetical order: the order of the keys this answer has always had.
#[derive(Serialize)]
struct Issued {
    access_token: String,
    expires_in: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    id_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    scope: String,
    token_type: TokenType,
}

/// RFC 6750 bearer tokens, the only kind issued.
#[derive(Serialize)]
enum TokenType {
    Bearer,
}

impl IntoResponse for Issued {
    fn into_response(self) -> Response {
        let mut response = (StatusCode::OK, Json(self)).into_response();
        no_store(response.headers_mut());
        response
    }
}

/// `POST /oauth/token`
pub(super) async fn token(
    State(state): State<AuthState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match grant(&state, &headers, &body).await {
        Ok(issued) => issued.into_response(),
        Err(e) => {
            if !matches!(e, OAuthError::ServerError(_)) {
                tracing::info!(error = e.code(), description = %e.description(), "token request refused");
            }
            e.into_response()
        }
    }
}

async fn grant(state: &AuthState, headers: &HeaderMap, body: &[u8]) -> Result<Issued, OAuthError> {
    let params = Params::parse(headers, body)?;
    let auth = ClientAuth::from(headers, params.client())?;
    // Every value is a string: only a missing `grant_type` fails to read.
    let request = params
        .read::<TokenRequest>()
        .map_err(|_| OAuthError::required("grant_type"))?;
    match request {
        TokenRequest::ClientCredentials { audience } => {
            client_credentials(state, audience, auth).await
        }
        TokenRequest::AuthorizationCode {
            code,
            redirect_uri,
            code_verifier,
        } => authorization_code(state, (code, redirect_uri, code_verifier), auth).await,
        TokenRequest::RefreshToken {
            refresh_token: token,
        } => refresh_token(state, token, auth).await,
        TokenRequest::Unsupported => Err(OAuthError::UnsupportedGrantType),
    }
}

/// The Backend `auth` names, after checking its secret; the Application's id
/// when a public client asked (for `unauthorized_client`).
enum Client {
    Backend(db::Backend),
    Application(db::Application),
}

async fn authenticate(state: &AuthState, auth: &ClientAuth) -> Result<Client, OAuthError> {
    let Some(client_id) = auth.client_id.clone() else {
        return Err(OAuthError::InvalidClient { basic: auth.basic });
    };
    let found = state
        .db
        .call(move |conn| {
            Ok((
                db::backend(conn, &client_id)?,
                db::application(conn, &client_id)?,
            ))
        })
        .await
        .map_err(|e| OAuthError::internal(&e))?;
    let secret = auth.secret.clone().unwrap_or_default();
    match found {
        (Some(backend), _) => {
            let phc = backend.secret_hash.clone();
            let ok = !secret.is_empty()
                && tokio::task::spawn_blocking(move || super::password::verify(&secret, &phc))
                    .await
                    .unwrap_or(false);
            if ok {
                Ok(Client::Backend(backend))
            } else {
                Err(OAuthError::InvalidClient { basic: auth.basic })
            }
        }
        (None, Some(app)) if auth.secret.is_none() => Ok(Client::Application(app)),
        _ => {
            let _ =
                tokio::task::spawn_blocking(move || super::password::verify_nothing(&secret)).await;
            Err(OAuthError::InvalidClient { basic: auth.basic })
        }
    }
}

/// The public Application named by `auth` (no secret expected or accepted).
async fn public_client(
    state: &AuthState,
    auth: &ClientAuth,
) -> Result<db::Application, OAuthError> {
    match authenticate(state, auth).await? {
        Client::Application(app) => Ok(app),
        Client::Backend(_) => Err(OAuthError::UnauthorizedClient(
            "a Backend cannot use this grant: it is for the Application's browser sign-in",
        )),
    }
}

async fn client_credentials(
    state: &AuthState,
    audience: Option<String>,
    auth: ClientAuth,
) -> Result<Issued, OAuthError> {
    let backend = match authenticate(state, &auth).await? {
        Client::Backend(b) => b,
        Client::Application(_) => {
            return Err(OAuthError::UnauthorizedClient(
                "client_credentials is for Backend credentials; this client is a public Application",
            ));
        }
    };
    check_audience(state, &required(audience, "audience")?)?;
    let at = now();
    let ttl = duration_secs(state.config.machine_token_ttl);
    let permissions: Vec<String> = MACHINE_PERMISSIONS
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    let claims = AccessClaims {
        iss: state.issuer.to_string(),
        sub: backend.client_id.clone(),
        aud: state.config.audience.clone(),
        iat: at,
        exp: at + ttl,
        azp: backend.client_id.clone(),
        scope: permissions.join(" "),
        permissions,
        org_id: backend.organization_id.clone(),
        jti: uuid::Uuid::new_v4().to_string(),
        gty: Some(GTY_CLIENT_CREDENTIALS.to_owned()),
        sid: None,
    };
    let access_token = sign(state, &claims)?;
    tracing::info!(client_id = %backend.client_id, org_id = %backend.organization_id, "machine token issued");
    Ok(Issued {
        access_token,
        expires_in: ttl,
        id_token: None,
        refresh_token: None,
        scope: claims.scope,
        token_type: TokenType::Bearer,
    })
}

/// What a code or refresh token turns into.
struct UserGrant {
    user_id: String,
    organization_id: String,
    client_id: String,
    audience: String,
    permissions: Vec<String>,
    refresh_token: Option<String>,
    /// The sign-in the tokens belong to.
    sid: String,
    /// When the user typed their password for it.
    auth_time: i64,
    /// `openid` was asked for: an ID token comes too.
    openid: bool,
}

async fn authorization_code(
    state: &AuthState,
    (code, redirect_uri, verifier): (Option<String>, Option<String>, Option<String>),
    auth: ClientAuth,
) -> Result<Issued, OAuthError> {
    let app = public_client(state, &auth).await?;
    let code = required(code, "code")?;
    let redirect_uri = required(redirect_uri, "redirect_uri")?;
    let verifier = required(verifier, "code_verifier")?;
    if !(43..=128).contains(&verifier.len())
        || !verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
    {
        return Err(OAuthError::invalid_request(
            "code_verifier is not a valid PKCE verifier",
        ));
    }
    let challenge = s256(&verifier);
    let code_hash = sha256_hex(&code);
    let refresh_ttl = duration_secs(state.config.refresh_token_ttl);
    let family_ttl = duration_secs(state.config.refresh_family_ttl);
    let user_ttl = duration_secs(state.config.user_token_ttl);
    let client_id = app.client_id.clone();
    let ended = state.ended_sign_ins.clone();
    let outcome = state
        .db
        .call(move |conn| {
            let at = now();
            committed(conn, |tx| {
                let Some(row) = db::code(tx, &code_hash)? else {
                    return Ok(Err(OAuthError::InvalidGrant("unknown authorization code")));
                };
                if row.used_at.is_some() {
                    // RFC 6749 §4.1.2: a replayed code revokes what it produced:
                    // its sign-in ends, access tokens included.
                    if let Some(sid) = &row.family_id {
                        sign_ins::end(tx, &ended, sid, at)?;
                    }
                    return Ok(Err(OAuthError::InvalidGrant(
                        "the authorization code was already used",
                    )));
                }
                db::mark_code_used(tx, &code_hash, at)?;
                if row.expires_at <= at {
                    return Ok(Err(OAuthError::InvalidGrant(
                        "the authorization code has expired",
                    )));
                }
                if row.client_id != client_id {
                    return Ok(Err(OAuthError::InvalidGrant(
                        "the code was issued to another client",
                    )));
                }
                if row.redirect_uri != redirect_uri {
                    return Ok(Err(OAuthError::InvalidGrant(
                        "redirect_uri differs from the one of the authorization request",
                    )));
                }
                if row.code_challenge != challenge {
                    return Ok(Err(OAuthError::InvalidGrant(
                        "code_verifier does not match the code_challenge",
                    )));
                }
                let Some(permissions) =
                    user_access(tx, &row.user_id, &row.organization_id, &row.client_id)?
                else {
                    return Ok(Err(OAuthError::InvalidGrant(
                        "the user can no longer use this organization",
                    )));
                };
                let sid = random_token();
                let offline = has_offline_access(&row.scope);
                let auth_time = row.auth_time.unwrap_or(at);
                // Past this, no token of the sign-in is valid: the last access
                // token is issued at the family's deadline at the latest.
                let forget_after = at + if offline { family_ttl } else { 0 } + user_ttl;
                db::insert_sign_in(
                    tx,
                    &db::SignIn {
                        sid: sid.clone(),
                        user_id: row.user_id.clone(),
                        client_id: row.client_id.clone(),
                        browser_hash: row.browser_hash.clone(),
                        auth_time,
                        ended_at: None,
                        forget_after,
                    },
                    at,
                )?;
                db::set_code_family(tx, &code_hash, &sid)?;
                let refresh_token = if offline {
                    Some(new_refresh(
                        tx,
                        &sid,
                        &row.client_id,
                        &row.user_id,
                        &row.organization_id,
                        &row.audience,
                        &row.scope,
                        at,
                        refresh_ttl,
                        at + family_ttl,
                    )?)
                } else {
                    None
                };
                Ok(Ok(UserGrant {
                    user_id: row.user_id,
                    organization_id: row.organization_id,
                    client_id: row.client_id,
                    audience: row.audience,
                    permissions,
                    refresh_token,
                    sid,
                    auth_time,
                    openid: has_scope(&row.scope, OPENID),
                }))
            })
        })
        .await
        .map_err(|e| OAuthError::internal(&e))??;
    issue_user_token(state, outcome)
}

async fn refresh_token(
    state: &AuthState,
    token: Option<String>,
    auth: ClientAuth,
) -> Result<Issued, OAuthError> {
    let app = public_client(state, &auth).await?;
    let token_hash = sha256_hex(&required(token, "refresh_token")?);
    let refresh_ttl = duration_secs(state.config.refresh_token_ttl);
    let user_ttl = duration_secs(state.config.user_token_ttl);
    let client_id = app.client_id.clone();
    let ended = state.ended_sign_ins.clone();
    let outcome = state
        .db
        .call(move |conn| {
            let at = now();
            committed(conn, |tx| {
                let Some(row) = db::refresh(tx, &token_hash)? else {
                    return Ok(Err(OAuthError::InvalidGrant("unknown refresh token")));
                };
                if row.client_id != client_id {
                    return Ok(Err(OAuthError::InvalidGrant("the refresh token was issued to another client")));
                }
                if row.revoked_at.is_some() {
                    return Ok(Err(OAuthError::InvalidGrant("the refresh token has been revoked")));
                }
                if row.used_at.is_some() {
                    sign_ins::end(tx, &ended, &row.family_id, at)?;
                    tracing::warn!(user_id = %row.user_id, "refresh token reused: its sign-in is ended, every token of it refused");
                    return Ok(Err(OAuthError::InvalidGrant(
                        "the refresh token was already used; every token of this sign-in is now revoked",
                    )));
                }
                if row.expires_at <= at {
                    return Ok(Err(OAuthError::InvalidGrant("the refresh token has expired")));
                }
                db::mark_refresh_used(tx, &token_hash, at)?;
                let Some(permissions) = user_access(tx, &row.user_id, &row.organization_id, &row.client_id)?
                else {
                    sign_ins::end(tx, &ended, &row.family_id, at)?;
                    return Ok(Err(OAuthError::InvalidGrant("the user can no longer use this organization")));
                };
                let deadline = row.family_expires_at.unwrap_or(row.expires_at);
                // The family is the sign-in. One from before sign-ins had ids
                // becomes one now, begun when its first token was issued.
                let sign_in = match db::sign_in(tx, &row.family_id)? {
                    Some(sign_in) => sign_in,
                    None => {
                        let started = db::family_started(tx, &row.family_id)?.unwrap_or(at);
                        let sign_in = db::SignIn {
                            sid: row.family_id.clone(),
                            user_id: row.user_id.clone(),
                            client_id: row.client_id.clone(),
                            browser_hash: None,
                            auth_time: started,
                            ended_at: None,
                            forget_after: deadline.max(at) + user_ttl,
                        };
                        db::insert_sign_in(tx, &sign_in, at)?;
                        sign_in
                    }
                };
                if sign_in.ended_at.is_some() {
                    return Ok(Err(OAuthError::InvalidGrant("the sign-in has ended; sign in again")));
                }
                let next = new_refresh(tx, &row.family_id, &row.client_id, &row.user_id, &row.organization_id, &row.audience, &row.scope, at, refresh_ttl, deadline)?;
                Ok(Ok(UserGrant {
                    user_id: row.user_id,
                    organization_id: row.organization_id,
                    client_id: row.client_id,
                    audience: row.audience,
                    permissions,
                    refresh_token: Some(next),
                    sid: sign_in.sid,
                    auth_time: sign_in.auth_time,
                    openid: has_scope(&row.scope, OPENID),
                }))
            })
        })
        .await
        .map_err(|e| OAuthError::internal(&e))??;
    issue_user_token(state, outcome)
}

/// Runs `f` in one transaction, committed whenever `f` returns `Ok`, also when
/// that holds a refusal: a replayed code or refresh token revokes its family, and
/// the revocation must stay.
fn committed<T>(
    conn: &mut rusqlite::Connection,
    f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let tx = conn.transaction()?;
    let result = f(&tx)?;
    tx.commit()?;
    Ok(result)
}

/// The user's permissions, if the user still exists, still belongs to the
/// organization and the Application still serves it.
fn user_access(
    conn: &rusqlite::Connection,
    user_id: &str,
    organization_id: &str,
    client_id: &str,
) -> Result<Option<Vec<String>>, StoreError> {
    let allowed = db::organizations_for(conn, user_id, client_id)?
        .iter()
        .any(|(id, _)| id == organization_id);
    if !allowed {
        return Ok(None);
    }
    Ok(db::user_permissions(conn, user_id)?)
}

#[allow(clippy::too_many_arguments)]
fn new_refresh(
    conn: &rusqlite::Connection,
    family_id: &str,
    client_id: &str,
    user_id: &str,
    organization_id: &str,
    audience: &str,
    scope: &str,
    at: i64,
    ttl: i64,
    family_deadline: i64,
) -> Result<String, StoreError> {
    let token = random_token();
    db::insert_refresh(
        conn,
        &sha256_hex(&token),
        &db::Refresh {
            family_id: family_id.to_owned(),
            client_id: client_id.to_owned(),
            user_id: user_id.to_owned(),
            organization_id: organization_id.to_owned(),
            audience: audience.to_owned(),
            scope: scope.to_owned(),
            // Never past the family's deadline, however often it is rotated.
            expires_at: (at + ttl).min(family_deadline),
            family_expires_at: Some(family_deadline),
            used_at: None,
            revoked_at: None,
        },
        at,
    )?;
    Ok(token)
}

fn issue_user_token(state: &AuthState, grant: UserGrant) -> Result<Issued, OAuthError> {
    let at = now();
    let ttl = duration_secs(state.config.user_token_ttl);
    let id_token = if grant.openid {
        Some(sign(
            state,
            &IdClaims {
                iss: state.issuer.to_string(),
                sub: grant.user_id.clone(),
                aud: grant.client_id.clone(),
                iat: at,
                exp: at + ttl,
                auth_time: grant.auth_time,
                sid: grant.sid.clone(),
            },
        )?)
    } else {
        None
    };
    let claims = AccessClaims {
        iss: state.issuer.to_string(),
        sub: grant.user_id,
        aud: grant.audience,
        iat: at,
        exp: at + ttl,
        azp: grant.client_id,
        scope: grant.permissions.join(" "),
        permissions: grant.permissions,
        org_id: grant.organization_id,
        jti: uuid::Uuid::new_v4().to_string(),
        gty: None,
        sid: Some(grant.sid),
    };
    let access_token = sign(state, &claims)?;
    tracing::info!(user_id = %claims.sub, org_id = %claims.org_id, refresh = grant.refresh_token.is_some(), id_token = id_token.is_some(), "user token issued");
    Ok(Issued {
        access_token,
        expires_in: ttl,
        id_token,
        refresh_token: grant.refresh_token,
        scope: claims.scope,
        token_type: TokenType::Bearer,
    })
}

fn sign<C: serde::Serialize>(state: &AuthState, claims: &C) -> Result<String, OAuthError> {
    state.keys.sign(claims).map_err(|e| {
        tracing::error!(error = %e, "cannot sign an access token");
        OAuthError::ServerError("the sandbox could not sign the token")
    })
}

fn check_audience(state: &AuthState, audience: &str) -> Result<(), OAuthError> {
    if audience == state.config.audience {
        Ok(())
    } else {
        Err(OAuthError::invalid_request("unknown audience"))
    }
}

fn has_offline_access(scope: &str) -> bool {
    has_scope(scope, OFFLINE_ACCESS)
}

fn has_scope(scope: &str, wanted: &str) -> bool {
    scope.split_whitespace().any(|s| s == wanted)
}

fn duration_secs(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2)
}

/// `POST /oauth/revoke` (RFC 7009): a refresh token, or a user's access token,
/// of the requesting client ends its whole sign-in: the refresh family is
/// revoked and the sign-in's access tokens are refused from then on. The
/// `token_type_hint` is only a hint (§2.1): a JWT is taken for an access token,
/// anything else for a refresh token. Answers 200 for any token, known or not
/// (a machine token is not revocable and simply expires), so nothing is revealed.
pub(super) async fn revoke(
    State(state): State<AuthState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match revoke_inner(&state, &headers, &body).await {
        Ok(()) => {
            let mut response = StatusCode::OK.into_response();
            no_store(response.headers_mut());
            response
        }
        Err(e) => e.into_response(),
    }
}

/// The sign-in a revocation request names.
enum Sid {
    /// From a verified access token.
    Known(String),
    /// The family of the refresh token with this hash, if it is the client's.
    OfRefreshToken(String),
}

async fn revoke_inner(
    state: &AuthState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), OAuthError> {
    let params = Params::parse(headers, body)?;
    let auth = ClientAuth::from(headers, params.client())?;
    // Optional strings: a revocation request always reads.
    let request = params
        .read::<RevokeRequest>()
        .unwrap_or(RevokeRequest { token: None });
    let token = required(request.token, "token")?;
    let client_id = match authenticate(state, &auth).await? {
        Client::Application(app) => app.client_id,
        Client::Backend(b) => b.client_id,
    };
    let ended = state.ended_sign_ins.clone();
    let sid = if token.split('.').count() == 3 {
        // An access token: its own sign-in, if it is the client's user token.
        match state
            .keys
            .verify(&token, &state.issuer, &state.config.audience)
        {
            Ok(claims) if !claims.is_machine() && claims.azp == client_id => claims.sid,
            _ => None,
        }
        .map(Sid::Known)
    } else {
        Some(Sid::OfRefreshToken(sha256_hex(&token)))
    };
    let Some(sid) = sid else {
        tracing::info!(revoked = false, "revocation request handled");
        return Ok(());
    };
    let revoked = state
        .db
        .call(move |conn| {
            let at = now();
            let sid = match sid {
                Sid::Known(sid) => Some(sid),
                Sid::OfRefreshToken(hash) => db::refresh(conn, &hash)?
                    .filter(|row| row.client_id == client_id)
                    .map(|row| row.family_id),
            };
            match sid {
                Some(sid) => {
                    sign_ins::end(conn, &ended, &sid, at)?;
                    Ok(true)
                }
                None => Ok(false),
            }
        })
        .await
        .map_err(|e| OAuthError::internal(&e))?;
    tracing::info!(revoked, "revocation request handled");
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn params(content_type: &str, body: &str) -> Params {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).unwrap(),
        );
        Params::parse(&headers, body.as_bytes()).unwrap()
    }

    #[test]
    fn a_token_request_reads_the_same_from_json_and_from_a_form() {
        let json = params(
            "application/json",
            r#"{"grant_type":"refresh_token","refresh_token":"r1","client_id":"app"}"#,
        );
        let form = params(
            "application/x-www-form-urlencoded",
            "grant_type=refresh_token&refresh_token=r1&client_id=app",
        );

        for p in [json, form] {
            assert!(matches!(
                p.read::<TokenRequest>().unwrap(),
                TokenRequest::RefreshToken { refresh_token: Some(t) } if t == "r1"
            ));
            assert_eq!(p.client().client_id.as_deref(), Some("app"));
        }
    }

    #[test]
    fn an_empty_parameter_is_an_absent_one_and_an_unknown_grant_is_unsupported() {
        let empty = params("application/json", r#"{"grant_type":"","audience":""}"#);
        let unknown = params("application/json", r#"{"grant_type":"password"}"#);
        let no_audience = params(
            "application/json",
            r#"{"grant_type":"client_credentials","audience":""}"#,
        );

        assert!(empty.read::<TokenRequest>().is_err(), "no grant_type");
        assert!(matches!(
            unknown.read::<TokenRequest>().unwrap(),
            TokenRequest::Unsupported
        ));
        assert!(matches!(
            no_audience.read::<TokenRequest>().unwrap(),
            TokenRequest::ClientCredentials { audience: None }
        ));
    }

    #[test]
    fn each_error_gives_its_rfc_6749_code_and_status() {
        let cases = [
            (OAuthError::required("code"), "invalid_request", 400),
            (OAuthError::BodyTooLarge, "invalid_request", 413),
            (
                OAuthError::InvalidClient { basic: false },
                "invalid_client",
                401,
            ),
            (OAuthError::InvalidGrant("x"), "invalid_grant", 400),
            (
                OAuthError::UnauthorizedClient("x"),
                "unauthorized_client",
                400,
            ),
            (
                OAuthError::UnsupportedGrantType,
                "unsupported_grant_type",
                400,
            ),
            (OAuthError::ServerError("x"), "server_error", 500),
        ];
        for (error, code, status) in cases {
            assert_eq!((error.code(), error.status().as_u16()), (code, status));
        }
    }

    #[test]
    fn answers_keep_their_keys_in_the_order_they_always_had() {
        let issued = Issued {
            access_token: "a".to_owned(),
            expires_in: 60,
            id_token: None,
            refresh_token: Some("r".to_owned()),
            scope: "s".to_owned(),
            token_type: TokenType::Bearer,
        };
        let error = ErrorBody {
            error: "invalid_grant",
            error_description: "d",
        };

        assert_eq!(
            serde_json::to_string(&issued).unwrap(),
            r#"{"access_token":"a","expires_in":60,"refresh_token":"r","scope":"s","token_type":"Bearer"}"#
        );
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"error":"invalid_grant","error_description":"d"}"#
        );
    }
}
