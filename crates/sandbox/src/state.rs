//! The state every HTTP handler shares: the database, the signing keys, the
//! configuration, the sandbox's issuer and the origin it listens on now.

use std::sync::Arc;

use axum::extract::FromRef;

use crate::auth::keys::SigningKeys;
use crate::auth::{AuthState, TokenCheck};
use crate::config::Config;
use crate::store::Db;

/// One per running sandbox; a clone is one reference count (each request's
/// router, middleware and extractors clone it), its parts read through
/// [`Shared`].
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl AppState {
    /// What checking a bearer token reads, borrowed: nothing cloned on `/graphql`.
    pub fn token_check(&self) -> TokenCheck<'_> {
        TokenCheck {
            verified_tokens: &self.verified_tokens,
            keys: &self.keys,
            issuer: &self.issuer,
            audience: &self.config.audience,
            ended_sign_ins: &self.ended_sign_ins,
        }
    }
}

/// The authorization server's handlers read their share only (`auth` never
/// names [`AppState`]).
impl FromRef<AppState> for AuthState {
    fn from_ref(state: &AppState) -> Self {
        Self {
            db: state.db.clone(),
            keys: Arc::clone(&state.keys),
            config: Arc::clone(&state.config),
            issuer: Arc::clone(&state.issuer),
            origin: Arc::clone(&state.origin),
            demo_accounts: Arc::clone(&state.demo_accounts),
            login_limiter: Arc::clone(&state.login_limiter),
            verified_tokens: Arc::clone(&state.verified_tokens),
            ended_sign_ins: Arc::clone(&state.ended_sign_ins),
        }
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] holds.
#[derive(Debug)]
pub struct Shared {
    pub db: Db,
    /// The Network API's catalog (read-only).
    pub catalog: Arc<crate::catalog::Catalog>,
    pub keys: Arc<SigningKeys>,
    pub config: Arc<Config>,
    /// The `iss` of every token and authorization response, and discovery's
    /// `issuer`: with a data directory, the origin of its first start, kept
    /// there (`auth::issuer`); in memory, `origin`.
    pub issuer: Arc<str>,
    /// `http://127.0.0.1:PORT` where the sandbox listens now: the base of every
    /// address it advertises.
    pub origin: Arc<str>,
    /// Shown on the sign-in page when the built-in demo fixture is loaded.
    pub demo_accounts: Arc<[crate::auth::DemoAccount]>,
    /// Failed sign-in attempts per account (see `auth::limits`).
    pub login_limiter: Arc<crate::auth::limits::LoginLimiter>,
    /// Access tokens already verified (see `auth::verified`).
    pub verified_tokens: Arc<crate::auth::verified::VerifiedTokens>,
    /// The sign-ins that ended: their access tokens are refused (see `auth::sign_ins`).
    pub ended_sign_ins: Arc<crate::auth::sign_ins::EndedSignIns>,
}
