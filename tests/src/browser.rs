//! The user at the system browser: what the `e2e-browser` program (the app's
//! `$BROWSER`) does with the authorize URL. It starts Debian's chromedriver and
//! a headless Chromium with a fresh profile, completes the sandbox's sign-in page
//! as the current [`Plan`] says (Email, Password, **Sign in** or **Cancel**, the
//! organization when asked) and waits until Chromium has followed the redirect
//! to the app's loopback `/callback` and shown its page.
//!
//! The harness talks to the program through two files, named by environment
//! variables the app passes on: [`PLAN_ENV`] (JSON, rewritten before each
//! sign-in) and [`LOG_ENV`] (one line per step; `landed …` or `failed …` last).
//! The log never holds the authorization code or the password.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use fantoccini::{Client, ClientBuilder, Locator};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::process::Guard;

/// Environment variable naming the plan file.
pub const PLAN_ENV: &str = "E2E_BROWSER_PLAN";
/// Environment variable naming the log file.
pub const LOG_ENV: &str = "E2E_BROWSER_LOG";
/// Environment variable naming the directory for Chromium profiles and the
/// chromedriver log (the system temp dir when unset). The harness empties it:
/// the program may be killed with the app before it cleans up.
pub const TMP_ENV: &str = "E2E_BROWSER_TMP";

fn scratch_dir() -> PathBuf {
    std::env::var_os(TMP_ENV).map_or_else(std::env::temp_dir, PathBuf::from)
}

/// Debian's Chromium and its driver (packages `chromium`, `chromium-driver`).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// See [`CHROMIUM`].
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long one page may take to show what we wait for.
const PAGE_TIMEOUT: Duration = Duration::from_secs(30);

/// What the user does on the sign-in page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Fill Email and Password, click **Sign in**, choose the organization.
    SignIn,
    /// Click **Cancel** on the sign-in page.
    Cancel,
}

/// One sign-in as the harness wants it done.
#[derive(Clone, Serialize, Deserialize)]
pub struct Plan {
    pub action: Action,
    pub email: String,
    pub password: String,
    /// The organization button to click when the page asks; `None` when the
    /// user belongs to one organization (being asked is then an error).
    pub organization: Option<String>,
    /// Where to save screenshots of the pages (`<prefix>-1-sign-in.png`, …).
    pub screenshot_prefix: Option<PathBuf>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("action", &self.action)
            .field("email", &self.email)
            .field("organization", &self.organization)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// Writes the plan where the program will read it.
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("cannot write the browser plan {}", path.display()))
    }

    /// Reads the plan the harness wrote.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the browser plan {}", path.display()))?;
        Ok(serde_json::from_slice(&bytes)?)
    }
}

/// A line-per-step log the harness reads.
#[derive(Debug)]
pub struct StepLog {
    path: Option<PathBuf>,
}

impl StepLog {
    /// The log named by [`LOG_ENV`], or stderr when unset.
    pub fn from_env() -> Self {
        Self {
            path: std::env::var_os(LOG_ENV).map(PathBuf::from),
        }
    }

    /// Appends `line` with the program's pid.
    pub fn line(&self, line: &str) {
        let line = format!("e2e-browser[{}] {line}\n", std::process::id());
        match &self.path {
            Some(path) => {
                // Losing a log line must not fail a sign-in.
                if let Ok(mut file) = crate::process::append(path) {
                    let _ = std::io::Write::write_all(&mut file, line.as_bytes());
                }
            }
            None => eprint!("{line}"),
        }
    }
}

/// Where Chromium ended: the app's callback page, with or without `error=`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landing {
    /// `http://127.0.0.1:PORT/callback` without the query.
    pub callback: String,
    /// The `error` parameter, if the server sent one (`access_denied` on Cancel).
    pub error: Option<String>,
}

/// How often chromedriver is started before the sign-in gives up.
const CHROMEDRIVER_TRIES: u32 = 3;

