//! Bearer authentication of `POST /graphql` (docs/network-api.md, "Whole-request
//! failures"), beyond the missing, malformed and forged tokens of
//! `network_requests.rs`: `{ ping }` works with a user token of either role; an
//! empty header, a scheme other than Bearer, a token signed with another key, for
//! another audience, from another issuer or expired fails the whole request with
//! 401, `WWW-Authenticate: Bearer`, one coded error and no `data` — before the
//! body is even read. A machine token never signs, whatever scopes it carries.

use crate::network_support;
use crate::support;

use std::time::Duration;

use network_support::{Reply, gql, post_raw};
use rxdesk_sandbox::auth::claims::AccessClaims;
use rxdesk_sandbox::auth::keys::SigningKeys;
use rxdesk_sandbox::{Config, Sandbox, Storage};
use serde_json::json;

const PING: &str = "query { ping }";

fn ping_body() -> reqwest::Body {
    json!({ "query": PING }).to_string().into()
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn assert_whole_request_refused(reply: &Reply, code: &str) {
    assert_eq!(reply.status, 401, "{}", reply.body);
    let challenge = reply.headers["www-authenticate"].to_str().unwrap();
    assert_eq!(challenge.split(' ').next(), Some("Bearer"), "{challenge}");
    assert!(
        reply.body.get("data").is_none(),
        "no data expected: {}",
        reply.body
    );
    let errors = reply.body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{}", reply.body);
    assert_eq!(errors[0]["extensions"]["code"], code, "{}", reply.body);
}

/// Refused as a whole as `INVALID_AUTHORIZATION_HEADER`, the message saying `why`.
fn assert_refused_as_invalid_saying(reply: &Reply, why: &str) {
    assert_whole_request_refused(reply, "INVALID_AUTHORIZATION_HEADER");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(why), "{message:?} does not say {why:?}");
}

#[tokio::test]
async fn ping_answers_pong_to_the_user_token_of_a_prescriber_and_of_medical_operations() {
    let sandbox = network_support::start().await;
    let prescriber = network_support::prescriber(&sandbox).await;
    let medical_ops = network_support::medical_ops(&sandbox).await;

    let answers = [
        gql(&sandbox, &prescriber, PING, json!({})).await,
        gql(&sandbox, &medical_ops, PING, json!({})).await,
    ];

    for reply in &answers {
        assert_eq!(reply.data(), &json!({ "ping": "pong" }));
    }
}

#[tokio::test]
async fn an_empty_authorization_header_is_refused_as_missing() {
    let sandbox = network_support::start().await;

    let reply = post_raw(&sandbox, Some(""), ping_body()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
    assert_eq!(reply.headers["www-authenticate"], "Bearer");
    assert_eq!(
        reply.body["errors"][0]["message"],
        "Authentication token is not present"
    );
}

#[tokio::test]
async fn the_bearer_scheme_without_a_token_is_refused_as_missing() {
    let sandbox = network_support::start().await;

    let reply = post_raw(&sandbox, Some("Bearer "), ping_body()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn the_missing_token_refusal_comes_before_reading_the_body() {
    let sandbox = network_support::start().await;

    let reply = post_raw(&sandbox, None, "not json at all".into()).await;

    assert_whole_request_refused(&reply, "EMPTY_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn another_scheme_than_bearer_is_refused_as_invalid() {
    let sandbox = network_support::start().await;

    let reply = post_raw(&sandbox, Some("Basic bWFwbGU6c2VjcmV0"), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "Bearer");
}

/// A sandbox keeping its key in a data dir, plus that key to sign crafted claims.
async fn sandbox_with_key() -> (Sandbox, SigningKeys, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = support::start_with(Config {
        storage: Storage::Data(dir.path().to_path_buf()),
        ..Config::in_memory()
    })
    .await;
    let keys = SigningKeys::load_or_create(dir.path()).unwrap();
    (sandbox, keys, dir)
}

fn machine_claims(sandbox: &Sandbox) -> AccessClaims {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    AccessClaims {
        iss: sandbox.url().as_str().trim_end_matches('/').to_owned(),
        sub: "maple-backend".to_owned(),
        aud: rxdesk_sandbox::config::DEFAULT_AUDIENCE.to_owned(),
        iat: now,
        exp: now + 600,
        azp: "maple-backend".to_owned(),
        scope: "read:patient".to_owned(),
        permissions: vec!["read:patient".to_owned()],
        org_id: "org_maple".to_owned(),
        jti: "test-token".to_owned(),
        gty: Some("client-credentials".to_owned()),
        sid: None,
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

    let reply = post_raw(&sandbox, Some(&bearer(&token)), ping_body()).await;

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

    let reply = post_raw(&sandbox, Some(&bearer(&token)), ping_body()).await;

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

    let reply = post_raw(&sandbox, Some(&bearer(&token)), ping_body()).await;

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

    let reply = post_raw(&sandbox, Some(&bearer(&token)), ping_body()).await;

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

    let reply = post_raw(&sandbox, Some(&bearer(&token)), ping_body()).await;

    assert_refused_as_invalid_saying(&reply, "expired");
}

#[tokio::test]
async fn a_machine_token_never_signs_whatever_its_scopes() {
    let (sandbox, keys, _dir) = sandbox_with_key().await;
    let every = rxdesk_sandbox::auth::claims::ALL_PERMISSIONS.map(str::to_owned);
    let token = keys
        .sign(&AccessClaims {
            scope: every.join(" "),
            permissions: every.to_vec(),
            ..machine_claims(&sandbox)
        })
        .unwrap();
    let signing = json!({
        "id": network_support::UNKNOWN_PRESCRIPTION,
        "signing": { "signedHash": "0".repeat(64) },
    });

    let r = network_support::prescription(&sandbox, &token, signing).await;

    assert_eq!(r["__typename"], "UnauthorizedError", "{r:#}");
    assert_eq!(r["code"], "PRESCRIPTION_SIGNING_UNAUTHORIZED");
    assert!(r["message"].as_str().unwrap().contains("machine"), "{r:#}");
}
