//! The OAuth authorization server: discovery and JWKS, the browser sign-in
//! (`/authorize`, its HTML pages, authorization code + PKCE S256), the token
//! endpoint (authorization code, client credentials, refresh tokens with
//! rotation), revocation (RFC 7009) and who a user token acts for (`/userinfo`).
//!
//! Files: `authorize.rs` (the sign-in flow), `pages.rs` (its HTML),
//! `redirect.rs` (which redirect URIs an Application may use), `token.rs`
//! (`/oauth/token`, `/oauth/revoke`, RFC 6749 errors), `discovery.rs`, `db.rs`
//! (the SQL of the OAuth tables), `password.rs` (argon2), `limits.rs` (login
//! attempt limit), `claims.rs` and `keys.rs` (what a token holds and how it is
//! signed), `bearer.rs` (the access token of a request to a protected endpoint:
//! `/graphql`, `/userinfo`), `userinfo.rs` (OpenID Connect UserInfo).
//!
//! Nothing secret is logged: no password, client secret, code, verifier, token
//! or cookie value appears in a log line or an error message.

mod authorize;
pub mod bearer;
pub mod claims;
mod db;
mod discovery;
pub mod keys;
pub mod limits;
mod pages;
pub(crate) mod password;
pub mod redirect;
mod token;
mod userinfo;

pub(crate) use token::body_too_large;

use axum::Router;
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore as _;
use sha2::{Digest, Sha256};

use crate::state::AppState;

/// How long an authorization code can be exchanged.
pub const CODE_TTL_SECS: i64 = 60;
/// How long a sign-in page stays usable.
pub const LOGIN_TTL_SECS: i64 = 15 * 60;
/// The scope value that asks for a refresh token.
pub const OFFLINE_ACCESS: &str = "offline_access";

/// Routes of the authorization server.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(discovery::openid_configuration),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(discovery::openid_configuration),
        )
        .route("/.well-known/jwks.json", get(discovery::jwks))
        .route("/authorize", get(authorize::start))
        .route("/authorize/login", post(authorize::login))
        .route(
            "/authorize/organization",
            post(authorize::choose_organization),
        )
        .route("/oauth/token", post(token::token))
        .route("/oauth/revoke", post(token::revoke))
        .route("/userinfo", get(userinfo::userinfo))
}

/// Now, in Unix seconds.
fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// 256 random bits, base64url: codes, refresh tokens, sign-in and browser ids.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// SHA-256, hex: how high-entropy secrets (codes, refresh tokens, ids) are stored.
fn sha256_hex(value: &str) -> String {
    Sha256::digest(value.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The S256 PKCE challenge of `verifier` (RFC 7636 §4.2).
fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Parses `application/x-www-form-urlencoded` (or a query string); `Err(name)`
/// when a parameter appears twice (RFC 6749 §3.1, §3.2).
fn parse_params(raw: &[u8]) -> Result<std::collections::HashMap<String, String>, String> {
    let mut params = std::collections::HashMap::new();
    for (name, value) in url::form_urlencoded::parse(raw) {
        if params
            .insert(name.to_string(), value.into_owned())
            .is_some()
        {
            return Err(name.into_owned());
        }
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn repeated_parameters_are_refused() {
        assert_eq!(parse_params(b"a=1&a=2"), Err("a".to_owned()));
        assert_eq!(
            parse_params(b"a=1&b=%20x").map(|p| p["b"].clone()),
            Ok(" x".to_owned())
        );
    }
}