/// Runs one sign-in on `authorize_url` as `plan` says.
pub async fn complete_sign_in(authorize_url: &str, plan: &Plan, log: &StepLog) -> Result<Landing> {
    let profile = scratch_dir().join(format!("rxdesk-e2e-chromium-{}", std::process::id()));
    std::fs::create_dir_all(&profile)?;
    let result = drive(authorize_url, plan, log, &profile).await;
    // A leftover profile only costs disk space in the temp dir.
    let _ = std::fs::remove_dir_all(&profile);
    result
}

async fn drive(authorize_url: &str, plan: &Plan, log: &StepLog, profile: &Path) -> Result<Landing> {
    // chromedriver given port 0 takes a free IPv6 port and then exits when the
    // same number is taken on IPv4 ("IPv4 port not available"): seen when many
    // listeners run beside it. Each try gets another port, and its own log.
    let mut started = None;
    for attempt in 1..=CHROMEDRIVER_TRIES {
        let driver_log = scratch_dir().join(format!(
            "rxdesk-e2e-chromedriver-{}-{attempt}.log",
            std::process::id()
        ));
        // In this program's group: when the app's driver ends the app's group, it
        // ends chromedriver and Chromium with it.
        match Guard::spawn_until_line_in_my_group(
            "chromedriver",
            Command::new(CHROMEDRIVER).arg("--port=0"),
            &driver_log,
            Duration::from_secs(20),
            |line| line.contains("started successfully on port"),
        ) {
            Ok((driver, line)) => {
                started = Some((driver, line, driver_log));
                break;
            }
            Err(e) if attempt < CHROMEDRIVER_TRIES => {
                log.line(&format!(
                    "chromedriver did not start ({e:#}); starting it again"
                ));
            }
            Err(e) => return Err(e),
        }
    }
    let (driver, line, driver_log) = started.context("chromedriver was never started")?;
    let port = line
        .trim_end_matches('.')
        .rsplit(' ')
        .next()
        .and_then(|p| p.parse::<u16>().ok())
        .with_context(|| format!("no port in chromedriver's line {line:?}"))?;
    log.line(&format!("chromedriver on port {port}"));

    let capabilities = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": [
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--window-size=1000,900",
                format!("--user-data-dir={}", profile.display()),
            ],
        },
    });
    let serde_json::Value::Object(capabilities) = capabilities else {
        bail!("capabilities are not an object");
    };
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .context("chromedriver refused a session (is chromium installed?)")?;
    let outcome = sign_in_page(&client, authorize_url, plan, log).await;
    if let Err(e) = &outcome {
        log.line(&format!(
            "page at failure: {}",
            describe_page(&client).await
        ));
        shot(&client, plan, "failure", log).await;
        log.line(&format!("error: {e:#}"));
    }
    // Ending the session quits Chromium; the guard then ends chromedriver.
    let _ = client.close().await;
    driver.stop();
    let _ = std::fs::remove_file(&driver_log);
    outcome
}

