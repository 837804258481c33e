//! [`ClientError`]: the one error of every call to the network after sign-in
//! (API operations, token renewal, machine tokens, revocation), with variants a
//! caller can act on, and which of them are transient (the retry policy that
//! acts on that is `retry`).
//!
//! Browser sign-in has its own [`SignInError`](crate::SignInError): it is another
//! boundary (a person in a browser, a local listener) whose outcomes — denied,
//! timed out, cancelled — mean nothing for an API call; it wraps a
//! `ClientError` for the parts they share. Messages carry what the server said
//! and what we saw, never a token or a patient field.

use std::time::Duration;

use crate::call_kind::CallKind;

/// What went wrong talking to the network, in terms a caller can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The token is missing, invalid or expired (or renewal failed): sign in again.
    /// `code` is the server's (`EMPTY_AUTHORIZATION_HEADER`, `INVALID_AUTHORIZATION_HEADER`,
    /// `invalid_grant`, …).
    #[error("signed out ({code}): {message}")]
    SignedOut { code: String, message: String },
    /// The token is valid but lacks a permission (`UnauthorizedError`). Retrying
    /// with the same token gives the same answer, so it is never retried.
    #[error("refused ({code}): {message}")]
    Refused {
        code: String,
        message: String,
        required_permission: Option<String>,
    },
    /// The input was rejected (`ValidationError`); `field` names the input field when known.
    #[error("invalid input ({code}{}): {message}", field.as_deref().map(|f| format!(", field {f}")).unwrap_or_default())]
    Invalid {
        code: String,
        message: String,
        field: Option<String>,
    },
    /// No such record in this organization.
    #[error("not found: {message}")]
    NotFound { message: String },
    /// A service of the network failed (`UpstreamServiceError`); `retryable` says
    /// whether asking again may help (retried for calls whose repeat cannot act
    /// twice; see [`crate::retry`]).
    #[error("the network's {service} failed ({code}): {message}")]
    Upstream {
        code: String,
        message: String,
        service: String,
        retryable: bool,
    },
    /// The network could not be reached, the connection broke, or one attempt
    /// got no answer in time.
    #[error("network trouble: {message}")]
    Network { message: String },
    /// The network answered 429: too many requests. `retry_after` is how long
    /// it asked us to wait (`Retry-After`), when it said; the call was retried
    /// while its deadline allowed, so this is what is left to tell the user.
    #[error("the network is busy (too many requests){}", retry_after.map(|d| format!("; try again in {}", seconds(d))).unwrap_or_default())]
    RateLimited { retry_after: Option<Duration> },
    /// No answer within the call's deadline, retries included: the network or
    /// the link to it is down or too slow. `last` is the last trouble seen.
    /// A write may or may not have been applied: sending it again with the same
    /// idempotency key is safe.
    #[error("{}", timed_out_text(*call, *after, *attempts, last.as_deref()))]
    TimedOut {
        call: CallKind,
        after: Duration,
        attempts: u32,
        last: Option<Box<ClientError>>,
    },
    /// Every attempt the policy allows for the call failed on transient
    /// trouble, within its deadline: `last` is what the last attempt met. Like
    /// [`ClientError::TimedOut`], a write may or may not have been applied, and
    /// sending it again with the same idempotency key is safe. (A call allowed
    /// only one attempt answers that attempt's error as it is.)
    #[error("gave up after {attempts} attempts in {} ({call} call): {last}", seconds(*after))]
    GaveUp {
        call: CallKind,
        after: Duration,
        attempts: u32,
        last: Box<ClientError>,
    },
    /// The server's certificate is not trusted (unknown authority, another
    /// name, expired). It will fail again until IT fixes the trust store or
    /// the clock, so it is never retried; the message says what to ask for.
    #[error("{message}")]
    Untrusted { message: String },
    /// The server failed (5xx or an error it reported about itself).
    #[error("server trouble{}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    Server {
        status: Option<u16>,
        message: String,
    },
    /// An answer we cannot understand.
    #[error("unexpected answer from the network: {message}")]
    Protocol { message: String },
}

