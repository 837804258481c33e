//! A sandbox restarted on the same data directory keeps its users, its signing
//! key, its issuer and every token that is still valid — on the same port, and
//! on another one when it must take another (the old one busy, or
//! `--listen 127.0.0.1:0`).

use crate::support;

use std::net::{SocketAddr, TcpListener};

use rxdesk_sandbox::{Config, Sandbox, Storage};
use serde_json::Value;
use support::*;

fn on_disk(dir: &std::path::Path) -> Config {
    Config {
        storage: Storage::Data(dir.to_owned()),
        ..Config::in_memory()
    }
}

/// Stops `first` and starts a sandbox on its data directory on a free port,
/// while its old port is held by someone else (the returned listener).
async fn restart_elsewhere(first: Sandbox, dir: &std::path::Path) -> (Sandbox, TcpListener) {
    let old = first.addr();
    first.shutdown().await;
    let holder = TcpListener::bind(old).unwrap();
    let second = start_with(Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..on_disk(dir)
    })
    .await;
    assert_ne!(second.addr(), old, "the restart took another port");
    (second, holder)
}

async fn discovery(sandbox: &Sandbox) -> Value {
    http()
        .get(endpoint(sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The `iss` of an authorization response (the user cancels the sign-in).
async fn authorization_response_issuer(sandbox: &Sandbox) -> Option<String> {
    let browser = browser();
    let cancelled = Flow::new(sandbox)
        .open(&browser)
        .await
        .submit(&browser, "Cancel", &[])
        .await;
    query_map(&cancelled.location().expect("a redirect"))
        .get("iss")
        .cloned()
}

#[tokio::test]
async fn a_restart_on_another_port_keeps_the_issuer() {
    let dir = tempfile::tempdir().unwrap();
    let first = start_with(on_disk(dir.path())).await;
    let before = discovery(&first).await["issuer"].clone();
    let old_token = machine_token(&first, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;

    let (second, _busy) = restart_elsewhere(first, dir.path()).await;
    let new_token = machine_token(&second, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;

    assert_eq!(discovery(&second).await["issuer"], before);
    assert_eq!(second.issuer(), before.as_str().unwrap());
    assert_eq!(
        authorization_response_issuer(&second).await.as_deref(),
        before.as_str()
    );
    assert_eq!(
        verify_with_jwks(&second, &new_token).await.iss,
        verify_with_jwks(&second, &old_token).await.iss
    );
    second.shutdown().await;
}

#[tokio::test]
async fn tokens_issued_before_a_restart_on_another_port_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let first = start_with(on_disk(dir.path())).await;
    let machine = machine_token(&first, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let user = user_tokens(&first, ADA, DEMO_PASSWORD, Some(MAPLE), true).await;

    let (second, _busy) = restart_elsewhere(first, dir.path()).await;
    let ping: Value = http()
        .post(endpoint(&second, "/graphql"))
        .bearer_auth(&machine)
        .json(&serde_json::json!({ "query": "{ ping }" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let userinfo = http()
        .get(endpoint(&second, "/userinfo"))
        .bearer_auth(&user.access_token)
        .send()
        .await
        .unwrap()
        .status();
    let refreshed = refresh(&second, user.refresh_token.as_deref().unwrap()).await;
    second.shutdown().await;

    assert_eq!(ping["data"]["ping"], "pong", "{ping}");
    assert_eq!(userinfo, 200);
    assert!(refreshed.is_ok(), "{refreshed:?}");
}

#[tokio::test]
async fn discovery_after_a_restart_on_another_port_names_where_it_listens_now() {
    let dir = tempfile::tempdir().unwrap();
    let first = start_with(on_disk(dir.path())).await;

    let (second, _busy) = restart_elsewhere(first, dir.path()).await;
    let origin = second.url().as_str().trim_end_matches('/').to_owned();
    let document = discovery(&second).await;
    second.shutdown().await;

    assert_ne!(document["issuer"].as_str(), Some(origin.as_str()));
    for endpoint in [
        "authorization_endpoint",
        "token_endpoint",
        "revocation_endpoint",
        "jwks_uri",
        "userinfo_endpoint",
    ] {
        let address = document[endpoint].as_str().unwrap();
        assert!(address.starts_with(&origin), "{endpoint}: {address}");
    }
}

#[tokio::test]
async fn restart_on_the_same_data_dir_keeps_users_keys_and_valid_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    };
    let first = start_with(config.clone()).await;
    let addr = first.addr();
    let user = user_tokens(&first, ADA, DEMO_PASSWORD, Some(MAPLE), true).await;
    let machine = machine_token(&first, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let user_claims = verify_with_jwks(&first, &user.access_token).await;
    first.shutdown().await;

    let second = start_with(Config {
        listen: addr,
        ..config
    })
    .await;

    // Tokens issued before the restart still verify (same key, same issuer).
    assert_eq!(
        verify_with_jwks(&second, &user.access_token).await,
        user_claims
    );
    assert_eq!(
        verify_with_jwks(&second, &machine).await.org_id,
        "org_maple"
    );
    // The refresh token of the first run still works.
    let refreshed = refresh(&second, user.refresh_token.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        verify_with_jwks(&second, &refreshed.access_token).await.sub,
        user_claims.sub
    );
    // Users are still there with the same id.
    let again = user_token(&second, ADA, DEMO_PASSWORD, Some(BIRCH)).await;
    assert_eq!(verify_with_jwks(&second, &again).await.sub, user_claims.sub);
    assert!(dir.path().join("signing-key.pem").exists());
    second.shutdown().await;
}
