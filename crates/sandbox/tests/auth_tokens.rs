//! The token and revocation endpoints over real HTTP: machine tokens as the
//! contract shows them, the code exchange and its refusals, refresh token
//! rotation, reuse, expiry and revocation, and bodies that are malformed or too
//! large (always 4xx, never 5xx, and the server keeps answering).

use crate::support;

use std::time::Duration;

use rxdesk_sandbox::{Config, Storage};
use serde_json::{Value, json};
use support::*;

async fn post_json(sandbox: &rxdesk_sandbox::Sandbox, path: &str, body: Value) -> (u16, Value) {
    let response = http()
        .post(endpoint(sandbox, path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn machine_request(client_id: &str, secret: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_secret": secret,
        "audience": rxdesk_sandbox::config::DEFAULT_AUDIENCE,
        "grant_type": "client_credentials",
    })
}

// ---- machine tokens -------------------------------------------------------

#[tokio::test]
async fn machine_token_response_matches_the_contract() {
    let sandbox = start_demo().await;
    let (id, secret) = MAPLE_BACKEND;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .json(&machine_request(id, secret))
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 86400);
    assert_eq!(body["scope"], MACHINE_SCOPE);
    assert!(body.get("refresh_token").is_none());
}

#[tokio::test]
async fn machine_token_verifies_against_the_jwks_with_aud_org_and_gty() {
    let sandbox = start_demo().await;

    let token = machine_token(&sandbox, BIRCH_BACKEND.0, BIRCH_BACKEND.1).await;

    let claims = verify_with_jwks(&sandbox, &token).await;
    assert_eq!(claims.aud, rxdesk_sandbox::config::DEFAULT_AUDIENCE);
    assert_eq!(claims.org_id, "org_birch");
    assert_eq!(claims.gty.as_deref(), Some("client-credentials"));
    assert_eq!(claims.sub, "birch-backend");
    assert_eq!(claims.azp, "birch-backend");
    assert_eq!(claims.scope, MACHINE_SCOPE);
    assert!(!claims.has("write:prescription"));
    assert_eq!(claims.exp - claims.iat, 86400);
}

#[tokio::test]
async fn two_tokens_issued_back_to_back_are_distinct() {
    let sandbox = start_demo().await;

    let first = machine_token(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let second = machine_token(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;

    assert_ne!(first, second);
    let (a, b) = (
        verify_with_jwks(&sandbox, &first).await,
        verify_with_jwks(&sandbox, &second).await,
    );
    assert_ne!(a.jti, b.jti);
}

#[tokio::test]
async fn machine_token_lifetime_follows_the_flag() {
    let sandbox = start_with(Config {
        machine_token_ttl: Duration::from_secs(600),
        ..Config::in_memory()
    })
    .await;

    let (status, body) = machine_token_response(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;

    assert_eq!(status, 200);
    assert_eq!(body["expires_in"], 600);
}

#[tokio::test]
async fn machine_token_accepts_a_form_body_with_http_basic() {
    let sandbox = start_demo().await;
    let (id, secret) = MAPLE_BACKEND;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .basic_auth(id, Some(secret))
        .form(&[
            ("grant_type", "client_credentials"),
            ("audience", rxdesk_sandbox::config::DEFAULT_AUDIENCE),
        ])
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["scope"], MACHINE_SCOPE);
}

#[tokio::test]
async fn wrong_secret_is_401_invalid_client() {
    let sandbox = start_demo().await;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .json(&machine_request(MAPLE_BACKEND.0, "birch-backend-secret"))
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_client");
    assert!(body["error_description"].is_string());
    assert!(!body.to_string().contains("birch-backend-secret"));
}

#[tokio::test]
async fn unknown_backend_is_401_invalid_client() {
    let sandbox = start_demo().await;

    let (status, body) =
        post_json(&sandbox, "/oauth/token", machine_request("stranger", "x")).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("invalid_client"))
    );
}

#[tokio::test]
async fn public_application_asking_for_client_credentials_is_unauthorized_client() {
    let sandbox = start_demo().await;
    let request = json!({
        "client_id": DESKTOP_CLIENT,
        "audience": rxdesk_sandbox::config::DEFAULT_AUDIENCE,
        "grant_type": "client_credentials",
    });

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("unauthorized_client"))
    );
}