impl ClientError {
    /// Trouble that may go away on another try: the connection (refused,
    /// reset, closed before the answer, no answer in time), HTTP 502/503/504,
    /// 429, and an `UpstreamServiceError` marked `retryable`. Nothing else will:
    /// not a refusal, a signed-out token, invalid input, an answer we cannot
    /// read, an untrusted certificate, a 500, or a call already out of time or
    /// out of attempts.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Network { .. } | Self::RateLimited { .. } => true,
            Self::Server { status, .. } => matches!(status, Some(502..=504)),
            Self::Upstream { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// A short name for logs (`signed_out`, `refused`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SignedOut { .. } => "signed_out",
            Self::Refused { .. } => "refused",
            Self::Invalid { .. } => "invalid",
            Self::NotFound { .. } => "not_found",
            Self::Upstream { .. } => "upstream",
            Self::Network { .. } => "network",
            Self::RateLimited { .. } => "rate_limited",
            Self::TimedOut { .. } => "timed_out",
            Self::GaveUp { .. } => "gave_up",
            Self::Untrusted { .. } => "untrusted",
            Self::Server { .. } => "server",
            Self::Protocol { .. } => "protocol",
        }
    }

    /// Maps a transport failure, stripped of its URL.
    pub(crate) fn from_reqwest(e: reqwest::Error) -> Self {
        let e = e.without_url();
        if e.is_decode() {
            Self::Protocol {
                message: e.to_string(),
            }
        } else if let Some(status) = e.status() {
            Self::Server {
                status: Some(status.as_u16()),
                message: e.to_string(),
            }
        } else if let Some(untrusted) = Self::untrusted(&e) {
            untrusted
        } else {
            Self::Network {
                message: error_chain(&e),
            }
        }
    }

    /// [`ClientError::Untrusted`] if a certificate refusal is behind `e`.
    /// A failure while reading an answer's body: the connection broke before
    /// the answer was complete (reqwest calls that a decode error).
    pub(crate) fn from_body_read(e: reqwest::Error) -> Self {
        let e = e.without_url();
        Self::untrusted(&e).unwrap_or_else(|| Self::Network {
            message: format!("the answer was cut off: {}", error_chain(&e)),
        })
    }

    pub(crate) fn untrusted(e: &(dyn std::error::Error + 'static)) -> Option<Self> {
        refused_certificate(e).map(|refused| Self::Untrusted {
            message: certificate_message(refused),
        })
    }

    pub(crate) fn protocol(message: impl Into<String>) -> Self {
        Self::Protocol {
            message: message.into(),
        }
    }
}

