//! Ending a session at the network (sign-out, and the app's lock): everything a
//! client can end is ended, each step reported on its own in a
//! [`SignOutReport`]:
//!
//! - the refresh token is revoked (RFC 7009, `token_type_hint=refresh_token`),
//!   so the session cannot be renewed;
//! - the access token is revoked (`token_type_hint=access_token`), so it stops
//!   working before it expires where the network supports that (a network
//!   answering `unsupported_token_type` does not);
//! - the sign-in itself is ended at the network's end-session endpoint, when its
//!   discovery document (`/.well-known/openid-configuration`) offers one and the
//!   session holds an ID token: OpenID Connect RP-Initiated Logout, `POST` with
//!   `id_token_hint` and `client_id` (the network then forgets the browser's
//!   login too, so the next sign-in asks for the password).
//!
//! The three run at once; none is retried (sign-out must not hang on a network
//! that is down), and a failure never keeps the session: the caller has dropped
//! it already. The revocation requests are our own form POSTs: `oauth2`
//! refuses a revocation endpoint that is not https, and loopback environments
//! (the sandbox) are plain http. Nothing is ever sent to another network than
//! the one that issued the session.

use serde::Deserialize;
use url::Url;

use crate::environment::{Environment, checked_url};
use crate::error::ClientError;
use crate::http::Http;
use crate::secret::Secret;
use crate::session::Session;

/// What sign-out did at the network, step by step. The local session is gone
/// in every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignOutReport {
    /// The refresh token (RFC 7009).
    pub refresh_token: SignOutStep,
    /// The access token (RFC 7009, `token_type_hint=access_token`).
    pub access_token: SignOutStep,
    /// The sign-in, at the network's end-session endpoint (OpenID Connect
    /// RP-Initiated Logout).
    pub sign_in: SignOutStep,
}

/// One step of sign-out at the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignOutStep {
    /// Done: the network confirmed.
    Done,
    /// Nothing to do this way: no refresh token, no ID token, a network that does
    /// not revoke access tokens or offers no end-session endpoint.
    NotOffered,
    /// The network did not confirm; what it was meant to end may work until it expires.
    Failed(ClientError),
}