#[tokio::test]
async fn public_application_with_a_made_up_secret_is_401_invalid_client() {
    let sandbox = start_demo().await;

    let (status, body) = post_json(
        &sandbox,
        "/oauth/token",
        machine_request(DESKTOP_CLIENT, "guess"),
    )
    .await;

    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("invalid_client"))
    );
}

#[tokio::test]
async fn unknown_grant_type_is_unsupported_grant_type() {
    let sandbox = start_demo().await;
    let mut request = machine_request(MAPLE_BACKEND.0, MAPLE_BACKEND.1);
    request["grant_type"] = json!("password");

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("unsupported_grant_type"))
    );
}

#[tokio::test]
async fn machine_token_for_an_unknown_audience_is_refused() {
    let sandbox = start_demo().await;
    let mut request = machine_request(MAPLE_BACKEND.0, MAPLE_BACKEND.1);
    request["audience"] = json!("https://other-api.example");

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn machine_token_without_audience_is_refused() {
    let sandbox = start_demo().await;
    let request = json!({
        "client_id": MAPLE_BACKEND.0,
        "client_secret": MAPLE_BACKEND.1,
        "grant_type": "client_credentials",
    });

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

// ---- authorization code -----------------------------------------------------

#[tokio::test]
async fn reused_code_is_refused() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    flow.exchange(&sandbox, &code).await.unwrap();

    let second = flow.exchange(&sandbox, &code).await;

    assert_eq!(second.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn reused_code_revokes_the_refresh_token_it_produced() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox).offline(true);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let first = flow.exchange(&sandbox, &code).await.unwrap();

    let _ = flow.exchange(&sandbox, &code).await;

    let refreshed = refresh(&sandbox, first.refresh_token.as_deref().unwrap()).await;
    assert_eq!(refreshed.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn wrong_verifier_is_refused() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let other = oauth2::PkceCodeChallenge::new_random_sha256().1;

    let result = flow.exchange_with_verifier(&code, other.secret()).await;

    assert_eq!(result.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn code_is_spent_by_a_failed_attempt() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let other = oauth2::PkceCodeChallenge::new_random_sha256().1;
    let _ = flow.exchange_with_verifier(&code, other.secret()).await;

    let result = flow.exchange(&sandbox, &code).await;

    assert_eq!(result.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn expired_code_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = start_with(Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    })
    .await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    // Move the code 61 seconds into the past rather than waiting a minute.
    let db = rusqlite::Connection::open(dir.path().join("sandbox.db")).unwrap();
    let changed = db
        .execute("UPDATE auth_codes SET expires_at = expires_at - 61", [])
        .unwrap();
    assert_eq!(changed, 1);

    let result = flow.exchange(&sandbox, &code).await;

    assert_eq!(result.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn redirect_uri_mismatch_at_the_token_step_is_refused() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let other_client =
        oauth_client_for(&sandbox, DESKTOP_CLIENT, "http://127.0.0.1:53682/elsewhere");

    let result = other_client
        .exchange_code(oauth2::AuthorizationCode::new(code))
        .set_pkce_verifier(oauth2::PkceCodeVerifier::new(flow.verifier.clone()))
        .request_async(&oauth_http)
        .await;

    let Err(oauth2::RequestTokenError::ServerResponse(error)) = result else {
        panic!("expected an error response");
    };
    assert_eq!(error.error().to_string(), "invalid_grant");
}

#[tokio::test]
async fn code_exchange_by_a_backend_is_refused() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let request = json!({
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": flow.verifier,
        "redirect_uri": REDIRECT_URI,
        "client_id": MAPLE_BACKEND.0,
        "client_secret": MAPLE_BACKEND.1,
    });

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("unauthorized_client"))
    );
}

#[tokio::test]
async fn code_exchange_accepts_a_json_body() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let code = flow.code_for(MO, DEMO_PASSWORD, None).await;
    let request = json!({
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": flow.verifier,
        "redirect_uri": REDIRECT_URI,
        "client_id": DESKTOP_CLIENT,
    });

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 3600);
}

// ---- refresh tokens ---------------------------------------------------------

