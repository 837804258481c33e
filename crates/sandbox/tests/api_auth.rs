//! Authentication of `POST /graphql`, as the contract's examples show it: `{ ping }`
//! works with every kind of token; a missing, empty, malformed, forged,
//! wrong-audience, wrong-issuer or expired token fails the whole request with 401,
//! `WWW-Authenticate: Bearer`, a top-level `errors` array and no `data`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use std::time::Duration;

use api_support::{Reply, gql, post_raw};
use rxdesk_sandbox::auth::claims::AccessClaims;
use rxdesk_sandbox::auth::keys::SigningKeys;
use rxdesk_sandbox::{Config, Storage};
use serde_json::json;

const PING: &str = "{ ping }";

fn ping_body() -> reqwest::Body {
    json!({ "query": PING }).to_string().into()
}

fn assert_whole_request_refused(reply: &Reply, code: &str) {
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(
        reply.headers["www-authenticate"]
            .to_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("Bearer")
    );
    assert!(
        reply.body.get("data").is_none(),
        "no data expected: {}",
        reply.body
    );
    assert_eq!(reply.body["errors"].as_array().unwrap().len(), 1);
    assert_eq!(reply.error_code(), code);
}

/// Refused as a whole as `INVALID_AUTHORIZATION_HEADER`, the message saying `why`.
fn assert_refused_as_invalid_saying(reply: &Reply, why: &str) {
    assert_whole_request_refused(reply, "INVALID_AUTHORIZATION_HEADER");
    let message = reply.error()["message"].as_str().unwrap();
    assert!(message.contains(why), "{message:?} does not say {why:?}");
}

#[tokio::test]
async fn ping_answers_pong_to_a_prescribers_user_token() {
    let sandbox = support::start_demo().await;
    let token = support::user_token(
        &sandbox,
        support::ADA,
        support::DEMO_PASSWORD,
        Some(support::MAPLE),
    )
    .await;

    let reply = gql(&sandbox, &token, PING, json!({})).await;

    assert_eq!(reply.data(), &json!({ "ping": "pong" }));
}

#[tokio::test]
async fn ping_answers_pong_to_a_medical_operations_user_token() {
    let sandbox = support::start_demo().await;
    let token = support::user_token(&sandbox, support::MO, support::DEMO_PASSWORD, None).await;

    let reply = gql(&sandbox, &token, PING, json!({})).await;

    assert_eq!(reply.data(), &json!({ "ping": "pong" }));
}

#[tokio::test]
async fn ping_answers_pong_to_a_machine_token() {
    let sandbox = support::start_demo().await;
    let (id, secret) = support::MAPLE_BACKEND;
    let token = support::machine_token(&sandbox, id, secret).await;

    let reply = gql(&sandbox, &token, PING, json!({})).await;

    assert_eq!(reply.data(), &json!({ "ping": "pong" }));
}

#[tokio::test]
async fn a_request_without_authorization_header_is_refused_exactly_as_documented() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, None, ping_body()).await;

    assert_eq!(reply.status, 401);
    assert_eq!(reply.headers["www-authenticate"], "Bearer");
    assert_eq!(
        reply.body,
        json!({"errors":[{"message":"Authentication token is not present","extensions":{"code":"EMPTY_AUTHORIZATION_HEADER"}}]})
    );
}

#[tokio::test]
async fn an_empty_authorization_header_is_refused_as_missing() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, Some(""), ping_body()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
    assert_eq!(
        reply.error()["message"],
        "Authentication token is not present"
    );
}

#[tokio::test]
async fn a_bearer_scheme_without_token_is_refused_as_missing() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, Some("Bearer "), ping_body()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn the_missing_token_refusal_comes_before_reading_the_body() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, None, "not json at all".into()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn a_malformed_token_is_refused_as_invalid_saying_it_is_not_a_jwt() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, Some("Bearer not-a-jwt"), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "not a well-formed JWT");
}

#[tokio::test]
async fn another_scheme_than_bearer_is_refused_as_invalid() {
    let sandbox = support::start_demo().await;

    let reply = post_raw(&sandbox, Some("Basic bWFwbGU6c2VjcmV0"), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "Bearer");
}

