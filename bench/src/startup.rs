//! Cold start to interactive: from the WebDriver request that starts the app
//! (WebKitWebDriver spawns the process on it) until the first screen's main
//! control is focusable — for Rx Desk, **Sign in with your browser** shown and
//! enabled (no session stored); for the empty Tauri app, its window's page
//! shown. Polled in the page every 5 ms through the same WebDriver session, so
//! both sides carry the same automation overhead.
//!
//! What the time is made of ([`Phases`]): once ready, the page's navigation
//! timing is read (when the page started loading, when its scripts had run),
//! and for Rx Desk the start-up lines it logs at `info` ("Rx Desk started":
//! until the window existed and until the core was ready, before the event
//! loop runs; "stored session looked up": the first status the UI asks for),
//! all on the machine's wall clock against the moment the bench asked.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use fantoccini::Client;
use rxdesk_e2e::desktop::Driver;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// In the page: whether Rx Desk's first control can take focus.
pub const RXDESK_READY: &str = "const b = Array.from(document.querySelectorAll('button'))\
    .find(b => b.textContent.trim() === 'Sign in with your browser');\
    return !!b && !b.disabled && b.tabIndex >= 0 && b.getClientRects().length > 0;";

/// In the page: whether the empty app's window shows its page.
pub const EMPTY_READY: &str = "const h = document.querySelector('h1');\
    return document.readyState !== 'loading' && !!h && h.getClientRects().length > 0;";

/// In the page, once ready: when its navigation started (ms since the Unix
/// epoch) and, from there, when its document's scripts had run, when its load
/// event had run (0: not yet), when its last resource had come, Rx Desk's
/// marks (`ui/src/main.ts`, `ui/src/lib/app.svelte.ts`; -1 without them: the
/// empty app) — UI mounted, its event listeners registered, the first status
/// answered, that status applied — and when the page was first painted with
/// content (-1: not told).
const NAVIGATION: &str = "const n = performance.getEntriesByType('navigation')[0];\
    const r = performance.getEntriesByType('resource').map(e => e.responseEnd);\
    const mark = name => { const m = performance.getEntriesByName(name)[0]; return m ? m.startTime : -1; };\
    return { page_at: performance.timeOrigin, scripts_ms: n ? n.domContentLoadedEventEnd : -1,\
      loaded_ms: n ? n.loadEventEnd : -1, resources_ms: r.length ? Math.max(...r) : 0,\
      mounted_ms: mark('rxdesk:mounted'), listening_ms: mark('rxdesk:listening'),\
      answered_ms: mark('rxdesk:answered'), status_ms: mark('rxdesk:status'),\
      painted_ms: mark('first-contentful-paint') };";

/// One cold start: how long it took (the bench's clock) and the page's timing
/// (read from the page as [`NAVIGATION`] names it).
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct ColdStart {
    #[serde(default)]
    pub ms: f64,
    /// The session request, ms since the Unix epoch.
    #[serde(default)]
    pub asked_at: f64,
    /// The page's navigation start, ms since the Unix epoch.
    pub page_at: f64,
    /// From the navigation start to `DOMContentLoaded` done, ms.
    pub scripts_ms: f64,
    /// From the navigation start to the load event done (0: not yet), ms.
    pub loaded_ms: f64,
    /// From the navigation start to the last resource's answer, ms.
    pub resources_ms: f64,
    /// From the navigation start to Rx Desk's UI mounted (-1: no such mark).
    pub mounted_ms: f64,
    /// From the navigation start to Rx Desk's listeners registered (-1: no mark).
    pub listening_ms: f64,
    /// From the navigation start to Rx Desk's first status answered (-1: no mark).
    pub answered_ms: f64,
    /// From the navigation start to Rx Desk's first status applied (-1: no mark).
    pub status_ms: f64,
    /// From the navigation start to the first paint with content (-1: not told).
    pub painted_ms: f64,
}

