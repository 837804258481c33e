//! The transport every GraphQL call goes through: the bearer token (a user's, or
//! a machine token with one forced renewal after `INVALID_AUTHORIZATION_HEADER`),
//! one `tracing` span per operation with its name, duration, attempts and outcome
//! (never variables or results), the retry policy (backoff on network or server
//! trouble, only for calls marked [`Retry::Safe`]), and the mapping of every
//! whole-request failure to [`ClientError`]. What a call sends and how its data
//! reads are the business of `network`.

use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::Value;
use tracing::Instrument;
use url::Url;

use crate::error::{ClientError, shape_error};
use crate::secret::Secret;
use crate::token::MachineTokens;

/// How many times a safe operation is tried on network or server trouble.
const MAX_ATTEMPTS: u32 = 3;

/// Whether an operation may be sent again after network or server trouble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Reads, and creates with an `externalId` (the server returns the first record).
    Safe,
    /// Everything else: a second try could act twice.
    Never,
}

impl Retry {
    pub(crate) fn create(external_id: Option<&String>) -> Self {
        if external_id.is_some() {
            Self::Safe
        } else {
            Self::Never
        }
    }
}

/// Which token goes in the `Authorization` header.
#[derive(Debug, Clone)]
pub(crate) enum Auth {
    Bearer(Secret),
    Machine(MachineTokens),
}

/// One endpoint and one caller's credentials. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    http: reqwest::Client,
    endpoint: Url,
    auth: Auth,
}

impl Transport {
    pub(crate) fn new(http: reqwest::Client, endpoint: Url, auth: Auth) -> Self {
        Self {
            http,
            endpoint,
            auth,
        }
    }