async fn sign_in_page(
    client: &Client,
    authorize_url: &str,
    plan: &Plan,
    log: &StepLog,
) -> Result<Landing> {
    client.goto(authorize_url).await?;
    let email = client
        .wait()
        .at_most(PAGE_TIMEOUT)
        .for_element(Locator::XPath(&field_labelled("Email")))
        .await
        .context("the sign-in page shows no field labelled Email")?;
    log.line("sign-in page shown");
    match plan.action {
        Action::SignIn => {
            email.send_keys(&plan.email).await?;
            client
                .find(Locator::XPath(&field_labelled("Password")))
                .await
                .context("no field labelled Password")?
                .send_keys(&plan.password)
                .await?;
            shot(client, plan, "1-sign-in", log).await;
            client
                .find(Locator::XPath(&button("Sign in")))
                .await?
                .click()
                .await?;
            log.line(&format!("signed in as {}", plan.email));
        }
        Action::Cancel => {
            shot(client, plan, "1-sign-in", log).await;
            client
                .find(Locator::XPath(&button("Cancel")))
                .await?
                .click()
                .await?;
            log.line("clicked Cancel");
        }
    }

    let mut chose = false;
    let deadline = tokio::time::Instant::now() + PAGE_TIMEOUT;
    let landing = loop {
        if let Some(landing) = landed(client).await? {
            break landing;
        }
        if let Ok(alert) = client.find(Locator::Css("[role=alert]")).await {
            bail!("the sign-in page says: {}", alert.text().await?);
        }
        if !chose && heading_is(client, "Choose an organization").await {
            let Some(organization) = &plan.organization else {
                bail!("asked to choose an organization but the plan names none");
            };
            shot(client, plan, "2-choose-organization", log).await;
            client
                .find(Locator::XPath(&button(organization)))
                .await?
                .click()
                .await?;
            log.line(&format!("chose {organization}"));
            chose = true;
        }
        if tokio::time::Instant::now() > deadline {
            bail!("no redirect to the app's /callback within {PAGE_TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    shot(client, plan, "3-callback", log).await;
    log.line(&format!(
        "landed {} {}",
        landing.callback,
        landing
            .error
            .as_deref()
            .map_or("with a code".to_owned(), |e| format!("error={e}"))
    ));
    Ok(landing)
}

/// The landing, once Chromium shows the app's callback page.
async fn landed(client: &Client) -> Result<Option<Landing>> {
    let url = client.current_url().await?;
    if url.path() != "/callback" || !is_loopback(&url) {
        return Ok(None);
    }
    // The app's page is there once its body has text.
    let text = client.find(Locator::Css("body")).await?.text().await?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let error = url
        .query_pairs()
        .find(|(k, _)| k == "error")
        .map(|(_, v)| v.into_owned());
    let mut callback = url;
    callback.set_query(None);
    Ok(Some(Landing {
        callback: callback.to_string(),
        error,
    }))
}

fn is_loopback(url: &Url) -> bool {
    matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"))
}

async fn heading_is(client: &Client, text: &str) -> bool {
    client
        .find(Locator::XPath(&format!(
            "//h1[normalize-space()={}]",
            xpath_literal(text)
        )))
        .await
        .is_ok()
}

async fn describe_page(client: &Client) -> String {
    let url = client.current_url().await.map(|mut u| {
        u.set_query(None);
        u.to_string()
    });
    let title = client.title().await.unwrap_or_default();
    format!("{} ({title})", url.unwrap_or_default())
}

async fn shot(client: &Client, plan: &Plan, step: &str, log: &StepLog) {
    let Some(prefix) = &plan.screenshot_prefix else {
        return;
    };
    let path = PathBuf::from(format!("{}-{step}.png", prefix.display()));
    match client.screenshot().await {
        Ok(png) => {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = std::fs::write(&path, png) {
                log.line(&format!("cannot save {}: {e}", path.display()));
            }
        }
        Err(e) => log.line(&format!("no screenshot for {step}: {e}")),
    }
}

/// XPath of the input whose `<label>` reads `label`.
pub fn field_labelled(label: &str) -> String {
    let label = xpath_literal(label);
    format!(
        "//input[@id=//label[normalize-space()={label}]/@for] | //label[normalize-space()={label}]//input"
    )
}

/// XPath of a button whose text is `text`.
pub fn button(text: &str) -> String {
    format!("//button[normalize-space()={}]", xpath_literal(text))
}

/// `text` as an XPath string literal (XPath 1.0 has no escapes).
pub fn xpath_literal(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{text}'")
    } else if !text.contains('"') {
        format!("\"{text}\"")
    } else {
        let parts: Vec<String> = text.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(", \"'\", "))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn xpath_literals_survive_quotes() {
        assert_eq!(xpath_literal("Sign in"), "'Sign in'");
        assert_eq!(xpath_literal("O'Neil"), "\"O'Neil\"");
        assert_eq!(xpath_literal("a'b\"c"), "concat('a', \"'\", 'b\"c')");
    }

    #[test]
    fn a_plan_round_trips_and_its_debug_hides_the_password() {
        let plan = Plan {
            action: Action::SignIn,
            email: "a@b.example".into(),
            password: "hunter2".into(),
            organization: Some("Harbor".into()),
            screenshot_prefix: None,
        };
        let dir = std::env::temp_dir().join(format!("plan-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plan.json");
        plan.write(&path).unwrap();
        let back = Plan::read(&path).unwrap();
        assert_eq!(back.email, plan.email);
        assert_eq!(back.action, Action::SignIn);
        assert!(!format!("{plan:?}").contains("hunter2"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
