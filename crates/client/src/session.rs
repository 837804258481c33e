//! [`Session`]: a signed-in user's token and what the UI needs about it (expiry,
//! permissions, user, organization, optional refresh token, the ID token kept to
//! end the sign-in), serializable for the app's keyring store; plus the calls
//! made on its behalf: who the new token acts for (OpenID Connect UserInfo,
//! [`user_info`]) and renewal with the refresh token through `oauth2`
//! (rotation honoured). Obtaining the first session is `signin`'s job, ending
//! it `sign_out`'s.
//!
//! A session's permissions are the token response's `scope` (the contract's
//! space-separated permissions), never read from the token itself: the access
//! token is opaque to the client.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::{
    ClientId, ErrorResponseType, RefreshToken, RequestTokenError, StandardErrorResponse,
    TokenResponse as _, TokenUrl,
};
use serde::{Deserialize, Serialize};

use crate::clock::ClockOffset;
use crate::environment::Environment;
use crate::error::{ClientError, shape_error};
use crate::http::Http;
use crate::id_token::{OidcClient, TokenResponse};
use crate::secret::Secret;

/// Lifetime assumed when a token response omits `expires_in`: short, so the app
/// checks again soon rather than trusting a token for long.
const ASSUMED_LIFETIME: Duration = Duration::from_secs(300);

/// The signed-in user as the UI shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionUser {
    /// The user's id at the network (the `sub` of their tokens).
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// `prescriber`, `medical_ops` or another role name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// The organization a session acts in: a token is bound to one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionOrganization {
    pub id: String,
    pub name: String,
}

/// Where a session was issued: the environment's addresses, issuer and client.
/// A session is only ever sent back to the same ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedFor {
    auth: String,
    api: String,
    aud: String,
    cid: String,
    /// The issuer (`None` only for sessions stored before it was recorded:
    /// theirs was the `auth` address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iss: Option<String>,
}

impl IssuedFor {
    fn of(environment: &Environment) -> Self {
        Self {
            auth: environment.auth_url().to_string(),
            api: environment.api_url().to_string(),
            aud: environment.audience().to_owned(),
            cid: environment.client_id().to_owned(),
            iss: Some(environment.issuer().to_owned()),
        }
    }

    fn issuer(&self) -> &str {
        self.iss
            .as_deref()
            .unwrap_or_else(|| self.auth.trim_end_matches('/'))
    }

    /// The same issuer, audience and client: the same network and Application,
    /// wherever it listens.
    fn same_issuer(&self, other: &Self) -> bool {
        self.issuer() == other.issuer() && self.aud == other.aud && self.cid == other.cid
    }

    /// The same network at the same addresses.
    fn same(&self, other: &Self) -> bool {
        self.same_issuer(other) && self.auth == other.auth && self.api == other.api
    }
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
    organization: SessionOrganization,
    /// The environment that issued it (`None` only for sessions stored before
    /// sessions were bound: they belong nowhere and are dropped).
    #[serde(rename = "for", default, skip_serializing_if = "Option::is_none")]
    issued_for: Option<IssuedFor>,
    /// The ID token of the sign-in (scope `openid`), sent back as
    /// `id_token_hint` to end it at sign-out.
    #[serde(rename = "idt", default, skip_serializing_if = "Option::is_none")]
    id_token: Option<Secret>,
    /// How far the network's clock was from the workstation's at sign-in
    /// (from the ID token's `iat`), when it could be measured.
    #[serde(rename = "clk", default, skip_serializing_if = "Option::is_none")]
    clock_offset: Option<ClockOffset>,
}

impl Session {
    /// The session of a fresh sign-in: the token response (token, expiry, refresh
    /// token, permissions from its `scope`) and what `/userinfo` said about it.
    pub(crate) fn from_sign_in(
        token: &TokenResponse,
        info: UserInfo,
        environment: &Environment,
        clock_offset: Option<ClockOffset>,
    ) -> Self {
        let parts = TokenParts::from(token);
        let organization = SessionOrganization {
            name: info.org_name.unwrap_or_else(|| info.org_id.clone()),
            id: info.org_id,
        };
        let name = info
            .name
            .or_else(|| info.email.clone())
            .unwrap_or_else(|| info.sub.clone());
        Self {
            access_token: parts.access_token,
            expires_at: parts.expires_at,
            refresh_token: parts.refresh_token,
            permissions: parts.scopes.map(permissions_of).unwrap_or_default(),
            user: SessionUser {
                id: info.sub,
                name,
                email: info.email,
                role: info.role,
            },
            organization,
            issued_for: Some(IssuedFor::of(environment)),
            id_token: parts.id_token,
            clock_offset,
        }
    }