#[tokio::test]
async fn offline_access_brings_a_refresh_token_that_rotates() {
    let sandbox = start_demo().await;
    let first = user_tokens(&sandbox, ADA, DEMO_PASSWORD, Some(BIRCH), true).await;
    let refresh_token = first.refresh_token.clone().expect("a refresh token");

    let second = refresh(&sandbox, &refresh_token).await.unwrap();

    let next = second.refresh_token.clone().expect("a new refresh token");
    assert_ne!(next, refresh_token);
    let claims = verify_with_jwks(&sandbox, &second.access_token).await;
    assert_eq!(claims.org_id, "org_birch");
    assert_eq!(claims.sub, rxdesk_sandbox::fixture::derive_user_id(ADA));
    assert!(
        refresh(&sandbox, &next).await.is_ok(),
        "the rotated token works"
    );
}

#[tokio::test]
async fn reused_refresh_token_is_refused_and_revokes_the_family() {
    let sandbox = start_demo().await;
    let first = user_tokens(&sandbox, BEN, DEMO_PASSWORD, None, true).await;
    let old = first.refresh_token.unwrap();
    let newer = refresh(&sandbox, &old)
        .await
        .unwrap()
        .refresh_token
        .unwrap();

    let reuse = refresh(&sandbox, &old).await;

    assert_eq!(reuse.unwrap_err(), "invalid_grant");
    assert_eq!(
        refresh(&sandbox, &newer).await.unwrap_err(),
        "invalid_grant",
        "family revoked"
    );
}

#[tokio::test]
async fn expired_refresh_token_is_refused() {
    let sandbox = start_with(Config {
        refresh_token_ttl: Duration::from_secs(1),
        ..Config::in_memory()
    })
    .await;
    let tokens = user_tokens(&sandbox, BEN, DEMO_PASSWORD, None, true).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let result = refresh(&sandbox, tokens.refresh_token.as_deref().unwrap()).await;

    assert_eq!(result.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn a_sign_in_cannot_be_renewed_past_its_absolute_lifetime_however_often_rotated() {
    let sandbox = start_with(Config {
        refresh_family_ttl: Duration::from_secs(2),
        ..Config::in_memory()
    })
    .await;
    let tokens = user_tokens(&sandbox, BEN, DEMO_PASSWORD, None, true).await;
    // Rotated at once: works, and hands over a new refresh token.
    let rotated = refresh(&sandbox, tokens.refresh_token.as_deref().unwrap())
        .await
        .unwrap()
        .refresh_token
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let result = refresh(&sandbox, &rotated).await;

    assert_eq!(result.unwrap_err(), "invalid_grant");
}

#[tokio::test]
async fn revoked_refresh_token_is_refused() {
    let sandbox = start_demo().await;
    let tokens = user_tokens(&sandbox, MO, DEMO_PASSWORD, None, true).await;
    let refresh_token = tokens.refresh_token.unwrap();

    revoke_refresh_token(&sandbox, &refresh_token).await;

    assert_eq!(
        refresh(&sandbox, &refresh_token).await.unwrap_err(),
        "invalid_grant"
    );
}

#[tokio::test]
async fn revoking_an_unknown_token_answers_200() {
    let sandbox = start_demo().await;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/revoke"))
        .form(&[("token", "no-such-token"), ("client_id", DESKTOP_CLIENT)])
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn revocation_without_a_token_is_invalid_request() {
    let sandbox = start_demo().await;

    let (status, body) = post_json(
        &sandbox,
        "/oauth/revoke",
        json!({"client_id": DESKTOP_CLIENT}),
    )
    .await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn refresh_tokens_are_stored_hashed() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = start_with(Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    })
    .await;
    let tokens = user_tokens(&sandbox, BEN, DEMO_PASSWORD, None, true).await;
    let refresh_token = tokens.refresh_token.unwrap();
    sandbox.shutdown().await;

    let db = rusqlite::Connection::open(dir.path().join("sandbox.db")).unwrap();
    let stored: Vec<String> = db
        .prepare("SELECT token_hash FROM refresh_tokens")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let secrets: Vec<String> = db
        .prepare("SELECT password_hash FROM users UNION ALL SELECT secret_hash FROM backends")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();

    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0], refresh_token);
    assert!(secrets.iter().all(|h| h.starts_with("$argon2id$")));
    for file in ["sandbox.db", "sandbox.db-wal"] {
        let Ok(raw) = std::fs::read(dir.path().join(file)) else {
            continue;
        };
        let raw = String::from_utf8_lossy(&raw);
        assert!(!raw.contains(&refresh_token), "{file}");
        assert!(!raw.contains(DEMO_PASSWORD), "{file}");
        assert!(!raw.contains(MAPLE_BACKEND.1), "{file}");
    }
}

