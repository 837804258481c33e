//! How sign-ins begin again and end (docs/network-api.md, "Sign-ins"): a browser
//! that signed in is remembered, and `prompt=login` / `max_age=0` ask for the
//! password anyway; every user token carries its sign-in's id (`sid`), and an ID
//! token (scope `openid`) says when the password was typed; once a sign-in ends —
//! its refresh or access token revoked, a token replayed, or RP-initiated logout at
//! the end-session endpoint — its access tokens are refused by `/graphql` and
//! `/userinfo` before they expire, also after a restart.

use crate::support;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rxdesk_sandbox::auth::claims::{AccessClaims, IdClaims};
use rxdesk_sandbox::auth::keys::SigningKeys;
use rxdesk_sandbox::{Config, Sandbox, Storage};
use serde_json::{Value, json};
use support::*;

const OPENID_OFFLINE: (&str, &str) = ("scope", "openid offline_access");

/// The claims of a JWT, read without verifying it (the tests check what the
/// sandbox put in; verification has tests of its own).
fn claims_of<T: serde::de::DeserializeOwned>(jwt: &str) -> T {
    let payload = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

/// What a code exchange answered, with the ID token when there is one.
#[derive(Debug)]
struct Tokens {
    access: String,
    refresh: Option<String>,
    id_token: Option<String>,
}

impl Tokens {
    fn sid(&self) -> String {
        claims_of::<AccessClaims>(&self.access).sid.unwrap()
    }

    fn id_claims(&self) -> IdClaims {
        claims_of(self.id_token.as_deref().unwrap())
    }
}

async fn token_request(sandbox: &Sandbox, form: &[(&str, &str)]) -> (u16, Value) {
    let response = http()
        .post(endpoint(sandbox, "/oauth/token"))
        .form(form)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn tokens(body: &Value) -> Tokens {
    let text = |name: &str| body[name].as_str().map(str::to_owned);
    Tokens {
        access: text("access_token").unwrap_or_else(|| panic!("no access token: {body}")),
        refresh: text("refresh_token"),
        id_token: text("id_token"),
    }
}

async fn exchange(sandbox: &Sandbox, flow: &Flow, code: &str) -> Tokens {
    let (status, body) = token_request(
        sandbox,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT_URI),
            ("client_id", DESKTOP_CLIENT),
            ("code_verifier", &flow.verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    tokens(&body)
}

async fn renew(sandbox: &Sandbox, refresh_token: &str) -> Result<Tokens, Value> {
    let (status, body) = token_request(
        sandbox,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", DESKTOP_CLIENT),
        ],
    )
    .await;
    if status == 200 {
        Ok(tokens(&body))
    } else {
        Err(body)
    }
}

/// Ben signs in with his password in `browser` (a cookie-keeping client).
async fn ben_signs_in(sandbox: &Sandbox, browser: &reqwest::Client) -> Tokens {
    let flow = Flow::with_params(sandbox, &[OPENID_OFFLINE]);
    let reply = flow
        .open(browser)
        .await
        .sign_in(browser, BEN, DEMO_PASSWORD)
        .await;
    let code = flow.code_from(&reply);
    exchange(sandbox, &flow, &code).await
}

/// `{ ping }` with `token`: the HTTP status and the body.
async fn ping(sandbox: &Sandbox, token: &str) -> (u16, Value) {
    let response = http()
        .post(endpoint(sandbox, "/graphql"))
        .bearer_auth(token)
        .json(&json!({ "query": "{ ping }" }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn userinfo_status(sandbox: &Sandbox, token: &str) -> (u16, String) {
    let response = http()
        .get(endpoint(sandbox, "/userinfo"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), challenge)
}

fn assert_refused_as_ended(answer: &(u16, Value)) {
    let (status, body) = answer;
    assert_eq!(*status, 401, "{body}");
    assert!(body.get("data").is_none(), "{body}");
    let error = &body["errors"][0];
    assert_eq!(
        error["extensions"]["code"], "INVALID_AUTHORIZATION_HEADER",
        "{body}"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("sign-in it belongs to has ended"),
        "{body}"
    );
}

async fn revoke(sandbox: &Sandbox, token: &str, hint: &str) {
    let response = http()
        .post(endpoint(sandbox, "/oauth/revoke"))
        .form(&[
            ("token", token),
            ("token_type_hint", hint),
            ("client_id", DESKTOP_CLIENT),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

async fn end_session(sandbox: &Sandbox, params: &[(&str, &str)]) -> Reply {
    let mut url = sandbox.url().join("/oidc/logout").unwrap();
    url.query_pairs_mut().extend_pairs(params);
    get(&http(), url.as_str()).await
}

/// `browser` is signed in at the sandbox: an authorization request from it
/// comes straight back with a code.
async fn assert_remembered(sandbox: &Sandbox, browser: &reqwest::Client) {
    let flow = Flow::with_params(sandbox, &[OPENID_OFFLINE]);
    let reply = get(browser, flow.authorize_url.as_str()).await;
    assert!(reply.location().is_some(), "not remembered: {reply:?}");
}

// ------------------------------------------------------------ remembered browsers

#[tokio::test]
async fn a_browser_that_signed_in_is_not_asked_for_the_password_again() {
    let sandbox = start_demo().await;
    let browser = browser();
    let first = ben_signs_in(&sandbox, &browser).await;
    let again = Flow::with_params(&sandbox, &[OPENID_OFFLINE]);

    let reply = get(&browser, again.authorize_url.as_str()).await;

    let code = again.code_from(&reply);
    let tokens = exchange(&sandbox, &again, &code).await;
    assert_eq!(
        claims_of::<AccessClaims>(&tokens.access).sub,
        claims_of::<AccessClaims>(&first.access).sub
    );
}

#[tokio::test]
async fn prompt_login_asks_for_the_password_even_in_a_browser_that_signed_in() {
    let sandbox = start_demo().await;
    let browser = browser();
    ben_signs_in(&sandbox, &browser).await;
    let fresh = Flow::with_params(&sandbox, &[OPENID_OFFLINE, ("prompt", "login")]);

    let reply = get(&browser, fresh.authorize_url.as_str()).await;

    assert!(reply.is_page(), "{reply:?}");
    assert_eq!(reply.page().heading(), "Sign in");
}

#[tokio::test]
async fn max_age_zero_asks_for_the_password_even_in_a_browser_that_signed_in() {
    let sandbox = start_demo().await;
    let browser = browser();
    ben_signs_in(&sandbox, &browser).await;
    let fresh = Flow::with_params(&sandbox, &[OPENID_OFFLINE, ("max_age", "0")]);

    let reply = get(&browser, fresh.authorize_url.as_str()).await;

    assert!(reply.is_page(), "{reply:?}");
    assert_eq!(reply.page().heading(), "Sign in");
}

#[tokio::test]
async fn prompt_none_in_a_browser_that_never_signed_in_answers_login_required() {
    let sandbox = start_demo().await;
    let flow = Flow::with_params(&sandbox, &[("prompt", "none")]);

    let reply = get(&browser(), flow.authorize_url.as_str()).await;

    let location = reply
        .location()
        .expect("a redirect back to the application");
    assert_eq!(
        query_map(&location).get("error").map(String::as_str),
        Some("login_required")
    );
}

// ------------------------------------------------------------ sign-in ids, ID tokens

#[tokio::test]
async fn an_id_token_says_which_sign_in_it_was_and_when_the_password_was_typed() {
    let sandbox = start_demo().await;
    let before = time::OffsetDateTime::now_utc().unix_timestamp();

    let tokens = ben_signs_in(&sandbox, &browser()).await;

    let id = tokens.id_claims();
    assert_eq!(id.aud, DESKTOP_CLIENT);
    assert_eq!(id.sub, claims_of::<AccessClaims>(&tokens.access).sub);
    assert_eq!(id.sid, tokens.sid());
    assert!(id.auth_time >= before, "{id:?}");
    let jwks_checked = verify_with_jwks(&sandbox, &tokens.access).await;
    assert_eq!(jwks_checked.sid, Some(id.sid));
}

#[tokio::test]
async fn a_remembered_login_keeps_the_time_the_password_was_typed() {
    let sandbox = start_demo().await;
    let browser = browser();
    let first = ben_signs_in(&sandbox, &browser).await;
    let again = Flow::with_params(&sandbox, &[OPENID_OFFLINE]);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;

    let code = again.code_from(&get(&browser, again.authorize_url.as_str()).await);
    let second = exchange(&sandbox, &again, &code).await;

    assert_eq!(second.id_claims().auth_time, first.id_claims().auth_time);
    assert_ne!(
        second.sid(),
        first.sid(),
        "each code starts its own sign-in"
    );
}

#[tokio::test]
async fn the_tokens_of_one_sign_in_share_its_id_across_renewals() {
    let sandbox = start_demo().await;
    let first = ben_signs_in(&sandbox, &browser()).await;

    let renewed = renew(&sandbox, first.refresh.as_deref().unwrap())
        .await
        .unwrap();

    assert_eq!(renewed.sid(), first.sid());
    assert_eq!(renewed.id_claims().sid, first.sid());
    assert_eq!(renewed.id_claims().auth_time, first.id_claims().auth_time);
    let machine = machine_token(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    assert_eq!(claims_of::<AccessClaims>(&machine).sid, None);
}

// ------------------------------------------------------------ ended sign-ins

#[tokio::test]
async fn an_access_token_of_a_revoked_sign_in_is_refused() {
    let sandbox = start_demo().await;
    let tokens = ben_signs_in(&sandbox, &browser()).await;
    assert_eq!(ping(&sandbox, &tokens.access).await.0, 200);

    revoke(
        &sandbox,
        tokens.refresh.as_deref().unwrap(),
        "refresh_token",
    )
    .await;

    assert_refused_as_ended(&ping(&sandbox, &tokens.access).await);
    let (status, challenge) = userinfo_status(&sandbox, &tokens.access).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("invalid_token"), "{challenge}");
}

#[tokio::test]
async fn revoking_an_access_token_ends_its_whole_sign_in() {
    let sandbox = start_demo().await;
    let tokens = ben_signs_in(&sandbox, &browser()).await;

    revoke(&sandbox, &tokens.access, "access_token").await;

    assert_refused_as_ended(&ping(&sandbox, &tokens.access).await);
    let renewal = renew(&sandbox, tokens.refresh.as_deref().unwrap()).await;
    assert_eq!(renewal.unwrap_err()["error"], "invalid_grant");
}

#[tokio::test]
async fn an_access_token_is_revoked_only_by_its_own_application() {
    let sandbox = start_demo().await;
    let tokens = ben_signs_in(&sandbox, &browser()).await;

    let response = http()
        .post(endpoint(&sandbox, "/oauth/revoke"))
        .basic_auth(MAPLE_BACKEND.0, Some(MAPLE_BACKEND.1))
        .form(&[("token", tokens.access.as_str())])
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(ping(&sandbox, &tokens.access).await.0, 200);
}

#[tokio::test]
async fn a_reused_refresh_token_ends_the_access_tokens_of_its_sign_in() {
    let sandbox = start_demo().await;
    let first = ben_signs_in(&sandbox, &browser()).await;
    let old = first.refresh.clone().unwrap();
    let renewed = renew(&sandbox, &old).await.unwrap();

    let _ = renew(&sandbox, &old).await.unwrap_err();

    assert_refused_as_ended(&ping(&sandbox, &renewed.access).await);
    assert_refused_as_ended(&ping(&sandbox, &first.access).await);
}

#[tokio::test]
async fn a_replayed_code_ends_the_access_tokens_it_produced() {
    let sandbox = start_demo().await;
    let flow = Flow::with_params(&sandbox, &[OPENID_OFFLINE]);
    let code = flow.code_for(BEN, DEMO_PASSWORD, None).await;
    let tokens = exchange(&sandbox, &flow, &code).await;

    let (status, _) = token_request(
        &sandbox,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT_URI),
            ("client_id", DESKTOP_CLIENT),
            ("code_verifier", &flow.verifier),
        ],
    )
    .await;

    assert_eq!(status, 400);
    assert_refused_as_ended(&ping(&sandbox, &tokens.access).await);
}

#[tokio::test]
async fn other_sign_ins_of_the_same_user_go_on_when_one_ends() {
    let sandbox = start_demo().await;
    let ended = ben_signs_in(&sandbox, &browser()).await;
    let other = ben_signs_in(&sandbox, &browser()).await;

    revoke(&sandbox, &ended.access, "access_token").await;

    assert_eq!(ping(&sandbox, &other.access).await.0, 200);
}

#[tokio::test]
async fn an_ended_sign_in_stays_ended_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = || Config {
        storage: Storage::Data(dir.path().to_path_buf()),
        ..Config::in_memory()
    };
    let sandbox = start_with(config()).await;
    let tokens = ben_signs_in(&sandbox, &browser()).await;
    revoke(&sandbox, &tokens.access, "access_token").await;
    let port = sandbox.addr().port();
    sandbox.shutdown().await;

    let restarted = start_with(Config {
        listen: ([127, 0, 0, 1], port).into(),
        ..config()
    })
    .await;

    assert_refused_as_ended(&ping(&restarted, &tokens.access).await);
}

// ------------------------------------------------------------ RP-initiated logout

#[tokio::test]
async fn discovery_offers_the_end_session_endpoint_and_openid() {
    let sandbox = start_demo().await;

    let discovery: Value = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    assert_eq!(
        discovery["end_session_endpoint"],
        endpoint(&sandbox, "/oidc/logout")
    );
    assert!(
        discovery["scopes_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("openid"))
    );
    assert_eq!(
        discovery["prompt_values_supported"],
        json!(["none", "login"])
    );
}

#[tokio::test]
async fn end_session_with_the_id_token_ends_the_sign_in_and_forgets_the_browser() {
    let sandbox = start_demo().await;
    let browser = browser();
    let tokens = ben_signs_in(&sandbox, &browser).await;
    let hint = tokens.id_token.clone().unwrap();
    assert_remembered(&sandbox, &browser).await;

    let reply = end_session(
        &sandbox,
        &[("id_token_hint", &hint), ("client_id", DESKTOP_CLIENT)],
    )
    .await;

    assert_eq!(reply.clone().page().status, 200);
    assert_eq!(reply.page().heading(), "Signed out");
    assert_refused_as_ended(&ping(&sandbox, &tokens.access).await);
    let renewal = renew(&sandbox, tokens.refresh.as_deref().unwrap()).await;
    assert_eq!(renewal.unwrap_err()["error"], "invalid_grant");
    let next = Flow::with_params(&sandbox, &[OPENID_OFFLINE]);
    let asked = get(&browser, next.authorize_url.as_str()).await;
    assert_eq!(
        asked.page().heading(),
        "Sign in",
        "the password is asked again"
    );
}

#[tokio::test]
async fn end_session_with_a_hint_signed_by_another_key_ends_nothing() {
    let sandbox = start_demo().await;
    let tokens = ben_signs_in(&sandbox, &browser()).await;
    let forged = SigningKeys::generate()
        .unwrap()
        .sign(&tokens.id_claims())
        .unwrap();

    let reply = end_session(&sandbox, &[("id_token_hint", &forged)]).await;

    assert_eq!(reply.page().status, 400);
    assert_eq!(ping(&sandbox, &tokens.access).await.0, 200);
}

#[tokio::test]
async fn end_session_returns_only_to_an_allowed_address_of_the_application() {
    let sandbox = start_demo().await;
    let first = ben_signs_in(&sandbox, &browser()).await;
    let second = ben_signs_in(&sandbox, &browser()).await;

    let elsewhere = end_session(
        &sandbox,
        &[
            ("id_token_hint", first.id_token.as_deref().unwrap()),
            ("post_logout_redirect_uri", "https://evil.example/"),
        ],
    )
    .await;
    let back = end_session(
        &sandbox,
        &[
            ("id_token_hint", second.id_token.as_deref().unwrap()),
            ("post_logout_redirect_uri", REDIRECT_URI),
            ("state", "s-123"),
        ],
    )
    .await;

    assert_eq!(elsewhere.page().status, 400);
    assert_eq!(ping(&sandbox, &first.access).await.0, 200, "nothing ended");
    let location = back.location().expect("a redirect back");
    assert!(location.as_str().starts_with(REDIRECT_URI), "{location}");
    assert_eq!(query_map(&location)["state"], "s-123");
    assert_refused_as_ended(&ping(&sandbox, &second.access).await);
}

#[tokio::test]
async fn end_session_without_a_hint_asks_the_browser_before_forgetting_it() {
    let sandbox = start_demo().await;
    let browser = browser();
    ben_signs_in(&sandbox, &browser).await;
    assert_remembered(&sandbox, &browser).await;
    let logout = sandbox.url().join("/oidc/logout").unwrap();

    let asked = get(&browser, logout.as_str()).await.page();
    let done = asked.submit(&browser, "Sign out", &[]).await;

    assert_eq!(asked.heading(), "Sign out?");
    assert_eq!(done.page().heading(), "Signed out");
    let next = Flow::with_params(&sandbox, &[OPENID_OFFLINE]);
    let reply = get(&browser, next.authorize_url.as_str()).await;
    assert_eq!(
        reply.page().heading(),
        "Sign in",
        "the password is asked again"
    );
}
