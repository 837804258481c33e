//! The link layer (docs/network-api.md, "The link layer"), seen as a client sees
//! it on the wire: each fault as a plain HTTP client receives it, closed
//! connections before and after the write, targeting one operation, replay by
//! seed, latency (counted, never timed), the token outage, and the control
//! endpoint (`GET`/`PUT /link`, loopback only). Settings are changed through
//! `Sandbox::link()` or, where the control endpoint is the subject, over HTTP.

use crate::network_support;
use crate::support;

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::time::Duration;

use futures::StreamExt as _;
use network_support::*;
use reqwest::StatusCode;
use rxdesk_sandbox::link::{
    FaultRates, Injected, Latency, LinkSettings, Operation, OperationSettings,
};
use rxdesk_sandbox::{Config, FixtureSource, Sandbox, StartError};
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

/// A sandbox with the network fixture and a control endpoint.
async fn start_with_control() -> Sandbox {
    support::start_with(Config {
        fixture: FixtureSource::File(fixture_path()),
        control: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        ..Config::in_memory()
    })
    .await
}

/// Settings that give `op` these faults and leave every other operation alone.
fn only(op: Operation, faults: FaultRates) -> LinkSettings {
    let mut settings = LinkSettings::default();
    settings.operations.insert(
        op,
        OperationSettings {
            latency: None,
            faults: Some(faults),
        },
    );
    settings
}

fn always(fault: &str) -> FaultRates {
    let mut rates = FaultRates::default();
    match fault {
        "upstream" => rates.upstream = 1.0,
        "http_502" => rates.http_502 = 1.0,
        "http_503" => rates.http_503 = 1.0,
        "http_429" => rates.http_429 = 1.0,
        "reset_before" => rates.reset_before = 1.0,
        "reset_after" => rates.reset_after = 1.0,
        other => panic!("no fault {other}"),
    }
    rates
}

fn set(sb: &Sandbox, settings: LinkSettings) {
    sb.link().set(settings).unwrap();
}

/// `POST /graphql` as a plain client sends it: the status, headers and body,
/// or the transport error when no answer came.
async fn post(
    sb: &Sandbox,
    token: &str,
    query: &str,
    variables: Value,
) -> Result<(StatusCode, reqwest::header::HeaderMap, String), reqwest::Error> {
    let response = support::http()
        .post(support::endpoint(sb, "/graphql"))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await?;
    let status = response.status();
    let headers = response.headers().clone();
    Ok((status, headers, response.text().await?))
}

async fn ping(
    sb: &Sandbox,
    token: &str,
) -> Result<(StatusCode, reqwest::header::HeaderMap, String), reqwest::Error> {
    post(sb, token, "{ ping }", json!({})).await
}

/// A ping's outcome in one word, for comparing sequences.
async fn ping_outcome(sb: &Sandbox, token: &str) -> String {
    match ping(sb, token).await {
        Ok((status, ..)) => status.as_u16().to_string(),
        Err(_) => "closed".to_owned(),
    }
}

fn control(sb: &Sandbox, path: &str) -> String {
    sb.control_url().unwrap().join(path).unwrap().to_string()
}

