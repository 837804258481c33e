//! Machine tokens against a sandbox behind a counting proxy, through the Network
//! API: the contract's JSON body, one token request however many callers,
//! renewal shortly before expiry, one forced renewal after the API rejects a
//! token; and the public-client rule.

use crate::support;

use std::time::Duration;

use rxdesk_client::retry::{CallKind, RetryPolicy};
use rxdesk_client::{ClientError, Environment, EnvironmentError};
use rxdesk_sandbox::Config;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_request_is_the_contracts_json_body() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let network = machine_network(&proxy.client(), maple_backend());

    let pong = network.ping().await.unwrap();

    assert_eq!(pong, "pong");
    let (content_type, body) = proxy.last_request("/oauth/token");
    assert_eq!(content_type, "application/json");
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "client_id": "maple-backend",
            "client_secret": "maple-backend-secret",
            "audience": "rxdesk-sandbox",
            "grant_type": "client_credentials",
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_calls_cause_one_token_request() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    // Every ping gets the time 200 at once may take on a slow machine (a debug
    // build under Wine, on a loaded machine, took longer than a read's 10 s
    // attempt): a ping retried after its attempt's timeout is a second
    // `/graphql` request, and the counts below are about the token only.
    let patient = RetryPolicy::default()
        .with_attempt_timeout(CallKind::Read, Duration::from_secs(120))
        .with_deadline(CallKind::Read, Duration::from_secs(120));
    let api = machine_network(&proxy.client().with_retry_policy(patient), maple_backend());

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let api = api.clone();
        calls.spawn(async move { api.ping().await });
    }
    let answers = calls.join_all().await;

    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(proxy.count("/oauth/token"), 1);
    assert_eq!(proxy.count("/graphql"), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_second_token_is_renewed_once() {
    let sandbox = sandbox_with(Config {
        machine_token_ttl: Duration::from_secs(2),
        ..Config::in_memory()
    })
    .await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = machine_network(&proxy.client(), maple_backend());
    api.ping().await.unwrap();
    api.ping().await.unwrap();

    tokio::time::sleep(Duration::from_millis(2100)).await;
    api.ping().await.unwrap();
    api.ping().await.unwrap();

    assert_eq!(proxy.count("/oauth/token"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_token_is_renewed_once_and_the_call_retried() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    proxy.corrupt_next_tokens(1);
    let api = machine_network(&proxy.client(), maple_backend());

    let pong = api.ping().await;

    assert!(pong.is_ok(), "{pong:?}");
    assert_eq!(proxy.count("/oauth/token"), 2);
    assert_eq!(proxy.count("/graphql"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_rejected_after_renewal_is_signed_out_without_looping() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    proxy.corrupt_next_tokens(2);
    let api = machine_network(&proxy.client(), maple_backend());

    let pong = api.ping().await.unwrap_err();

    assert!(
        matches!(&pong, ClientError::SignedOut { code, .. } if code == "INVALID_AUTHORIZATION_HEADER"),
        "{pong:?}"
    );
    assert_eq!(proxy.count("/oauth/token"), 2);
    assert_eq!(proxy.count("/graphql"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_backend_secret_is_signed_out() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let api = machine_network(
        &client,
        rxdesk_client::BackendCredentials::new("maple-backend", "not-the-secret"),
    );

    let e = api.ping().await.unwrap_err();

    assert!(
        matches!(&e, ClientError::SignedOut { code, .. } if code == "invalid_client"),
        "{e:?}"
    );
    assert!(!e.to_string().contains("not-the-secret"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_token_request_is_shared_by_the_callers_waiting_on_it() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = machine_network(
        &proxy.client(),
        rxdesk_client::BackendCredentials::new("maple-backend", "not-the-secret"),
    );

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let api = api.clone();
        calls.spawn(async move { api.ping().await });
    }
    let answers = calls.join_all().await;

    assert!(answers.iter().all(Result::is_err));
    assert_eq!(proxy.count("/oauth/token"), 1);
    assert_eq!(proxy.count("/graphql"), 0);
}

#[test]
fn a_secret_bearing_desktop_environment_is_refused() {
    let toml = r#"
        auth_url = "http://127.0.0.1:8080"
        api_url = "http://127.0.0.1:8080"
        audience = "rxdesk-sandbox"
        client_id = "rxdesk-desktop"
        client_secret = "maple-backend-secret"
    "#;

    let refused = Environment::from_toml_str(toml).unwrap_err();

    assert!(matches!(refused, EnvironmentError::SecretInPublicClient));
    assert!(
        refused
            .to_string()
            .contains("a public client must never hold a secret")
    );
}
