//! How a session ends, and how the next one begins, against an in-process
//! sandbox that remembers browsers as a real network does: sign-out revokes both
//! tokens and ends the sign-in at the network's end-session endpoint, so the
//! access token stops working at once and the browser's login is gone; a
//! sign-in asked to be fresh gets the password page even in a browser the network
//! still knows.

use crate::support;

use rxdesk_client::{Client, ClientError, Session, SignOutStep};
use support::*;

/// Signs `email` in through the browser whose cookies are in `jar`.
async fn sign_in_with(
    client: &Client,
    jar: &reqwest::Client,
    email: &str,
    fresh: bool,
) -> (Session, Landing) {
    let (browser, landing) = TestBrowser::signing_in(email, None);
    let session = client
        .sign_in()
        .fresh_login(fresh)
        .opener(browser.with_cookies(jar))
        .run()
        .await
        .unwrap();
    (session, landing.await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_asks_for_the_password_in_a_browser_still_signed_in() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let jar = cookie_jar();
    sign_in_with(&client, &jar, BEN, false).await;

    let (session, landing) = sign_in_with(&client, &jar, BEN, true).await;

    assert!(landing.asked_password);
    assert_eq!(session.user().email.as_deref(), Some(BEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_not_asked_to_be_fresh_uses_the_browsers_login() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let jar = cookie_jar();
    sign_in_with(&client, &jar, BEN, false).await;

    let (session, landing) = sign_in_with(&client, &jar, BEN, false).await;

    assert!(!landing.asked_password);
    assert_eq!(session.user().email.as_deref(), Some(BEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_out_ends_access_not_only_renewal() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, BEN, None).await;

    let report = client.sign_out(session.clone()).await;

    assert_eq!(report.refresh_token, SignOutStep::Done);
    assert_eq!(report.access_token, SignOutStep::Done);
    let refused = client.network(&session).ping().await.unwrap_err();
    assert!(
        matches!(refused, ClientError::SignedOut { ref code, .. } if code == "INVALID_AUTHORIZATION_HEADER"),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_out_ends_the_sign_in_at_the_network_and_in_its_browser() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let jar = cookie_jar();
    let (session, _) = sign_in_with(&client, &jar, BEN, false).await;

    let report = client.sign_out(session).await;

    assert_eq!(report.sign_in, SignOutStep::Done, "{report:?}");
    let (_, landing) = sign_in_with(&client, &jar, BEN, false).await;
    assert!(landing.asked_password, "the browser's login ended too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renewed_session_still_ends_its_whole_sign_in() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let first = sign_in(&client, BEN, None).await;
    let renewed = client.renew(&first).await.unwrap();

    let report = client.sign_out(renewed).await;

    assert!(report.failures().is_empty(), "{report:?}");
    assert_eq!(report.sign_in, SignOutStep::Done);
    let refused = client.network(&first).ping().await.unwrap_err();
    assert!(
        matches!(refused, ClientError::SignedOut { .. }),
        "{refused:?}"
    );
}

/// The client of a fake network: the sandbox behind the test proxy, which can
/// leave out of its token answers what the sandbox itself always sends.
fn behind_fake_network(proxy: &Proxy, sandbox: &rxdesk_sandbox::Sandbox) -> Client {
    let environment = rxdesk_client::Environment::sandbox(&proxy.url)
        .unwrap()
        .with_issuer(sandbox.issuer())
        .unwrap();
    Client::new(environment).unwrap()
}

/// A fresh sign-in as Ben through `client`: its refusal, if it was refused.
async fn fresh_sign_in_refusal(client: &Client) -> Option<rxdesk_client::SignInError> {
    let (browser, _landing) = TestBrowser::signing_in(BEN, None);
    client
        .sign_in()
        .fresh_login(true)
        .opener(browser)
        .run()
        .await
        .err()
}

fn is_not_fresh(refusal: Option<&rxdesk_client::SignInError>) -> bool {
    matches!(
        refusal,
        Some(rxdesk_client::SignInError::Authorization { error, .. }) if error == "login_not_fresh"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_answered_without_an_id_token_is_refused_as_not_fresh_and_ended() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = behind_fake_network(&proxy, &sandbox);
    proxy.drop_next_id_tokens(1);

    let refusal = fresh_sign_in_refusal(&client).await;

    assert!(is_not_fresh(refusal.as_ref()), "{refusal:?}");
    assert!(
        proxy.count("/oauth/revoke") >= 1,
        "the session the refused sign-in made was not revoked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_sign_in_whose_id_token_has_no_auth_time_is_refused_as_not_fresh() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = behind_fake_network(&proxy, &sandbox);
    proxy.drop_next_auth_times(1);

    let refusal = fresh_sign_in_refusal(&client).await;

    assert!(is_not_fresh(refusal.as_ref()), "{refusal:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_not_asked_to_be_fresh_needs_no_auth_time() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let client = behind_fake_network(&proxy, &sandbox);
    proxy.drop_next_auth_times(1);

    let session = sign_in(&client, BEN, None).await;

    assert_eq!(session.user().email.as_deref(), Some(BEN));
}
