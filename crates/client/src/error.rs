//! [`ClientError`]: the one error of every call to the network after sign-in
//! (API operations, token renewal, machine tokens, revocation), with variants a
//! caller can act on, and the retry policy that goes with them.
//!
//! Browser sign-in has its own [`SignInError`](crate::SignInError): it is another
//! boundary (a person in a browser, a local listener) whose outcomes — denied,
//! timed out, cancelled — mean nothing for an API call; it wraps a
//! `ClientError` for the parts they share. Messages carry what the server said
//! and what we saw, never a token or a patient field.

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
    /// whether asking again may help (retried only for reads and calls with an
    /// `externalId`).
    #[error("the network's {service} failed ({code}): {message}")]
    Upstream {
        code: String,
        message: String,
        service: String,
        retryable: bool,
    },
    /// The network could not be reached or the connection broke.
    #[error("network trouble: {message}")]
    Network { message: String },
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
    /// Network and server trouble may go away on a second try; nothing else will.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Network { .. } | Self::Server { .. })
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

    #[test]
    fn only_network_and_server_trouble_is_transient() {
        let server = ClientError::Server {
            status: Some(503),
            message: "down".into(),
        };
        let refused = ClientError::Refused {
            code: "X".into(),
            message: "no".into(),
            required_permission: None,
        };

        assert!(server.is_transient());
        assert!(!refused.is_transient());
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
