//! Checking a webhook request before believing it: the HMAC-SHA256 of the raw body
//! under the shared secret against `X-Photon-Signature` (compared in constant time
//! by `hmac`'s `verify_slice`), then `X-Photon-Timestamp` within a tolerance of
//! now, then the body read as an [`Event`], whose signed `time` must lie within
//! the event window of now.
//!
//! What each check is worth against a replay: the network signs the body only,
//! so `X-Photon-Timestamp` is **not** covered by the signature — anyone holding a
//! captured delivery can resend it with a fresh timestamp. The header check only
//! turns away a stale request sent as it was; it is no replay defence. What
//! bounds a replay is the body's CloudEvents `time` (when the event happened),
//! which the signature covers: a capture older than the event window is refused
//! ([`WebhookError::StaleEvent`]), and within the window a
//! [`super::Deduplicator`] that remembers the ids it saw (on disk, across the
//! receiver's restarts: [`super::Deduplicator::open`]) turns the replayed id away.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac as _};
use reqwest::header::HeaderMap;
use sha2::Sha256;
use time::OffsetDateTime;

use super::error::WebhookError;
use super::event::Event;
use crate::Secret;

/// The header carrying the body's HMAC-SHA256, hex.
pub const SIGNATURE_HEADER: &str = "x-photon-signature";
/// The header carrying when the request was sent, Unix milliseconds (not signed).
pub const TIMESTAMP_HEADER: &str = "x-photon-timestamp";

/// A verifier cannot be made without a secret: an empty one (an environment
/// variable that was never set) is a key anyone can compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "a webhook verifier needs the subscription's shared secret, and this one is empty: every request would verify under a key anyone can compute"
)]
pub struct EmptySecret;

/// Verifies requests signed with one shared secret.
#[derive(Debug, Clone)]
pub struct Verifier {
    secret: Secret,
    tolerance: Duration,
    event_window: Duration,
}

impl Verifier {
    /// How far `X-Photon-Timestamp` may be from now, either way, by default.
    pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

    /// How far an event's signed `time` may be from now, either way, by
    /// default: three days.
    ///
    /// It must be at least the network's retry span, or a delivery retried
    /// late (the receiver was down, the network was catching up) is refused
    /// with a `401`, which the network takes as final: the event would be
    /// lost. The vendor's documentation promises retries "later" without a
    /// span; three days is the longest span common webhook senders retry over
    /// (Stripe: up to three days), and far beyond the sandbox's default policy
    /// (8 attempts, waits doubling from 1 s: about 2 minutes, plus the 10 s
    /// timeouts). A sandbox stopped with deliveries pending sends them after
    /// its restart, and its test clock runs ahead of real time (event times
    /// are simulated): beyond three days either way, widen the window
    /// ([`Verifier::with_event_window`]). The longer the window, the more ids
    /// the [`super::Deduplicator`] must hold to cover it.
    pub const DEFAULT_EVENT_WINDOW: Duration = Duration::from_secs(3 * 24 * 3600);

    /// A verifier for the subscription's shared secret; an empty (or blank)
    /// secret is refused.
    pub fn new(secret: impl Into<Secret>) -> Result<Self, EmptySecret> {
        let secret = secret.into();
        if secret.expose().trim().is_empty() {
            return Err(EmptySecret);
        }
        Ok(Self {
            secret,
            tolerance: Self::DEFAULT_TOLERANCE,
            event_window: Self::DEFAULT_EVENT_WINDOW,
        })
    }

    /// Accepts timestamps at most `tolerance` from now (either way: clocks drift).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Accepts events whose signed `time` is at most `window` from now (either
    /// way). Keep it at least the network's retry span
    /// ([`Verifier::DEFAULT_EVENT_WINDOW`] says why).
    pub fn with_event_window(mut self, window: Duration) -> Self {
        self.event_window = window;
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
        let event = Event::parse(body)?;
        self.check_event_time(event.time, now)?;
        Ok(event)
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
        let (skew, in_future) = skew(now_ms(now) - sent_ms);
        if skew > self.tolerance {
            return Err(WebhookError::StaleTimestamp {
                skew,
                in_future,
                tolerance: self.tolerance,
            });
        }
        Ok(())
    }

    fn check_event_time(&self, time: OffsetDateTime, now: SystemTime) -> Result<(), WebhookError> {
        let happened_ms = time.unix_timestamp_nanos() / 1_000_000;
        let (skew, in_future) = skew(now_ms(now) - happened_ms);
        if skew > self.event_window {
            return Err(WebhookError::StaleEvent {
                skew,
                in_future,
                window: self.event_window,
            });
        }
        Ok(())
    }
}

/// `now` in Unix milliseconds (negative before 1970).
fn now_ms(now: SystemTime) -> i128 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(since) => i128::try_from(since.as_millis()).unwrap_or(i128::MAX),
        Err(before) => -i128::try_from(before.duration().as_millis()).unwrap_or(i128::MAX),
    }
}

/// A difference `now − then` in milliseconds as a distance and whether `then`
/// is ahead of now.
fn skew(difference_ms: i128) -> (Duration, bool) {
    let distance = u64::try_from(difference_ms.unsigned_abs()).unwrap_or(u64::MAX);
    (Duration::from_millis(distance), difference_ms < 0)
}
