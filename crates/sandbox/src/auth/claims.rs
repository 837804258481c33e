//! The claims of an access token and of an ID token (RS256 JWTs), and the
//! permission sets of the built-in roles and of machine tokens.

use serde::{Deserialize, Serialize};

/// The six permissions of the contract, in the contract's order.
pub const ALL_PERMISSIONS: [&str; 6] = [
    "read:patient",
    "write:patient",
    "read:prescription",
    "write:prescription",
    "read:order",
    "write:order",
];

/// A machine token's permissions: all but `write:prescription`, in the order of
/// the contract's `scope` example.
pub const MACHINE_PERMISSIONS: [&str; 5] = [
    "read:patient",
    "write:patient",
    "read:prescription",
    "read:order",
    "write:order",
];

/// `gty` claim value marking a machine (client credentials) token.
pub const GTY_CLIENT_CREDENTIALS: &str = "client-credentials";

/// The claims of every access token the sandbox issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessClaims {
    pub iss: String,
    /// User id for user tokens; backend `client_id` for machine tokens.
    pub sub: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    /// The client the token was issued to.
    pub azp: String,
    /// Space-separated permissions (same set as `permissions`).
    pub scope: String,
    pub permissions: Vec<String>,
    pub org_id: String,
    /// Unique per token, so two tokens issued in the same second never compare equal.
    pub jti: String,
    /// `client-credentials` on machine tokens, absent on user tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gty: Option<String>,
    /// The sign-in a user token belongs to (OpenID Connect's session id): once
    /// that sign-in ends, the token is refused. Absent on machine tokens (and on
    /// user tokens issued before sign-ins had ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
}

impl AccessClaims {
    /// True for tokens obtained by the client credentials grant.
    pub fn is_machine(&self) -> bool {
        self.gty.as_deref() == Some(GTY_CLIENT_CREDENTIALS)
    }

    /// True when the token carries `permission`.
    pub fn has(&self, permission: &str) -> bool {
        self.permissions.iter().any(|p| p == permission)
    }
}

/// The claims of an ID token (OpenID Connect Core §2), issued beside a user's
/// access token when the request's scope holds `openid`. It tells the
/// Application who signed in, when they last typed their password
/// (`auth_time`) and which sign-in it was (`sid`); the Application sends it
/// back as `id_token_hint` to end that sign-in. It is never a bearer token:
/// its audience is the Application, not the API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdClaims {
    pub iss: String,
    pub sub: String,
    /// The Application's `client_id`.
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    /// When the user last authenticated with their password (Unix seconds).
    pub auth_time: i64,
    pub sid: String,
}