/// `1.5 s`, `20 s`.
pub(crate) fn seconds(d: Duration) -> String {
    let tenths = d.as_millis().div_ceil(100);
    if tenths.is_multiple_of(10) {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

/// "no answer from the network within 30 s (write call, 4 attempts); last: …";
/// a caller that only waited for another's request made no attempt of its own.
fn timed_out_text(
    call: CallKind,
    after: Duration,
    attempts: u32,
    last: Option<&ClientError>,
) -> String {
    let tries = match attempts {
        0 => String::new(),
        1 => ", 1 attempt".to_owned(),
        n => format!(", {n} attempts"),
    };
    let last = last.map(|e| format!("; last: {e}")).unwrap_or_default();
    format!(
        "no answer from the network within {} ({call} call{tries}){last}",
        seconds(after)
    )
}

/// A serde error's text without the values it quotes: `invalid type: string
/// "Ada", expected u64` would carry a token or a patient field into a message.
/// Keeps what names the shape (missing field, what was expected, the position).
pub(crate) fn shape_error(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    if text.starts_with("missing field") || text.starts_with("duplicate field") {
        return text;
    }
    match text.split_once(", expected ") {
        Some((_, expected)) => format!("a value of the wrong type, expected {expected}"),
        None => "a value of the wrong type".to_owned(),
    }
}

/// The certificate problem behind a failed connection, if that is what it was.
/// rustls reports through an `io::Error`, whose `source()` skips the error it
/// wraps: an `io::Error` is followed into what it wraps.
fn refused_certificate<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a rustls::CertificateError> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(rustls::Error::InvalidCertificate(refused)) = e.downcast_ref::<rustls::Error>()
        {
            return Some(refused);
        }
        next = match e.downcast_ref::<std::io::Error>() {
            Some(io) => io
                .get_ref()
                .map(|inner| inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

/// What to tell a person whose connection failed on the server's certificate:
/// what was wrong, and what fixes it on a clinic network that inspects HTTPS.
fn certificate_message(refused: &rustls::CertificateError) -> String {
    use rustls::CertificateError as C;
    let what = match refused {
        C::UnknownIssuer => "the server's certificate is not trusted: its certificate authority \
             is not in this computer's trust store"
            .to_owned(),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "the server's certificate is not trusted: it was issued for another name".to_owned()
        }
        C::Expired | C::ExpiredContext { .. } => {
            "the server's certificate is not trusted: it has expired (check this computer's clock)"
                .to_owned()
        }
        other => format!("the server's certificate is not trusted: {other}"),
    };
    format!(
        "{what}. If your clinic's network inspects HTTPS, ask its IT to install the network's \
         certificate authority in the system's trust store (on Linux, the system bundle or \
         SSL_CERT_FILE)"
    )
}

/// `e` and its sources on one line ("error sending request: connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
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

    fn server(status: u16) -> ClientError {
        ClientError::Server {
            status: Some(status),
            message: "down".into(),
        }
    }

    #[test]
    fn gateway_trouble_and_rate_limits_are_transient() {
        for transient in [
            server(502),
            server(503),
            server(504),
            ClientError::RateLimited { retry_after: None },
            ClientError::Network {
                message: "connection reset".into(),
            },
            ClientError::Upstream {
                code: "UPSTREAM".into(),
                message: "busy".into(),
                service: "screening".into(),
                retryable: true,
            },
        ] {
            assert!(transient.is_transient(), "{transient:?}");
        }
    }

    #[test]
    fn refusals_and_failures_that_repeat_are_not_transient() {
        for lasting in [
            ClientError::Refused {
                code: "X".into(),
                message: "no".into(),
                required_permission: None,
            },
            server(500),
            ClientError::Upstream {
                code: "UPSTREAM".into(),
                message: "gone".into(),
                service: "screening".into(),
                retryable: false,
            },
            ClientError::Untrusted {
                message: "unknown issuer".into(),
            },
            ClientError::TimedOut {
                call: CallKind::Read,
                after: Duration::from_secs(20),
                attempts: 3,
                last: None,
            },
            ClientError::GaveUp {
                call: CallKind::Write,
                after: Duration::from_secs(8),
                attempts: 5,
                last: Box::new(server(503)),
            },
        ] {
            assert!(!lasting.is_transient(), "{lasting:?}");
        }
    }

    #[test]
    fn a_rate_limit_says_when_to_try_again() {
        let e = ClientError::RateLimited {
            retry_after: Some(Duration::from_secs(30)),
        };

        assert_eq!(
            e.to_string(),
            "the network is busy (too many requests); try again in 30 s"
        );
    }

    #[test]
    fn a_timeout_names_the_call_its_attempts_and_the_last_trouble() {
        let e = ClientError::TimedOut {
            call: CallKind::Write,
            after: Duration::from_millis(30_000),
            attempts: 4,
            last: Some(Box::new(ClientError::Network {
                message: "connection refused".into(),
            })),
        };

        assert_eq!(
            e.to_string(),
            "no answer from the network within 30 s (write call, 4 attempts); last: network trouble: connection refused"
        );
    }

    #[test]
    fn giving_up_names_the_attempts_the_time_and_the_last_trouble() {
        let e = ClientError::GaveUp {
            call: CallKind::Write,
            after: Duration::from_millis(7_850),
            attempts: 5,
            last: Box::new(ClientError::Network {
                message: "connection closed before message completed".into(),
            }),
        };

        assert_eq!(
            e.to_string(),
            "gave up after 5 attempts in 7.9 s (write call): network trouble: connection closed before message completed"
        );
    }

    #[test]
    fn shape_errors_keep_no_quoted_value() {
        let e = serde_json::from_str::<u64>("\"eyJ.secret.token\"").unwrap_err();

        let text = shape_error(&e);

        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("expected u64"), "{text}");
    }

    #[test]
    fn an_unknown_certificate_authority_is_named_with_what_to_do() {
        let wrapped = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        let outer = std::io::Error::other(wrapped);

        let refused = refused_certificate(&outer).map(certificate_message);

        let message = refused.unwrap();
        assert!(
            message.starts_with("the server's certificate is not trusted"),
            "{message}"
        );
        assert!(message.contains("trust store"), "{message}");
    }

    #[test]
    fn a_refused_connection_is_no_certificate_problem() {
        let e = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);

        assert!(refused_certificate(&e).is_none());
    }

    #[test]
    fn invalid_names_the_field() {
        let e = ClientError::Invalid {
            code: "INVALID_INPUT".into(),
            message: "must be a date".into(),
            field: Some("dateOfBirth".into()),
        };

        assert_eq!(
            e.to_string(),
            "invalid input (INVALID_INPUT, field dateOfBirth): must be a date"
        );
    }
}