// ---- malformed and oversized bodies -----------------------------------------

async fn assert_still_serving(sandbox: &rxdesk_sandbox::Sandbox) {
    let token = machine_token(sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    assert!(!token.is_empty());
}

#[tokio::test]
async fn malformed_json_body_is_400_invalid_request() {
    let sandbox = start_demo().await;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .header("content-type", "application/json")
        .body("{\"grant_type\": \"client_credentials\",")
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request");
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn non_string_json_field_is_400_invalid_request() {
    let sandbox = start_demo().await;
    let mut request = machine_request(MAPLE_BACKEND.0, MAPLE_BACKEND.1);
    request["client_secret"] = json!(["not", "a", "string"]);

    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;

    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}

#[tokio::test]
async fn unsupported_content_type_is_400_invalid_request() {
    let sandbox = start_demo().await;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .header("content-type", "text/plain")
        .body("grant_type=client_credentials")
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn garbage_bodies_get_4xx_never_5xx() {
    let sandbox = start_demo().await;
    let bodies: [(&str, &[u8]); 5] = [
        ("application/json", b"[1,2,3]"),
        ("application/json", b"\xff\xfe\x00"),
        ("application/x-www-form-urlencoded", b"%%%&&&==="),
        (
            "application/x-www-form-urlencoded",
            b"grant_type=a&grant_type=b",
        ),
        ("application/json", b""),
    ];
    for path in [
        "/oauth/token",
        "/oauth/revoke",
        "/authorize/login",
        "/authorize/organization",
    ] {
        for (content_type, body) in bodies {
            let response = http()
                .post(endpoint(&sandbox, path))
                .header("content-type", content_type)
                .body(body.to_vec())
                .send()
                .await
                .unwrap();
            let status = response.status();
            assert!(
                status.is_client_error(),
                "{path} {content_type} {body:?}: {status}"
            );
        }
    }
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn oversized_body_is_an_rfc6749_shaped_413_and_the_server_stays_up() {
    let sandbox = start_demo().await;
    let huge = "x".repeat(200 * 1024);

    let response = http()
        .post(endpoint(&sandbox, "/oauth/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("padding", huge.as_str()),
        ])
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({ "error": "invalid_request", "error_description": "request body too large" })
    );
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn oversized_chunked_body_is_an_rfc6749_shaped_413_and_the_server_stays_up() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let sandbox = start_demo().await;
    let mut stream = tokio::net::TcpStream::connect(sandbox.addr())
        .await
        .unwrap();
    let head = format!(
        "POST /oauth/token HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n",
        sandbox.addr()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = format!("400\r\n{}\r\n", "x".repeat(1024));
    for _ in 0..80 {
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break; // the server may answer and close before the whole body is sent
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;

    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response);

    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    let body: Value = serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(
        body,
        json!({ "error": "invalid_request", "error_description": "request body too large" })
    );
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn oversized_revocation_body_is_an_rfc6749_shaped_413_and_the_server_stays_up() {
    let sandbox = start_demo().await;
    let huge = "x".repeat(200 * 1024);

    let response = http()
        .post(endpoint(&sandbox, "/oauth/revoke"))
        .form(&[("token", huge.as_str())])
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({ "error": "invalid_request", "error_description": "request body too large" })
    );
    assert_still_serving(&sandbox).await;
}

#[tokio::test]
async fn tokens_carry_the_configured_audience() {
    let audience = "https://api.rxdesk.example";
    let sandbox = start_with(Config {
        audience: audience.to_owned(),
        ..Config::in_memory()
    })
    .await;

    let machine = machine_token(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let user = user_token(&sandbox, BEN, DEMO_PASSWORD, None).await;

    assert_eq!(verify_with_jwks(&sandbox, &machine).await.aud, audience);
    assert_eq!(verify_with_jwks(&sandbox, &user).await.aud, audience);
    let mut request = machine_request(MAPLE_BACKEND.0, MAPLE_BACKEND.1);
    request["audience"] = json!(rxdesk_sandbox::config::DEFAULT_AUDIENCE);
    let (status, body) = post_json(&sandbox, "/oauth/token", request).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request"))
    );
}