    /// Sends one encoded operation under its span, with the retry policy, and
    /// maps its data with `finish`; the span's outcome is that of the whole call.
    pub(crate) async fn send<D: DeserializeOwned, T>(
        &self,
        op: &'static str,
        body: Vec<u8>,
        retry: Retry,
        finish: impl FnOnce(D) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let span = tracing::info_span!(
            "rxdesk.op",
            op,
            outcome = tracing::field::Empty,
            attempts = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        let started = Instant::now();
        let (result, attempts) = self
            .with_retries::<D>(&body, retry)
            .instrument(span.clone())
            .await;
        let result = result.and_then(finish);
        let outcome = match &result {
            Ok(_) => "ok",
            Err(e) => e.kind(),
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        span.record("outcome", outcome);
        span.record("attempts", attempts);
        span.record("duration_ms", duration_ms);
        span.in_scope(|| tracing::info!(op, outcome, attempts, duration_ms, "operation finished"));
        result
    }

    async fn with_retries<D: DeserializeOwned>(
        &self,
        body: &[u8],
        retry: Retry,
    ) -> (Result<D, ClientError>, u32) {
        let mut attempt = 1;
        loop {
            let result = self.authorized_attempt(body).await;
            match result {
                Err(e) if e.is_transient() && retry == Retry::Safe && attempt < MAX_ATTEMPTS => {
                    tracing::debug!(attempt, error = e.kind(), "retrying after trouble");
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                }
                other => return (other, attempt),
            }
        }
    }

    async fn authorized_attempt<D: DeserializeOwned>(&self, body: &[u8]) -> Result<D, ClientError> {
        match &self.auth {
            Auth::Bearer(token) => self.attempt(token, body).await,
            Auth::Machine(tokens) => {
                let token = tokens.token().await?;
                match self.attempt(&token, body).await {
                    Err(ClientError::SignedOut { code, .. })
                        if code == "INVALID_AUTHORIZATION_HEADER" =>
                    {
                        tracing::info!("machine token rejected; renewing once");
                        let renewed = tokens.renew_rejected(&token).await?;
                        self.attempt(&renewed, body).await
                    }
                    other => other,
                }
            }
        }
    }

    async fn attempt<D: DeserializeOwned>(
        &self,
        token: &Secret,
        body: &[u8],
    ) -> Result<D, ClientError> {
        let response = self
            .http
            .post(self.endpoint.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .bearer_auth(token.expose())
            .body(body.to_vec())
            .send()
            .await
            .map_err(ClientError::from_reqwest)?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(ClientError::from_reqwest)?;
        decode_response(status, &bytes)
    }
}

/// A GraphQL response: `data`, or a top-level `errors` array.
#[derive(serde::Deserialize)]
struct RawResponse {
    data: Option<Value>,
    errors: Option<Vec<RawError>>,
}

#[derive(serde::Deserialize)]
struct RawError {
    message: String,
    #[serde(default)]
    extensions: serde_json::Map<String, Value>,
}

/// Maps an HTTP answer of the GraphQL endpoint to data or an error.
pub(crate) fn decode_response<D: DeserializeOwned>(
    status: u16,
    body: &[u8],
) -> Result<D, ClientError> {
    let raw: RawResponse = match serde_json::from_slice(body) {
        Ok(raw) => raw,
        Err(_) if status >= 500 => {
            return Err(ClientError::Server {
                status: Some(status),
                message: "the API failed".to_owned(),
            });
        }
        Err(_) if status == 401 => {
            return Err(ClientError::SignedOut {
                code: "HTTP_401".to_owned(),
                message: "the API did not accept the token".to_owned(),
            });
        }
        Err(e) => {
            return Err(ClientError::protocol(format!(
                "HTTP {status}, body is not a GraphQL response: {}",
                shape_error(&e)
            )));
        }
    };
    if let Some(first) = raw.errors.as_ref().and_then(|errors| errors.first()) {
        return Err(top_level_error(status, first));
    }
    if status >= 500 {
        return Err(ClientError::Server {
            status: Some(status),
            message: "the API failed".to_owned(),
        });
    }
    let data = raw.data.ok_or_else(|| {
        ClientError::protocol(format!("HTTP {status} with neither data nor errors"))
    })?;
    serde_json::from_value(data).map_err(|e| {
        ClientError::protocol(format!(
            "data does not match the operation: {}",
            shape_error(&e)
        ))
    })
}

/// A top-level GraphQL error mapped by its `extensions.code`.
fn top_level_error(status: u16, error: &RawError) -> ClientError {
    let text = |key: &str| {
        error
            .extensions
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let code = text("code").unwrap_or_default();
    let message = error.message.clone();
    match code.as_str() {
        "EMPTY_AUTHORIZATION_HEADER" | "INVALID_AUTHORIZATION_HEADER" | "UNAUTHENTICATED" => {
            ClientError::SignedOut { code, message }
        }
        _ if status == 401 => ClientError::SignedOut {
            code: if code.is_empty() {
                "HTTP_401".into()
            } else {
                code
            },
            message,
        },
        "NOT_FOUND" => ClientError::NotFound { message },
        "INVALID_INPUT" | "BAD_USER_INPUT" => ClientError::Invalid {
            code,
            message,
            field: text("field"),
        },
        _ if code.ends_with("UNAUTHORIZED")
            || code == "FORBIDDEN"
            || error.extensions.contains_key("requiredPermission") =>
        {
            ClientError::Refused {
                code,
                message,
                required_permission: text("requiredPermission"),
            }
        }
        "INTERNAL_SERVER_ERROR" => ClientError::Server {
            status: Some(status),
            message,
        },
        _ if status >= 500 => ClientError::Server {
            status: Some(status),
            message,
        },
        // Our document was refused (GRAPHQL_VALIDATION_FAILED, BAD_REQUEST, a
        // complexity limit without a code, …): repeating it will not help.
        _ => ClientError::Protocol {
            message: format!(
                "HTTP {status}{}: {message}",
                if code.is_empty() {
                    String::new()
                } else {
                    format!(" {code}")
                }
            ),
        },
    }
}

/// 200 ms, 400 ms, 800 ms, …
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(200u64 << attempt.saturating_sub(1).min(5))
}
