//! What every call to the authorization server's token endpoint shares: the token
//! response, RFC 6749 §5.2 error bodies mapped to [`ClientError`], and the
//! machine-token cache [`MachineTokens`] (client credentials as the contract's
//! JSON body; one cached token, one request in flight). Browser sign-in and
//! refresh live in `signin` and `session`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;
use tracing::Instrument;
use url::Url;

use crate::environment::{BackendCredentials, Environment};
use crate::error::{ClientError, shape_error};
use crate::http::Http;
use crate::secret::Secret;

/// The longest lifetime we believe a token endpoint (one year).
const MAX_LIFETIME_SECS: u64 = 365 * 86_400;
/// The longest we renew a token ahead of its expiry.
const MAX_RENEW_AHEAD: Duration = Duration::from_secs(300);

/// RFC 6749 §5.2 error body.
#[derive(Debug, Deserialize)]
struct TokenErrorBody {
    error: String,
    error_description: Option<String>,
}

/// Maps a token-endpoint failure: a rejected grant or client means signing in
/// again (or fixing the backend credentials); 5xx is server trouble.
pub(crate) fn token_error(status: u16, body: &[u8]) -> ClientError {
    let parsed = serde_json::from_slice::<TokenErrorBody>(body).ok();
    match parsed {
        Some(b) if status < 500 => {
            let message = b
                .error_description
                .unwrap_or_else(|| "the authorization server refused the request".to_owned());
            match b.error.as_str() {
                "invalid_grant" | "invalid_client" | "unauthorized_client" | "access_denied" => {
                    ClientError::SignedOut {
                        code: b.error,
                        message,
                    }
                }
                _ => ClientError::Protocol {
                    message: format!("token endpoint answered {}: {message}", b.error),
                },
            }
        }
        Some(b) => ClientError::Server {
            status: Some(status),
            message: b.error_description.unwrap_or(b.error),
        },
        None if status >= 500 => ClientError::Server {
            status: Some(status),
            message: "the authorization server failed".to_owned(),
        },
        None => ClientError::Protocol {
            message: format!("token endpoint answered HTTP {status} without an RFC 6749 error"),
        },
    }
}

/// How far ahead of expiry a token of this lifetime is renewed: a tenth of its
/// life, at most five minutes.
pub(crate) fn renew_ahead(lifetime: Duration) -> Duration {
    (lifetime / 10).min(MAX_RENEW_AHEAD)
}

/// The contract's client credentials request body, field for field.
#[derive(Serialize)]
struct ClientCredentialsRequest<'a> {
    client_id: &'a str,
    client_secret: &'a str,
    audience: &'a str,
    grant_type: &'static str,
}

/// The contract's token response.
#[derive(Deserialize)]
struct MachineTokenResponse {
    access_token: Secret,
    expires_in: u64,
    token_type: String,
}

#[derive(Debug)]
struct Cached {
    token: Secret,
    renew_at: Instant,
}

/// Machine tokens for one backend: obtained by the client credentials grant,
/// cached, shared by every clone and every caller, renewed shortly before
/// expiry. However many callers wait, one request is in flight.
#[derive(Debug, Clone)]
pub struct MachineTokens {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    token_url: Url,
    audience: String,
    credentials: BackendCredentials,
    state: Mutex<State>,
    /// Token requests finished so far; a caller notes it before waiting for the lock.
    attempts: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    cached: Option<Cached>,
    /// The failure of the last request, shared with the callers that waited on it.
    last_failure: Option<ClientError>,
}

impl MachineTokens {
    pub fn new(
        environment: &Environment,
        credentials: BackendCredentials,
    ) -> Result<Self, ClientError> {
        Ok(Self::with_http(&Http::new()?, environment, credentials))
    }

    pub(crate) fn with_http(
        http: &Http,
        environment: &Environment,
        credentials: BackendCredentials,
    ) -> Self {
        let token_url = environment.token_endpoint();
        Self {
            inner: Arc::new(Inner {
                http: http.for_url(&token_url).clone(),
                token_url,
                audience: environment.audience().to_owned(),
                credentials,
                state: Mutex::new(State::default()),
                attempts: AtomicU64::new(0),
            }),
        }
    }

