//! The OAuth authorization server: discovery and JWKS, the browser sign-in
//! (`/authorize`, its HTML pages, authorization code + PKCE S256, remembered
//! browsers and fresh logins), the token endpoint (authorization code, client
//! credentials, refresh tokens with rotation, ID tokens), revocation (RFC 7009),
//! the end of a sign-in (`/oidc/logout`) and who a user token acts for
//! (`/userinfo`).
//!
//! Files: `authorize.rs` (the sign-in flow, `prompt`/`max_age`), `pages.rs` (its
//! HTML), `redirect.rs` (which redirect URIs an Application may use), `token.rs`
//! (`/oauth/token`, `/oauth/revoke`, RFC 6749 errors), `sign_ins.rs` (how a
//! sign-in ends and the set of ended ones every request is checked against),
//! `end_session.rs` (OpenID Connect RP-Initiated Logout), `discovery.rs`, `db.rs`
//! (the SQL of the OAuth tables), `password.rs` (argon2), `limits.rs` (login
//! attempt limit), `claims.rs` and `keys.rs` (what a token holds and how it is
//! signed), `issuer.rs` (the issuer identifier, kept in the data directory
//! across restarts on other ports), `bearer.rs` (the access token of a request to a protected endpoint:
//! `/graphql`, `/userinfo`), `verified.rs` (tokens already verified, cached until
//! they expire), `userinfo.rs` (OpenID Connect UserInfo), `common.rs`
//! (what the endpoints share: lifetimes, the clock, random tokens, hashes, form
//! parsing). This file only declares them and routes to them.
//!
//! Nothing secret is logged: no password, client secret, code, verifier, token
//! or cookie value appears in a log line or an error message.

mod authorize;
pub mod bearer;
pub mod claims;
mod common;
mod db;
mod discovery;
mod end_session;
pub mod issuer;
pub mod keys;
pub mod limits;
mod pages;
pub(crate) mod password;
pub mod redirect;
pub mod sign_ins;
mod state;
mod token;
mod userinfo;
pub mod verified;

pub(crate) use token::body_too_large;

use axum::Router;
use axum::extract::FromRef;
use axum::routing::{get, post};

pub use common::{CODE_TTL_SECS, END_SESSION_PATH, LOGIN_TTL_SECS, OFFLINE_ACCESS, OPENID};

pub use pages::DemoAccount;
pub use state::{AuthState, TokenCheck};

/// Routes of the authorization server, on any state its [`AuthState`] is taken from.
pub(crate) fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    AuthState: FromRef<S>,
{
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
        .route(
            END_SESSION_PATH,
            get(end_session::get).post(end_session::post),
        )
}
