//! The delivery worker: fans new outbox events out to the subscriptions that want
//! them (choosing, by seed, the share delivered twice and late), then sends each
//! due delivery as the network does — one `POST` per event, the CloudEvent as the
//! body, `Content-Type: application/cloudevents-batch+json`, `X-Photon-Signature`,
//! `X-Photon-Timestamp` (Unix milliseconds, real time) — and records every attempt.
//!
//! The answer decides ([`verdict`]): `2xx` delivered; `5xx`, `408`, `429`, a
//! timeout or no connection retried with bounded exponential backoff on the
//! simulated clock (given up after `max_attempts`); any other answer dropped.
//! Deliveries of one subscription go one at a time, in the order they fell due;
//! subscriptions do not wait for each other. Delivery is at least once: an attempt
//! cut short by a shutdown is made again after the restart.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::outbox::{self, AttemptRecord, DueDelivery, Outcome};
use super::settings::DeliveryPolicy;
use super::signature;
use super::state::Inner;
use super::subscriptions::Subscription;
use crate::clock;
use crate::store::StoreError;

/// The `Content-Type` of every request: the network's, though the body is one event.
pub const CONTENT_TYPE_BATCH: &str = "application/cloudevents-batch+json";
/// The header carrying the body's HMAC-SHA256, hex.
pub const SIGNATURE_HEADER: &str = "X-Photon-Signature";
/// The header carrying when the request was sent, Unix milliseconds.
pub const TIMESTAMP_HEADER: &str = "X-Photon-Timestamp";

/// What came back from one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Status(u16),
    /// No HTTP answer: refused, reset, timed out; in words.
    NoAnswer(String),
}

/// What an answer means for the delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Delivered,
    Retry,
    Drop,
}

/// The network's rule: `2xx` done; `5xx`, `408`, `429` or no answer retried; any
/// other answer dropped (redirects are not followed).
pub fn verdict(answer: &Answer) -> Verdict {
    match answer {
        Answer::Status(200..=299) => Verdict::Delivered,
        Answer::Status(408 | 429 | 500..=599) | Answer::NoAnswer(_) => Verdict::Retry,
        Answer::Status(_) => Verdict::Drop,
    }
}

/// The worker's loop until `shutdown` turns true (or its sender drops).
pub(super) async fn run(inner: Arc<Inner>, mut shutdown: watch::Receiver<bool>) {
    let mut batches: JoinSet<String> = JoinSet::new();
    let mut busy: HashSet<String> = HashSet::new();
    loop {
        if *shutdown.borrow() {
            break;
        }
        let wait = match pass(&inner, &mut batches, &mut busy).await {
            Ok(wait) => wait,
            Err(e) => {
                tracing::error!(error = %e, "webhook delivery pass failed; trying again shortly");
                Duration::from_secs(1)
            }
        };
        tokio::select! {
            () = inner.notify.notified() => {}
            () = tokio::time::sleep(wait) => {}
            Some(done) = batches.join_next(), if !batches.is_empty() => {
                if let Ok(subscription) = done {
                    busy.remove(&subscription);
                } else {
                    busy.clear();
                }
            }
            changed = shutdown.changed() => {
                if changed.is_err() {
                    break;
                }
            }
        }
    }
    batches.abort_all();
    while batches.join_next().await.is_some() {}
}

/// One pass: fan out, start the due deliveries of every idle subscription, and say
/// how long to sleep before the next due one.
async fn pass(
    inner: &Arc<Inner>,
    batches: &mut JoinSet<String>,
    busy: &mut HashSet<String>,
) -> Result<Duration, StoreError> {
    // Fanned out and chosen in one call on the connection: an event a pharmacy
    // step adds (with the clock moved past it) is a delivery before anything
    // due later is chosen — otherwise a held duplicate could go out ahead of
    // the step that came before it.
    let subscriptions = inner.subscriptions_now();
    let policy = inner.policy.clone();
    let (now_ms, due) = inner
        .db
        .call(move |conn| {
            fan_out(conn, &subscriptions, &policy)?;
            let now_ms = clock::now_ms(conn)?;
            Ok((now_ms, outbox::due(conn, now_ms, 500)?))
        })
        .await?;
    let mut by_subscription: HashMap<String, Vec<DueDelivery>> = HashMap::new();
    for delivery in due {
        by_subscription
            .entry(delivery.subscription_id.clone())
            .or_default()
            .push(delivery);
    }
    for (id, deliveries) in by_subscription {
        if busy.contains(&id) {
            continue;
        }
        match inner.subscription(&id) {
            Some(subscription) => {
                busy.insert(id.clone());
                let inner = Arc::clone(inner);
                batches.spawn(async move {
                    deliver_all(&inner, &subscription, deliveries).await;
                    id
                });
            }
            None => drop_orphans(inner, &id, deliveries).await?,
        }
    }
    let next = inner.db.call(|conn| outbox::next_due_ms(conn)).await?;
    Ok(match next {
        // Due already: its subscription is busy; the batch's end wakes the loop.
        Some(due_ms) if due_ms <= now_ms => Duration::from_secs(1),
        Some(due_ms) => Duration::from_millis(u64::try_from(due_ms - now_ms).unwrap_or(0)),
        None => Duration::from_secs(3600),
    })
}

