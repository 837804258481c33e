//! The client on a bad link: answers lost after the sandbox applied a write,
//! connections broken before, server trouble, rate limits with `Retry-After`, a
//! token endpoint that is down for a while, and a link that never answers.
//! Each write is sent again only when a repeat cannot act twice, and a lost
//! answer never becomes a second record; a refusal is sent once; a dead link
//! ends at the call's deadline with an error that says so.
//!
//! Most faults come from the sandbox's own link layer (`rxdesk_sandbox::link`),
//! each placed on one request by a seed searched for here, so every run
//! replays; lost-answer tests on a sandbox kept on disk end with its duplicate
//! audit. What the link layer cannot do — a lost answer the test can read back,
//! a `Retry-After` as an HTTP-date, refusing a request that comes back too
//! early — comes from the test proxy (`support::Proxy`), a fake bad link in
//! front of the sandbox.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rxdesk_client::network::documents::*;
use rxdesk_client::network::{Network, Outcome, Signing};
use rxdesk_client::retry::{self, CallKind, RetryCause, RetryNotice, RetryPolicy};
use rxdesk_client::{Client, ClientError, IdempotencyKey};
use rxdesk_sandbox::link::decide::decide;
use rxdesk_sandbox::link::{Fault, FaultRates, Injected, Latency, LinkSettings, Operation};
use rxdesk_sandbox::{Config, Sandbox, Storage};
use support::*;

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

async fn draft(network: &Network, patient: &str) -> Prescription {
    network
        .draft_prescription(azithromycin_draft(patient), &IdempotencyKey::new())
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
        .draft_prescription(azithromycin_draft(&patient), &key)
        .await;

    let again = network
        .draft_prescription(azithromycin_draft(&patient), &key)
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
async fn a_signature_whose_answer_was_lost_is_answered_as_signed() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = quick(proxy.client());
    let staff = machine_network(&client, maple_backend());
    let prescriber = prescriber_through(&client, &sandbox, ADA, Some(MAPLE)).await;
    let patient = add_patient(&staff, "Sigrid").await;
    let rx = draft(&staff, &patient).await;
    proxy.lose_next_answers(1);

    let signed = prescriber
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await
        .unwrap();

    assert!(matches!(signed, Signing::Signed(_)), "{signed:?}");
    assert_eq!(
        lost(&proxy, "/data/prescription/prescription/signing/state"),
        "SIGNED"
    );
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

// ---------- on the sandbox's link layer

/// A sandbox kept in a temporary directory, so its database can be audited.
pub(crate) async fn sandbox_on_disk() -> (Sandbox, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = sandbox_with(Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    })
    .await;
    (sandbox, dir)
}

/// Link settings under which the next request of `op` meets `fault` and the
/// four after it pass: the seed is searched for, so the run replays.
fn fault_once(op: Operation, fault: Fault) -> LinkSettings {
    let mut rates = FaultRates::default();
    match fault {
        Fault::ResetAfter => rates.reset_after = 0.5,
        Fault::ResetBefore => rates.reset_before = 0.5,
        Fault::Http503 => rates.http_503 = 0.5,
        Fault::Http429 => rates.http_429 = 0.5,
        other => panic!("not used here: {other:?}"),
    }
    let seed = (0..10_000)
        .find(|&seed| {
            (0..5).all(|n| {
                let decided = decide(seed, op, n, Latency::OFF, &rates).fault;
                decided == if n == 0 { Some(fault) } else { None }
            })
        })
        .expect("a seed that faults the first request only");
    let mut settings = LinkSettings {
        seed,
        ..LinkSettings::default()
    };
    settings.operations.insert(
        op,
        rxdesk_sandbox::link::OperationSettings {
            latency: None,
            faults: Some(rates),
        },
    );
    settings
}

