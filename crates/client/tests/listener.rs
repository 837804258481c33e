//! The loopback listener of browser sign-in, driven over real HTTP: stray paths,
//! a wrong `state`, `error=` answers, timeout, cancel, the port released after,
//! loopback only. Most need no sandbox: nothing reaches the network before a
//! valid code arrives.

use crate::support;

use std::time::Duration;

use rxdesk_client::{Client, Environment, NoBrowser, PendingSignIn, SignInError};
use support::*;

/// A client whose network is never reached in these tests.
fn offline_client() -> Client {
    Client::new(
        Environment::new(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9",
            "rxdesk-sandbox",
            "rxdesk-desktop",
        )
        .unwrap(),
    )
    .unwrap()
}

async fn pending(client: &Client, timeout: Duration) -> PendingSignIn {
    client
        .sign_in()
        .opener(NoBrowser)
        .timeout(timeout)
        .start()
        .await
        .unwrap()
}

fn state_of(pending: &PendingSignIn) -> String {
    pending
        .authorize_url()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned()
}

async fn visit(redirect_uri: &url::Url, path_and_query: &str) -> (u16, String) {
    let url = redirect_uri.join(path_and_query).unwrap();
    install_crypto();
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn authorize_url_carries_pkce_state_audience_and_scope() {
    let pending = pending(&offline_client(), Duration::from_secs(5)).await;

    let query: std::collections::HashMap<String, String> =
        pending.authorize_url().query_pairs().into_owned().collect();

    assert_eq!(query["response_type"], "code");
    assert_eq!(query["client_id"], "rxdesk-desktop");
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["code_challenge"].len(), 43);
    assert_eq!(query["audience"], "rxdesk-sandbox");
    assert_eq!(query["scope"], "openid offline_access");
    assert_eq!(query["redirect_uri"], pending.redirect_uri().as_str());
    assert!(query["state"].len() >= 16);
    assert!(!query.contains_key("prompt"), "an ordinary sign-in");
}

#[tokio::test]
async fn a_fresh_sign_in_asks_for_the_password_whatever_the_browser_remembers() {
    let client = offline_client();
    let pending = client
        .sign_in()
        .fresh_login(true)
        .opener(NoBrowser)
        .timeout(Duration::from_secs(5))
        .start()
        .await
        .unwrap();

    let query: std::collections::HashMap<String, String> =
        pending.authorize_url().query_pairs().into_owned().collect();

    assert_eq!(query["prompt"], "login");
    assert_eq!(query["max_age"], "0");
}

#[tokio::test]
async fn each_sign_in_gets_a_fresh_state() {
    let client = offline_client();

    let (a, b) = (
        pending(&client, Duration::from_secs(5)).await,
        pending(&client, Duration::from_secs(5)).await,
    );

    assert_ne!(state_of(&a), state_of(&b));
}

#[tokio::test]
async fn listener_is_bound_on_loopback_only() {
    let pending = pending(&offline_client(), Duration::from_secs(5)).await;

    assert!(pending.local_addr().ip().is_loopback());
    assert_eq!(pending.redirect_uri().host_str(), Some("127.0.0.1"));
    assert_eq!(pending.redirect_uri().path(), "/callback");
}

#[tokio::test]
async fn a_fixed_callback_port_is_honoured() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let env = Environment::new(
        "http://127.0.0.1:9",
        "http://127.0.0.1:9",
        "rxdesk-sandbox",
        "rxdesk-desktop",
    )
    .unwrap()
    .with_callback_port(Some(port));

    let pending = pending(&Client::new(env).unwrap(), Duration::from_secs(5)).await;

    assert_eq!(pending.local_addr().port(), port);
}

