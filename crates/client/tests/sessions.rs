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
