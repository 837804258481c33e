//! The browser sign-in of the authorization server, driven over real HTTP by a
//! cookie-keeping client that fills the HTML forms, with the `oauth2` crate as
//! the OAuth client (PKCE S256): who gets which token, and every refusal of the
//! `/authorize` step (error page or redirect with `error=`).

use crate::support;

use rxdesk_sandbox::fixture::derive_user_id;
use support::*;

const ALL_SIX: [&str; 6] = [
    "read:patient",
    "write:patient",
    "read:prescription",
    "write:prescription",
    "read:order",
    "write:order",
];

#[tokio::test]
async fn one_org_prescriber_signs_in_without_choosing_an_organization() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .sign_in(&browser, BEN, DEMO_PASSWORD)
        .await;
    let code = flow.code_from(&after);
    let tokens = flow.exchange(&sandbox, &code).await.unwrap();

    let claims = verify_with_jwks(&sandbox, &tokens.access_token).await;
    assert_eq!(claims.sub, derive_user_id(BEN));
    assert_eq!(claims.org_id, "org_birch");
    assert_eq!(claims.azp, DESKTOP_CLIENT);
    assert_eq!(claims.permissions, ALL_SIX);
    assert_eq!(claims.scope, ALL_SIX.join(" "));
    assert_eq!(claims.gty, None);
    assert_eq!(tokens.scope, ALL_SIX);
    assert_eq!(tokens.expires_in, 3600);
    assert_eq!(
        tokens.refresh_token, None,
        "no refresh token without offline_access"
    );
}

#[tokio::test]
async fn two_org_user_sees_one_button_per_organization() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .sign_in(&browser, ADA, DEMO_PASSWORD)
        .await;

    let page = after.page();
    assert_eq!(page.heading(), "Choose an organization");
    assert_eq!(page.buttons(), [MAPLE, BIRCH, "Cancel"]);
}

#[tokio::test]
async fn two_org_user_choosing_maple_gets_a_maple_token() {
    let sandbox = start_demo().await;

    let token = user_token(&sandbox, ADA, DEMO_PASSWORD, Some(MAPLE)).await;

    let claims = verify_with_jwks(&sandbox, &token).await;
    assert_eq!(claims.org_id, "org_maple");
    assert_eq!(claims.sub, derive_user_id(ADA));
}

#[tokio::test]
async fn two_org_user_choosing_birch_gets_a_birch_token() {
    let sandbox = start_demo().await;

    let token = user_token(&sandbox, ADA, DEMO_PASSWORD, Some(BIRCH)).await;

    let claims = verify_with_jwks(&sandbox, &token).await;
    assert_eq!(claims.org_id, "org_birch");
    assert_eq!(claims.permissions, ALL_SIX);
}

#[tokio::test]
async fn organization_parameter_skips_the_choice() {
    let sandbox = start_demo().await;
    let flow = Flow::with_params(&sandbox, &[("organization", "org_birch")]);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .sign_in(&browser, ADA, DEMO_PASSWORD)
        .await;

    let code = flow.code_from(&after);
    let tokens = flow.exchange(&sandbox, &code).await.unwrap();
    assert_eq!(
        verify_with_jwks(&sandbox, &tokens.access_token)
            .await
            .org_id,
        "org_birch"
    );
}

#[tokio::test]
async fn medical_ops_user_token_lacks_write_prescription() {
    let sandbox = start_demo().await;

    let token = user_token(&sandbox, MO, DEMO_PASSWORD, None).await;

    let claims = verify_with_jwks(&sandbox, &token).await;
    assert_eq!(claims.org_id, "org_maple");
    assert!(!claims.has("write:prescription"));
    assert_eq!(
        claims.permissions,
        [
            "read:patient",
            "write:patient",
            "read:prescription",
            "read:order",
            "write:order"
        ]
    );
}

#[tokio::test]
async fn email_is_matched_case_insensitively() {
    let sandbox = start_demo().await;

    let token = user_token(&sandbox, "Ben@Birch.Example", DEMO_PASSWORD, None).await;

    assert_eq!(
        verify_with_jwks(&sandbox, &token).await.sub,
        derive_user_id(BEN)
    );
}