async fn get_link(sb: &Sandbox) -> Value {
    let response = support::http()
        .get(control(sb, "/link"))
        .bearer_auth(sb.control_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

async fn put_link(sb: &Sandbox, body: Value) -> (StatusCode, Value) {
    let response = support::http()
        .put(control(sb, "/link"))
        .bearer_auth(sb.control_token().unwrap())
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status(), response.json().await.unwrap())
}

/// A patient Update adding an allergy, sent by a plain client.
async fn add_allergy(
    sb: &Sandbox,
    token: &str,
    patient_id: &str,
) -> Result<(StatusCode, reqwest::header::HeaderMap, String), reqwest::Error> {
    let input = json!({ "id": patient_id, "clinical": { "allergies": { "add": [{ "id": ALG_PENICILLIN }] } } });
    post(
        sb,
        token,
        &patient_doc(),
        json!({ "patient": input, "metadata": metadata() }),
    )
    .await
}

fn allergy_ids(payload: &Value) -> Vec<String> {
    ids_of(&patient_of(payload)["clinical"]["allergies"])
}

// ------------------------------------------------------------------ off by default

#[tokio::test]
async fn the_link_is_off_by_default() {
    let sb = start().await;
    let token = prescriber(&sb).await;

    let statuses: Vec<StatusCode> = futures::stream::iter(0..2_000)
        .map(|_| {
            let (sb, token) = (&sb, &token);
            async move { ping(sb, token).await.unwrap().0 }
        })
        .buffer_unordered(16)
        .collect()
        .await;

    assert!(statuses.iter().all(|s| *s == StatusCode::OK));
    assert_eq!(sb.link().settings(), LinkSettings::default());
    assert_eq!(sb.link().counters().faults(), 0);
    assert!(
        sb.control_url().is_none(),
        "no control endpoint unless asked for"
    );
}

#[tokio::test]
async fn with_the_link_on_a_body_over_the_limit_is_refused_in_shape_before_any_fault() {
    let sb = start().await;
    let token = prescriber(&sb).await;
    set(
        &sb,
        LinkSettings {
            faults: always("http_502"),
            ..LinkSettings::default()
        },
    );
    let padding = " ".repeat(65 * 1024);

    let (status, _, body) = post(&sb, &token, &format!("{{ ping }}{padding}"), json!({}))
        .await
        .unwrap();

    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert!(body.contains("REQUEST_TOO_LARGE"), "{body}");
    assert_eq!(sb.link().counters().faults(), 0);
}

// ------------------------------------------------------------------ each fault on the wire

#[tokio::test]
async fn an_upstream_error_is_the_mutations_retryable_member_and_saves_nothing() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-rx-upstream");
    set(&sb, only(Operation::PrescriptionDraft, always("upstream")));

    let failed = prescription(&sb, &ada, input.clone()).await;

    assert_eq!(failed["__typename"], "UpstreamServiceError", "{failed:#}");
    assert_eq!(failed["retryable"], true);
    assert_eq!(
        sb.link()
            .counters()
            .injected(Operation::PrescriptionDraft, Injected::Upstream),
        1
    );
    set(&sb, LinkSettings::default());
    let retried = prescription(&sb, &ada, input).await;
    assert!(
        applied(&retried, "treatment")["status"] == "APPLIED",
        "the retry created the draft, so the failed call had not: {retried:#}"
    );
}

#[tokio::test]
async fn a_502_and_a_503_are_answered_as_a_gateway_would() {
    let sb = start().await;
    let token = prescriber(&sb).await;

    set(&sb, only(Operation::Ping, always("http_502")));
    let (bad_gateway, headers, _) = ping(&sb, &token).await.unwrap();
    set(&sb, only(Operation::Ping, always("http_503")));
    let (unavailable, ..) = ping(&sb, &token).await.unwrap();

    assert_eq!(bad_gateway, StatusCode::BAD_GATEWAY);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert_eq!(unavailable, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn a_429_carries_retry_after_and_the_apis_error_shape() {
    let sb = start().await;
    let token = prescriber(&sb).await;
    let mut settings = only(Operation::Ping, always("http_429"));
    settings.retry_after_secs = 7;
    set(&sb, settings);

    let (status, headers, body) = ping(&sb, &token).await.unwrap();

    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers["retry-after"], "7");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["errors"][0]["extensions"]["code"], "TOO_MANY_REQUESTS");
}

#[tokio::test]
async fn a_reset_after_the_commit_loses_the_answer_and_keeps_the_write() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    set(&sb, only(Operation::PatientUpdate, always("reset_after")));

    let lost = add_allergy(&sb, &ada, &patient).await;

    assert!(lost.is_err(), "an answer arrived: {lost:?}");
    set(&sb, LinkSettings::default());
    let got = get_patient(&sb, &ada, &patient).await;
    assert_eq!(allergy_ids(&got), vec![ALG_PENICILLIN]);
}

