//! The state every HTTP handler shares: the database, the signing keys, the
//! configuration, the sandbox's issuer and the origin it listens on now.

use std::sync::Arc;

use crate::auth::keys::SigningKeys;
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
    pub demo_accounts: Arc<[crate::fixture::DemoAccount]>,
    /// Failed sign-in attempts per account (see `auth::limits`).
    pub login_limiter: Arc<crate::auth::limits::LoginLimiter>,
    /// Access tokens already verified (see `auth::verified`).
    pub verified_tokens: Arc<crate::auth::verified::VerifiedTokens>,
    /// The sign-ins that ended: their access tokens are refused (see `auth::sign_ins`).
    pub ended_sign_ins: Arc<crate::auth::sign_ins::EndedSignIns>,
}
