//! Cold start to interactive: from the WebDriver request that starts the app
//! (WebKitWebDriver spawns the process on it) until the first screen's main
//! control is focusable — for Rx Desk, **Sign in with your browser** shown and
//! enabled (no session stored); for the empty Tauri app, its window's page
//! shown. Polled in the page every 5 ms through the same WebDriver session, so
//! both sides carry the same automation overhead.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fantoccini::Client;
use rxdesk_e2e::desktop::Driver;

/// In the page: whether Rx Desk's first control can take focus.
pub const RXDESK_READY: &str = "const b = Array.from(document.querySelectorAll('button'))\
    .find(b => b.textContent.trim() === 'Sign in with your browser');\
    return !!b && !b.disabled && b.tabIndex >= 0 && b.getClientRects().length > 0;";

/// In the page: whether the empty app's window shows its page.
pub const EMPTY_READY: &str = "const h = document.querySelector('h1');\
    return document.readyState !== 'loading' && !!h && h.getClientRects().length > 0;";

/// A launch through `tauri-driver`, timed from the session request.
#[derive(Debug)]
pub struct Probe {
    client: Option<Client>,
    _driver: Driver,
}

impl Probe {
    /// Starts `tauri-driver`, then times the session request on `app` until
    /// `ready` (a script answering a boolean) answers true.
    pub async fn launch(
        app: &Path,
        env: &[(String, OsString)],
        log: &Path,
        ready: &str,
    ) -> Result<(Self, Duration)> {
        let driver = Driver::start(env, log).await?;
        let started = Instant::now();
        let client = driver.session(app, log).await?;
        let probe = Self {
            client: Some(client),
            _driver: driver,
        };
        loop {
            let answer = probe.client()?.execute(ready, vec![]).await;
            if matches!(answer, Ok(serde_json::Value::Bool(true))) {
                return Ok((probe, started.elapsed()));
            }
            if started.elapsed() > Duration::from_secs(60) {
                bail!("{} not ready after 60 s ({answer:?})", app.display());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn client(&self) -> Result<&Client> {
        self.client.as_ref().context("the app has quit")
    }

    /// Ends the session (the app closes) and the driver.
    pub async fn quit(mut self) -> Result<()> {
        if let Some(client) = self.client.take() {
            client.close().await?;
        }
        Ok(())
    }
}

/// One cold start of `app` until `ready`, in ms; the app has quit and its
/// process is gone (within `gone`) when this returns, so the next start is cold.
pub async fn cold_start(
    app: &Path,
    env: &[(String, OsString)],
    log: &Path,
    ready: &str,
    gone: Duration,
) -> Result<f64> {
    let (probe, took) = Probe::launch(app, env, log, ready).await?;
    probe.quit().await?;
    crate::memory::wait_gone(app, gone).await?;
    Ok(took.as_secs_f64() * 1000.0)
}