impl ColdStart {
    /// From the navigation start to the moment found ready, ms.
    pub fn ready_in_page(&self) -> f64 {
        self.asked_at + self.ms - self.page_at
    }
}

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
    ) -> Result<(Self, Duration, SystemTime)> {
        let driver = Driver::start(env, log).await?;
        let asked_at = SystemTime::now();
        let started = Instant::now();
        let client = driver.session(app, log).await?;
        let probe = Self {
            client: Some(client),
            _driver: driver,
        };
        loop {
            let answer = probe.client()?.execute(ready, vec![]).await;
            if matches!(answer, Ok(serde_json::Value::Bool(true))) {
                return Ok((probe, started.elapsed(), asked_at));
            }
            if started.elapsed() > Duration::from_secs(60) {
                bail!("{} not ready after 60 s ({answer:?})", app.display());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// The start that took `took` from `asked_at`, with the page's timing:
    /// its navigation start (ms since the epoch), then (ms after that start)
    /// its scripts' end, its load event's end, its last resource's answer,
    /// Rx Desk's marks and the first paint with content (see [`NAVIGATION`]).
    pub async fn timing(&self, took: Duration, asked_at: SystemTime) -> Result<ColdStart> {
        let answer = self.client()?.execute(NAVIGATION, vec![]).await?;
        let mut start: ColdStart = serde_json::from_value(answer.clone())
            .with_context(|| format!("no navigation timing in the page: {answer}"))?;
        start.ms = took.as_secs_f64() * 1000.0;
        start.asked_at = unix_ms(asked_at);
        Ok(start)
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

/// One cold start of `app` until `ready`; the app has quit and its process
/// is gone (within `gone`) when this returns, so the next start is cold.
pub async fn cold_start(
    app: &Path,
    env: &[(String, OsString)],
    log: &Path,
    ready: &str,
    gone: Duration,
) -> Result<(ColdStart, WebProcessEnv)> {
    let (probe, took, asked_at) = Probe::launch(app, env, log, ready).await?;
    // Read after the timed part: it costs the measurement nothing.
    let start = probe.timing(took, asked_at).await?;
    let web = WebProcessEnv::of(app);
    probe.quit().await?;
    crate::memory::wait_gone(app, gone).await?;
    Ok((start, web))
}

/// What an app's web process was told through its environment: the values it
/// started with of the variables Rx Desk sets for it
/// (`src-tauri/src/web_process.rs`) — how to paint, and whether to compile
/// scripts. The empty app is given the same, so both paint and run scripts
/// alike and the ratios measure what Rx Desk's page costs, not a different
/// configuration of WebKit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebProcessEnv(pub Vec<(&'static str, String)>);

impl WebProcessEnv {
    /// Skia on the CPU when set to anything but `0`.
    pub const PAINTING_VAR: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";
    /// JavaScriptCore's just-in-time compilers, off when `false` or `0`.
    pub const JIT_VAR: &str = "JSC_useJIT";
    const VARS: [&str; 2] = [Self::PAINTING_VAR, Self::JIT_VAR];

    /// What the running `app`'s web process started with.
    pub fn of(app: &Path) -> Self {
        Self(
            Self::VARS
                .into_iter()
                .filter_map(|var| crate::memory::descendant_env(app, var).map(|v| (var, v)))
                .collect(),
        )
    }

    fn value(&self, var: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| *k == var)
            .map(|(_, v)| v.as_str())
    }

    /// `env` with exactly these values of the variables in it.
    pub fn applied_to(&self, env: &[(String, OsString)]) -> Vec<(String, OsString)> {
        let mut env: Vec<_> = env
            .iter()
            .filter(|(k, _)| !Self::VARS.contains(&k.as_str()))
            .cloned()
            .collect();
        env.extend(self.0.iter().map(|(k, v)| ((*k).to_owned(), v.into())));
        env
    }

    /// Whether the web process paints on the CPU.
    pub fn on_cpu(&self) -> bool {
        self.value(Self::PAINTING_VAR).is_some_and(|v| v != "0")
    }

    /// Whether the web process runs scripts without the JIT compilers.
    pub fn interpreted(&self) -> bool {
        matches!(self.value(Self::JIT_VAR), Some("false" | "0"))
    }

    /// For the report's notes.
    pub fn words(&self) -> String {
        let painting = if self.on_cpu() {
            "painting with Skia on the CPU (no GPU render node here)"
        } else {
            "painting as WebKit does by default"
        };
        let scripts = if self.interpreted() {
            "running scripts without JavaScriptCore's JIT compilers"
        } else {
            "running scripts with JavaScriptCore's JIT compilers"
        };
        format!("both {painting} and {scripts} (Rx Desk's choices, given to the empty app too)")
    }
}

fn unix_ms(at: SystemTime) -> f64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// What Rx Desk logged about one start: the wall-clock time (ms since the
/// epoch) of its "Rx Desk started" line with the phases it carries, and of
/// its first "stored session looked up".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Logged {
    pub started_at: f64,
    pub window_ms: f64,
    pub ready_ms: f64,
    pub status_at: f64,
}

/// The starts logged in `log` (the app's log file text), in order: each
/// "Rx Desk started" line with the first "stored session looked up" after it.
pub fn logged_starts(log: &str) -> Vec<Logged> {
    let mut starts: Vec<Logged> = Vec::new();
    let mut waiting = false;
    for line in log.lines() {
        let Some(at) = line
            .split_whitespace()
            .next()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .map(|t| t.unix_timestamp_nanos() as f64 / 1e6)
        else {
            continue;
        };
        let field = |name: &str| -> Option<f64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{name}=")))
                .and_then(|v| v.parse().ok())
        };
        if line.contains("Rx Desk started") {
            if let (Some(window_ms), Some(ready_ms)) = (field("window_ms"), field("ready_ms")) {
                starts.push(Logged {
                    started_at: at,
                    window_ms,
                    ready_ms,
                    status_at: f64::NAN,
                });
                waiting = true;
            }
        } else if waiting
            && line.contains("stored session looked up")
            && let Some(last) = starts.last_mut()
        {
            last.status_at = at;
            waiting = false;
        }
    }
    starts
}

/// Where a cold start's time went, in ms; medians over runs make the note.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    /// The request until the process's `main` (spawn, dynamic loading).
    pub to_main: f64,
    /// `main` until the window existed (Tauri, GTK, the webview).
    pub window: f64,
    /// Until the core was ready (keyring, index, links), before the event loop.
    pub core: f64,
    /// Until the page started loading (the event loop, the web process).
    pub to_page: f64,
    /// Until the page's scripts had run.
    pub scripts: f64,
    /// Until the first status was answered (IPC, the stored session looked up).
    pub status: f64,
    /// Until the first control was focusable (rendering, the 5 ms poll).
    pub shown: f64,
}

