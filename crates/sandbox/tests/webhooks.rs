//! Webhooks as the network sends them (docs/network-api.md, "Webhooks"): one
//! `POST` per event with the CloudEvents envelope and the documented headers, a
//! signature another HMAC implementation accepts, retried on `5xx` and on a refused
//! connection, dropped on another `4xx`, still delivered after a restart of the
//! sandbox, and — when asked — a seeded share delivered twice and out of order.

use crate::after_send_support;
use crate::network_support;
use crate::support;

use std::time::Duration;

use after_send_support::*;
use network_support::*;
use rxdesk_sandbox::webhooks::{
    AttemptOutcome, DeliveryPolicy, DeliveryState, EventFilter, SubscriptionError, WebhookSecret,
};
use rxdesk_sandbox::{AfterSendFlags, Config, FixtureSource, Sandbox, Storage};
use serde_json::Value;

/// Signs a metformin prescription for a new patient: one `prescription:created`.
async fn sign_one(sb: &Sandbox) -> String {
    let ada = prescriber(sb).await;
    let patient = add_patient(sb, &ada, "Nadia", "Petrov", "1969-11-30").await;
    signed(sb, &ada, &patient, METFORMIN).await
}

/// Waits for a delivery of `subject` in `state`.
async fn wait_for_state(sb: &Sandbox, subject: &str, state: DeliveryState) {
    wait_for_log(sb, &format!("{subject} {state:?}"), |log| {
        log.iter().any(|d| d.subject == subject && d.state == state)
    })
    .await;
}

#[tokio::test]
async fn each_event_is_one_post_with_the_documented_headers() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let before = rxdesk_sandbox::clock::real_now_ms();

    let rx = sign_one(&sb).await;

    receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    let request = &receiver.requests()[0];
    assert_eq!(
        request.header("content-type").as_deref(),
        Some("application/cloudevents-batch+json")
    );
    let signature = request.header("x-photon-signature").unwrap();
    assert_eq!(signature.len(), 64, "{signature}");
    assert!(
        signature.bytes().all(|b| b.is_ascii_hexdigit()),
        "{signature}"
    );
    let timestamp: i64 = request
        .header("x-photon-timestamp")
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        timestamp >= before && timestamp <= rxdesk_sandbox::clock::real_now_ms(),
        "Unix milliseconds, when sent: {timestamp}"
    );
}

#[tokio::test]
async fn the_body_is_one_cloudevent_of_the_organization() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;

    let rx = sign_one(&sb).await;

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    let event = &events[0];
    assert_eq!(event["specversion"], "1.0");
    assert_eq!(event["datacontenttype"], "application/json");
    assert_eq!(event["type"], "photon:prescription:created");
    assert_eq!(event["subject"], rx.as_str());
    assert_eq!(event["source"], "org:org_maple");
    assert_eq!(event["data"]["id"], rx.as_str());
    assert_eq!(event["id"].as_str().unwrap().len(), 26, "a ULID: {event:#}");
    let time = event["time"].as_str().unwrap();
    assert!(
        time.ends_with('Z') && time.len() == "2026-10-08T01:00:00.000Z".len(),
        "{time}"
    );
}

#[tokio::test]
async fn the_signature_verifies_with_another_hmac_implementation() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;

    let rx = sign_one(&sb).await;

    receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    let request = &receiver.requests()[0];
    let signature = hex::decode(request.header("x-photon-signature").unwrap()).unwrap();
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, SECRET.as_bytes());
    assert!(ring::hmac::verify(&key, &request.body, &signature).is_ok());
    let wrong = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, b"another secret");
    assert!(ring::hmac::verify(&wrong, &request.body, &signature).is_err());
}

#[tokio::test]
async fn a_503_is_retried_until_delivered() {
    let receiver = Receiver::answering(&[503]).await;
    let sb = start_subscribed(&receiver).await;
    let rx = sign_one(&sb).await;
    wait_for_log(&sb, "the first attempt", |log| {
        log.iter().any(|d| d.attempts.len() == 1)
    })
    .await;

    sb.clock().advance(Duration::from_secs(60)).await.unwrap();

    wait_for_state(&sb, &rx, DeliveryState::Delivered).await;
    let delivery = log(&sb).await.remove(0);
    let answers: Vec<_> = delivery
        .attempts
        .iter()
        .map(|a| (a.status, a.outcome))
        .collect();
    assert_eq!(
        answers,
        [
            (Some(503), AttemptOutcome::Retry),
            (Some(200), AttemptOutcome::Delivered)
        ]
    );
    let bodies: Vec<_> = receiver.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies[0], bodies[1], "the same bytes every attempt");
}