#[tokio::test]
async fn a_reset_before_the_network_applies_nothing() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    set(&sb, only(Operation::PatientUpdate, always("reset_before")));

    let lost = add_allergy(&sb, &ada, &patient).await;

    assert!(lost.is_err(), "an answer arrived: {lost:?}");
    set(&sb, LinkSettings::default());
    let got = get_patient(&sb, &ada, &patient).await;
    assert!(allergy_ids(&got).is_empty(), "{got:#}");
}

/// Writes one HTTP/1.1 ping by hand and reads the socket to its end (on a
/// blocking thread: the sandbox answers on the test's runtime meanwhile).
async fn raw_ping(sb: &Sandbox, token: &str) -> std::io::Result<Vec<u8>> {
    let (addr, token) = (sb.addr(), token.to_owned());
    tokio::task::spawn_blocking(move || raw_ping_blocking(addr, &token))
        .await
        .unwrap()
}

fn raw_ping_blocking(addr: SocketAddr, token: &str) -> std::io::Result<Vec<u8>> {
    let body = r#"{"query":"{ ping }"}"#;
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "POST /graphql HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut received = Vec::new();
    stream.read_to_end(&mut received)?;
    Ok(received)
}

#[tokio::test]
async fn a_closed_connection_carries_no_byte_of_an_answer() {
    let sb = start().await;
    let token = prescriber(&sb).await;

    for fault in ["reset_before", "reset_after"] {
        set(&sb, only(Operation::Ping, always(fault)));
        let read = raw_ping(&sb, &token).await;

        match read {
            Ok(bytes) => assert!(
                bytes.is_empty(),
                "{fault}: the peer read {:?}",
                String::from_utf8_lossy(&bytes)
            ),
            Err(e) => assert_eq!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset,
                "{fault}: {e}"
            ),
        }
    }
    set(&sb, LinkSettings::default());
    let answered = raw_ping(&sb, &token).await.unwrap();
    assert!(
        String::from_utf8_lossy(&answered).starts_with("HTTP/1.1 200"),
        "the same request answers once the link is off"
    );
}

// ------------------------------------------------------------------ targeting, replay, latency

#[tokio::test]
async fn faults_reach_only_the_operation_they_name() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    set(
        &sb,
        only(Operation::PrescriptionSign, always("reset_after")),
    );

    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let got = get_prescription(&sb, &ada, &id).await;
    let sign_input = json!({ "id": id, "signing": { "signedHash": hash } });
    let signing = post(
        &sb,
        &ada,
        &prescription_doc(),
        json!({ "prescription": sign_input, "metadata": metadata() }),
    )
    .await;

    assert!(signing.is_err(), "the signature's answer arrived");
    assert_eq!(prescription_of(&got)["signing"]["state"], "UNSIGNED");
    let counters = sb.link().counters();
    assert_eq!(counters.faults(), 1, "{counters:?}");
    assert_eq!(
        counters.injected(Operation::PrescriptionSign, Injected::ResetAfter),
        1
    );
    assert_eq!(counters.requests[&Operation::PrescriptionDraft], 1);
    assert_eq!(counters.requests[&Operation::Get], 1);
}

#[tokio::test]
async fn the_same_seed_replays_the_same_faults() {
    let sb = start().await;
    let token = prescriber(&sb).await;
    let seeded = |seed| {
        let mut settings = only(
            Operation::Ping,
            FaultRates {
                http_502: 0.2,
                http_503: 0.2,
                reset_before: 0.2,
                ..FaultRates::default()
            },
        );
        settings.seed = seed;
        settings
    };
    let mut runs = Vec::new();
    for seed in [42, 42, 43] {
        set(&sb, seeded(seed));
        let mut outcomes = Vec::new();
        for _ in 0..30 {
            outcomes.push(ping_outcome(&sb, &token).await);
        }
        runs.push(outcomes);
    }

    assert_eq!(runs[0], runs[1], "seed 42 twice");
    assert_ne!(runs[0], runs[2], "seeds 42 and 43");
    assert!(runs[0].iter().any(|o| o == "200") && runs[0].iter().any(|o| o != "200"));
}

