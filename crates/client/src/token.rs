//! What every call to the authorization server's token endpoint shares: the token
//! response, RFC 6749 §5.2 error bodies mapped to [`ClientError`], and the
//! machine-token cache [`MachineTokens`] (client credentials as the contract's
//! JSON body; one cached token, one request in flight, retried through an
//! outage on behalf of every caller). Browser sign-in and refresh live in
//! `signin` and `session`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use futures::future::{BoxFuture, Shared};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tracing::Instrument;
use url::Url;

use crate::environment::{BackendCredentials, Environment};
use crate::error::{ClientError, shape_error};
use crate::http::Http;
use crate::retry::{self, CallKind, Failed, Plan, Repeat, RetryNotice, RetryPolicy};
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

/// The token request in flight: its outcome, shared by every caller waiting on
/// it, and its retry notices.
#[derive(Clone)]
struct Flight {
    outcome: Shared<BoxFuture<'static, Result<Secret, ClientError>>>,
    notices: watch::Receiver<Option<RetryNotice>>,
}

impl std::fmt::Debug for Flight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Flight")
    }
}

/// Machine tokens for one backend: obtained by the client credentials grant,
/// cached, shared by every clone and every caller, renewed shortly before
/// expiry. However many callers wait, one request is in flight: while the token
/// endpoint is down, that one request is retried with backoff (the token
/// deadline of the [`RetryPolicy`]) and every caller waits for it, each up to
/// its own deadline; once the endpoint is back, one successful request serves
/// them all. A request that fails for good (a wrong secret) is answered to the
/// callers that waited on it; the next caller starts a new one.
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
    policy: Arc<RetryPolicy>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    cached: Option<Cached>,
    flight: Option<Flight>,
}

impl MachineTokens {
    pub fn new(
        environment: &Environment,
        credentials: BackendCredentials,
    ) -> Result<Self, ClientError> {
        Ok(Self::with_http(
            &Http::new()?,
            environment,
            credentials,
            Arc::new(RetryPolicy::default()),
        ))
    }