#[tokio::test]
async fn sign_in_page_is_accessible_and_shows_the_demo_accounts() {
    let sandbox = start_demo().await;
    let browser = browser();

    let page = Flow::new(&sandbox).open(&browser).await;

    assert_eq!(page.status, 200);
    assert!(page.html.contains("<html lang=\"en\">"));
    assert!(page.html.contains("<main>"));
    assert!(page.input_labelled("Email").is_some());
    assert!(page.input_labelled("Password").is_some());
    assert_eq!(page.buttons(), ["Sign in", "Cancel"]);
    assert!(!page.html.contains("<script"), "no script");
    assert!(!page.html.contains("src=\"http"), "no external resource");
    let text = page.text();
    for email in [ADA, BEN, MO] {
        assert!(text.contains(email), "demo hint lists {email}: {text}");
    }
}

#[tokio::test]
async fn cancel_redirects_with_access_denied_and_state() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .submit(&browser, "Cancel", &[])
        .await;

    let location = after.location().expect("a redirect");
    assert!(location.as_str().starts_with(REDIRECT_URI));
    let query = query_map(&location);
    assert_eq!(
        query.get("error").map(String::as_str),
        Some("access_denied")
    );
    assert_eq!(query.get("state"), Some(&flow.state));
    assert!(!query.contains_key("code"));
}

#[tokio::test]
async fn cancel_on_the_organization_page_redirects_with_access_denied() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();
    let choose = flow
        .open(&browser)
        .await
        .sign_in(&browser, ADA, DEMO_PASSWORD)
        .await
        .page();

    let after = choose.submit(&browser, "Cancel", &[]).await;

    let query = query_map(&after.location().expect("a redirect"));
    assert_eq!(
        query.get("error").map(String::as_str),
        Some("access_denied")
    );
    assert_eq!(query.get("state"), Some(&flow.state));
}

#[tokio::test]
async fn wrong_password_shows_the_sign_in_page_again() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .sign_in(&browser, BEN, "not-the-password")
        .await;

    let page = after.page();
    assert_eq!(page.heading(), "Sign in");
    assert!(
        page.text().contains("Wrong email or password"),
        "{}",
        page.text()
    );
    assert!(page.html.contains(BEN), "the email stays filled in");
    assert!(!page.html.contains("not-the-password"));
}

#[tokio::test]
async fn unknown_email_gets_the_same_answer_as_a_wrong_password() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();

    let after = flow
        .open(&browser)
        .await
        .sign_in(&browser, "nobody@maple.example", DEMO_PASSWORD)
        .await;

    assert!(after.page().text().contains("Wrong email or password"));
}

#[tokio::test]
async fn five_wrong_passwords_lock_the_account_even_for_the_right_one() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();
    let mut page = flow.open(&browser).await;
    for _ in 0..5 {
        page = page.sign_in(&browser, MO, "wrong").await.page();
    }

    let after = page.sign_in(&browser, MO, DEMO_PASSWORD).await;

    let page = after.page();
    assert_eq!(page.status, 429);
    assert!(page.text().contains("locked"), "{}", page.text());
    // Other accounts are not affected.
    let other = user_token(&sandbox, BEN, DEMO_PASSWORD, None).await;
    assert!(!other.is_empty());
}

#[tokio::test]
async fn concurrent_wrong_passwords_cannot_bypass_the_lock() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browsers: Vec<_> = (0..12).map(|_| browser()).collect();
    let mut pages = Vec::new();
    for b in &browsers {
        pages.push(flow.open(b).await);
    }

    // Twelve wrong passwords at once: the count cannot lag behind the checks.
    let answers = futures::future::join_all(
        pages
            .into_iter()
            .zip(&browsers)
            .map(|(page, b)| async move { page.sign_in(b, MO, "wrong").await.page() }),
    )
    .await;

    let checked = answers
        .iter()
        .filter(|p| p.text().contains("Wrong email or password"))
        .count();
    assert!(
        checked < 5,
        "{checked} wrong passwords were checked before the lock"
    );
    let last = flow
        .open(&browsers[0])
        .await
        .sign_in(&browsers[0], MO, DEMO_PASSWORD)
        .await;
    assert_eq!(
        last.page().status,
        429,
        "the right password got through a lock"
    );
}

#[tokio::test]
async fn unknown_client_gets_an_error_page_not_a_redirect() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let url = flow
        .authorize_url
        .as_str()
        .replace("client_id=rxdesk-desktop", "client_id=stranger");

    let reply = get(&browser(), &url).await;

    let page = reply.page();
    assert_eq!(page.status, 400);
    assert!(page.text().contains("unknown client_id"), "{}", page.text());
}