impl SignOutReport {
    /// The steps that failed, in order: refresh token, access token, sign-in.
    pub fn failures(&self) -> Vec<&ClientError> {
        [&self.refresh_token, &self.access_token, &self.sign_in]
            .into_iter()
            .filter_map(|step| match step {
                SignOutStep::Failed(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    /// Whether the network confirmed ending anything.
    pub fn ended_anything(&self) -> bool {
        [&self.refresh_token, &self.access_token, &self.sign_in]
            .into_iter()
            .any(|step| *step == SignOutStep::Done)
    }
}

/// Ends `session` at `environment`, which must be the network that issued it.
pub(crate) async fn sign_out(
    http: &Http,
    environment: &Environment,
    session: Session,
) -> SignOutReport {
    if !session.issued_by(environment) {
        // Its tokens go to no other server than their own.
        let elsewhere = SignOutStep::Failed(ClientError::SignedOut {
            code: "other_environment".to_owned(),
            message: "the session was issued by another network: not ended here".to_owned(),
        });
        return SignOutReport {
            refresh_token: elsewhere.clone(),
            access_token: elsewhere.clone(),
            sign_in: elsewhere,
        };
    }
    let refresh = async {
        match session.refresh_token() {
            Some(token) => revoke(http, environment, token, "refresh_token").await,
            None => SignOutStep::NotOffered,
        }
    };
    let access = revoke(http, environment, session.access_token(), "access_token");
    let sign_in = async {
        match session.id_token() {
            Some(id_token) => end_sign_in(http, environment, id_token).await,
            None => SignOutStep::NotOffered,
        }
    };
    let (refresh_token, access_token, sign_in) = tokio::join!(refresh, access, sign_in);
    drop(session);
    let report = SignOutReport {
        refresh_token,
        access_token,
        sign_in,
    };
    for (step, outcome) in [
        ("refresh_token", &report.refresh_token),
        ("access_token", &report.access_token),
        ("sign_in", &report.sign_in),
    ] {
        match outcome {
            SignOutStep::Done => tracing::info!(step, "ended at the network"),
            SignOutStep::NotOffered => tracing::info!(step, "nothing to end this way"),
            SignOutStep::Failed(e) => {
                tracing::warn!(step, error = e.kind(), "not ended at the network");
            }
        }
    }
    report
}

/// RFC 7009 revocation of `token`.
async fn revoke(http: &Http, environment: &Environment, token: &Secret, hint: &str) -> SignOutStep {
    let form = [
        ("token", token.expose()),
        ("token_type_hint", hint),
        ("client_id", environment.client_id()),
    ];
    let endpoint = environment.revocation_endpoint();
    let answer = async {
        let response = http
            .for_url(&endpoint)
            .post(endpoint.clone())
            .form(&form)
            .send()
            .await
            .map_err(ClientError::from_reqwest)?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(ClientError::from_reqwest)?;
        Ok::<_, ClientError>((status, body))
    }
    .await;
    match answer {
        Ok((200, _)) => SignOutStep::Done,
        Ok((status, body)) if unsupported_token_type(status, &body) => SignOutStep::NotOffered,
        Ok((status, body)) => SignOutStep::Failed(crate::token::token_error(status, &body)),
        Err(e) => SignOutStep::Failed(e),
    }
}

/// RFC 7009 §2.2.1: the server does not revoke tokens of this type.
fn unsupported_token_type(status: u16, body: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Error {
        error: String,
    }
    status == 400
        && serde_json::from_slice::<Error>(body).is_ok_and(|e| e.error == "unsupported_token_type")
}

/// The parts of a discovery document sign-out needs.
#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    #[serde(default)]
    end_session_endpoint: Option<String>,
}

/// The end-session endpoint `environment`'s discovery document offers, if any.
async fn end_session_endpoint(
    http: &Http,
    environment: &Environment,
) -> Result<Option<Url>, ClientError> {
    let url = environment.discovery_endpoint();
    let response = http
        .for_url(&url)
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(ClientError::from_reqwest)?;
    let status = response.status().as_u16();
    if status == 404 {
        // No discovery document: nothing offered.
        return Ok(None);
    }
    if status != 200 {
        return Err(ClientError::Server {
            status: Some(status),
            message: "the discovery document could not be read".to_owned(),
        });
    }
    let body = response.bytes().await.map_err(ClientError::from_reqwest)?;
    parse_discovery(&body, environment)
}

/// The end-session endpoint of a discovery document, checked: the document
/// must be `environment`'s issuer's (OpenID Connect Discovery §4.3), and the
/// endpoint https (or http on loopback), as every address of an environment.
fn parse_discovery(body: &[u8], environment: &Environment) -> Result<Option<Url>, ClientError> {
    let discovery: Discovery = serde_json::from_slice(body).map_err(|e| {
        ClientError::protocol(format!(
            "the discovery document: {}",
            crate::error::shape_error(&e)
        ))
    })?;
    if discovery.issuer.trim_end_matches('/') != environment.issuer() {
        return Err(ClientError::protocol(
            "the discovery document names another issuer than this network",
        ));
    }
    discovery
        .end_session_endpoint
        .map(|text| {
            checked_url("end_session_endpoint", &text)
                .map_err(|e| ClientError::protocol(format!("the discovery document: {e}")))
        })
        .transpose()
}

/// RP-initiated logout of the sign-in `id_token` names, where the network offers it.
async fn end_sign_in(http: &Http, environment: &Environment, id_token: &Secret) -> SignOutStep {
    let endpoint = match end_session_endpoint(http, environment).await {
        Ok(Some(endpoint)) => endpoint,
        Ok(None) => return SignOutStep::NotOffered,
        Err(e) => return SignOutStep::Failed(e),
    };
    // POST, so the ID token is in no URL and no server's access log.
    let form = [
        ("id_token_hint", id_token.expose()),
        ("client_id", environment.client_id()),
    ];
    let sent = http
        .for_url(&endpoint)
        .post(endpoint.clone())
        .form(&form)
        .send()
        .await
        .map_err(ClientError::from_reqwest);
    match sent {
        // A page saying so, or a redirect to one: either way the network took it.
        Ok(response) if response.status().is_success() || response.status().is_redirection() => {
            SignOutStep::Done
        }
        Ok(response) => {
            let status = response.status().as_u16();
            SignOutStep::Failed(if status >= 500 {
                ClientError::Server {
                    status: Some(status),
                    message: "the end-session endpoint failed".to_owned(),
                }
            } else {
                ClientError::Protocol {
                    message: format!("the end-session endpoint answered HTTP {status}"),
                }
            })
        }
        Err(e) => SignOutStep::Failed(e),
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

    #[test]
    fn a_discovery_document_without_an_end_session_endpoint_offers_none() {
        let body = br#"{ "issuer": "https://auth.example.org/" }"#;

        assert_eq!(parse_discovery(body, &environment()).unwrap(), None);
    }

    #[test]
    fn the_end_session_endpoint_is_taken_only_from_the_networks_own_document() {
        let own = br#"{ "issuer": "https://auth.example.org", "end_session_endpoint": "https://auth.example.org/oidc/logout" }"#;
        let foreign = br#"{ "issuer": "https://evil.example", "end_session_endpoint": "https://evil.example/logout" }"#;
        let plain = br#"{ "issuer": "https://auth.example.org", "end_session_endpoint": "http://auth.example.org/logout" }"#;

        assert_eq!(
            parse_discovery(own, &environment())
                .unwrap()
                .unwrap()
                .as_str(),
            "https://auth.example.org/oidc/logout"
        );
        assert!(parse_discovery(foreign, &environment()).is_err());
        assert!(parse_discovery(plain, &environment()).is_err());
    }

    #[test]
    fn a_network_that_does_not_revoke_access_tokens_is_not_a_failure() {
        assert!(unsupported_token_type(
            400,
            br#"{"error":"unsupported_token_type"}"#
        ));
        assert!(!unsupported_token_type(
            400,
            br#"{"error":"invalid_request"}"#
        ));
    }
}
