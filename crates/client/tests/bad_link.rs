//! The client on a bad link: answers lost after the sandbox applied a write,
//! connections broken before, server trouble, rate limits with `Retry-After`, a
//! token endpoint that is down for a while, and a link that never answers.
//! Each write is sent again only when a repeat cannot act twice, and a lost
//! answer never becomes a second record; a refusal is sent once; a dead link
//! ends at the call's deadline with an error that says so.
//!
//! The faults come from the test proxy (`support::Proxy`), a fake bad link in
//! front of a real in-process sandbox.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rxdesk_client::network::documents::*;
use rxdesk_client::network::{Network, Outcome};
use rxdesk_client::retry::{self, CallKind, RetryCause, RetryNotice, RetryPolicy};
use rxdesk_client::{Client, ClientError, IdempotencyKey};
use support::*;

const AZITHROMYCIN: &str = "med_azithromycin_250_tab";

/// Quick backoff, so that a test spends its time on what it tests.
fn quick(client: Client) -> Client {
    client.with_retry_policy(
        RetryPolicy::default().with_backoff(Duration::from_millis(20), Duration::from_millis(200)),
    )
}

fn new_patient(first: &str) -> PatientInput {
    PatientInput {
        demographic: Some(PatientDemographicInput {
            name: Some(HumanNameInput {
                first: Some(first.into()),
                last: Some("Linktest".into()),
                ..Default::default()
            }),
            date_of_birth: Some(Date("1968-09-14".into())),
            sex: Some(Sex::Female),
            phone: Some("+16175550123".into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn add_patient(network: &Network, first: &str) -> String {
    match network.sync_patient(new_patient(first)).await.unwrap() {
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        other => panic!("not added: {other:?}"),
    }
}

fn draft_input(patient: &str) -> PrescriptionInput {
    PrescriptionInput {
        patient: Some(PatientReferenceInput {
            id: Some(cynic::Id::new(patient)),
        }),
        treatment: Some(TreatmentReferenceInput {
            id: Some(cynic::Id::new(AZITHROMYCIN)),
            ..Default::default()
        }),
        instructions: Some("Take 2 tablets on day 1, then 1 daily".into()),
        dispense: Some(DispenseInput {
            quantity: Some(6.0),
            unit: Some("tablet".into()),
            days_supply: Some(5),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn draft(network: &Network, patient: &str) -> Prescription {
    network
        .draft_prescription(draft_input(patient), &IdempotencyKey::new())
        .await
        .unwrap()
        .into_record()
        .unwrap()
}

/// The Network API as `email` through `client` (the proxy's), signed in on the
/// sandbox itself (the sign-in names the sandbox as its issuer).
async fn prescriber_through(
    client: &Client,
    sandbox: &rxdesk_sandbox::Sandbox,
    email: &str,
    organization: Option<&str>,
) -> Network {
    let session = sign_in(&client_for(sandbox.url()), email, organization).await;
    client.network_with_token(session.access_token().clone())
}

/// A string at `pointer` in the only answer the proxy lost.
fn lost(proxy: &Proxy, pointer: &str) -> String {
    let lost = proxy.lost_answers();
    assert_eq!(lost.len(), 1, "{lost:?}");
    lost[0]
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_else(|| panic!("no {pointer} in {}", lost[0]))
        .to_owned()
}

/// The `externalId` of the `input` variable (`prescription`, `order`) in the
/// request whose answer was lost, then in the last request.
fn sent_keys(proxy: &Proxy, input: &str) -> [String; 2] {
    let pointer = format!("/variables/{input}/externalId");
    let key = |request: &serde_json::Value| {
        request
            .pointer(&pointer)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    [key(&proxy.lost_requests()[0]), key(&proxy.last_graphql())]
}

/// Runs `future` collecting the retry notices it causes.
async fn noticed<F: std::future::Future>(future: F) -> (F::Output, Vec<RetryNotice>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let output = retry::observe(
        move |n: &RetryNotice| record.lock().unwrap().push(n.clone()),
        future,
    )
    .await;
    let seen = seen.lock().unwrap().clone();
    (output, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_whose_answer_was_lost_is_not_created_twice() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    let patient = add_patient(&network, "Lorna").await;
    let key = IdempotencyKey::new();
    proxy.lose_next_answers(1);

    let drafted = network
        .draft_prescription(draft_input(&patient), &key)
        .await
        .unwrap()
        .into_record()
        .unwrap();

    let first = lost(&proxy, "/data/prescription/prescription/id");
    assert_eq!(
        drafted.id.inner(),
        first,
        "the repeat answers the first draft"
    );
    assert_eq!(sent_keys(&proxy, "prescription"), [key.as_str(); 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_sent_again_with_its_key_after_a_failure_answers_the_same_draft() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(
        &proxy
            .client()
            .with_retry_policy(RetryPolicy::default().with_attempts(CallKind::Write, 1)),
        maple_backend(),
    );
    let patient = add_patient(&network, "Lorna").await;
    let key = IdempotencyKey::new();
    proxy.lose_next_answers(1);
    let failed = network
        .draft_prescription(draft_input(&patient), &key)
        .await;

    let again = network
        .draft_prescription(draft_input(&patient), &key)
        .await
        .unwrap()
        .into_record()
        .unwrap();

    assert!(
        matches!(failed, Err(ClientError::Network { .. })),
        "{failed:?}"
    );
    let first = lost(&proxy, "/data/prescription/prescription/id");
    assert_eq!(again.id.inner(), first);
    assert_eq!(sent_keys(&proxy, "prescription"), [key.as_str(); 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_draft_whose_answer_was_lost_is_not_created_twice() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    let patient = add_patient(&network, "Lorna").await;
    let rx = draft(&network, &patient).await;
    let key = IdempotencyKey::new();
    proxy.lose_next_answers(1);

    let order = network
        .draft_order(&patient, &[rx.id.inner().to_owned()], &key)
        .await
        .unwrap()
        .into_record()
        .unwrap();

    assert_eq!(order.id.inner(), lost(&proxy, "/data/order/order/id"));
    assert_eq!(sent_keys(&proxy, "order"), [key.as_str(); 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patient_sync_whose_answer_was_lost_finds_the_patient_it_added() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    network.ping().await.unwrap();
    proxy.lose_next_answers(1);

    let synced = network.sync_patient(new_patient("Petra")).await.unwrap();

    let Outcome::Record {
        record: Some(patient),
        ..
    } = synced
    else {
        panic!("{synced:?}")
    };
    assert_eq!(patient.id.inner(), lost(&proxy, "/data/patient/patient/id"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_broken_before_the_request_arrived_is_tried_again() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    let patient = add_patient(&network, "Lorna").await;
    proxy.break_next_requests(2);
    let before = proxy.count("/graphql");

    let got = network.get_patient(&patient).await.unwrap();

    assert!(got.record().is_some(), "{got:?}");
    assert_eq!(proxy.count("/graphql") - before, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn still_trying_is_told_with_the_attempt_about_to_start() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    let patient = add_patient(&network, "Lorna").await;
    proxy.fail_next_graphql(2);

    let (got, notices) = noticed(network.get_patient(&patient)).await;

    assert!(got.is_ok(), "{got:?}");
    assert_eq!(
        notices
            .iter()
            .map(|n| (n.op, n.attempt, n.cause))
            .collect::<Vec<_>>(),
        vec![
            ("get_patient", 2, RetryCause::Server { status: 503 }),
            ("get_patient", 3, RetryCause::Server { status: 503 }),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_honoured() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    network.ping().await.unwrap();
    proxy.rate_limit_next(1, RetryAfter::Seconds(1));

    let (pong, notices) = noticed(network.ping()).await;

    assert_eq!(pong.unwrap(), "pong");
    assert_eq!(proxy.early_requests(), 0, "no request before Retry-After");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].cause, RetryCause::RateLimited);
    assert_eq!(notices[0].wait, Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_as_an_http_date_is_honoured() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    network.ping().await.unwrap();
    proxy.rate_limit_next(1, RetryAfter::DateIn(2));

    let (pong, notices) = noticed(network.ping()).await;

    assert_eq!(pong.unwrap(), "pong");
    assert_eq!(proxy.early_requests(), 0, "no request before Retry-After");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].wait > Duration::ZERO, "{notices:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_past_the_deadline_ends_the_call_saying_when_to_try_again() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&quick(proxy.client()), maple_backend());
    network.ping().await.unwrap();
    proxy.rate_limit_next(1, RetryAfter::Seconds(3600));
    let before = proxy.count("/graphql");

    let e = network.ping().await.unwrap_err();

    assert_eq!(
        e,
        ClientError::RateLimited {
            retry_after: Some(Duration::from_secs(3600))
        }
    );
    assert_eq!(proxy.count("/graphql") - before, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_never_retried() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = quick(proxy.client());
    let staff = machine_network(&client, maple_backend());
    let patient = add_patient(&staff, "Rosalind").await;
    let rx = draft(&staff, &patient).await;
    let medical_ops = prescriber_through(&client, &sandbox, MO, None).await;
    let before = proxy.count("/graphql");

    let refused = medical_ops
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await;

    assert!(
        matches!(&refused, Err(ClientError::Refused { code, .. }) if code == "PRESCRIPTION_SIGNING_UNAUTHORIZED"),
        "{refused:?}"
    );
    assert_eq!(proxy.count("/graphql") - before, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_outage_costs_one_token_request() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = proxy.client();
    let api = machine_network(&client, maple_backend());
    proxy.take_tokens_down_for(Duration::from_millis(1500));

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let api = api.clone();
        calls.spawn(async move { api.ping().await });
    }
    let answers = calls.join_all().await;

    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(
        proxy.forwarded("/oauth/token"),
        1,
        "one token served them all"
    );
    assert!(
        proxy.count("/oauth/token") <= client.retry_policy().attempts(CallKind::Token) as usize,
        "the callers shared one request's retries: {}",
        proxy.count("/oauth/token")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_outage_is_told_to_the_callers_waiting_on_it() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = machine_network(&proxy.client(), maple_backend());
    proxy.take_tokens_down_for(Duration::from_millis(500));

    let (pong, notices) = noticed(api.ping()).await;

    assert!(pong.is_ok(), "{pong:?}");
    assert!(!notices.is_empty());
    assert!(
        notices
            .iter()
            .all(|n| n.op == "machine_token" && n.cause == RetryCause::Server { status: 503 }),
        "{notices:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_link_ends_at_the_deadline_with_its_error() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = proxy.client().with_retry_policy(
        RetryPolicy::default()
            .with_backoff(Duration::from_millis(20), Duration::from_millis(100))
            .with_attempts(CallKind::Read, 100)
            .with_deadline(CallKind::Read, Duration::from_millis(1500))
            .with_attempt_timeout(CallKind::Read, Duration::from_millis(400)),
    );
    let network = machine_network(&client, maple_backend());
    network.ping().await.unwrap();
    proxy.go_silent();

    let e = network.ping().await.unwrap_err();

    let ClientError::TimedOut {
        call,
        attempts,
        ref last,
        ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(call, CallKind::Read);
    assert!(attempts >= 2, "{attempts}");
    assert!(
        matches!(last.as_deref(), Some(ClientError::Network { .. })),
        "{last:?}"
    );
    assert!(
        e.to_string()
            .starts_with("no answer from the network within"),
        "{e}"
    );
}