#[tokio::test]
async fn stray_paths_get_404_and_the_wait_goes_on() {
    let pending = pending(&offline_client(), Duration::from_secs(10)).await;
    let (state, redirect) = (state_of(&pending), pending.redirect_uri().clone());
    let waiting = tokio::spawn(pending.finish());

    let (favicon, _) = visit(&redirect, "/favicon.ico").await;
    let (root, _) = visit(&redirect, "/").await;

    assert_eq!((favicon, root), (404, 404));
    assert!(!waiting.is_finished());
    visit(
        &redirect,
        &format!("/callback?error=access_denied&state={state}"),
    )
    .await;
    let outcome = waiting.await.unwrap();
    assert!(
        matches!(outcome, Err(SignInError::Denied { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_wrong_state_gets_an_error_page_and_is_ignored() {
    let pending = pending(&offline_client(), Duration::from_secs(10)).await;
    let (state, redirect) = (state_of(&pending), pending.redirect_uri().clone());
    let waiting = tokio::spawn(pending.finish());

    let (status, page) = visit(&redirect, "/callback?code=stolen&state=forged").await;
    let (missing, _) = visit(&redirect, "/callback?code=stolen").await;

    assert_eq!((status, missing), (400, 400));
    assert!(page.contains("ignored"), "{page}");
    assert!(
        !waiting.is_finished(),
        "a wrong state must not end the wait"
    );
    visit(
        &redirect,
        &format!("/callback?error=access_denied&state={state}"),
    )
    .await;
    let outcome = waiting.await.unwrap();
    assert!(
        matches!(outcome, Err(SignInError::Denied { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn access_denied_is_reported_with_the_description() {
    let pending = pending(&offline_client(), Duration::from_secs(10)).await;
    let (state, redirect) = (state_of(&pending), pending.redirect_uri().clone());
    let waiting = tokio::spawn(pending.finish());

    let (status, page) = visit(
        &redirect,
        &format!(
            "/callback?error=access_denied&error_description=The+user+cancelled&state={state}"
        ),
    )
    .await;

    let outcome = waiting.await.unwrap();
    let Err(SignInError::Denied { description }) = outcome else {
        panic!("expected Denied, got {outcome:?}");
    };
    assert_eq!(description.as_deref(), Some("The user cancelled"));
    assert_eq!(status, 400);
    assert!(page.contains("The user cancelled"), "{page}");
}

#[tokio::test]
async fn the_cancel_button_on_the_sign_in_page_is_access_denied() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::new(Act::Cancel);

    let outcome = client.sign_in().opener(browser).run().await;

    let Err(SignInError::Denied { description }) = outcome else {
        panic!("expected Denied, got {outcome:?}");
    };
    assert!(description.is_some());
    let landing = landing.await.unwrap();
    assert!(
        landing.text().contains("cancelled or denied"),
        "{}",
        landing.html
    );
}

#[tokio::test]
async fn another_error_is_reported_as_such() {
    let pending = pending(&offline_client(), Duration::from_secs(10)).await;
    let state = state_of(&pending);
    let redirect = pending.redirect_uri().clone();
    let waiting = tokio::spawn(pending.finish());

    let (_, page) = visit(
        &redirect,
        &format!("/callback?error=invalid_scope&error_description=unknown+scope&state={state}"),
    )
    .await;

    let outcome = waiting.await.unwrap();
    let Err(SignInError::Authorization { error, description }) = outcome else {
        panic!("expected Authorization, got {outcome:?}");
    };
    assert_eq!(error, "invalid_scope");
    assert_eq!(description.as_deref(), Some("unknown scope"));
    assert!(page.contains("invalid_scope"));
}

#[tokio::test]
async fn the_wait_times_out() {
    let pending = pending(&offline_client(), Duration::from_millis(200)).await;

    let outcome = pending.finish().await;

    assert!(matches!(outcome, Err(SignInError::TimedOut)), "{outcome:?}");
}

#[tokio::test]
async fn cancel_ends_the_wait() {
    let pending = pending(&offline_client(), Duration::from_secs(30)).await;
    let cancel = pending.cancel_handle();
    let waiting = tokio::spawn(pending.finish());

    cancel.cancel();

    let outcome = waiting.await.unwrap();
    assert!(
        matches!(outcome, Err(SignInError::Cancelled)),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn cancel_before_waiting_is_not_lost() {
    let pending = pending(&offline_client(), Duration::from_secs(30)).await;

    pending.cancel_handle().cancel();

    let outcome = pending.finish().await;
    assert!(
        matches!(outcome, Err(SignInError::Cancelled)),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn the_port_is_released_after_the_wait() {
    let pending = pending(&offline_client(), Duration::from_millis(100)).await;
    let addr = pending.local_addr();

    let _ = pending.finish().await;

    let rebound = std::net::TcpListener::bind(addr);
    assert!(rebound.is_ok(), "port still held: {rebound:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_port_is_released_after_a_successful_sign_in() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::signing_in(BEN, None);
    let pending = client.sign_in().opener(browser).start().await.unwrap();
    let addr = pending.local_addr();

    pending.finish().await.unwrap();

    landing.await.unwrap();
    assert!(std::net::TcpListener::bind(addr).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_landing_page_loads_nothing_from_elsewhere() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (browser, landing) = TestBrowser::signing_in(BEN, None);

    client.sign_in().opener(browser).run().await.unwrap();

    let html = landing.await.unwrap().html.to_lowercase();
    for external in [
        "<script", "<link", "<img", "src=", "href=", "@import", "url(",
    ] {
        assert!(!html.contains(external), "{external} in {html}");
    }
}

/// An opener that fails, counting its attempts (no browser on this machine).
#[derive(Debug, Default)]
struct BrokenBrowser(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl rxdesk_client::UrlOpener for BrokenBrowser {
    fn open(&self, _url: &url::Url) -> std::io::Result<()> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no browser",
        ))
    }
}

#[tokio::test]
async fn a_browser_that_fails_to_open_leaves_the_url_to_show() {
    let opener = BrokenBrowser::default();
    let attempts = opener.0.clone();

    let pending = offline_client()
        .sign_in()
        .opener(opener)
        .start()
        .await
        .unwrap();

    assert_eq!(pending.browser_error(), Some("no browser"));
    assert!(pending.authorize_url().as_str().contains("/authorize?"));
    assert!(pending.open_again().is_err());
    assert_eq!(attempts.load(std::sync::atomic::Ordering::SeqCst), 2);
}