/// Creates the deliveries of every event not yet fanned out, on the caller's
/// connection.
fn fan_out(
    conn: &mut rusqlite::Connection,
    subscriptions: &[Subscription],
    policy: &DeliveryPolicy,
) -> Result<(), StoreError> {
    let hold_ms = i64::try_from(policy.hold.as_millis()).unwrap_or(i64::MAX);
    const PAGE: i64 = 200;
    loop {
        let tx = conn.transaction()?;
        let events = outbox::events_to_fan_out(&tx, PAGE)?;
        for event in &events {
            let twice = policy.delivers_twice(event.seq);
            let due_ms = if twice {
                event.time_ms.saturating_add(hold_ms)
            } else {
                event.time_ms
            };
            for subscription in subscriptions
                .iter()
                .filter(|s| s.wants(&event.organization, &event.kind))
            {
                outbox::insert_delivery(&tx, event.seq, subscription.id(), 1, due_ms)?;
                if twice {
                    outbox::insert_delivery(&tx, event.seq, subscription.id(), 2, due_ms)?;
                }
            }
            outbox::mark_fanned_out(&tx, event.seq)?;
        }
        tx.commit()?;
        if i64::try_from(events.len()).unwrap_or(PAGE) < PAGE {
            return Ok(());
        }
    }
}

/// Deliveries left for a subscription no longer configured (a runtime
/// subscription before a restart): dropped, and the log says why.
async fn drop_orphans(
    inner: &Arc<Inner>,
    subscription_id: &str,
    deliveries: Vec<DueDelivery>,
) -> Result<(), StoreError> {
    let error = format!("no subscription {subscription_id} is configured any more");
    tracing::warn!(
        subscription = subscription_id,
        "{error}: its deliveries are dropped"
    );
    inner
        .db
        .call(move |conn| {
            for delivery in deliveries {
                let record = AttemptRecord {
                    attempt: delivery.attempts + 1,
                    sent_at_ms: clock::real_now_ms(),
                    status: None,
                    error: Some(error.clone()),
                    outcome: Outcome::Dropped,
                };
                outbox::record_attempt(conn, delivery.seq, &record)?;
            }
            Ok(())
        })
        .await
}

/// Sends a subscription's due deliveries one after the other.
async fn deliver_all(
    inner: &Arc<Inner>,
    subscription: &Subscription,
    deliveries: Vec<DueDelivery>,
) {
    for delivery in deliveries {
        if let Err(e) = deliver(inner, subscription, &delivery).await {
            tracing::error!(error = %e, delivery = delivery.seq, "webhook attempt not recorded");
            return;
        }
    }
}