#[tokio::test]
async fn a_token_with_a_tampered_signature_is_refused_as_invalid_saying_so() {
    let sandbox = support::start_demo().await;
    let (id, secret) = support::MAPLE_BACKEND;
    let token = support::machine_token(&sandbox, id, secret).await;
    let (unsigned, signature) = token.rsplit_once('.').unwrap();
    let flipped = if signature.starts_with('A') { "B" } else { "A" };
    let forged = format!("{unsigned}.{flipped}{}", &signature[1..]);

    let reply = post_raw(&sandbox, Some(&format!("Bearer {forged}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "signature");
}

/// A sandbox keeping its key in a data dir, plus that key to sign crafted claims.
async fn sandbox_with_key() -> (rxdesk_sandbox::Sandbox, SigningKeys, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = support::start_with(Config {
        storage: Storage::Data(dir.path().to_path_buf()),
        ..Config::in_memory()
    })
    .await;
    let keys = SigningKeys::load_or_create(dir.path()).unwrap();
    (sandbox, keys, dir)
}

fn machine_claims(sandbox: &rxdesk_sandbox::Sandbox) -> AccessClaims {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    AccessClaims {
        iss: sandbox.url().as_str().trim_end_matches('/').to_owned(),
        sub: "maple-backend".to_owned(),
        aud: "rxdesk-sandbox".to_owned(),
        iat: now,
        exp: now + 600,
        azp: "maple-backend".to_owned(),
        scope: "read:patient".to_owned(),
        permissions: vec!["read:patient".to_owned()],
        org_id: "org_maple".to_owned(),
        jti: "test-token".to_owned(),
        gty: Some("client-credentials".to_owned()),
    }
}

#[tokio::test]
async fn a_crafted_token_signed_with_the_sandbox_key_is_accepted() {
    let (sandbox, keys, _dir) = sandbox_with_key().await;
    let token = keys.sign(&machine_claims(&sandbox)).unwrap();

    let reply = gql(&sandbox, &token, PING, json!({})).await;

    assert_eq!(reply.data(), &json!({ "ping": "pong" }));
}

#[tokio::test]
async fn a_token_signed_with_another_key_is_refused_as_invalid() {
    let (sandbox, _keys, _dir) = sandbox_with_key().await;
    let other = SigningKeys::generate().unwrap();
    let token = other.sign(&machine_claims(&sandbox)).unwrap();

    let reply = post_raw(&sandbox, Some(&format!("Bearer {token}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "signature");
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused_as_invalid_saying_so() {
    let (sandbox, keys, _dir) = sandbox_with_key().await;
    let token = keys
        .sign(&AccessClaims {
            aud: "some-other-api".to_owned(),
            ..machine_claims(&sandbox)
        })
        .unwrap();

    let reply = post_raw(&sandbox, Some(&format!("Bearer {token}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "audience");
}

#[tokio::test]
async fn a_token_from_another_issuer_is_refused_as_invalid_saying_so() {
    let (sandbox, keys, _dir) = sandbox_with_key().await;
    let token = keys
        .sign(&AccessClaims {
            iss: "http://127.0.0.1:1".to_owned(),
            ..machine_claims(&sandbox)
        })
        .unwrap();

    let reply = post_raw(&sandbox, Some(&format!("Bearer {token}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "issuer");
}

#[tokio::test]
async fn an_expired_machine_token_is_refused_as_invalid_saying_it_expired() {
    let sandbox = support::start_with(Config {
        machine_token_ttl: Duration::from_secs(1),
        ..Config::in_memory()
    })
    .await;
    let (id, secret) = support::MAPLE_BACKEND;
    let token = support::machine_token(&sandbox, id, secret).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let reply = post_raw(&sandbox, Some(&format!("Bearer {token}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "expired");
}

#[tokio::test]
async fn an_expired_user_token_is_refused_as_invalid_saying_it_expired() {
    let sandbox = support::start_with(Config {
        user_token_ttl: Duration::from_secs(1),
        ..Config::in_memory()
    })
    .await;
    let token = support::user_token(&sandbox, support::MO, support::DEMO_PASSWORD, None).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let reply = post_raw(&sandbox, Some(&format!("Bearer {token}")), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "expired");
}

#[tokio::test]
async fn me_describes_a_user_token() {
    let sandbox = support::start_demo().await;
    let token = support::user_token(
        &sandbox,
        support::ADA,
        support::DEMO_PASSWORD,
        Some(support::BIRCH),
    )
    .await;

    let reply = gql(
        &sandbox,
        &token,
        "{ me { kind name email role permissions organization { id name } } }",
        json!({}),
    )
    .await;

    let me = &reply.data()["me"];
    assert_eq!(me["kind"], "USER");
    assert_eq!(me["name"], "Ada Quinn");
    assert_eq!(me["email"], "ada@maple.example");
    assert_eq!(me["role"], "prescriber");
    assert_eq!(
        me["organization"],
        json!({ "id": "org_birch", "name": "Birch Family Practice" })
    );
    assert!(
        me["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("write:prescription"))
    );
}

#[tokio::test]
async fn me_describes_a_machine_token() {
    let sandbox = support::start_demo().await;
    let (id, secret) = support::MAPLE_BACKEND;
    let token = support::machine_token(&sandbox, id, secret).await;

    let reply = gql(
        &sandbox,
        &token,
        "{ me { kind id name email role permissions organization { name } } }",
        json!({}),
    )
    .await;

    let me = &reply.data()["me"];
    assert_eq!(me["kind"], "MACHINE");
    assert_eq!(me["id"], "maple-backend");
    assert_eq!(me["email"], serde_json::Value::Null);
    assert_eq!(me["role"], serde_json::Value::Null);
    assert_eq!(me["organization"]["name"], "Maple Street Clinic");
    assert!(
        !me["permissions"]
            .as_array()
            .unwrap()
            .contains(&json!("write:prescription"))
    );
}
