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
use fantoccini::error::CmdError;
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
    driver: Driver,
    shots: Shots,
    /// The binary launched: the process [`Desktop::kill_app`] looks for.
    app: PathBuf,
}

/// `tauri-driver` on two free loopback ports with `env` (what the app will
/// see), answering `/status`; stopped with its process group when dropped.
#[derive(Debug)]
pub struct Driver {
    endpoint: String,
    _process: Guard,
}

/// How many times `tauri-driver` is started on fresh ports before giving up.
const DRIVER_STARTS: u32 = 3;

impl Driver {
    /// Starts `tauri-driver`. The two ports are picked free but only bound by
    /// the driver and WebKitWebDriver a moment later, so another process of the
    /// run (a sandbox, the app's loopback listener, Chromium) can take one in
    /// between; then `/status` never answers, and the driver is started again
    /// on fresh ports.
    pub async fn start(env: &[(String, OsString)], log: &Path) -> Result<Self> {
        require(
            "tauri-driver",
            "cargo install tauri-driver --locked --version ^2",
        )?;
        let mut attempt = 1;
        loop {
            match Self::start_once(env, log).await {
                Ok(driver) => return Ok(driver),
                Err(e) if attempt < DRIVER_STARTS => {
                    eprintln!(
                        "  tauri-driver start {attempt} failed ({e:#}); again on fresh ports"
                    );
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn start_once(env: &[(String, OsString)], log: &Path) -> Result<Self> {
        let port = free_port()?;
        let native_port = free_port()?;
        let process = Guard::spawn(
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
        let http = crate::http_client();
        wait_for(
            "tauri-driver to answer /status",
            Duration::from_secs(15),
            || async {
                Ok(http
                    .get(format!("{endpoint}/status"))
                    .send()
                    .await
                    .ok()
                    .filter(|r| r.status().is_success())
                    .map(|_| ()))
            },
        )
        .await?;
        Ok(Self {
            endpoint,
            _process: process,
        })
    }

    /// The driver's process id (the apps it starts are its descendants).
    pub fn pid(&self) -> u32 {
        self._process.pid()
    }

    /// A WebDriver session on `app`: WebKitWebDriver starts the app on it.
    pub async fn session(&self, app: &Path, log: &Path) -> Result<Client> {
        let serde_json::Value::Object(capabilities) =
            serde_json::json!({ "tauri:options": { "application": app } })
        else {
            bail!("capabilities are not an object");
        };
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.endpoint)
            .await
            .with_context(|| {
                format!(
                    "no WebDriver session on {}; see {}",
                    app.display(),
                    log.display()
                )
            })
    }
}

impl Desktop {
    /// Starts `tauri-driver` with `env` (what the app will see) and opens a
    /// session on `app`, waiting for the window's document to load.
    pub async fn launch(
        app: &Path,
        env: &[(String, OsString)],
        log: &Path,
        shots: Shots,
    ) -> Result<Self> {
        require("WebKitWebDriver", "webkit2gtk-driver")?;
        if !app.is_file() {
            bail!(
                "no app binary at {} (build it: npm --prefix ui run build && cargo build -p rxdesk)",
                app.display()
            );
        }
        let driver = Driver::start(env, log).await?;
        let client = driver.session(app, log).await?;
        let desktop = Self {
            client: Some(client),
            driver,
            shots,
            app: app.to_owned(),
        };
        let url = desktop.client()?.current_url().await?;
        if url.host_str() == Some("localhost") && url.port() == Some(5173) {
            bail!(
                "the app loads a dev server ({url}) instead of its embedded UI: build it with \
                 `npm --prefix ui run build && cargo build -p rxdesk` (or add `--features tauri/custom-protocol` \
                 while tauri.conf.json has a devUrl)"
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
            client
                .close()
                .await
                .context("closing the WebDriver session")?;
        }
        Ok(())
    }

    /// Kills the app with SIGKILL, as a user's "Force quit" or a crash does:
    /// no window event, no exit handler, no flush. The app is the process
    /// running [`Desktop::launch`]'s binary among the descendants of this
    /// launch's `tauri-driver` (found through `/proc`). The WebDriver session
    /// dies with it, so this launch is over: the driver is stopped too, and the
    /// next step is a new launch. Returns once the process is gone.
    pub async fn kill_app(mut self) -> Result<()> {
        let pid = crate::process::descendants(self.driver.pid())
            .into_iter()
            .find(|pid| crate::process::runs(*pid, &self.app))
            .with_context(|| {
                format!(
                    "no process of {} under tauri-driver {}",
                    self.app.display(),
                    self.driver.pid()
                )
            })?;
        crate::process::kill_hard(pid)?;
        wait_for("the killed app to be gone", UI_TIMEOUT, || async {
            Ok((!crate::process::is_alive(pid)).then_some(()))
        })
        .await?;
        // The session cannot be closed politely any more: dropped with the driver.
        self.client.take();
        Ok(())
    }

    /// The document title.
    pub async fn title(&self) -> Result<String> {
        Ok(self.client()?.title().await?)
    }

    /// The visible text of the whole window.
    pub async fn text(&self) -> Result<String> {
        Ok(self
            .client()?
            .find(Locator::Css("body"))
            .await?
            .text()
            .await?)
    }

    /// Saves a screenshot as the journey's next step, then checks the screen
    /// with axe-core for WCAG 2.2 A/AA: a violation fails the step, naming the
    /// rules and the elements.
    pub async fn shot(&mut self, step: &str) -> Result<PathBuf> {
        let client = self.client()?;
        // A screenshot is of the last frame painted, which may be older than
        // what the DOM (and so `wait_for_text`) shows: wait two frames first.
        client
            .execute_async(
                "const done = arguments[arguments.length - 1];\
                 requestAnimationFrame(() => requestAnimationFrame(() => done(null)));",
                vec![],
            )
            .await?;
        let png = client.screenshot().await?;
        let path = self.shots.save(step, &png)?;
        let violations = self.accessibility_violations().await?;
        if !violations.is_empty() {
            bail!(
                "axe-core finds WCAG 2.2 AA violations on {step:?} ({}):\n  {}",
                path.display(),
                violations.join("\n  ")
            );
        }
        Ok(path)
    }

    /// axe-core (the UI's own locked copy, `ui/node_modules/axe-core`) run in
    /// the window against the WCAG 2.0/2.1/2.2 A and AA rules: one line per
    /// violated rule, with the elements it found.
    pub async fn accessibility_violations(&self) -> Result<Vec<String>> {
        let axe = axe_source()?;
        let script = format!(
            "{axe}\n;const done = arguments[arguments.length - 1];\
             axe.run(document, {{ runOnly: {{ type: 'tag', values: \
             ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] }} }})\
             .then(r => done({{ passes: r.passes.length, violations: r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' — ' \
             + v.nodes.map(n => n.target.join(' ')).join(', ')) }}))\
             .catch(e => done({{ passes: 0, violations: ['axe-core did not run: ' + e] }}));"
        );
        #[derive(serde::Deserialize)]
        struct Report {
            passes: usize,
            violations: Vec<String>,
        }
        let answer = self.client()?.execute_async(&script, vec![]).await?;
        let report: Report = serde_json::from_value(answer)?;
        // A run that checked nothing would pass anything: say so instead.
        if report.passes == 0 && report.violations.is_empty() {
            bail!("axe-core checked no rule on this screen");
        }
        Ok(report.violations)
    }

    /// Waits until the window shows `text` somewhere.
    pub async fn wait_for_text(&self, text: &str) -> Result<()> {
        self.wait_for_text_within(text, UI_TIMEOUT).await
    }

    /// [`Desktop::wait_for_text`] with its own timeout.
    pub async fn wait_for_text_within(&self, text: &str, timeout: Duration) -> Result<()> {
        let client = self.client()?;
        let outcome = wait_for(&format!("the app to show {text:?}"), timeout, || async {
            let body = client.find(Locator::Css("body")).await?.text().await?;
            Ok(body.contains(text).then_some(()))
        })
        .await;
        self.or_failure_shot(outcome).await
    }

    /// Waits until nothing on the screen is busy (`aria-busy`): a button whose
    /// action is under way takes no click, so a step that clicks right after
    /// another's answer waits for this first (on a slow link the screen may
    /// still be reading the record again).
    pub async fn wait_until_idle(&self) -> Result<()> {
        let client = self.client()?;
        wait_for(
            "the screen to finish what it is doing",
            UI_TIMEOUT,
            || async {
                let busy = client
                    .find_all(Locator::XPath("//*[@aria-busy='true']"))
                    .await?;
                Ok(busy.is_empty().then_some(()))
            },
        )
        .await
    }

    /// Waits until the window no longer shows `text`.
    pub async fn wait_until_gone(&self, text: &str) -> Result<()> {
        let client = self.client()?;
        wait_for(
            &format!("the app to stop showing {text:?}"),
            UI_TIMEOUT,
            || async {
                let body = client.find(Locator::Css("body")).await?.text().await?;
                Ok((!body.contains(text)).then_some(()))
            },
        )
        .await
    }

    /// Waits for the first of `texts` the window shows and returns it.
    pub async fn wait_for_any(&self, texts: &[&str]) -> Result<String> {
        let client = self.client()?;
        wait_for(
            &format!("the app to show one of {texts:?}"),
            UI_TIMEOUT,
            || async {
                let body = client.find(Locator::Css("body")).await?.text().await?;
                Ok(texts
                    .iter()
                    .find(|t| body.contains(**t))
                    .map(|t| (*t).to_owned()))
            },
        )
        .await
    }

    /// The displayed button whose text (or accessible name) is `text`, else
    /// the first whose text starts with it, waiting for one.
    pub async fn button(&self, text: &str) -> Result<Element> {
        let literal = xpath_literal(text);
        let exact = format!(
            "//button[normalize-space()={literal} or @aria-label={literal}] | \
             //*[@role='button' or @role='tab'][normalize-space()={literal}]"
        );
        let prefix = format!("//button[starts-with(normalize-space(), {literal})]");
        self.displayed_first(&[&exact, &prefix], &format!("a button {text:?}"))
            .await
    }

    /// Chooses the first option of the list labelled `container`
    /// (`aria-label`), e.g. the drugs a look-up found, once the list answers
    /// the text typed last (it is not `aria-busy`, which it is while the
    /// answer to a newer text is still out and the options shown are about
    /// to be replaced). Answers the option's words.
    pub async fn choose_first_in(&self, container: &str) -> Result<String> {
        let xpath = format!(
            "//*[@aria-label={}][not(@aria-busy='true')]//button[not(@disabled)]",
            xpath_literal(container)
        );
        let (xpath, what) = (&xpath, &format!("an option in {container:?}"));
        afresh(|| async move {
            let first = self.displayed(xpath, what).await?;
            let words = first.text().await?.trim().to_owned();
            first.click().await?;
            Ok(words)
        })
        .await
        .with_context(|| format!("choosing the first option in {container:?}"))
    }

    /// Clicks the button [`Desktop::button`] finds.
    pub async fn click(&self, text: &str) -> Result<()> {
        afresh(|| async move { Ok(self.button(text).await?.click().await?) })
            .await
            .with_context(|| format!("clicking {text:?}"))
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
        self.displayed(&xpath, &format!("a field labelled {label:?}"))
            .await
    }

    /// Clicks the first displayed element matching `xpath` (`what` names it
    /// in errors), waiting for one: for a button no visible text tells apart.
    pub async fn click_at(&self, xpath: &str, what: &str) -> Result<()> {
        afresh(|| async move { Ok(self.displayed(xpath, what).await?.click().await?) })
            .await
            .with_context(|| format!("clicking {what}"))
    }

    /// Waits until the first displayed element matching `xpath` shows `text`
    /// (`what` names it in errors).
    pub async fn wait_for_text_at(&self, xpath: &str, what: &str, text: &str) -> Result<()> {
        let client = self.client()?;
        let outcome = wait_for(&format!("{what} to show {text:?}"), UI_TIMEOUT, || async {
            for element in client.find_all(Locator::XPath(xpath)).await? {
                if element.is_displayed().await.unwrap_or(false) {
                    // Replaced meanwhile: looked at again on the next turn.
                    let shown = element.text().await.unwrap_or_default();
                    return Ok(shown.contains(text).then_some(()));
                }
            }
            Ok(None)
        })
        .await;
        self.or_failure_shot(outcome).await
    }

    /// Sends `keys` (WebDriver key codes included) to field `label` as they
    /// are, after what it holds.
    pub async fn press(&self, label: &str, keys: &str) -> Result<()> {
        afresh(|| async move { Ok(self.field(label).await?.send_keys(keys).await?) })
            .await
            .with_context(|| format!("typing into {label:?}"))
    }

    /// Replaces what field `label` holds with `value`.
    pub async fn fill(&self, label: &str, value: &str) -> Result<()> {
        afresh(|| self.fill_once(label, value)).await
    }

    /// [`Desktop::fill`] on the field as found now.
    async fn fill_once(&self, label: &str, value: &str) -> Result<()> {
        let field = self.field(label).await?;
        if field.tag_name().await?.eq_ignore_ascii_case("select") {
            return field
                .select_by_label(value)
                .await
                .with_context(|| format!("choosing {value:?} in {label:?}"));
        }
        let kind = field.attr("type").await?.unwrap_or_default();
        if matches!(kind.as_str(), "date" | "time" | "datetime-local") {
            // WebKit's date fields take no typed keys through WebDriver: set the
            // value and fire the events a user's edit would.
            self.script(
                "const [el, v] = arguments; el.value = v; \
                 el.dispatchEvent(new Event('input', {bubbles: true})); \
                 el.dispatchEvent(new Event('change', {bubbles: true}));",
                vec![serde_json::to_value(&field)?, value.into()],
            )
            .await?;
            return Ok(());
        }
        field.clear().await?;
        field
            .send_keys(value)
            .await
            .with_context(|| format!("typing into {label:?}"))
    }

    /// Ticks the checkbox labelled `label` (its `<label>` or `aria-label`),
    /// leaving it ticked if it already is.
    pub async fn check(&self, label: &str) -> Result<()> {
        let literal = xpath_literal(label);
        let xpath = format!(
            "//input[@type='checkbox'][@id=//label[normalize-space()={literal}]/@for or @aria-label={literal}]"
        );
        let (xpath, what) = (&xpath, &format!("a checkbox {label:?}"));
        afresh(|| async move {
            let checkbox = self.displayed(xpath, what).await?;
            if !checkbox.is_selected().await? {
                checkbox.click().await?;
            }
            Ok(())
        })
        .await
    }

    /// What field `label` holds now.
    pub async fn value_of(&self, label: &str) -> Result<String> {
        afresh(|| async move {
            Ok(self
                .field(label)
                .await?
                .prop("value")
                .await?
                .unwrap_or_default())
        })
        .await
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
    pub async fn script(
        &self,
        script: &str,
        args: Vec<serde_json::Value>,
    ) -> Result<serde_json::Value> {
        Ok(self.client()?.execute(script, args).await?)
    }

    /// Runs `script` in the page (`execute/async`): it answers by calling its
    /// last argument.
    pub async fn script_async(
        &self,
        script: &str,
        args: Vec<serde_json::Value>,
    ) -> Result<serde_json::Value> {
        Ok(self.client()?.execute_async(script, args).await?)
    }

    async fn displayed(&self, xpath: &str, what: &str) -> Result<Element> {
        self.displayed_first(&[xpath], what).await
    }

    /// The first displayed match of the first of `xpaths` that has one.
    async fn displayed_first(&self, xpaths: &[&str], what: &str) -> Result<Element> {
        let client = self.client()?;
        let outcome = wait_for(what, UI_TIMEOUT, || async {
            for xpath in xpaths {
                for element in client.find_all(Locator::XPath(xpath)).await? {
                    if element.is_displayed().await.unwrap_or(false) {
                        return Ok(Some(element));
                    }
                }
            }
            Ok(None)
        })
        .await;
        self.or_failure_shot(outcome).await
    }

    /// `outcome`, with a screenshot of the window saved when it is an error.
    async fn or_failure_shot<T>(&self, outcome: Result<T>) -> Result<T> {
        let Err(e) = outcome else { return outcome };
        let shot = match self.client()?.screenshot().await {
            Ok(png) => {
                let path = self.shots.dir.join(format!(
                    "failure-at-step-{:02}.png",
                    self.shots.next_number()
                ));
                std::fs::create_dir_all(&self.shots.dir)
                    .and_then(|()| std::fs::write(&path, png))
                    .map_or_else(
                        |w| format!("no screenshot: {w}"),
                        |()| format!("screenshot {}", path.display()),
                    )
            }
            Err(s) => format!("no screenshot: {s}"),
        };
        // The window's text beside it: what was there instead.
        if let Ok(text) = self.text().await {
            let path = self.shots.dir.join(format!(
                "failure-at-step-{:02}.txt",
                self.shots.next_number()
            ));
            let _ = std::fs::write(path, text);
        }
        Err(e.context(shot))
    }
}

/// How many times [`afresh`] finds an element again after the page replaced
/// it.
const FRESH_TRIES: u32 = 5;

/// Runs `attempt` (find an element, then act on it) again when the page
/// replaced the element between the finding and the acting: a list drawn
/// again for a newer answer, a form drawn again when its record came back.
/// A user acts on what is on the screen at the time; so does this. Any other
/// error, or the same after [`FRESH_TRIES`] tries, is the answer.
async fn afresh<T, F, Fut>(mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(e) if tries < FRESH_TRIES && replaced(&e) => tries += 1,
            outcome => return outcome,
        }
    }
}

/// Whether `error` says the element acted on is no longer in the page: the
/// standard "stale element reference" (or "no such element"), or WebKit's
/// own words for it ("Node with identifier … was not found"), which its
/// driver sends as an unknown error.
fn replaced(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<CmdError>().is_some_and(|e| match e {
            CmdError::Standard(w) => {
                e.is_stale_element_reference()
                    || e.is_no_such_element()
                    || (w.message.starts_with("Node with identifier")
                        && w.message.ends_with("was not found"))
            }
            _ => false,
        })
    })
}

/// axe-core's script, read once from the UI's dependencies.
fn axe_source() -> Result<&'static str> {
    static AXE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/node_modules/axe-core/axe.min.js");
    AXE.get_or_init(|| std::fs::read_to_string(&path).ok())
        .as_deref()
        .with_context(|| format!("no axe-core at {} (run npm --prefix ui ci)", path.display()))
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
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
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

#[cfg(test)]
mod tests {
    use fantoccini::error::{ErrorStatus, WebDriver};

    use super::*;

    fn webdriver(status: ErrorStatus, message: &'static str) -> anyhow::Error {
        anyhow::Error::from(CmdError::Standard(WebDriver::new(status, message)))
            .context("clicking \"Open\"")
    }

    #[test]
    fn a_stale_element_is_a_replaced_one() {
        let error = webdriver(ErrorStatus::StaleElementReference, "stale");

        assert!(replaced(&error));
    }

    #[test]
    fn webkits_node_not_found_is_a_replaced_element() {
        let error = webdriver(
            ErrorStatus::UnknownError,
            "Node with identifier 'node-CFE76CE0-B98F-48DE-BBEF-CB7D191A319C' was not found",
        );

        assert!(replaced(&error));
    }

    #[test]
    fn an_element_that_takes_no_click_is_not_a_replaced_one() {
        let error = webdriver(ErrorStatus::ElementNotInteractable, "not interactable");

        assert!(!replaced(&error));
    }

    #[tokio::test]
    async fn an_act_on_a_replaced_element_is_tried_again_on_the_element_found_afresh() {
        let mut tries = 0;

        let outcome = afresh(|| {
            tries += 1;
            let now = tries;
            async move {
                if now < 3 {
                    Err(webdriver(ErrorStatus::StaleElementReference, "stale"))
                } else {
                    Ok(now)
                }
            }
        })
        .await;

        assert_eq!(outcome.ok(), Some(3));
    }

    #[tokio::test]
    async fn any_other_error_is_answered_at_once() {
        let mut tries = 0;

        let outcome: Result<()> = afresh(|| {
            tries += 1;
            async { Err(webdriver(ErrorStatus::ElementNotInteractable, "no")) }
        })
        .await;

        assert!(outcome.is_err());
        assert_eq!(tries, 1);
    }
}
