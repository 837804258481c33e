//! The state every HTTP handler shares: the database, the signing keys, the
//! configuration and the sandbox's own origin (its issuer).

use std::sync::Arc;

use crate::auth::keys::SigningKeys;
use crate::config::Config;
use crate::store::Db;

/// Cheap to clone; one per running sandbox.
#[derive(Debug, Clone)]
pub struct AppState {
    pub db: Db,
    /// The Network API's catalog (read-only).
    pub catalog: Arc<crate::catalog::Catalog>,
    pub keys: Arc<SigningKeys>,
    pub config: Arc<Config>,
    /// `http://127.0.0.1:PORT`: the `iss` of every token and the base of every
    /// URL the sandbox advertises.
    pub issuer: Arc<str>,
    /// Shown on the sign-in page when the built-in demo fixture is loaded.
    pub demo_accounts: Arc<[crate::fixture::DemoAccount]>,
    /// Failed sign-in attempts per account (see `auth::limits`).
    pub login_limiter: Arc<crate::auth::limits::LoginLimiter>,
    /// The sign-ins that ended: their access tokens are refused (see `auth::sign_ins`).
    pub ended_sign_ins: Arc<crate::auth::sign_ins::EndedSignIns>,
}