async fn deliver(
    inner: &Arc<Inner>,
    subscription: &Subscription,
    delivery: &DueDelivery,
) -> Result<(), StoreError> {
    let sent_at_ms = clock::real_now_ms();
    let answer = post(inner, subscription, &delivery.body, sent_at_ms).await;
    let attempt = delivery.attempts + 1;
    let policy = &inner.policy;
    let retry_in = match verdict(&answer) {
        Verdict::Retry if attempt < i64::from(policy.max_attempts) => {
            Some(policy.retry_after(u32::try_from(attempt).unwrap_or(u32::MAX)))
        }
        _ => None,
    };
    let (status, error) = match &answer {
        Answer::Status(code) => (Some(*code), None),
        Answer::NoAnswer(why) => (None, Some(why.clone())),
    };
    let outcome_name = match (verdict(&answer), retry_in) {
        (Verdict::Delivered, _) => "DELIVERED",
        (Verdict::Drop, _) => "DROPPED",
        (Verdict::Retry, Some(_)) => "RETRY",
        (Verdict::Retry, None) => "GAVE_UP",
    };
    tracing::info!(
        event = %delivery.event_id,
        kind = %delivery.kind,
        subscription = subscription.id(),
        copy = delivery.copy,
        attempt,
        status,
        error = error.as_deref().unwrap_or("-"),
        outcome = outcome_name,
        "webhook delivery attempt"
    );
    let seq = delivery.seq;
    let judged = verdict(&answer);
    inner
        .db
        .call(move |conn| {
            let outcome = match (judged, retry_in) {
                (Verdict::Delivered, _) => Outcome::Delivered,
                (Verdict::Drop, _) => Outcome::Dropped,
                (Verdict::Retry, None) => Outcome::GaveUp,
                (Verdict::Retry, Some(wait)) => Outcome::Retry {
                    due_ms: clock::now_ms(conn)?
                        .saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)),
                },
            };
            let record = AttemptRecord {
                attempt,
                sent_at_ms,
                status,
                error,
                outcome,
            };
            outbox::record_attempt(conn, seq, &record)
        })
        .await
}

/// One `POST` of `body`, signed with the subscription's secret.
async fn post(inner: &Inner, subscription: &Subscription, body: &str, sent_at_ms: i64) -> Answer {
    let signature = signature::sign(subscription.secret.expose(), body.as_bytes());
    let request = inner
        .http
        .post(subscription.url.clone())
        .header(CONTENT_TYPE, CONTENT_TYPE_BATCH)
        .header(SIGNATURE_HEADER, signature)
        .header(TIMESTAMP_HEADER, sent_at_ms.to_string())
        .timeout(inner.policy.timeout)
        .body(body.to_owned());
    match request.send().await {
        Ok(response) => Answer::Status(response.status().as_u16()),
        Err(e) if e.is_timeout() => Answer::NoAnswer(format!(
            "no answer within {} s",
            inner.policy.timeout.as_secs_f64()
        )),
        Err(e) => Answer::NoAnswer(innermost(&e)),
    }
}

/// The deepest cause of an error, in words (e.g. "Connection refused (os error 111)"):
/// the outer layers repeat the URL.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(source) = current.source() {
        current = source;
    }
    let text = current.to_string();
    if text.is_empty() {
        "the connection failed".to_owned()
    } else {
        format!("no answer: {text}")
    }
}

/// The HTTP client of deliveries: no proxy (targets are on this machine unless
/// allowed otherwise, and a clinic proxy has no business with them), no
/// redirects, and its own TLS (rustls on ring, the built-in Mozilla roots), so it
/// needs no process-wide crypto provider from whoever embeds the sandbox.
pub(super) fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!(
            "rxdesk-sandbox-webhooks/",
            env!("CARGO_PKG_VERSION")
        ))
        .use_preconfigured_tls(tls_config())
        .build()
}

// The one `expect` below is proven by its comment.
#[allow(clippy::expect_used)]
fn tls_config() -> rustls::ClientConfig {
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let mut config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    // ring supports both default protocol versions (TLS 1.2 and 1.3), the only
    // thing this step checks: it cannot fail.
    .expect("ring supports the default TLS versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    // reqwest is built without HTTP/2: say so, as its own rustls setup would.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

#[cfg(test)]
mod tests {
    use super::{Answer, Verdict, verdict};

    #[test]
    fn answers_are_judged_as_the_network_documents() {
        let cases = [
            (Answer::Status(200), Verdict::Delivered),
            (Answer::Status(204), Verdict::Delivered),
            (Answer::Status(500), Verdict::Retry),
            (Answer::Status(503), Verdict::Retry),
            (Answer::Status(408), Verdict::Retry),
            (Answer::Status(429), Verdict::Retry),
            (Answer::NoAnswer("refused".into()), Verdict::Retry),
            (Answer::Status(400), Verdict::Drop),
            (Answer::Status(401), Verdict::Drop),
            (Answer::Status(404), Verdict::Drop),
            (Answer::Status(302), Verdict::Drop),
        ];
        for (answer, expected) in cases {
            assert_eq!(verdict(&answer), expected, "{answer:?}");
        }
    }
}
