//! No secret reaches a log line: every log event of a full session (wrong and
//! right passwords, a code exchange with a refresh token, its rotation and
//! revocation, machine tokens with right and wrong secrets) is captured at TRACE
//! level and searched for each password, secret, code, verifier and token.
//! One test only: it installs the process-wide tracing subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};

use support::*;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_password_secret_code_or_token_appears_in_the_logs() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        // Everything, except the HTML parser the test itself uses to read pages.
        .with_env_filter(tracing_subscriber::EnvFilter::new(
            "trace,html5ever=off,markup5ever=off,selectors=off,scraper=off",
        ))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    let sandbox = start_demo().await;

    let flow = Flow::new(&sandbox).offline(true);
    let browser = browser();
    let page = flow.open(&browser).await;
    let page = page
        .sign_in(&browser, BEN, "wrong-password-123")
        .await
        .page();
    let after = page.sign_in(&browser, BEN, DEMO_PASSWORD).await;
    let code = flow.code_from(&after);
    let tokens = flow.exchange(&sandbox, &code).await.unwrap();
    let refresh_token = tokens.refresh_token.clone().unwrap();
    let rotated = refresh(&sandbox, &refresh_token).await.unwrap();
    let _ = refresh(&sandbox, &refresh_token).await;
    revoke_refresh_token(&sandbox, rotated.refresh_token.as_deref().unwrap()).await;
    let machine = machine_token(&sandbox, MAPLE_BACKEND.0, MAPLE_BACKEND.1).await;
    let _ = machine_token_response(&sandbox, MAPLE_BACKEND.0, "wrong-secret-456").await;
    sandbox.shutdown().await;

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("authorization code issued"),
        "logs were captured: {logs}"
    );
    for secret in [
        DEMO_PASSWORD,
        "wrong-password-123",
        MAPLE_BACKEND.1,
        "wrong-secret-456",
        &code,
        &flow.verifier,
        &tokens.access_token,
        &refresh_token,
        rotated.refresh_token.as_deref().unwrap(),
        &rotated.access_token,
        &machine,
    ] {
        let leak = logs.lines().find(|l| l.contains(secret));
        assert!(leak.is_none(), "a secret leaked into the logs: {leak:?}");
    }
}