#[tokio::test]
async fn latency_delays_every_request_of_its_operation_only() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let mut settings = LinkSettings::default();
    settings.operations.insert(
        Operation::Ping,
        OperationSettings {
            latency: Some(Latency {
                ms: 2,
                jitter_ms: 1,
            }),
            faults: None,
        },
    );
    set(&sb, settings);

    for _ in 0..5 {
        assert_eq!(ping(&sb, &ada).await.unwrap().0, StatusCode::OK);
    }
    get_patient(&sb, &ada, &patient).await;
    get_patient(&sb, &ada, &patient).await;

    let counters = sb.link().counters();
    assert_eq!(counters.injected(Operation::Ping, Injected::Latency), 5);
    assert_eq!(counters.injected(Operation::Get, Injected::Latency), 0);
    assert_eq!(counters.requests[&Operation::Get], 2);
    assert_eq!(counters.faults(), 0);
}

// ------------------------------------------------------------------ token endpoint

#[tokio::test]
async fn the_token_endpoint_is_down_during_an_outage_and_answers_after_it() {
    let sb = start().await;
    let (client_id, secret) = support::MAPLE_BACKEND;
    set(
        &sb,
        LinkSettings {
            token_outage_secs: 30,
            ..LinkSettings::default()
        },
    );

    let down = support::http()
        .post(support::endpoint(&sb, "/oauth/token"))
        .json(&json!({
            "client_id": client_id, "client_secret": secret,
            "audience": support::audience_of(&sb).await, "grant_type": "client_credentials",
        }))
        .send()
        .await
        .unwrap();

    assert_eq!(down.status(), StatusCode::SERVICE_UNAVAILABLE);
    let retry_after: u64 = down.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after), "{retry_after}");
    assert_eq!(
        sb.link()
            .counters()
            .injected(Operation::Token, Injected::TokenOutage),
        1
    );
    set(&sb, LinkSettings::default());
    let (status, _) = support::machine_token_response(&sb, client_id, secret).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn token_faults_reach_the_token_endpoint() {
    let sb = start().await;
    set(&sb, only(Operation::Token, always("http_429")));

    let (status, body) =
        support::machine_token_response(&sb, support::MAPLE_BACKEND.0, support::MAPLE_BACKEND.1)
            .await;

    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["error"], "too_many_requests");
}

// ------------------------------------------------------------------ lost answers, repeated

#[tokio::test]
async fn a_send_whose_answer_was_lost_is_answered_as_sent_when_repeated() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order_id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    set(&sb, only(Operation::OrderSend, always("reset_after")));
    let send = json!({ "order": { "id": order_id, "state": "SUBMITTED" }, "metadata": metadata() });
    let lost = post(&sb, &ada, &order_doc(), send).await;
    assert!(lost.is_err(), "{lost:?}");
    set(&sb, LinkSettings::default());

    let again = set_order_state(&sb, &ada, &order_id, "SUBMITTED").await;

    assert_eq!(order_of(&again)["state"], "SUBMITTED", "{again:#}");
    assert!(changes(&again).is_empty(), "{again:#}");
}

// ------------------------------------------------------------------ control endpoint

