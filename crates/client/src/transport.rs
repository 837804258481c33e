//! The transport every GraphQL call goes through: the bearer token (a user's, or
//! a machine token with one forced renewal after `INVALID_AUTHORIZATION_HEADER`),
//! one `tracing` span per operation with its name, duration, attempts and outcome
//! (never variables or results), the retry policy of [`crate::retry`] (per call
//! kind and whether a repeat is safe, decided by `network`), `Retry-After` read
//! from 429 and 503 answers, and the mapping of every whole-request failure to
//! [`ClientError`]. What a call sends and how its data reads are the business of
//! `network`.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tracing::Instrument;
use url::Url;

use crate::error::{ClientError, shape_error};
use crate::retry::{self, CallKind, Failed, Plan, Repeat, RetryPolicy};
use crate::secret::Secret;
use crate::token::MachineTokens;

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
    policy: Arc<RetryPolicy>,
}

impl Transport {
    pub(crate) fn new(
        http: reqwest::Client,
        endpoint: Url,
        auth: Auth,
        policy: Arc<RetryPolicy>,
    ) -> Self {
        Self {
            http,
            endpoint,
            auth,
            policy,
        }
    }

    /// True when calls go out with a backend's machine token.
    pub(crate) fn is_machine(&self) -> bool {
        matches!(self.auth, Auth::Machine(_))
    }

    /// Sends one encoded operation under its span and the retry policy, and maps
    /// its data with `finish` (again on each attempt: an `UpstreamServiceError`
    /// it finds is retried like any transient trouble); the span's outcome is
    /// that of the whole call.
    pub(crate) async fn send<D: DeserializeOwned, T>(
        &self,
        op: &'static str,
        kind: CallKind,
        repeat: Repeat,
        body: Vec<u8>,
        finish: impl Fn(D) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let span = operation_span(op);
        let started = Instant::now();
        let plan = Plan {
            op,
            kind,
            repeat,
            policy: &self.policy,
        };
        let (result, attempts) = retry::run(plan, retry::notify, |budget| {
            let (body, finish) = (&body, &finish);
            async move {
                let data = self.authorized_attempt::<D>(body, budget).await?;
                finish(data).map_err(Failed::from)
            }
        })
        .instrument(span.clone())
        .await;
        finished(&span, op, &result, attempts, started);
        result
    }

    /// Answers `error` without sending anything (a call this client never
    /// makes), logged like a call that was made.
    pub(crate) fn refuse<T>(&self, op: &'static str, error: ClientError) -> Result<T, ClientError> {
        let span = operation_span(op);
        let result = Err(error);
        finished(&span, op, &result, 0, Instant::now());
        result
    }

    async fn authorized_attempt<D: DeserializeOwned>(
        &self,
        body: &[u8],
        budget: Duration,
    ) -> Result<D, Failed> {
        match &self.auth {
            Auth::Bearer(token) => self.attempt(token, body).await,
            Auth::Machine(tokens) => {
                // The token request has its own retries, shared with every
                // caller waiting on it: its failure is not retried here. Only
                // this attempt's wait for it may end first; the next attempt
                // waits for the same request again.
                let token = tokens.token_within(budget).await.map_err(|e| match e {
                    ClientError::TimedOut {
                        call: CallKind::Token,
                        ..
                    } => Failed::Transient {
                        error: ClientError::Network {
                            message: format!(
                                "no machine token within {}",
                                crate::error::seconds(budget)
                            ),
                        },
                        retry_after: None,
                    },
                    other => Failed::Final(other),
                })?;
                match self.attempt(&token, body).await {
                    Err(Failed::Final(ClientError::SignedOut { code, .. }))
                        if code == "INVALID_AUTHORIZATION_HEADER" =>
                    {
                        tracing::info!("machine token rejected; renewing once");
                        let renewed = tokens
                            .renew_rejected(&token, budget)
                            .await
                            .map_err(Failed::Final)?;
                        self.attempt(&renewed, body).await
                    }
                    other => other,
                }
            }
        }
    }

    async fn attempt<D: DeserializeOwned>(&self, token: &Secret, body: &[u8]) -> Result<D, Failed> {
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
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry::retry_after(v, SystemTime::now()));
        let bytes = response
            .bytes()
            .await
            .map_err(ClientError::from_body_read)?;
        if status == 429 {
            return Err(ClientError::RateLimited { retry_after }.into());
        }
        decode_response(status, &bytes).map_err(|e| match Failed::from(e) {
            Failed::Transient { error, .. } if status == 503 => {
                Failed::Transient { error, retry_after }
            }
            other => other,
        })
    }
}

fn operation_span(op: &'static str) -> tracing::Span {
    tracing::info_span!(
        "rxdesk.op",
        op,
        outcome = tracing::field::Empty,
        attempts = tracing::field::Empty,
        duration_ms = tracing::field::Empty,
    )
}

/// Records a call's outcome on its span and logs it.
fn finished<T>(
    span: &tracing::Span,
    op: &'static str,
    result: &Result<T, ClientError>,
    attempts: u32,
    started: Instant,
) {
    let outcome = match result {
        Ok(_) => "ok",
        Err(e) => e.kind(),
    };
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    span.record("outcome", outcome);
    span.record("attempts", attempts);
    span.record("duration_ms", duration_ms);
    span.in_scope(|| tracing::info!(op, outcome, attempts, duration_ms, "operation finished"));
}

/// A GraphQL response: `data`, or a top-level `errors` array. `data` is kept
/// as its text and read into the operation's types once, where a `Value`
/// tree was built, converted and dropped for every answer.
#[derive(serde::Deserialize)]
struct RawResponse {
    data: Option<Box<RawValue>>,
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
    serde_json::from_str(data.get()).map_err(|e| {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Pinged {
        ping: String,
    }

    #[test]
    fn data_is_read_into_the_operations_types() {
        let data: Pinged = decode_response(200, br#"{"data":{"ping":"pong"}}"#).unwrap();

        assert_eq!(
            data,
            Pinged {
                ping: "pong".to_owned()
            }
        );
    }

    #[test]
    fn data_that_does_not_fit_the_operation_is_a_protocol_error() {
        let answer = decode_response::<Pinged>(200, br#"{"data":{"ping":42}}"#);

        let Err(ClientError::Protocol { message }) = answer else {
            panic!("expected a protocol error, got {answer:?}");
        };
        assert!(
            message.starts_with("data does not match the operation"),
            "{message}"
        );
    }

    #[test]
    fn an_answer_with_neither_data_nor_errors_is_a_protocol_error() {
        let answer = decode_response::<Pinged>(200, br#"{"data":null}"#);

        let Err(ClientError::Protocol { message }) = answer else {
            panic!("expected a protocol error, got {answer:?}");
        };
        assert!(message.contains("neither data nor errors"), "{message}");
    }
}