    /// How far the network's clock was from the workstation's at sign-in, when
    /// the sign-in could measure it; [`ClockOffset::is_wrong`] says whether to
    /// tell the user.
    pub fn clock_offset(&self) -> Option<ClockOffset> {
        self.clock_offset
    }

    /// Whether `environment` issued this session: same authorization server,
    /// API, issuer, audience and client. A session is never sent anywhere else.
    pub fn issued_by(&self, environment: &Environment) -> bool {
        self.issued_for
            .as_ref()
            .is_some_and(|issued| issued.same(&IssuedFor::of(environment)))
    }

    /// This session bound to `environment`'s addresses, when `environment` is
    /// the network that issued it listening elsewhere now: the issuer recorded
    /// at sign-in, the same audience and client. `None` for a session of
    /// another network, or one stored before its issuer was recorded.
    ///
    /// Only for a network whose issuer the caller itself vouches for — the
    /// app's built-in sandbox, which it starts from the data directory that
    /// keeps that issuer (a restart on another port keeps it). An issuer read
    /// from a configuration says nothing about who answers at a new address.
    pub fn moved_to(&self, environment: &Environment) -> Option<Session> {
        let issued = self.issued_for.as_ref()?;
        let here = IssuedFor::of(environment);
        (issued.iss.is_some() && issued.same_issuer(&here)).then(|| Session {
            issued_for: Some(here),
            ..self.clone()
        })
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

    pub fn organization(&self) -> &SessionOrganization {
        &self.organization
    }

    /// Whether the session can be renewed without signing in again.
    pub fn can_renew(&self) -> bool {
        self.refresh_token.is_some()
    }

    /// The refresh token, to revoke it at sign-out.
    pub(crate) fn refresh_token(&self) -> Option<&Secret> {
        self.refresh_token.as_ref()
    }

    /// The sign-in's ID token, to end it at sign-out.
    pub(crate) fn id_token(&self) -> Option<&Secret> {
        self.id_token.as_ref()
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

/// The parts of a token response a session keeps.
struct TokenParts {
    access_token: Secret,
    expires_at: u64,
    refresh_token: Option<Secret>,
    scopes: Option<Vec<String>>,
    id_token: Option<Secret>,
}

impl From<&TokenResponse> for TokenParts {
    fn from(token: &TokenResponse) -> Self {
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
            id_token: token.extra_fields().id_token.as_deref().map(Secret::new),
        }
    }
}

/// Renews `session` with its refresh token. The server rotates refresh tokens:
/// the returned session holds the new pair and must replace the stored one.
pub(crate) async fn renew(
    http: &Http,
    environment: &Environment,
    session: &Session,
) -> Result<Session, ClientError> {
    if !session.issued_by(environment) {
        return Err(ClientError::SignedOut {
            code: "other_environment".to_owned(),
            message: "the session was issued by another network; sign in again".to_owned(),
        });
    }
    let Some(refresh) = session.refresh_token.as_ref() else {
        return Err(ClientError::SignedOut {
            code: "no_refresh_token".to_owned(),
            message: "the session cannot be renewed; sign in again".to_owned(),
        });
    };
    let client = OidcClient::new(ClientId::new(environment.client_id().to_owned()))
        .set_token_uri(TokenUrl::from_url(environment.token_endpoint()));
    let refresh = RefreshToken::new(refresh.expose().to_owned());
    let token = client
        .exchange_refresh_token(&refresh)
        .request_async(&http.oauth(&environment.token_endpoint()))
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
            .map(permissions_of)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| session.permissions.clone()),
        user: session.user.clone(),
        organization: session.organization.clone(),
        issued_for: session.issued_for.clone(),
        // The same sign-in: a new ID token names it as well as the old did.
        id_token: parts.id_token.or_else(|| session.id_token.clone()),
        // Measured at sign-in; a renewal's answer says nothing new about it.
        clock_offset: session.clock_offset,
    })
}

/// The permissions among a token response's scopes (`read:patient`, …): those
/// with a colon, leaving out `offline_access` and the like.
fn permissions_of(scopes: Vec<String>) -> Vec<String> {
    scopes.into_iter().filter(|s| s.contains(':')).collect()
}

/// What the network's `/userinfo` says about a user token (OpenID Connect Core
/// §5.3): `{ sub, name, email, role, org_id, org_name }`. Only `sub` and `org_id`
/// are required; a missing name falls back to the email, then the `sub`.
#[derive(Deserialize)]
pub(crate) struct UserInfo {
    sub: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    role: Option<String>,
    org_id: String,
    #[serde(default)]
    org_name: Option<String>,
}

