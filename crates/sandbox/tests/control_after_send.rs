//! The control endpoint's after-Send routes (docs/network-api.md, "Control
//! endpoint"): the test clock read and advanced over HTTP (a Get shows the step at
//! once), subscriptions added and removed at runtime (loopback only), and the
//! delivery log as JSON.

use crate::after_send_support;
use crate::network_support;
use crate::support;

use std::net::SocketAddr;

use after_send_support::*;
use network_support::*;
use rxdesk_sandbox::{AfterSendFlags, Config, FixtureSource, Sandbox};
use serde_json::{Value, json};

/// A sandbox with `network.toml`, these after-Send flags and a control endpoint.
async fn start_with_control(after_send: AfterSendFlags) -> Sandbox {
    support::start_with(Config {
        fixture: FixtureSource::File(fixture_path()),
        control: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        after_send,
        ..Config::in_memory()
    })
    .await
}

fn control(sb: &Sandbox, path: &str) -> String {
    sb.control_url().unwrap().join(path).unwrap().to_string()
}

async fn post(sb: &Sandbox, path: &str, body: Value) -> (u16, Value) {
    let response = support::http()
        .post(control(sb, path))
        .bearer_auth(sb.control_token().unwrap())
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn get(sb: &Sandbox, path: &str) -> Value {
    let response = support::http()
        .get(control(sb, path))
        .bearer_auth(sb.control_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.unwrap()
}

/// A sent order at Harbor Drug Downtown; its id.
async fn sent_order(sb: &Sandbox, token: &str) -> String {
    let patient = add_patient(sb, token, "Ines", "Moreau", "1984-04-04").await;
    let rx = signed(sb, token, &patient, METFORMIN).await;
    let order_id = draft_order(sb, token, &patient, &[&rx]).await;
    order(
        sb,
        token,
        json!({ "id": order_id, "pharmacy": { "pharmacy": { "id": HARBOR_DOWNTOWN } } }),
    )
    .await;
    send_ok(sb, token, &order_id).await;
    order_id
}

#[tokio::test]
async fn advancing_the_clock_over_http_moves_the_clock_by_that_much() {
    let sb = start_with_control(AfterSendFlags::default()).await;
    let before = get(&sb, "/clock").await;

    let (status, after) = post(&sb, "/clock/advance", json!({ "seconds": 90 })).await;

    assert_eq!(status, 200, "{after:#}");
    assert_eq!(
        after["offsetMs"].as_i64().unwrap() - before["offsetMs"].as_i64().unwrap(),
        90_000
    );
    assert!(after["now"].as_str().unwrap().ends_with('Z'), "{after:#}");
}

#[tokio::test]
async fn an_order_shows_the_pharmacy_s_step_as_soon_as_the_advance_answers() {
    let sb = start_with_control(AfterSendFlags::default()).await;
    let ada = prescriber(&sb).await;
    let order_id = {
        let patient = add_patient(&sb, &ada, "Ines", "Moreau", "1984-04-04").await;
        let rx = signed(&sb, &ada, &patient, METFORMIN).await;
        let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
        order(
            &sb,
            &ada,
            json!({ "id": id, "pharmacy": { "pharmacy": { "id": "phr_lakeside" } } }),
        )
        .await;
        send_ok(&sb, &ada, &id).await;
        id
    };

    let seconds = STEP.as_secs() * 2;
    let (status, _) = post(&sb, "/clock/advance", json!({ "seconds": seconds })).await;

    assert_eq!(status, 200);
    let got = get_order(&sb, &ada, &order_id).await;
    assert_eq!(order_of(&got)["pharmacy"]["id"], HARBOR_DOWNTOWN, "{got:#}");
    assert_eq!(order_of(&got)["exceptions"][0]["type"], "PHARMACY_CLOSED");
}

#[tokio::test]
async fn the_clock_does_not_go_back() {
    let sb = start_with_control(AfterSendFlags::default()).await;

    let (status, body) = post(&sb, "/clock/advance", json!({ "seconds": 0 })).await;
    let (negative, _) = post(&sb, "/clock/advance", json!({ "seconds": -5 })).await;

    assert_eq!(status, 422, "{body:#}");
    assert!(
        body["error"].as_str().unwrap().contains("forward"),
        "{body:#}"
    );
    assert_eq!(negative, 422);
}

#[tokio::test]
async fn a_subscription_added_over_http_receives_events_and_is_listed_without_its_secret() {
    let receiver = Receiver::start().await;
    let sb = start_with_control(AfterSendFlags::default()).await;

    let (status, added) = post(
        &sb,
        "/webhooks/subscriptions",
        json!({ "organization": "org_maple", "url": receiver.url(), "secret": SECRET, "events": ["photon:order:created"] }),
    )
    .await;
    let ada = prescriber(&sb).await;
    let order_id = sent_order(&sb, &ada).await;

    assert_eq!(status, 201, "{added:#}");
    receiver
        .wait_for_types(&order_id, &["photon:order:created"])
        .await;
    let listed = get(&sb, "/webhooks/subscriptions").await;
    assert_eq!(listed[0]["id"], added["id"]);
    assert_eq!(listed[0]["events"], json!(["photon:order:created"]));
    assert!(!listed.to_string().contains(SECRET), "{listed:#}");
}

#[tokio::test]
async fn a_subscription_off_this_machine_is_refused_over_http() {
    let sb = start_with_control(AfterSendFlags::default()).await;

    let (status, body) = post(
        &sb,
        "/webhooks/subscriptions",
        json!({ "organization": "org_maple", "url": "https://hooks.example.org/x", "secret": SECRET }),
    )
    .await;

    assert_eq!(status, 422, "{body:#}");
    assert!(
        body["error"].as_str().unwrap().contains("loopback"),
        "{body:#}"
    );
    assert_eq!(get(&sb, "/webhooks/subscriptions").await, json!([]));
}

#[tokio::test]
async fn a_removed_subscription_gets_nothing_more() {
    let receiver = Receiver::start().await;
    let other = Receiver::start().await;
    let sb = start_with_control(subscribed(&other.url())).await;
    let (_, added) = post(
        &sb,
        "/webhooks/subscriptions",
        json!({ "organization": "org_maple", "url": receiver.url(), "secret": SECRET }),
    )
    .await;
    let id = added["id"].as_str().unwrap();

    let response = support::http()
        .delete(control(&sb, &format!("/webhooks/subscriptions/{id}")))
        .bearer_auth(sb.control_token().unwrap())
        .send()
        .await
        .unwrap();
    let ada = prescriber(&sb).await;
    let order_id = sent_order(&sb, &ada).await;

    assert_eq!(response.status(), 204);
    other
        .wait_for_types(&order_id, &["photon:order:created"])
        .await;
    assert!(receiver.events().is_empty(), "{:#?}", receiver.events());
}

#[tokio::test]
async fn the_delivery_log_is_served_as_json_for_one_record() {
    let receiver = Receiver::answering(&[503]).await;
    let sb = start_with_control(AfterSendFlags {
        webhook_events: vec!["photon:order:created".to_owned()],
        ..subscribed(&receiver.url())
    })
    .await;
    let ada = prescriber(&sb).await;
    let order_id = sent_order(&sb, &ada).await;
    wait_for_log(&sb, "a first attempt", |log| {
        log.iter()
            .any(|d| d.subject == order_id && !d.attempts.is_empty())
    })
    .await;

    let other_order = sent_order(&sb, &ada).await;
    wait_for_log(&sb, "the other order's delivery", |log| {
        log.iter().any(|d| d.subject == other_order)
    })
    .await;

    let log = get(&sb, &format!("/webhooks/deliveries?subject={order_id}")).await;

    let entries = log.as_array().unwrap();
    assert!(
        entries.iter().all(|d| d["subject"] == order_id.as_str()),
        "{log:#}"
    );
    let created = entries
        .iter()
        .find(|d| d["type"] == "photon:order:created")
        .unwrap();
    assert_eq!(created["attempts"][0]["status"], 503, "{created:#}");
    assert_eq!(created["attempts"][0]["outcome"], "RETRY");
    assert_eq!(created["state"], "PENDING");
    assert!(created["nextAttemptAt"].is_string(), "{created:#}");
    assert!(
        created["subscription"]
            .as_str()
            .unwrap()
            .starts_with("whk_")
    );
}