#[tokio::test]
async fn a_put_changes_the_link_for_the_next_request() {
    let sb = start_with_control().await;
    let token = prescriber(&sb).await;

    let (status, shown) = put_link(
        &sb,
        json!({ "operations": { "ping": { "faults": { "http_503": 1.0 } } } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{shown:#}");
    let during = ping(&sb, &token).await.unwrap().0;
    let counted = get_link(&sb).await;
    put_link(&sb, json!({})).await;
    let after = ping(&sb, &token).await.unwrap().0;

    assert_eq!(during, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        counted["counters"]["injected"]["ping"]["http_503"], 1,
        "{counted:#}"
    );
    assert_eq!(after, StatusCode::OK);
}

#[tokio::test]
async fn get_link_shows_the_settings_in_force() {
    let sb = start_with_control().await;
    put_link(
        &sb,
        json!({ "latency": "clinic", "seed": 5, "faults": { "reset_after": 0.05 } }),
    )
    .await;

    let shown = get_link(&sb).await;

    assert_eq!(
        shown["settings"]["latency"],
        json!({ "ms": 60, "jitter_ms": 20 })
    );
    assert_eq!(shown["settings"]["seed"], 5);
    assert_eq!(shown["settings"]["faults"]["reset_after"], 0.05);
    assert_eq!(shown["token_outage_remaining_secs"], 0.0);
}

#[tokio::test]
async fn bad_settings_are_refused_naming_the_field_and_change_nothing() {
    let sb = start_with_control().await;
    put_link(&sb, json!({ "seed": 3 })).await;

    let (too_much, said) = put_link(
        &sb,
        json!({ "faults": { "http_502": 0.7, "reset_after": 0.7 } }),
    )
    .await;
    let (unknown, said_unknown) = put_link(&sb, json!({ "latnecy": "clinic" })).await;

    assert_eq!(too_much, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(said["error"].as_str().unwrap().contains("faults"), "{said}");
    assert!(unknown.is_client_error());
    assert!(
        said_unknown["error"].as_str().unwrap().contains("latnecy"),
        "{said_unknown}"
    );
    assert_eq!(sb.link().settings().seed, 3);
}

#[tokio::test]
async fn the_control_endpoint_answers_json_even_to_a_wrong_route_or_method() {
    let sb = start_with_control().await;

    let unknown = support::http()
        .get(control(&sb, "/nothing"))
        .bearer_auth(sb.control_token().unwrap())
        .send()
        .await
        .unwrap();
    let wrong_method = support::http()
        .post(control(&sb, "/link"))
        .bearer_auth(sb.control_token().unwrap())
        .send()
        .await
        .unwrap();

    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let said: Value = unknown.json().await.unwrap();
    assert!(said["error"].is_string(), "{said}");
    assert_eq!(wrong_method.status(), StatusCode::METHOD_NOT_ALLOWED);
    let said: Value = wrong_method.json().await.unwrap();
    assert!(said["error"].is_string(), "{said}");
}

#[tokio::test]
async fn a_control_route_without_the_token_is_refused_with_401() {
    let sb = start_with_control().await;

    let refused = support::http()
        .put(control(&sb, "/link"))
        .json(&json!({ "faults": { "http_503": 1.0 } }))
        .send()
        .await
        .unwrap();

    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert!(
        refused.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"),
        "{:?}",
        refused.headers()
    );
    let said: Value = refused.json().await.unwrap();
    assert!(said["error"].is_string(), "{said}");
    assert_eq!(
        sb.link().settings(),
        LinkSettings::default(),
        "nothing changed"
    );
}

#[tokio::test]
async fn a_control_route_with_a_wrong_token_is_refused_with_401() {
    let sb = start_with_control().await;
    let wrong = format!("{}x", sb.control_token().unwrap());

    let refused = support::http()
        .get(control(&sb, "/clock"))
        .bearer_auth(&wrong)
        .send()
        .await
        .unwrap();
    let unknown_route = support::http()
        .get(control(&sb, "/nothing"))
        .bearer_auth("not-the-token")
        .send()
        .await
        .unwrap();

    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let said = refused.text().await.unwrap();
    assert!(!said.contains(&wrong), "the token is not echoed: {said}");
    assert_eq!(
        unknown_route.status(),
        StatusCode::UNAUTHORIZED,
        "no route is revealed without the token"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn the_control_token_file_is_beside_the_database_and_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let sb = support::start_with(Config {
        storage: rxdesk_sandbox::Storage::Data(dir.path().to_owned()),
        fixture: FixtureSource::File(fixture_path()),
        control: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        ..Config::in_memory()
    })
    .await;

    let file = sb.control_token_file().unwrap();

    assert_eq!(file, dir.path().join("control.token"));
    let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        sb.control_token().unwrap()
    );
}

#[cfg(unix)]
#[tokio::test]
async fn an_in_memory_sandbox_keeps_its_control_token_in_a_private_directory_gone_at_shutdown() {
    use std::os::unix::fs::PermissionsExt as _;
    let sb = start_with_control().await;
    let file = sb.control_token_file().unwrap().to_owned();
    let dir = file.parent().unwrap().to_owned();

    let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    let file_mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    sb.shutdown().await;

    assert_eq!(dir_mode, 0o700, "{dir_mode:o}");
    assert_eq!(file_mode, 0o600, "{file_mode:o}");
    assert!(!dir.exists(), "{} is left behind", dir.display());
}

#[tokio::test]
async fn each_start_makes_another_control_token() {
    let first = start_with_control().await;
    let second = start_with_control().await;

    assert_ne!(first.control_token(), second.control_token());
    assert!(first.control_token().unwrap().len() >= 43);
}

#[tokio::test]
async fn the_control_endpoint_refuses_a_host_that_is_not_loopback() {
    let sb = start_with_control().await;

    let refused = support::http()
        .get(control(&sb, "/link"))
        .bearer_auth(sb.control_token().unwrap())
        .header("host", "rebind.example")
        .send()
        .await
        .unwrap();

    assert_eq!(refused.status(), StatusCode::MISDIRECTED_REQUEST);
}

#[tokio::test]
async fn the_control_endpoint_is_not_on_the_api_listener() {
    let sb = start_with_control().await;

    let on_api = support::http()
        .get(support::endpoint(&sb, "/link"))
        .send()
        .await
        .unwrap();

    assert_eq!(on_api.status(), StatusCode::NOT_FOUND);
    assert_ne!(sb.control_url().unwrap().port(), sb.url().port());
}

#[tokio::test]
async fn a_control_address_that_is_not_loopback_is_refused_at_start() {
    let started = Sandbox::start(Config {
        control: Some(SocketAddr::from(([0, 0, 0, 0], 0))),
        ..Config::in_memory()
    })
    .await;

    let Err(e @ StartError::Control(_)) = started else {
        panic!("started, or failed otherwise: {started:?}");
    };
    assert!(e.to_string().contains("loopback"), "{e}");
}

// ------------------------------------------------------------------ settings at start

#[tokio::test]
async fn the_fixtures_link_section_applies_at_start_and_flags_replace_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("linked.toml");
    let text = std::fs::read_to_string(fixture_path()).unwrap()
        + "\n[link]\nlatency = \"hotspot\"\nseed = 9\n[link.operations.order_send.faults]\nreset_after = 0.5\n";
    std::fs::write(&path, text).unwrap();
    let from_fixture = support::start_with(Config {
        fixture: FixtureSource::File(path.clone()),
        ..Config::in_memory()
    })
    .await;
    let from_flags = support::start_with(Config {
        fixture: FixtureSource::File(path),
        link: Some(LinkSettings {
            latency: Latency::CLINIC,
            ..LinkSettings::default()
        }),
        ..Config::in_memory()
    })
    .await;

    let fixture_settings = from_fixture.link().settings();
    assert_eq!(fixture_settings.latency, Latency::HOTSPOT);
    assert_eq!(fixture_settings.seed, 9);
    assert_eq!(
        fixture_settings.faults_of(Operation::OrderSend).reset_after,
        0.5
    );
    let flag_settings = from_flags.link().settings();
    assert_eq!(flag_settings.latency, Latency::CLINIC);
    assert_eq!(flag_settings.seed, 0, "the flags replace the section whole");
}

#[tokio::test]
async fn a_broken_link_section_stops_start_up_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    let text =
        std::fs::read_to_string(fixture_path()).unwrap() + "\n[link.faults]\nhttp_503 = 2.0\n";
    std::fs::write(&path, text).unwrap();

    let started = Sandbox::start(Config {
        fixture: FixtureSource::File(path),
        ..Config::in_memory()
    })
    .await;

    let message = started.unwrap_err().to_string();
    assert!(message.contains("[link]"), "{message}");
    assert!(message.contains("faults.http_503"), "{message}");
}