    /// The current token, requested first when there is none or it is about to
    /// expire. Callers that waited while a request failed get its error rather
    /// than sending one request each.
    pub async fn token(&self) -> Result<Secret, ClientError> {
        let ticket = self.inner.attempts.load(Ordering::SeqCst);
        let mut state = self.inner.state.lock().await;
        if let Some(c) = state.cached.as_ref()
            && Instant::now() < c.renew_at
        {
            return Ok(c.token.clone());
        }
        if self.inner.attempts.load(Ordering::SeqCst) > ticket
            && let Some(e) = state.last_failure.as_ref()
        {
            return Err(e.clone());
        }
        self.refresh(&mut state).await
    }

    /// After the API rejected `rejected`: a new token, unless another caller
    /// already replaced it (then that one).
    pub(crate) async fn renew_rejected(&self, rejected: &Secret) -> Result<Secret, ClientError> {
        let mut state = self.inner.state.lock().await;
        if let Some(c) = state.cached.as_ref()
            && c.token != *rejected
            && Instant::now() < c.renew_at
        {
            return Ok(c.token.clone());
        }
        state.cached = None;
        self.refresh(&mut state).await
    }

    /// Requests a token with the lock held, and records the outcome.
    async fn refresh(&self, state: &mut State) -> Result<Secret, ClientError> {
        let result = self.request().await;
        // Counted once finished: a caller that noted the count while this request
        // was in flight sees it grow and shares the outcome.
        self.inner.attempts.fetch_add(1, Ordering::SeqCst);
        match result {
            Ok(fresh) => {
                let token = fresh.token.clone();
                state.cached = Some(fresh);
                state.last_failure = None;
                Ok(token)
            }
            Err(e) => {
                state.last_failure = Some(e.clone());
                Err(e)
            }
        }
    }

    async fn request(&self) -> Result<Cached, ClientError> {
        let span = tracing::info_span!("rxdesk.machine_token", outcome = tracing::field::Empty);
        let started = Instant::now();
        let body = ClientCredentialsRequest {
            client_id: self.inner.credentials.client_id(),
            client_secret: self.inner.credentials.client_secret().expose(),
            audience: &self.inner.audience,
            grant_type: "client_credentials",
        };
        let result = async {
            let response = self
                .inner
                .http
                .post(self.inner.token_url.clone())
                .json(&body)
                .send()
                .await
                .map_err(ClientError::from_reqwest)?;
            let status = response.status().as_u16();
            let bytes = response.bytes().await.map_err(ClientError::from_reqwest)?;
            if status != 200 {
                return Err(token_error(status, &bytes));
            }
            let parsed: MachineTokenResponse = serde_json::from_slice(&bytes).map_err(|e| {
                ClientError::protocol(format!("token response: {}", shape_error(&e)))
            })?;
            if !parsed.token_type.eq_ignore_ascii_case("bearer") {
                return Err(ClientError::protocol(format!(
                    "token type {:?} is not Bearer",
                    parsed.token_type
                )));
            }
            // Capped so that no answer, however odd, overflows an Instant.
            let lifetime = Duration::from_secs(parsed.expires_in.min(MAX_LIFETIME_SECS));
            Ok(Cached {
                token: parsed.access_token,
                renew_at: started + (lifetime - renew_ahead(lifetime)),
            })
        }
        .instrument(span.clone())
        .await;
        let outcome = match &result {
            Ok(_) => "ok",
            Err(e) => e.kind(),
        };
        span.record("outcome", outcome);
        span.in_scope(|| {
            tracing::info!(
                outcome,
                duration_ms = started.elapsed().as_millis() as u64,
                "machine token requested"
            );
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renews_a_tenth_ahead_capped_at_five_minutes() {
        assert_eq!(
            renew_ahead(Duration::from_secs(86_400)),
            Duration::from_secs(300)
        );
        assert_eq!(
            renew_ahead(Duration::from_secs(2)),
            Duration::from_millis(200)
        );
    }

    #[test]
    fn invalid_grant_means_signed_out() {
        let body = br#"{"error":"invalid_grant","error_description":"refresh token reused"}"#;

        let e = token_error(400, body);

        assert_eq!(
            e,
            ClientError::SignedOut {
                code: "invalid_grant".into(),
                message: "refresh token reused".into()
            }
        );
    }

    #[test]
    fn a_failing_token_endpoint_is_server_trouble() {
        assert!(matches!(
            token_error(503, b"<html>"),
            ClientError::Server {
                status: Some(503),
                ..
            }
        ));
    }
}
