//! Proof of the harness itself, before any screen of the app is involved: the
//! real binary opens its window on the display, and the browser program
//! completes the sandbox's sign-in page and lands on a loopback callback.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use base64::Engine as _;
use sha2::Digest as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use rxdesk_e2e::fixture::SAM;
use rxdesk_e2e::process::wait_for;
use rxdesk_e2e::{CLIENT_ID, services};

use crate::Run;

pub async fn the_app_window_opens_titled_rx_desk(run: &mut Run) -> Result<()> {
    let world = &run.world;
    let mut app = world.launch("00-smoke", &world.sandbox).await?;
    wait_for(
        "the document title Rx Desk",
        Duration::from_secs(30),
        || async { Ok((app.title().await? == "Rx Desk").then_some(())) },
    )
    .await?;
    // The UI itself has rendered, not just an empty webview.
    app.wait_for_text("Sign in").await?;
    // The native window carries the title too (what a window manager shows).
    rxdesk_e2e::services::require("xwininfo", "x11-utils")?;
    let tree = Command::new("xwininfo")
        .args(["-root", "-tree", "-display", &world.display.name])
        .output()
        .context("xwininfo (Debian package x11-utils)")?;
    let tree = String::from_utf8_lossy(&tree.stdout);
    ensure!(
        tree.contains("\"Rx Desk\""),
        "no X window titled \"Rx Desk\":\n{tree}"
    );
    app.shot("window").await?;
    app.quit().await
}

pub async fn the_browser_program_completes_a_sign_in_on_its_own(run: &mut Run) -> Result<()> {
    let world = &run.world;
    // A stand-in for the app's loopback listener: answers one /callback.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let redirect_uri = format!(
        "http://127.0.0.1:{}/callback",
        listener.local_addr()?.port()
    );
    let callback = tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await?;
            let mut head = vec![0_u8; 8192];
            let n = stream.read(&mut head).await?;
            let line = String::from_utf8_lossy(&head[..n])
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned();
            let target = line.split(' ').nth(1).unwrap_or_default().to_owned();
            if target.starts_with("/callback") {
                let body =
                    "<!DOCTYPE html><title>Signed in</title><p>Signed in. Return to the app.</p>";
                stream
                    .write_all(format!("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).as_bytes())
                    .await?;
                return anyhow::Ok(target);
            }
            stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await?;
        }
    });

    let verifier = "e2e-smoke-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
    let challenge =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier));
    let mut authorize = world.sandbox.url.join("/authorize")?;
    authorize
        .query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", &redirect_uri)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "smoke-state")
        .append_pair("audience", services::AUDIENCE)
        .append_pair("scope", "openid offline_access");

    world.plan_sign_in("00-smoke", &SAM, None)?;
    let status = tokio::process::Command::new(&world.layout.browser)
        .arg(authorize.as_str())
        .env(rxdesk_e2e::browser::PLAN_ENV, world.plan_path())
        .env(rxdesk_e2e::browser::LOG_ENV, world.browser_log())
        .env(rxdesk_e2e::browser::TMP_ENV, world.browser_scratch())
        .status()
        .await?;
    ensure!(
        status.success(),
        "e2e-browser failed ({status}); see {}",
        world.browser_log().display()
    );
    let target = tokio::time::timeout(Duration::from_secs(5), callback).await???;
    let query = url::Url::parse(&format!("http://x{target}"))?;
    let get = |k: &str| {
        query
            .query_pairs()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.into_owned())
    };
    ensure!(
        get("state").as_deref() == Some("smoke-state"),
        "callback without our state: {target}"
    );
    let code = get("code").context("callback without a code")?;

    // The code really is good: the sandbox trades it for tokens.
    let tokens: serde_json::Value = rxdesk_e2e::http_client()
        .post(world.sandbox.url.join("/oauth/token")?)
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri.as_str()),
            ("client_id", CLIENT_ID),
        ])
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let access = tokens["access_token"]
        .as_str()
        .context("no access token")?
        .to_owned();
    run.saw_token("smoke sign-in (access)", &access);
    if let Some(refresh) = tokens["refresh_token"].as_str() {
        run.saw_token("smoke sign-in (refresh)", refresh);
    }
    Ok(())
}