pub(crate) fn assert_no_duplicates(dir: &tempfile::TempDir) {
    let report = rxdesk_sandbox::audit::audit_data_dir(dir.path()).unwrap();
    assert!(report.is_clean(), "{}", report.summary());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_whose_answer_was_lost_is_not_created_twice() {
    let (sandbox, dir) = sandbox_on_disk().await;
    let network = machine_network(&quick(client_for(sandbox.url())), maple_backend());
    let patient = add_patient(&network, "Lorna").await;
    let key = IdempotencyKey::new();
    sandbox
        .link()
        .set(fault_once(Operation::PrescriptionDraft, Fault::ResetAfter))
        .unwrap();

    let drafted = network
        .draft_prescription(azithromycin_draft(&patient), &key)
        .await
        .unwrap()
        .into_record()
        .unwrap();

    let counters = sandbox.link().counters();
    assert_eq!(
        counters.injected(Operation::PrescriptionDraft, Injected::ResetAfter),
        1
    );
    let again = network
        .draft_prescription(azithromycin_draft(&patient), &key)
        .await
        .unwrap()
        .into_record()
        .unwrap();
    assert_eq!(
        again.id, drafted.id,
        "the key names the draft the lost answer made"
    );
    assert_no_duplicates(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_send_whose_answer_was_lost_is_sent_once() {
    let (sandbox, dir) = sandbox_on_disk().await;
    let client = quick(client_for(sandbox.url()));
    let staff = machine_network(&client, maple_backend());
    let prescriber = client.network(&sign_in(&client, ADA, Some(MAPLE)).await);
    let patient = add_patient(&staff, "Selma").await;
    let rx = draft(&staff, &patient).await;
    prescriber
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await
        .unwrap();
    let order = staff
        .draft_order(
            &patient,
            &[rx.id.inner().to_owned()],
            &IdempotencyKey::new(),
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();
    sandbox
        .link()
        .set(fault_once(Operation::OrderSend, Fault::ResetAfter))
        .unwrap();

    let sent = staff.send_order(order.id.inner()).await.unwrap();

    let counters = sandbox.link().counters();
    assert_eq!(
        counters.injected(Operation::OrderSend, Injected::ResetAfter),
        1
    );
    assert!(sent.unapplied().is_empty(), "{:?}", sent.unapplied());
    assert_eq!(sent.record().unwrap().state, OrderState::Submitted);
    assert_no_duplicates(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_honoured() {
    let sandbox = sandbox().await;
    let network = machine_network(&quick(client_for(sandbox.url())), maple_backend());
    network.ping().await.unwrap();
    let mut settings = fault_once(Operation::Ping, Fault::Http429);
    settings.retry_after_secs = 1;
    sandbox.link().set(settings).unwrap();

    let (pong, notices) = noticed(network.ping()).await;

    assert_eq!(pong.unwrap(), "pong");
    assert_eq!(
        notices
            .iter()
            .map(|n| (n.cause, n.wait))
            .collect::<Vec<_>>(),
        vec![(RetryCause::RateLimited, Duration::from_secs(1))],
        "the one retry waited what the network asked"
    );
    let counters = sandbox.link().counters();
    assert_eq!(counters.requests.get(&Operation::Ping), Some(&2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_never_retried() {
    let sandbox = sandbox().await;
    let client = quick(client_for(sandbox.url()));
    let staff = machine_network(&client, maple_backend());
    let patient = add_patient(&staff, "Rosalind").await;
    let rx = draft(&staff, &patient).await;
    let medical_ops = client.network(&sign_in(&client, MO, None).await);
    sandbox
        .link()
        .set(LinkSettings {
            latency: Latency {
                ms: 1,
                jitter_ms: 0,
            },
            ..LinkSettings::default()
        })
        .unwrap();

    let refused = medical_ops
        .sign_prescription(rx.id.inner(), &rx.signing.content_hash)
        .await;

    assert!(
        matches!(&refused, Err(ClientError::Refused { code, .. }) if code == "PRESCRIPTION_SIGNING_UNAUTHORIZED"),
        "{refused:?}"
    );
    let counters = sandbox.link().counters();
    assert_eq!(
        counters.requests.get(&Operation::PrescriptionSign),
        Some(&1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_outage_costs_one_token_request() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let api = machine_network(&client, maple_backend());
    sandbox
        .link()
        .set(LinkSettings {
            token_outage_secs: 2,
            ..LinkSettings::default()
        })
        .unwrap();

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let api = api.clone();
        calls.spawn(async move { api.ping().await });
    }
    let answers = calls.join_all().await;

    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    let counters = sandbox.link().counters();
    let asked = counters
        .requests
        .get(&Operation::Token)
        .copied()
        .unwrap_or(0);
    let refused = counters.injected(Operation::Token, Injected::TokenOutage);
    assert_eq!(asked - refused, 1, "one token served them all");
    assert!(
        asked <= u64::from(client.retry_policy().attempts(CallKind::Token)),
        "the callers shared one request's retries: {asked}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_link_ends_at_the_deadline_with_its_error() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let tokens = client.machine_tokens(maple_backend());
    // A token in hand first: the link that goes dead is the API's.
    client.machine_network(tokens.clone()).ping().await.unwrap();
    let network = client
        .with_retry_policy(
            RetryPolicy::default()
                .with_backoff(Duration::from_millis(20), Duration::from_millis(100))
                .with_attempts(CallKind::Read, 100)
                .with_deadline(CallKind::Read, Duration::from_millis(1500))
                .with_attempt_timeout(CallKind::Read, Duration::from_millis(400)),
        )
        .machine_network(tokens);
    sandbox
        .link()
        .set(LinkSettings {
            latency: Latency {
                ms: 60_000,
                jitter_ms: 0,
            },
            ..LinkSettings::default()
        })
        .unwrap();

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
