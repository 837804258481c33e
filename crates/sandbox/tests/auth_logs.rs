//! No secret reaches a log line: every log event of a full session (wrong and
//! right passwords, a code exchange with a refresh token, its rotation and
//! revocation, machine tokens with right and wrong secrets) is captured at TRACE
//! level and searched for each password, secret, code, verifier and token.
//! One test only: it installs the process-wide tracing subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::*;

#[tokio::test]
async fn no_password_secret_code_or_token_appears_in_the_logs() {
    let captured = capture_logs();
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

    let logs = captured.text();
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