    pub(crate) fn with_http(
        http: &Http,
        environment: &Environment,
        credentials: BackendCredentials,
        policy: Arc<RetryPolicy>,
    ) -> Self {
        let token_url = environment.token_endpoint();
        Self {
            inner: Arc::new(Inner {
                http: http.for_url(&token_url).clone(),
                token_url,
                audience: environment.audience().to_owned(),
                credentials,
                policy,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// The current token, requested first when there is none or it is about to
    /// expire; waits at most the policy's token deadline.
    pub async fn token(&self) -> Result<Secret, ClientError> {
        self.token_within(self.inner.policy.deadline(CallKind::Token))
            .await
    }

    /// [`token`](Self::token), waiting at most `budget`.
    pub(crate) async fn token_within(&self, budget: Duration) -> Result<Secret, ClientError> {
        let flight = {
            let mut state = self.lock();
            if let Some(c) = state.cached.as_ref()
                && Instant::now() < c.renew_at
            {
                return Ok(c.token.clone());
            }
            self.join_or_start(&mut state)
        };
        wait_for(flight, budget).await
    }

    /// After the API rejected `rejected`: a new token, unless another caller
    /// already replaced it (then that one).
    pub(crate) async fn renew_rejected(
        &self,
        rejected: &Secret,
        budget: Duration,
    ) -> Result<Secret, ClientError> {
        let flight = {
            let mut state = self.lock();
            match state.cached.as_ref() {
                Some(c) if c.token != *rejected && Instant::now() < c.renew_at => {
                    return Ok(c.token.clone());
                }
                Some(c) if c.token == *rejected => state.cached = None,
                _ => {}
            }
            self.join_or_start(&mut state)
        };
        wait_for(flight, budget).await
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding this lock leaves the state as valid as before
        // (each update is one assignment): go on with it.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The request in flight, or a new one: a task of its own, so it goes on
    /// (and caches its token) whichever callers stop waiting.
    fn join_or_start(&self, state: &mut State) -> Flight {
        if let Some(flight) = state.flight.as_ref() {
            return flight.clone();
        }
        let (tell, notices) = watch::channel(None);
        let inner = self.inner.clone();
        let task = tokio::spawn(async move {
            let result = request_with_retries(&inner, tell).await;
            let mut state = inner
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            state.flight = None;
            match result {
                Ok(fresh) => {
                    let token = fresh.token.clone();
                    state.cached = Some(fresh);
                    Ok(token)
                }
                Err(e) => Err(e),
            }
        });
        let outcome = async move {
            task.await.unwrap_or_else(|_| {
                Err(ClientError::protocol(
                    "the machine-token request stopped unexpectedly",
                ))
            })
        }
        .boxed()
        .shared();
        let flight = Flight { outcome, notices };
        state.flight = Some(flight.clone());
        flight
    }
}

/// Waits for `flight` at most `budget`, passing its retry notices on to this
/// task's observer.
async fn wait_for(flight: Flight, budget: Duration) -> Result<Secret, ClientError> {
    let Flight {
        outcome,
        mut notices,
    } = flight;
    let started = Instant::now();
    let deadline = tokio::time::sleep(budget);
    tokio::pin!(deadline, outcome);
    let mut told = true;
    loop {
        tokio::select! {
            result = &mut outcome => return result,
            changed = notices.changed(), if told => match changed {
                Ok(()) => {
                    if let Some(notice) = notices.borrow_and_update().clone() {
                        retry::notify(&notice);
                    }
                }
                // The request finished: its outcome is ready.
                Err(_) => told = false,
            },
            () = &mut deadline => {
                return Err(ClientError::TimedOut {
                    call: CallKind::Token,
                    after: started.elapsed(),
                    attempts: 0,
                    last: None,
                });
            }
        }
    }
}

/// One token request under the retry policy, telling its notices to `tell`.
async fn request_with_retries(
    inner: &Inner,
    tell: watch::Sender<Option<RetryNotice>>,
) -> Result<Cached, ClientError> {
    let plan = Plan {
        op: "machine_token",
        kind: CallKind::Token,
        repeat: Repeat::Safe,
        policy: &inner.policy,
    };
    let notice = |n: &RetryNotice| {
        tracing::info!(attempt = n.attempt, cause = ?n.cause, "machine token: retrying");
        let _ = tell.send(Some(n.clone()));
    };
    let (result, _) = retry::run(plan, notice, |_| request(inner)).await;
    result
}

/// One token request; a 503's `Retry-After` goes with its failure.
async fn request(inner: &Inner) -> Result<Cached, Failed> {
    let mut retry_after = None;
    request_once(inner, &mut retry_after)
        .await
        .map_err(|e| match Failed::from(e) {
            Failed::Transient {
                error,
                retry_after: None,
            } => Failed::Transient { error, retry_after },
            other => other,
        })
}

async fn request_once(
    inner: &Inner,
    retry_after_seen: &mut Option<Duration>,
) -> Result<Cached, ClientError> {
    let span = tracing::info_span!("rxdesk.machine_token", outcome = tracing::field::Empty);
    let started = Instant::now();
    let body = ClientCredentialsRequest {
        client_id: inner.credentials.client_id(),
        client_secret: inner.credentials.client_secret().expose(),
        audience: &inner.audience,
        grant_type: "client_credentials",
    };
    let result = async {
        let response = inner
            .http
            .post(inner.token_url.clone())
            .json(&body)
            .send()
            .await
            .map_err(ClientError::from_reqwest)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry::retry_after(v, std::time::SystemTime::now()));
        let bytes = response
            .bytes()
            .await
            .map_err(ClientError::from_body_read)?;
        if status == 429 {
            return Err(ClientError::RateLimited { retry_after });
        }
        if status == 503 {
            *retry_after_seen = retry_after;
        }
        if status != 200 {
            return Err(token_error(status, &bytes));
        }
        let parsed: MachineTokenResponse = serde_json::from_slice(&bytes)
            .map_err(|e| ClientError::protocol(format!("token response: {}", shape_error(&e))))?;
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
            duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "machine token requested"
        );
    });
    result
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
