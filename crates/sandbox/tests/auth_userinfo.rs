//! `GET /userinfo` (OpenID Connect UserInfo): a user access token is answered with
//! who it acts for — `sub`, `name`, `email`, `role`, `org_id`, `org_name` — and
//! the token is verified exactly as `/graphql` verifies it. No token, a machine
//! token, an expired or forged one are refused with an RFC 6750 challenge.

use crate::support;

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rxdesk_sandbox::Config;
use serde_json::Value;
use support::*;

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

impl Answer {
    fn challenge(&self) -> &str {
        self.headers
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap())
            .unwrap_or_else(|| panic!("no WWW-Authenticate in {:?}", self.headers))
    }
}

async fn userinfo(sandbox: &rxdesk_sandbox::Sandbox, authorization: Option<&str>) -> Answer {
    let mut request = http().get(endpoint(sandbox, "/userinfo"));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        body,
    }
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[tokio::test]
async fn a_user_token_is_answered_with_the_user_and_the_organization_it_acts_for() {
    let sandbox = start_demo().await;
    let token = user_token(&sandbox, ADA, DEMO_PASSWORD, Some(BIRCH)).await;

    let answer = userinfo(&sandbox, Some(&bearer(&token))).await;

    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.body,
        serde_json::json!({
            "sub": rxdesk_sandbox::fixture::derive_user_id(ADA),
            "name": "Ada Quinn",
            "email": ADA,
            "role": "prescriber",
            "org_id": "org_birch",
            "org_name": BIRCH,
        })
    );
    assert_eq!(answer.headers["cache-control"], "no-store");
}

#[tokio::test]
async fn the_sub_is_the_sub_of_the_token_and_the_role_that_of_the_user() {
    let sandbox = start_demo().await;
    let token = user_token(&sandbox, MO, DEMO_PASSWORD, None).await;
    let claims = verify_with_jwks(&sandbox, &token).await;

    let answer = userinfo(&sandbox, Some(&bearer(&token))).await;

    assert_eq!(answer.body["sub"], claims.sub.as_str());
    assert_eq!(answer.body["role"], "medical_ops");
    assert_eq!(answer.body["org_id"], claims.org_id.as_str());
    assert_eq!(answer.body["org_name"], MAPLE);
    assert!(
        answer.body.get("permissions").is_none(),
        "permissions are the token response's scope: {}",
        answer.body
    );
}

#[tokio::test]
async fn a_request_without_a_token_is_401_with_a_bare_bearer_challenge() {
    let sandbox = start_demo().await;

    let answer = userinfo(&sandbox, None).await;

    assert_eq!(answer.status, 401);
    assert_eq!(answer.challenge(), "Bearer");
    assert!(answer.body.get("sub").is_none(), "{}", answer.body);
}

#[tokio::test]
async fn a_machine_token_is_403_insufficient_scope() {
    let sandbox = start_demo().await;
    let (id, secret) = MAPLE_BACKEND;
    let token = machine_token(&sandbox, id, secret).await;

    let answer = userinfo(&sandbox, Some(&bearer(&token))).await;

    assert_eq!(answer.status, 403, "{}", answer.body);
    assert!(
        answer
            .challenge()
            .starts_with("Bearer error=\"insufficient_scope\""),
        "{}",
        answer.challenge()
    );
    assert_eq!(answer.body["error"], "insufficient_scope");
    assert!(answer.body.get("sub").is_none(), "{}", answer.body);
}

#[tokio::test]
async fn an_expired_user_token_is_401_invalid_token_saying_it_expired() {
    let sandbox = start_with(Config {
        user_token_ttl: Duration::from_secs(1),
        ..Config::in_memory()
    })
    .await;
    let token = user_token(&sandbox, MO, DEMO_PASSWORD, None).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let answer = userinfo(&sandbox, Some(&bearer(&token))).await;

    assert_eq!(answer.status, 401, "{}", answer.body);
    assert!(
        answer
            .challenge()
            .starts_with("Bearer error=\"invalid_token\""),
        "{}",
        answer.challenge()
    );
    assert_eq!(answer.body["error"], "invalid_token");
    let description = answer.body["error_description"].as_str().unwrap();
    assert!(description.contains("expired"), "{description}");
}

#[tokio::test]
async fn a_forged_token_is_401_invalid_token() {
    let sandbox = start_demo().await;
    let token = user_token(&sandbox, MO, DEMO_PASSWORD, None).await;
    let (unsigned, signature) = token.rsplit_once('.').unwrap();
    let flipped = if signature.starts_with('A') { "B" } else { "A" };
    let forged = format!("{unsigned}.{flipped}{}", &signature[1..]);

    let answer = userinfo(&sandbox, Some(&bearer(&forged))).await;

    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(answer.body["error"], "invalid_token");
}

#[tokio::test]
async fn discovery_advertises_the_userinfo_endpoint() {
    let sandbox = start_demo().await;

    let discovery: Value = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    let issuer = sandbox.url().as_str().trim_end_matches('/');
    assert_eq!(discovery["userinfo_endpoint"], format!("{issuer}/userinfo"));
}
