//! [`AuthState`]: what the authorization server's handlers read, taken from the
//! sandbox's state by axum's `FromRef` (written in `crate::state`, which holds
//! the authorization server's parts), so nothing in `auth` names the sandbox's
//! state; and [`TokenCheck`], what checking a bearer token reads, borrowed.

use std::sync::Arc;

use super::keys::SigningKeys;
use super::limits::LoginLimiter;
use super::pages::DemoAccount;
use super::sign_ins::EndedSignIns;
use super::verified::VerifiedTokens;
use crate::config::Config;
use crate::store::Db;

/// The authorization server's share of the sandbox's state: one clone of each
/// part per request to an authorization endpoint (none on `/graphql`).
#[derive(Debug, Clone)]
pub struct AuthState {
    pub db: Db,
    pub keys: Arc<SigningKeys>,
    pub config: Arc<Config>,
    /// The `iss` of every token and authorization response.
    pub issuer: Arc<str>,
    /// Where the sandbox listens now: the base of the addresses it advertises.
    pub origin: Arc<str>,
    /// Shown on the sign-in page when the built-in demo fixture is loaded.
    pub demo_accounts: Arc<[DemoAccount]>,
    pub login_limiter: Arc<LoginLimiter>,
    pub verified_tokens: Arc<VerifiedTokens>,
    pub ended_sign_ins: Arc<EndedSignIns>,
}

impl AuthState {
    /// What checking a bearer token reads.
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

/// What [`super::bearer::authenticate`] reads, borrowed (from [`AuthState`],
/// or on `/graphql` from the sandbox's state, with nothing cloned).
#[derive(Debug, Clone, Copy)]
pub struct TokenCheck<'a> {
    pub verified_tokens: &'a VerifiedTokens,
    pub keys: &'a SigningKeys,
    pub issuer: &'a str,
    pub audience: &'a str,
    pub ended_sign_ins: &'a EndedSignIns,
}
