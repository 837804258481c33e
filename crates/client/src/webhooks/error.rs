//! [`WebhookError`]: why a webhook request is not believed, and the status to
//! answer it with. Below both the verifier and the event reader, which return it.

use std::time::Duration;

/// Why a webhook request is not believed. [`WebhookError::status`] is the answer
/// to give: the network drops an event answered with a `4xx`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// A header the network always sends is missing (or not text).
    #[error("the request has no {0} header: it did not come from the network")]
    MissingHeader(&'static str),
    /// `X-Photon-Signature` is not hex.
    #[error("X-Photon-Signature is not a hex-encoded HMAC-SHA256")]
    MalformedSignature,
    /// The body's HMAC under the secret is another: a forgery, another
    /// subscription's secret, or a body changed on the way.
    #[error(
        "the signature does not match the body: not signed with this secret, or the body was changed"
    )]
    BadSignature,
    /// `X-Photon-Timestamp` is not Unix milliseconds.
    #[error("X-Photon-Timestamp is not Unix milliseconds")]
    MalformedTimestamp,
    /// Sent longer ago (or further ahead) than the tolerance: a replay, or a clock
    /// that is off.
    #[error(
        "the request was sent {skew:?} {}, more than the {tolerance:?} allowed: a replay, or a clock that is off",
        if *in_future { "ahead of this clock" } else { "ago" }
    )]
    StaleTimestamp {
        skew: Duration,
        in_future: bool,
        tolerance: Duration,
    },
    /// The event's signed `time` is further from now than the event window: a
    /// captured delivery replayed (the timestamp header is not signed, so a
    /// fresh one proves nothing), or a clock that is off.
    #[error(
        "the event happened {skew:?} {}, more than the {window:?} allowed: a replayed capture, or a clock that is off",
        if *in_future { "ahead of this clock" } else { "ago" }
    )]
    StaleEvent {
        skew: Duration,
        in_future: bool,
        window: Duration,
    },
    /// The event's id could not be recorded as seen (the store on disk failed):
    /// not handled, so the network may send it again.
    #[error("the event id could not be recorded as seen: {0}")]
    SeenStore(String),
    /// Signed, but not a network event this version can read.
    #[error("the body is not a network event: {0}")]
    MalformedEvent(String),
}

impl WebhookError {
    /// The HTTP status to answer: `401` for a request not proven to come from the
    /// network (or too old to believe), `400` for a signed body that cannot be
    /// read, `503` when the receiver could not record it (the network retries).
    pub fn status(&self) -> u16 {
        match self {
            Self::MalformedEvent(_) => 400,
            Self::SeenStore(_) => 503,
            _ => 401,
        }
    }
}