#[tokio::test]
async fn redirect_uri_outside_the_allowed_list_gets_an_error_page() {
    let sandbox = start_demo().await;
    let client = oauth_client_for(&sandbox, DESKTOP_CLIENT, "https://evil.example/callback");
    let (challenge, _) = oauth2::PkceCodeChallenge::new_random_sha256();
    let (url, _) = client
        .authorize_url(oauth2::CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("audience", rxdesk_sandbox::config::DEFAULT_AUDIENCE)
        .url();

    let reply = get(&browser(), url.as_str()).await;

    let page = reply.page();
    assert_eq!(page.status, 400);
    assert!(
        page.text()
            .contains("not in this application's allowed URLs")
    );
}

#[tokio::test]
async fn loopback_redirect_uri_on_another_port_and_host_is_allowed() {
    let sandbox = start_demo().await;
    let client = oauth_client_for(&sandbox, DESKTOP_CLIENT, "http://localhost:1/other/path");
    let (challenge, _) = oauth2::PkceCodeChallenge::new_random_sha256();
    let (url, _) = client
        .authorize_url(oauth2::CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("audience", rxdesk_sandbox::config::DEFAULT_AUDIENCE)
        .url();

    let page = get(&browser(), url.as_str()).await.page();

    assert_eq!(page.status, 200);
    assert_eq!(page.heading(), "Sign in");
}

/// The authorize URL of a fresh flow with `name` removed and `extra` appended.
fn tampered(flow: &Flow, name: &str, extra: Option<(&str, &str)>) -> String {
    let mut url = flow.authorize_url.clone();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != name)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    {
        let mut query = url.query_pairs_mut();
        query.clear().extend_pairs(pairs);
        if let Some((k, v)) = extra {
            query.append_pair(k, v);
        }
    }
    url.to_string()
}

async fn assert_redirected_with(url: &str, flow: &Flow, error: &str) {
    let reply = get(&browser(), url).await;
    let location = reply
        .location()
        .unwrap_or_else(|| panic!("expected a redirect, got {reply:?}"));
    assert!(location.as_str().starts_with(REDIRECT_URI));
    let query = query_map(&location);
    assert_eq!(
        query.get("error").map(String::as_str),
        Some(error),
        "{location}"
    );
    assert_eq!(query.get("state"), Some(&flow.state));
    assert!(!query.contains_key("code"));
}

#[tokio::test]
async fn plain_pkce_is_refused_with_a_redirect() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let url = tampered(
        &flow,
        "code_challenge_method",
        Some(("code_challenge_method", "plain")),
    );

    assert_redirected_with(&url, &flow, "invalid_request").await;
}

#[tokio::test]
async fn missing_pkce_is_refused_with_a_redirect() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let url = tampered(&flow, "code_challenge", None);

    assert_redirected_with(&url, &flow, "invalid_request").await;
}

#[tokio::test]
async fn unknown_audience_is_refused_with_a_redirect() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let url = tampered(
        &flow,
        "audience",
        Some(("audience", "https://other-api.example")),
    );

    assert_redirected_with(&url, &flow, "invalid_request").await;
}

#[tokio::test]
async fn unsupported_response_type_is_refused_with_a_redirect() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let url = tampered(&flow, "response_type", Some(("response_type", "token")));

    assert_redirected_with(&url, &flow, "unsupported_response_type").await;
}

#[tokio::test]
async fn sign_in_form_posted_from_another_browser_is_refused() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let page = flow.open(&browser()).await;

    let after = page.sign_in(&browser(), BEN, DEMO_PASSWORD).await;

    let page = after.page();
    assert_eq!(page.status, 400);
    assert!(page.text().contains("another browser"), "{}", page.text());
}

#[tokio::test]
async fn discovery_and_jwks_describe_the_server() {
    let sandbox = start_demo().await;
    let issuer = sandbox.url().as_str().trim_end_matches('/').to_owned();

    let discovery: serde_json::Value = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let jwks: serde_json::Value = http()
        .get(endpoint(&sandbox, "/.well-known/jwks.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    assert_eq!(discovery["issuer"], issuer.as_str());
    assert_eq!(
        discovery["authorization_endpoint"],
        format!("{issuer}/authorize")
    );
    assert_eq!(discovery["token_endpoint"], format!("{issuer}/oauth/token"));
    assert_eq!(
        discovery["revocation_endpoint"],
        format!("{issuer}/oauth/revoke")
    );
    assert_eq!(
        discovery["jwks_uri"],
        format!("{issuer}/.well-known/jwks.json")
    );
    assert_eq!(
        discovery["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(jwks["keys"][0]["alg"], "RS256");
    assert_eq!(jwks["keys"][0]["kty"], "RSA");
}