#[tokio::test]
async fn a_refused_connection_is_retried_until_the_receiver_listens() {
    let addr = unused_addr().await;
    let sb = start_with(subscribed(&format!("http://{addr}/webhooks"))).await;
    let rx = sign_one(&sb).await;
    wait_for_log(&sb, "the refused attempt", |log| {
        log.iter().any(|d| d.attempts.len() == 1)
    })
    .await;

    let receiver = Receiver::on(addr).await;
    sb.clock().advance(Duration::from_secs(60)).await.unwrap();

    receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    wait_for_state(&sb, &rx, DeliveryState::Delivered).await;
    let first = &log(&sb).await[0].attempts[0];
    assert_eq!((first.status, first.outcome), (None, AttemptOutcome::Retry));
    assert!(first.error.is_some(), "{first:#?}");
}

#[tokio::test]
async fn a_400_is_dropped_and_never_sent_again() {
    let receiver = Receiver::answering(&[400]).await;
    let sb = start_subscribed(&receiver).await;
    let rx = sign_one(&sb).await;
    wait_for_state(&sb, &rx, DeliveryState::Dropped).await;

    sb.clock().advance(Duration::from_secs(3600)).await.unwrap();
    let later = sign_one(&sb).await;

    receiver
        .wait_for_types(&later, &["photon:prescription:created"])
        .await;
    assert_eq!(types_about(&receiver.events(), &rx).len(), 1);
    let dropped = log(&sb)
        .await
        .into_iter()
        .find(|d| d.subject == rx)
        .unwrap();
    assert_eq!(dropped.attempts.len(), 1);
    assert_eq!(dropped.attempts[0].status, Some(400));
    assert_eq!(dropped.attempts[0].outcome, AttemptOutcome::Dropped);
}

#[tokio::test]
async fn a_pending_delivery_survives_a_restart_of_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let addr = unused_addr().await;
    let config = || Config {
        fixture: FixtureSource::File(fixture_path()),
        storage: Storage::Data(dir.path().to_owned()),
        after_send: subscribed(&format!("http://{addr}/webhooks")),
        ..Config::in_memory()
    };
    let first = support::start_with(config()).await;
    let rx = sign_one(&first).await;
    wait_for_log(&first, "the refused attempt", |log| {
        log.iter().any(|d| d.attempts.len() == 1)
    })
    .await;
    let event_id = log(&first).await[0].event_id.clone();
    first.shutdown().await;

    let receiver = Receiver::on(addr).await;
    let second = support::start_with(config()).await;
    second
        .clock()
        .advance(Duration::from_secs(60))
        .await
        .unwrap();

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    assert_eq!(events[0]["id"], event_id.as_str());
}

#[tokio::test]
async fn a_seeded_share_of_events_arrives_twice_and_out_of_order() {
    // The outbox numbers events from 1 in the order they happen: here 1 is the
    // prescription's `created`, 2 the order's `created`, 3 `depleted`... Choose a
    // seed that sends event 2 twice and late, and event 4 (`placed`) once, on time.
    let seed = (0..10_000)
        .find(|seed| {
            let policy = policy_with(0.5, *seed);
            policy.delivers_twice(2) && !policy.delivers_twice(4)
        })
        .unwrap();
    let receiver = Receiver::start().await;
    let sb = start_with(AfterSendFlags {
        duplicate_share: Some(0.5),
        seed: Some(seed),
        ..subscribed(&receiver.url())
    })
    .await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Tomas", "Lind", "1982-02-14").await;
    let mut input = draft_input(&patient, METFORMIN);
    input["dispense"]["refillsAllowed"] = serde_json::json!(0);
    let (rx, hash) = draft_with(&sb, &ada, input).await;
    sign_ok(&sb, &ada, &rx, &hash).await;
    let order = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order_at(&sb, &ada, &order, HARBOR_DOWNTOWN).await;
    send_ok(&sb, &ada, &order).await;

    advance(&sb, 2).await;

    let events = receiver
        .wait_until("order:created twice", |e| {
            of_type(e, &order, "photon:order:created").len() == 2
        })
        .await;
    let types = types_about(&events, &order);
    let placed = types
        .iter()
        .position(|t| t == "photon:order:placed")
        .unwrap();
    let created = types
        .iter()
        .position(|t| t == "photon:order:created")
        .unwrap();
    assert!(placed < created, "placed arrived before created: {types:?}");
    let copies = of_type(&events, &order, "photon:order:created");
    assert_eq!(copies[0]["id"], copies[1]["id"], "the same event, twice");
    let copy_numbers: Vec<i64> = log(&sb)
        .await
        .iter()
        .filter(|d| d.subject == order && d.kind == "photon:order:created")
        .map(|d| d.copy)
        .collect();
    assert_eq!(copy_numbers.len(), 2);
}