/// An RFC 6750 error body, as the sandbox sends it beside its challenge.
#[derive(Deserialize)]
struct BearerErrorBody {
    error: Option<String>,
    error_description: Option<String>,
}

/// Asks `GET {auth_url}/userinfo`, with `access_token` as bearer, who the token
/// acts for. A refused token is [`ClientError::SignedOut`] (401) or
/// [`ClientError::Refused`] (403), with the RFC 6750 `error` as its code.
pub(crate) async fn user_info(
    http: &Http,
    environment: &Environment,
    access_token: &Secret,
) -> Result<UserInfo, ClientError> {
    let endpoint = environment.userinfo_endpoint();
    let response = http
        .for_url(&endpoint)
        .get(endpoint)
        .bearer_auth(access_token.expose())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(ClientError::from_reqwest)?;
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response.bytes().await.map_err(ClientError::from_reqwest)?;
    match status {
        200 => serde_json::from_slice(&body).map_err(|e| {
            ClientError::protocol(format!("the userinfo answer: {}", shape_error(&e)))
        }),
        401 | 403 => {
            let (code, message) = bearer_error(status, challenge.as_deref(), &body);
            Err(if status == 401 {
                ClientError::SignedOut { code, message }
            } else {
                ClientError::Refused {
                    code,
                    message,
                    required_permission: None,
                }
            })
        }
        500.. => Err(ClientError::Server {
            status: Some(status),
            message: "the userinfo endpoint failed".to_owned(),
        }),
        _ => Err(ClientError::protocol(format!(
            "the userinfo endpoint answered HTTP {status}"
        ))),
    }
}

/// The `error` and `error_description` of a refusal: from the JSON body when it
/// has them, else from the `WWW-Authenticate: Bearer` challenge's parameters.
fn bearer_error(status: u16, challenge: Option<&str>, body: &[u8]) -> (String, String) {
    let from_body = serde_json::from_slice::<BearerErrorBody>(body).ok();
    let param = |name: &str| challenge.and_then(|c| challenge_param(c, name));
    let code = from_body
        .as_ref()
        .and_then(|b| b.error.clone())
        .or_else(|| param("error"))
        .unwrap_or_else(|| format!("HTTP_{status}"));
    let message = from_body
        .and_then(|b| b.error_description)
        .or_else(|| param("error_description"))
        .unwrap_or_else(|| "the network did not accept the token".to_owned());
    (code, message)
}

