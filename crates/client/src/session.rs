//! [`Session`]: a signed-in user's token and what the UI needs about it (expiry,
//! permissions, user, organization, optional refresh token), serializable for the
//! app's keyring store; plus the calls made on its behalf: renewal with the
//! refresh token through `oauth2` (rotation honoured), and revocation at sign-out
//! (RFC 7009, our own form POST: `oauth2` insists on https there, and loopback
//! environments are http). Obtaining the first session is `signin`'s job.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    ClientId, ErrorResponseType, RefreshToken, RequestTokenError, StandardErrorResponse,
    TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};

use crate::api::types::{Me, Organization};
use crate::environment::Environment;
use crate::error::ClientError;
use crate::secret::Secret;

/// Lifetime assumed when a token response omits `expires_in`: short, so the app
/// checks again soon rather than trusting a token for long.
const ASSUMED_LIFETIME: Duration = Duration::from_secs(300);

/// The signed-in user as the UI shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionUser {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// `prescriber`, `medical_ops` or another role name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// A user's session. The tokens are redacted when printed and zeroized on drop.
///
/// It serializes compactly (short keys, the tokens in clear) for the app's keyring
/// entry; nothing else should ever persist it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    #[serde(rename = "at")]
    access_token: Secret,
    /// Seconds since the Unix epoch.
    #[serde(rename = "exp")]
    expires_at: u64,
    #[serde(rename = "rt", default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<Secret>,
    #[serde(rename = "perm")]
    permissions: Vec<String>,
    user: SessionUser,
    #[serde(rename = "org")]
    organization: Organization,
}

impl Session {
    pub(crate) fn from_sign_in(token: &BasicTokenResponse, me: Me) -> Self {
        let parts = TokenParts::from(token);
        Self {
            access_token: parts.access_token,
            expires_at: parts.expires_at,
            refresh_token: parts.refresh_token,
            permissions: me.permissions,
            user: SessionUser {
                id: me.id,
                name: me.name,
                email: me.email,
                role: me.role,
            },
            organization: me.organization,
        }
    }

    /// The bearer token. Never log it.
    pub fn access_token(&self) -> &Secret {
        &self.access_token
    }

    /// When the access token stops working.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.expires_at)
    }

    /// True when the access token has expired or will within `margin`.
    pub fn expires_within(&self, margin: Duration) -> bool {
        SystemTime::now() + margin >= self.expires_at()
    }

    /// True once the access token has expired.
    pub fn is_expired(&self) -> bool {
        self.expires_within(Duration::ZERO)
    }

    /// The permissions of the user's role (`read:patient`, `write:prescription`, …).
    pub fn permissions(&self) -> &[String] {
        &self.permissions
    }

    /// Whether the session carries `permission`.
    pub fn can(&self, permission: &str) -> bool {
        self.permissions.iter().any(|p| p == permission)
    }

    pub fn user(&self) -> &SessionUser {
        &self.user
    }

    pub fn organization(&self) -> &Organization {
        &self.organization
    }

    /// Whether the session can be renewed without signing in again.
    pub fn can_renew(&self) -> bool {
        self.refresh_token.is_some()
    }
}

impl fmt::Display for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {} (token [redacted])",
            self.user.name, self.organization.name
        )
    }
}

/// What sign-out did at the server. The local session is gone in every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignOutReport {
    /// The refresh token was revoked.
    Revoked,
    /// The session had no refresh token; the access token simply expires.
    NothingToRevoke,
    /// Revocation failed; the refresh token may still work until it expires.
    RevocationFailed(ClientError),
}

/// The parts of a token response a session keeps.
struct TokenParts {
    access_token: Secret,
    expires_at: u64,
    refresh_token: Option<Secret>,
    scopes: Option<Vec<String>>,
}

impl From<&BasicTokenResponse> for TokenParts {
    fn from(token: &BasicTokenResponse) -> Self {
        let lifetime = token.expires_in().unwrap_or(ASSUMED_LIFETIME);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Self {
            access_token: Secret::new(token.access_token().secret().as_str()),
            expires_at: now.saturating_add(lifetime).as_secs(),
            refresh_token: token
                .refresh_token()
                .map(|r| Secret::new(r.secret().as_str())),
            scopes: token
                .scopes()
                .map(|s| s.iter().map(|s| s.as_str().to_owned()).collect()),
        }
    }
}