impl Phases {
    /// The phases of one start of Rx Desk from the bench's and the app's clocks.
    pub fn of(start: &ColdStart, logged: &Logged) -> Self {
        let main_at = logged.started_at - logged.ready_ms;
        let ready_at = logged.started_at;
        let scripts_at = start.page_at + start.scripts_ms;
        Self {
            to_main: main_at - start.asked_at,
            window: logged.window_ms,
            core: logged.ready_ms - logged.window_ms,
            to_page: start.page_at - ready_at,
            scripts: start.scripts_ms,
            status: logged.status_at - scripts_at,
            shown: start.asked_at + start.ms - logged.status_at,
        }
    }

    /// The median of each phase over `all`.
    pub fn median(all: &[Phases]) -> Option<Phases> {
        let m = |f: fn(&Phases) -> f64| {
            crate::stats::percentile(&all.iter().map(f).collect::<Vec<_>>(), 0.5)
        };
        Some(Phases {
            to_main: m(|p| p.to_main)?,
            window: m(|p| p.window)?,
            core: m(|p| p.core)?,
            to_page: m(|p| p.to_page)?,
            scripts: m(|p| p.scripts)?,
            status: m(|p| p.status)?,
            shown: m(|p| p.shown)?,
        })
    }

    /// "process start → main 41, …" for the report's note.
    pub fn describe(&self) -> String {
        format!(
            "process start → main {:.0}, window built {:.0}, core ready {:.0} (before the event \
             loop), page navigation {:.0}, page scripts run {:.0}, first status answered {:.0}, \
             sign-in button shown {:.0}",
            self.to_main,
            self.window,
            self.core,
            self.to_page,
            self.scripts,
            self.status,
            self.shown
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn told(var: &'static str, value: &str) -> WebProcessEnv {
        WebProcessEnv(vec![(var, value.into())])
    }

    #[test]
    fn painting_is_on_the_cpu_only_when_the_variable_says_so() {
        assert!(told(WebProcessEnv::PAINTING_VAR, "1").on_cpu());
        assert!(!told(WebProcessEnv::PAINTING_VAR, "0").on_cpu());
        assert!(!WebProcessEnv::default().on_cpu());
    }

    #[test]
    fn scripts_are_interpreted_only_when_the_variable_turns_the_jit_off() {
        assert!(told(WebProcessEnv::JIT_VAR, "false").interpreted());
        assert!(told(WebProcessEnv::JIT_VAR, "0").interpreted());
        assert!(!told(WebProcessEnv::JIT_VAR, "true").interpreted());
        assert!(!WebProcessEnv::default().interpreted());
    }

    #[test]
    fn the_empty_app_gets_exactly_the_values_rx_desk_started_with() {
        let env = vec![
            ("DISPLAY".to_owned(), OsString::from(":9")),
            (WebProcessEnv::JIT_VAR.to_owned(), OsString::from("true")),
        ];
        let web = told(WebProcessEnv::PAINTING_VAR, "1");

        let given = web.applied_to(&env);

        assert_eq!(
            given,
            vec![
                ("DISPLAY".to_owned(), OsString::from(":9")),
                (WebProcessEnv::PAINTING_VAR.to_owned(), OsString::from("1")),
            ]
        );
    }

    const LOG: &str = "\
2026-11-26T22:31:59.711388Z  INFO rxdesk_lib: Rx Desk starting version=\"0.1.0\"
2026-11-26T22:31:59.746000Z  INFO rxdesk_lib: Rx Desk started window_ms=50 ready_ms=87
2026-11-26T22:32:00.150000Z  INFO rxdesk_lib::core::session: stored session looked up restore_ms=5
2026-11-26T22:32:01.000000Z  INFO rxdesk_lib::core::session: stored session looked up restore_ms=1
2026-11-26T22:32:04.502000Z  INFO rxdesk_lib: Rx Desk started window_ms=65 ready_ms=84
";

    #[test]
    fn the_page_names_every_timing_a_cold_start_reads() {
        let keys = [
            "page_at",
            "scripts_ms",
            "loaded_ms",
            "resources_ms",
            "mounted_ms",
            "listening_ms",
            "answered_ms",
            "status_ms",
            "painted_ms",
        ];
        let page: serde_json::Map<String, serde_json::Value> =
            keys.iter().map(|k| ((*k).to_owned(), 1.0.into())).collect();

        let start: ColdStart = serde_json::from_value(page.into()).unwrap();

        assert_eq!((start.page_at, start.painted_ms, start.ms), (1.0, 1.0, 0.0));
        for key in keys {
            assert!(NAVIGATION.contains(&format!("{key}:")), "{key}");
        }
    }

    #[test]
    fn each_logged_start_takes_the_first_status_after_it() {
        let starts = logged_starts(LOG);

        assert_eq!(starts.len(), 2);
        let first = starts[0];
        assert_eq!((first.window_ms, first.ready_ms), (50.0, 87.0));
        let epoch_ms = 1_795_732_319_746.0;
        assert!(
            (first.started_at - epoch_ms).abs() < 1.0,
            "{}",
            first.started_at
        );
        assert!((first.status_at - first.started_at - 404.0).abs() < 1.0);
        assert!(
            starts[1].status_at.is_nan(),
            "no status after the second start"
        );
    }

    #[test]
    fn the_phases_add_up_to_the_measured_start() {
        let logged = logged_starts(LOG)[0];
        let asked_at = logged.started_at - logged.ready_ms - 40.0;
        let start = ColdStart {
            ms: 700.0,
            asked_at,
            page_at: logged.started_at + 150.0,
            scripts_ms: 120.0,
            loaded_ms: 130.0,
            resources_ms: 125.0,
            mounted_ms: 100.0,
            listening_ms: 105.0,
            answered_ms: 106.0,
            status_ms: 110.0,
            painted_ms: 115.0,
        };

        let p = Phases::of(&start, &logged);

        assert!((p.to_main - 40.0).abs() < 1e-6);
        assert_eq!((p.window, p.core), (50.0, 37.0));
        assert!((p.to_page - 150.0).abs() < 1e-6);
        let sum = p.to_main + p.window + p.core + p.to_page + p.scripts + p.status + p.shown;
        assert!((sum - 700.0).abs() < 1e-6, "{p:?}");
    }
}
