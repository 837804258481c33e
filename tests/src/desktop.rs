//! The real `rxdesk` binary in a WebDriver session: `tauri-driver` (which runs
//! Debian's `WebKitWebDriver`, which starts the app) with the app's whole
//! environment, a fantoccini client on top, and the few verbs the journeys
//! speak: click a button by its text, fill a field by its label, wait for a
//! text, take a screenshot. Elements are found as a user finds them (visible
//! text, labels), never by CSS structure.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};

use crate::browser::xpath_literal;
use crate::process::{Guard, free_port, wait_for};
use crate::services::require;

/// How long the UI may take to show what a step waits for.
pub const UI_TIMEOUT: Duration = Duration::from_secs(30);

/// One launch of the app: quitting drops the WebDriver session, the driver
/// and every process they started.
#[derive(Debug)]
pub struct Desktop {
    client: Option<Client>,
    _driver: Guard,
    shots: Shots,
}

impl Desktop {
    /// Starts `tauri-driver` with `env` (what the app will see) and opens a
    /// session on `app`, waiting for the window's document to load.
    pub async fn launch(app: &Path, env: &[(String, OsString)], log: &Path, shots: Shots) -> Result<Self> {
        require("tauri-driver", "cargo install tauri-driver --locked --version ^2")?;
        require("WebKitWebDriver", "webkit2gtk-driver")?;
        if !app.is_file() {
            bail!(
                "no app binary at {} (build it: npm --prefix ui run build && cargo build -p rxdesk --features tauri/custom-protocol)",
                app.display()
            );
        }
        let port = free_port()?;
        let native_port = free_port()?;
        let driver = Guard::spawn(
            "tauri-driver",
            Command::new("tauri-driver")
                .arg("--port")
                .arg(port.to_string())
                .arg("--native-port")
                .arg(native_port.to_string())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .envs(env.iter().map(|(k, v)| (k, v))),
            log,
        )?;
        let endpoint = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        wait_for("tauri-driver to answer /status", Duration::from_secs(20), || async {
            Ok(http
                .get(format!("{endpoint}/status"))
                .send()
                .await
                .ok()
                .filter(|r| r.status().is_success())
                .map(|_| ()))
        })
        .await?;

        let capabilities = serde_json::json!({
            "tauri:options": { "application": app },
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            bail!("capabilities are not an object");
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&endpoint)
            .await
            .with_context(|| format!("no WebDriver session on the app; see {}", log.display()))?;
        let desktop = Self {
            client: Some(client),
            _driver: driver,
            shots,
        };
        let url = desktop.client()?.current_url().await?;
        if url.host_str() == Some("localhost") && url.port() == Some(5173) {
            bail!(
                "the app loads the Vite dev server ({url}): it was built without the embedded UI. \
                 Build it with `npm --prefix ui run build && cargo build -p rxdesk --features tauri/custom-protocol`"
            );
        }
        Ok(desktop)
    }

    fn client(&self) -> Result<&Client> {
        self.client.as_ref().context("the app has quit")
    }

    /// Ends the session (WebKitWebDriver closes the app) and the driver.
    pub async fn quit(mut self) -> Result<()> {
        if let Some(client) = self.client.take() {
            client.close().await.context("closing the WebDriver session")?;
        }
        Ok(())
    }

    /// The document title.
    pub async fn title(&self) -> Result<String> {
        Ok(self.client()?.title().await?)
    }

    /// The visible text of the whole window.
    pub async fn text(&self) -> Result<String> {
        Ok(self.client()?.find(Locator::Css("body")).await?.text().await?)
    }

    /// Saves a screenshot as the journey's next step.
    pub async fn shot(&mut self, step: &str) -> Result<PathBuf> {
        let png = self.client()?.screenshot().await?;
        self.shots.save(step, &png)
    }

    /// Waits until the window shows `text` somewhere.
    pub async fn wait_for_text(&self, text: &str) -> Result<()> {
        self.wait_for_text_within(text, UI_TIMEOUT).await
    }

    /// [`Desktop::wait_for_text`] with its own timeout.
    pub async fn wait_for_text_within(&self, text: &str, timeout: Duration) -> Result<()> {
        let client = self.client()?;
        wait_for(&format!("the app to show {text:?}"), timeout, || async {
            let body = client.find(Locator::Css("body")).await?.text().await?;
            Ok(body.contains(text).then_some(()))
        })
        .await
        .map_err(|e| self.with_screen(e))
    }

    /// Waits until the window no longer shows `text`.
    pub async fn wait_until_gone(&self, text: &str) -> Result<()> {
        let client = self.client()?;
        wait_for(&format!("the app to stop showing {text:?}"), UI_TIMEOUT, || async {
            let body = client.find(Locator::Css("body")).await?.text().await?;
            Ok((!body.contains(text)).then_some(()))
        })
        .await
    }

    /// Waits for the first of `texts` the window shows and returns it.
    pub async fn wait_for_any(&self, texts: &[&str]) -> Result<String> {
        let client = self.client()?;
        wait_for(&format!("the app to show one of {texts:?}"), UI_TIMEOUT, || async {
            let body = client.find(Locator::Css("body")).await?.text().await?;
            Ok(texts.iter().find(|t| body.contains(**t)).map(|t| (*t).to_owned()))
        })
        .await
    }

    /// The enabled-or-not, displayed button whose text (or accessible name)
    /// starts with `text`, waiting for it.
    pub async fn button(&self, text: &str) -> Result<Element> {
        let literal = xpath_literal(text);
        let xpath = format!(
            "//button[normalize-space()={literal} or @aria-label={literal}] | \
             //button[starts-with(normalize-space(), {literal})] | \
             //a[normalize-space()={literal}] | //*[@role='button' or @role='tab'][normalize-space()={literal}]"
        );
        self.displayed(&xpath, &format!("a button {text:?}")).await
    }

    /// Clicks the button [`Desktop::button`] finds.
    pub async fn click(&self, text: &str) -> Result<()> {
        self.button(text).await?.click().await.with_context(|| format!("clicking {text:?}"))
    }

    /// The input, textarea or select labelled `label` (its `<label>`, an
    /// `aria-label` or a label it sits in), waiting for it.
    pub async fn field(&self, label: &str) -> Result<Element> {
        let literal = xpath_literal(label);
        let control = "*[self::input or self::textarea or self::select]";
        let xpath = format!(
            "//{control}[@id=//label[normalize-space()={literal} or starts-with(normalize-space(), concat({literal}, ' '))]/@for] | \
             //label[normalize-space()={literal} or starts-with(normalize-space(), concat({literal}, ' '))]//{control} | \
             //{control}[@aria-label={literal}]"
        );
        self.displayed(&xpath, &format!("a field labelled {label:?}")).await
    }

    /// Replaces what field `label` holds with `value`.
    pub async fn fill(&self, label: &str, value: &str) -> Result<()> {
        let field = self.field(label).await?;
        if field.tag_name().await?.eq_ignore_ascii_case("select") {
            return field
                .select_by_label(value)
                .await
                .with_context(|| format!("choosing {value:?} in {label:?}"));
        }
        field.clear().await?;
        field
            .send_keys(value)
            .await
            .with_context(|| format!("typing into {label:?}"))
    }

    /// What field `label` holds now.
    pub async fn value_of(&self, label: &str) -> Result<String> {
        Ok(self.field(label).await?.prop("value").await?.unwrap_or_default())
    }

    /// Whether some displayed element matches `xpath` right now.
    pub async fn has(&self, xpath: &str) -> Result<bool> {
        for element in self.client()?.find_all(Locator::XPath(xpath)).await? {
            if element.is_displayed().await.unwrap_or(false) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// All displayed elements matching `xpath` now.
    pub async fn all(&self, xpath: &str) -> Result<Vec<Element>> {
        let mut shown = Vec::new();
        for element in self.client()?.find_all(Locator::XPath(xpath)).await? {
            if element.is_displayed().await.unwrap_or(false) {
                shown.push(element);
            }
        }
        Ok(shown)
    }

    /// Runs `script` in the page (`execute/sync`).
    pub async fn script(&self, script: &str, args: Vec<serde_json::Value>) -> Result<serde_json::Value> {
        Ok(self.client()?.execute(script, args).await?)
    }

    async fn displayed(&self, xpath: &str, what: &str) -> Result<Element> {
        let client = self.client()?;
        wait_for(what, UI_TIMEOUT, || async {
            for element in client.find_all(Locator::XPath(xpath)).await? {
                if element.is_displayed().await.unwrap_or(false) {
                    return Ok(Some(element));
                }
            }
            Ok(None)
        })
        .await
        .map_err(|e| self.with_screen(e))
    }

    fn with_screen(&self, e: anyhow::Error) -> anyhow::Error {
        e.context(format!("(screenshots so far under {})", self.shots.dir.display()))
    }
}

/// Numbered screenshots of one journey: `<dir>/NN-step.png`.
#[derive(Debug, Clone)]
pub struct Shots {
    pub dir: PathBuf,
    next: usize,
}

impl Shots {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, next: 1 }
    }

    /// Continues numbering where `other` left off (a relaunch in the same journey).
    pub fn continuing(other: &Shots) -> Self {
        other.clone()
    }

    fn save(&mut self, step: &str, png: &[u8]) -> Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let name: String = step
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect();
        let path = self.dir.join(format!("{:02}-{name}.png", self.next));
        self.next += 1;
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// The number the next screenshot gets.
    pub fn next_number(&self) -> usize {
        self.next
    }
}

impl Desktop {
    /// The screenshot numbering, to continue it after a relaunch.
    pub fn shots(&self) -> &Shots {
        &self.shots
    }
}