fn policy_with(share: f64, seed: u64) -> DeliveryPolicy {
    DeliveryPolicy {
        timeout: DeliveryPolicy::DEFAULT_TIMEOUT,
        first_retry: DeliveryPolicy::DEFAULT_FIRST_RETRY,
        max_retry: DeliveryPolicy::DEFAULT_MAX_RETRY,
        max_attempts: DeliveryPolicy::DEFAULT_MAX_ATTEMPTS,
        duplicate_share: share,
        seed,
        hold: STEP * 3 / 2,
    }
}

async fn order_at(sb: &Sandbox, token: &str, order_id: &str, pharmacy: &str) {
    let r = order(
        sb,
        token,
        serde_json::json!({ "id": order_id, "pharmacy": { "pharmacy": { "id": pharmacy } } }),
    )
    .await;
    assert_eq!(order_of(&r)["pharmacy"]["id"], pharmacy, "setup: {r:#}");
}

#[tokio::test]
async fn a_subscription_gets_only_the_types_it_chose() {
    let receiver = Receiver::start().await;
    let sb = start_with(AfterSendFlags {
        webhook_events: vec!["photon:order:created".to_owned()],
        ..subscribed(&receiver.url())
    })
    .await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Lena", "Fischer", "1991-07-07").await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = draft_order(&sb, &ada, &patient, &[&rx]).await;

    send_ok(&sb, &ada, &order).await;

    let events = receiver
        .wait_for_types(&order, &["photon:order:created"])
        .await;
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["photon:order:created"]);
}

#[tokio::test]
async fn another_organization_s_events_are_not_delivered() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Aki", "Tanaka", "1988-08-08").await;
    let birch_rx = signed(&sb, &ben, &birch_patient, METFORMIN).await;

    let maple_rx = sign_one(&sb).await;

    let events = receiver
        .wait_for_types(&maple_rx, &["photon:prescription:created"])
        .await;
    assert!(types_about(&events, &birch_rx).is_empty(), "{events:#?}");
}

#[tokio::test]
async fn webhook_targets_off_this_machine_are_refused_unless_allowed() {
    let sb = start_with(AfterSendFlags::default()).await;

    let refused = sb.webhooks().subscribe(
        "org_maple",
        "https://hooks.example.org/photon",
        EventFilter::All,
        WebhookSecret::new(SECRET),
    );

    assert!(matches!(refused, Err(SubscriptionError::NotLoopback(_))));
    let started = Sandbox::start(Config {
        fixture: FixtureSource::File(fixture_path()),
        after_send: subscribed("https://hooks.example.org/photon"),
        ..Config::in_memory()
    })
    .await;
    let message = started.err().unwrap().to_string();
    assert!(message.contains("loopback"), "{message}");
}

#[tokio::test]
async fn a_runtime_subscription_receives_events_from_then_on() {
    let receiver = Receiver::start().await;
    let sb = start_with(AfterSendFlags::default()).await;

    subscribe(&sb, &receiver);
    let rx = sign_one(&sb).await;

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    assert_eq!(events.len(), 1);
    let listed: Vec<Value> = sb
        .webhooks()
        .subscriptions()
        .iter()
        .map(|s| serde_json::to_value(s).unwrap())
        .collect();
    assert_eq!(listed[0]["url"], receiver.url());
    assert!(listed[0].get("secret").is_none(), "{listed:#?}");
}