/// Renews `session` with its refresh token. The server rotates refresh tokens:
/// the returned session holds the new pair and must replace the stored one.
pub(crate) async fn renew(
    http: &reqwest::Client,
    environment: &Environment,
    session: &Session,
) -> Result<Session, ClientError> {
    let Some(refresh) = session.refresh_token.as_ref() else {
        return Err(ClientError::SignedOut {
            code: "no_refresh_token".to_owned(),
            message: "the session cannot be renewed; sign in again".to_owned(),
        });
    };
    let client = BasicClient::new(ClientId::new(environment.client_id().to_owned()))
        .set_token_uri(TokenUrl::from_url(environment.token_endpoint()));
    let refresh = RefreshToken::new(refresh.expose().to_owned());
    let token = client
        .exchange_refresh_token(&refresh)
        .request_async(http)
        .await
        .map_err(token_request_error)?;
    let parts = TokenParts::from(&token);
    Ok(Session {
        access_token: parts.access_token,
        expires_at: parts.expires_at,
        // A server that does not rotate keeps the old refresh token valid.
        refresh_token: parts
            .refresh_token
            .or_else(|| session.refresh_token.clone()),
        // Same user, same organization: a token is bound to one organization.
        permissions: parts
            .scopes
            .map(|scopes| {
                scopes
                    .into_iter()
                    .filter(|s| s.contains(':'))
                    .collect::<Vec<_>>()
            })
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| session.permissions.clone()),
        user: session.user.clone(),
        organization: session.organization.clone(),
    })
}

/// Revokes the session's refresh token (RFC 7009). Never fails: the outcome is reported.
pub(crate) async fn sign_out(
    http: &reqwest::Client,
    environment: &Environment,
    session: Session,
) -> SignOutReport {
    let Some(refresh) = session.refresh_token.as_ref() else {
        return SignOutReport::NothingToRevoke;
    };
    // Our own RFC 7009 request: `oauth2` refuses a revocation endpoint that is
    // not https, and loopback environments (the sandbox) are plain http.
    let form = [
        ("token", refresh.expose()),
        ("token_type_hint", "refresh_token"),
        ("client_id", environment.client_id()),
    ];
    let result = async {
        let response = http
            .post(environment.revocation_endpoint())
            .form(&form)
            .send()
            .await
            .map_err(ClientError::from_reqwest)?;
        let status = response.status().as_u16();
        if status == 200 {
            return Ok(());
        }
        let body = response.bytes().await.map_err(ClientError::from_reqwest)?;
        Err(crate::token::token_error(status, &body))
    }
    .await;
    drop(session);
    match result {
        Ok(()) => SignOutReport::Revoked,
        Err(e) => {
            tracing::warn!(error = e.kind(), "refresh token revocation failed");
            SignOutReport::RevocationFailed(e)
        }
    }
}

/// An `oauth2` request failure as a [`ClientError`].
pub(crate) fn token_request_error<RE, T>(
    e: RequestTokenError<RE, StandardErrorResponse<T>>,
) -> ClientError
where
    RE: std::error::Error + 'static,
    T: ErrorResponseType + AsRef<str> + std::fmt::Display + 'static,
{
    match e {
        RequestTokenError::ServerResponse(r) => {
            let message = r
                .error_description()
                .cloned()
                .unwrap_or_else(|| "the authorization server refused the request".to_owned());
            let code = r.error().as_ref().to_owned();
            match code.as_str() {
                "invalid_grant" | "invalid_client" | "unauthorized_client" | "access_denied" => {
                    ClientError::SignedOut { code, message }
                }
                _ => ClientError::Protocol {
                    message: format!("token endpoint answered {code}: {message}"),
                },
            }
        }
        RequestTokenError::Request(e) => ClientError::Network { message: chain(&e) },
        RequestTokenError::Parse(e, _) => ClientError::Protocol {
            message: format!("token endpoint answer: {}", crate::error::shape_error(&e)),
        },
        RequestTokenError::Other(message) => ClientError::Protocol { message },
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn session() -> Session {
        Session {
            access_token: Secret::new("eyJhbGciOiJSUzI1NiJ9.payload.signature"),
            expires_at: 4_102_444_800,
            refresh_token: Some(Secret::new("rt-123")),
            permissions: vec!["read:patient".into(), "write:prescription".into()],
            user: SessionUser {
                id: "usr_ada".into(),
                name: "Ada Quinn".into(),
                email: Some("ada@maple.example".into()),
                role: Some("prescriber".into()),
            },
            organization: Organization {
                id: "org_maple".into(),
                name: "Maple Street Clinic".into(),
            },
        }
    }

    #[test]
    fn debug_and_display_redact_the_tokens() {
        let s = session();

        let printed = format!("{s:?} {s}");

        assert!(!printed.contains("payload"), "{printed}");
        assert!(!printed.contains("rt-123"), "{printed}");
    }

    #[test]
    fn round_trips_through_json_for_the_keyring() {
        let s = session();

        let json = serde_json::to_string(&s).unwrap();
        let back: Session = serde_json::from_str(&json).unwrap();

        assert_eq!(back, s);
    }

    #[test]
    fn can_checks_permissions() {
        let s = session();

        assert!(s.can("write:prescription"));
        assert!(!s.can("write:order"));
    }

    #[test]
    fn a_past_expiry_is_expired() {
        let mut s = session();
        s.expires_at = 1;

        assert!(s.is_expired());
    }
}
