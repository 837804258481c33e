//! The OpenID Connect ID token a sign-in may bring beside the access token
//! (scope `openid`): the token response type that keeps it ([`TokenResponse`],
//! [`OidcClient`]) and what the client reads from it ([`IdToken`]).
//!
//! The client reads the ID token for three things only: `auth_time` against
//! `iat`, to tell that a sign-in asked to be fresh really asked for the password
//! (`signin::fresh_login_problem`); `iat` against the workstation's clock, to
//! measure how far that clock is off ([`crate::ClockOffset`]); and — kept whole in the [`Session`] — to
//! send it back as `id_token_hint` when the sign-in ends (`sign_out.rs`). Its
//! signature is not checked: it comes straight from the token endpoint over
//! the connection the client opened (OpenID Connect Core §3.1.3.7, item 6),
//! and its issuer and audience are checked against the environment.
//!
//! [`Session`]: crate::Session

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use oauth2::basic::{
    BasicErrorResponse, BasicRevocationErrorResponse, BasicTokenIntrospectionResponse,
    BasicTokenType,
};
use oauth2::{ExtraTokenFields, StandardRevocableToken, StandardTokenResponse};
use serde::{Deserialize, Serialize};

use crate::environment::Environment;
use crate::error::ClientError;

/// The token response's fields beyond OAuth's: the ID token, when there is one.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct OidcFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id_token: Option<String>,
}

impl ExtraTokenFields for OidcFields {}

/// A token response with its ID token.
pub(crate) type TokenResponse = StandardTokenResponse<OidcFields, BasicTokenType>;

/// An `oauth2` client whose token responses keep the ID token.
pub(crate) type OidcClient<
    HasAuthUrl = oauth2::EndpointNotSet,
    HasTokenUrl = oauth2::EndpointNotSet,
> = oauth2::Client<
    BasicErrorResponse,
    TokenResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    HasAuthUrl,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    HasTokenUrl,
>;

/// What the client reads from an ID token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IdToken {
    /// When the user last typed their password (Unix seconds), if said.
    pub(crate) auth_time: Option<u64>,
    /// When the network issued it (Unix seconds, the network's clock), if said.
    pub(crate) issued_at: Option<u64>,
}

#[derive(Deserialize)]
struct Claims {
    iss: String,
    aud: Audience,
    #[serde(default)]
    auth_time: Option<u64>,
    #[serde(default)]
    iat: Option<u64>,
}

/// `aud`: one client id or several (OpenID Connect Core §2).
#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    fn names(&self, client_id: &str) -> bool {
        match self {
            Self::One(aud) => aud == client_id,
            Self::Many(all) => all.iter().any(|aud| aud == client_id),
        }
    }
}

impl IdToken {
    /// Reads `jwt`'s claims and checks that `environment`'s authorization server
    /// issued it to `environment`'s client.
    pub(crate) fn read(jwt: &str, environment: &Environment) -> Result<Self, ClientError> {
        let invalid = |why: &str| ClientError::Protocol {
            message: format!("the sign-in's ID token {why}"),
        };
        let mut parts = jwt.split('.');
        let (Some(_header), Some(payload), Some(_signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("is not a JWT"));
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| invalid("is not a JWT"))?;
        let claims: Claims = serde_json::from_slice(&bytes)
            .map_err(|e| invalid(&format!("is unreadable: {}", crate::error::shape_error(&e))))?;
        if claims.iss.trim_end_matches('/') != environment.issuer() {
            return Err(invalid("was issued by another authorization server"));
        }
        if !claims.aud.names(environment.client_id()) {
            return Err(invalid("was issued to another application"));
        }
        Ok(Self {
            auth_time: claims.auth_time,
            issued_at: claims.iat,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn environment() -> Environment {
        Environment::new(
            "https://auth.example.org",
            "https://api.example.org",
            "aud",
            "desktop",
        )
        .unwrap()
    }

    fn jwt(claims: serde_json::Value) -> String {
        format!(
            "eyJhbGciOiJSUzI1NiJ9.{}.c2ln",
            URL_SAFE_NO_PAD.encode(claims.to_string())
        )
    }

    #[test]
    fn an_id_token_of_the_environment_gives_its_auth_time() {
        let token = jwt(serde_json::json!({
            "iss": "https://auth.example.org/", "aud": "desktop", "sub": "u", "auth_time": 1700000000,
        }));

        let read = IdToken::read(&token, &environment()).unwrap();

        assert_eq!(read.auth_time, Some(1_700_000_000));
    }

    #[test]
    fn an_id_token_of_another_issuer_or_application_is_refused() {
        let foreign = jwt(serde_json::json!({ "iss": "https://evil.example", "aud": "desktop" }));
        let other_app =
            jwt(serde_json::json!({ "iss": "https://auth.example.org", "aud": ["x", "y"] }));

        assert!(IdToken::read(&foreign, &environment()).is_err());
        assert!(IdToken::read(&other_app, &environment()).is_err());
        assert!(IdToken::read("not-a-jwt", &environment()).is_err());
    }
}
