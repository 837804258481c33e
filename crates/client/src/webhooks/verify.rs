//! Checking a webhook request before believing it: the HMAC-SHA256 of the raw body
//! under the shared secret against `X-Photon-Signature` (compared in constant time
//! by `hmac`'s `verify_slice`), then `X-Photon-Timestamp` within a tolerance of
//! now, then the body read as an [`Event`].
//!
//! The timestamp is not covered by the signature (the network signs the body
//! only): it turns away old captures cheaply, and the [`super::Deduplicator`]
//! turns away a replayed event id.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac as _};
use reqwest::header::HeaderMap;
use sha2::Sha256;

use super::error::WebhookError;
use super::event::Event;
use crate::Secret;

/// The header carrying the body's HMAC-SHA256, hex.
pub const SIGNATURE_HEADER: &str = "x-photon-signature";
/// The header carrying when the request was sent, Unix milliseconds.
pub const TIMESTAMP_HEADER: &str = "x-photon-timestamp";

/// Verifies requests signed with one shared secret.
#[derive(Debug, Clone)]
pub struct Verifier {
    secret: Secret,
    tolerance: Duration,
}

impl Verifier {
    /// How far `X-Photon-Timestamp` may be from now, either way, by default.
    pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

    /// A verifier for the subscription's shared secret.
    pub fn new(secret: impl Into<Secret>) -> Self {
        Self {
            secret: secret.into(),
            tolerance: Self::DEFAULT_TOLERANCE,
        }
    }

    /// Accepts timestamps at most `tolerance` from now (either way: clocks drift).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Checks a request's headers and raw body (exactly as received: hash before
    /// parsing) against the clock now, and reads the event.
    pub fn verify(&self, headers: &HeaderMap, body: &[u8]) -> Result<Event, WebhookError> {
        let header = |name: &'static str| -> Result<&str, WebhookError> {
            headers
                .get(name)
                .ok_or(WebhookError::MissingHeader(name))?
                .to_str()
                .map_err(|_| WebhookError::MissingHeader(name))
        };
        self.verify_at(
            header(SIGNATURE_HEADER)?,
            header(TIMESTAMP_HEADER)?,
            body,
            SystemTime::now(),
        )
    }

    /// [`Verifier::verify`] with the header values given and the time of `now`.
    pub fn verify_at(
        &self,
        signature: &str,
        timestamp: &str,
        body: &[u8],
        now: SystemTime,
    ) -> Result<Event, WebhookError> {
        self.check_signature(signature, body)?;
        self.check_timestamp(timestamp, now)?;
        Event::parse(body)
    }

    fn check_signature(&self, signature: &str, body: &[u8]) -> Result<(), WebhookError> {
        let expected =
            hex::decode(signature.trim()).map_err(|_| WebhookError::MalformedSignature)?;
        // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(self.secret.expose().as_bytes()) else {
            return Err(WebhookError::BadSignature);
        };
        mac.update(body);
        mac.verify_slice(&expected)
            .map_err(|_| WebhookError::BadSignature)
    }

    fn check_timestamp(&self, timestamp: &str, now: SystemTime) -> Result<(), WebhookError> {
        let sent_ms: i128 = timestamp
            .trim()
            .parse()
            .map_err(|_| WebhookError::MalformedTimestamp)?;
        let now_ms = match now.duration_since(UNIX_EPOCH) {
            Ok(since) => i128::try_from(since.as_millis()).unwrap_or(i128::MAX),
            Err(before) => -i128::try_from(before.duration().as_millis()).unwrap_or(i128::MAX),
        };
        let skew_ms = now_ms - sent_ms;
        let tolerance_ms = i128::try_from(self.tolerance.as_millis()).unwrap_or(i128::MAX);
        if skew_ms.abs() > tolerance_ms {
            return Err(WebhookError::StaleTimestamp {
                skew: Duration::from_millis(
                    u64::try_from(skew_ms.unsigned_abs()).unwrap_or(u64::MAX),
                ),
                in_future: skew_ms < 0,
                tolerance: self.tolerance,
            });
        }
        Ok(())
    }
}