/// The value of `name="value"` (or `name=value`) in a `WWW-Authenticate` challenge.
fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let mut rest = challenge.strip_prefix("Bearer").unwrap_or(challenge);
    while let Some(at) = rest.find('=') {
        let key = rest[..at]
            .trim_matches(|c: char| c == ',' || c.is_whitespace())
            .to_owned();
        let after = &rest[at + 1..];
        let (value, tail) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').unwrap_or(quoted.len());
                (&quoted[..end], quoted.get(end + 1..).unwrap_or_default())
            }
            None => {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim(), &after[end..])
            }
        };
        if key.eq_ignore_ascii_case(name) {
            return Some(value.to_owned());
        }
        rest = tail;
    }
    None
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
        RequestTokenError::Request(e) => ClientError::untrusted(&e)
            .unwrap_or_else(|| ClientError::Network { message: chain(&e) }),
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
            organization: SessionOrganization {
                id: "org_maple".into(),
                name: "Maple Street Clinic".into(),
            },
            issued_for: Some(IssuedFor::of(&maple())),
            id_token: Some(Secret::new("eyJhbGciOiJSUzI1NiJ9.idpayload.signature")),
            clock_offset: None,
        }
    }

    fn maple() -> Environment {
        Environment::new(
            "https://auth.maple.example",
            "https://api.maple.example",
            "https://api.maple.example",
            "rxdesk-desktop",
        )
        .unwrap()
    }

    #[test]
    fn a_session_belongs_only_to_the_environment_that_issued_it() {
        let s = session();
        let moved = Environment::new(
            "https://auth.elsewhere.example",
            "https://api.maple.example",
            "https://api.maple.example",
            "rxdesk-desktop",
        )
        .unwrap();

        assert!(s.issued_by(&maple()));
        assert!(!s.issued_by(&moved));
        assert!(!s.issued_by(&maple().with_client_id("another-app")));
    }

    #[test]
    fn a_session_follows_its_issuer_to_a_new_address_and_nowhere_else() {
        let sandbox = |port: u16| {
            let url = url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap();
            Environment::sandbox(&url).unwrap()
        };
        let first = sandbox(41001)
            .with_issuer("http://127.0.0.1:41001")
            .unwrap();
        let s = Session {
            issued_for: Some(IssuedFor::of(&first)),
            ..session()
        };
        let restarted = sandbox(52002)
            .with_issuer("http://127.0.0.1:41001")
            .unwrap();
        let another = sandbox(52002);

        let moved = s.moved_to(&restarted).expect("the same issuer");

        assert!(!s.issued_by(&restarted));
        assert!(moved.issued_by(&restarted));
        assert!(s.moved_to(&another).is_none());
        assert!(
            s.moved_to(&restarted.with_client_id("another-app"))
                .is_none()
        );
    }

    #[test]
    fn a_session_stored_before_its_issuer_was_recorded_still_belongs_to_its_addresses_only() {
        let mut json = serde_json::to_value(session()).unwrap();
        json["for"].as_object_mut().unwrap().remove("iss");

        let old: Session = serde_json::from_value(json).unwrap();

        assert!(old.issued_by(&maple()));
        assert!(old.moved_to(&maple()).is_none());
    }

    #[test]
    fn a_session_stored_before_binding_belongs_nowhere() {
        let mut json = serde_json::to_value(session()).unwrap();
        json.as_object_mut().unwrap().remove("for");

        let old: Session = serde_json::from_value(json).unwrap();

        assert!(!old.issued_by(&maple()));
    }

    #[tokio::test]
    async fn a_session_is_never_renewed_or_revoked_at_another_environment() {
        // Nothing listens here: a request would fail with a network error,
        // so SignedOut/RevocationFailed(SignedOut) proves none was sent.
        let elsewhere = Environment::new(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9",
            "https://api.maple.example",
            "rxdesk-desktop",
        )
        .unwrap();
        let http = Http::new().unwrap();

        let renewed = renew(&http, &elsewhere, &session()).await;
        let revoked = crate::sign_out::sign_out(&http, &elsewhere, session()).await;

        assert!(
            matches!(renewed, Err(ClientError::SignedOut { ref code, .. }) if code == "other_environment")
        );
        assert!(revoked.failures().iter().all(
            |e| matches!(e, ClientError::SignedOut { code, .. } if code == "other_environment")
        ));
        assert_eq!(revoked.failures().len(), 3);
    }

    #[test]
    fn debug_and_display_redact_the_tokens() {
        let s = session();

        let printed = format!("{s:?} {s}");

        assert!(!printed.contains("payload"), "{printed}");
        assert!(!printed.contains("rt-123"), "{printed}");
        assert!(!printed.contains("idpayload"), "{printed}");
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
    fn the_stored_form_keeps_its_keys() {
        let json = serde_json::to_value(session()).unwrap();

        assert_eq!(
            json["user"],
            serde_json::json!({ "id": "usr_ada", "name": "Ada Quinn", "email": "ada@maple.example", "role": "prescriber" })
        );
        assert_eq!(
            json["org"],
            serde_json::json!({ "id": "org_maple", "name": "Maple Street Clinic" })
        );
        assert_eq!(
            json["perm"],
            serde_json::json!(["read:patient", "write:prescription"])
        );
    }

    #[test]
    fn permissions_are_the_scopes_with_a_colon() {
        let scopes = ["offline_access", "read:patient", "openid", "write:order"];

        let permissions = permissions_of(scopes.map(str::to_owned).to_vec());

        assert_eq!(permissions, ["read:patient", "write:order"]);
    }

    #[test]
    fn a_challenge_gives_its_error_and_description() {
        let challenge = r#"Bearer realm="api", error="invalid_token", error_description="The token has expired""#;

        assert_eq!(
            challenge_param(challenge, "error").as_deref(),
            Some("invalid_token")
        );
        assert_eq!(
            challenge_param(challenge, "error_description").as_deref(),
            Some("The token has expired")
        );
        assert_eq!(challenge_param("Bearer", "error"), None);
        assert_eq!(
            bearer_error(401, Some(challenge), b"Unauthorized"),
            (
                "invalid_token".to_owned(),
                "The token has expired".to_owned()
            )
        );
        assert_eq!(
            bearer_error(401, Some("Bearer"), b""),
            (
                "HTTP_401".to_owned(),
                "the network did not accept the token".to_owned()
            )
        );
    }

    #[test]
    fn a_past_expiry_is_expired() {
        let mut s = session();
        s.expires_at = 1;

        assert!(s.is_expired());
    }
}
