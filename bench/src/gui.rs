//! The figures of the running app, driven like the end-to-end suite drives it
//! (`rxdesk_e2e::World`: Xvfb, a private bus with gnome-keyring, the sandbox
//! binary with the suite's fixture, Chromium signing in as `$BROWSER`): cold
//! start ([`crate::startup`]) and idle memory ([`crate::memory`]), each against its
//! reference measured in between.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use rxdesk_e2e::desktop::{Desktop, Shots};
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA};
use rxdesk_e2e::services;
use rxdesk_e2e::{APP_IDENTIFIER, KEYRING_SERVICE, Layout, World, flows};

use crate::empty_app::{self, EmptyApp};
use crate::plan::Plan;
use crate::report::Figure;
use crate::startup::{EMPTY_READY, Phases, RXDESK_READY, WebProcessEnv, cold_start, logged_starts};
use crate::stats::Target;
use crate::{day, felt, memory, network};

/// The patient kept open while memory is read.
const PATIENT: (&str, &str) = ("Beatrix", "Benchmark");

/// Binaries and outputs: the app the production `.deb` installs
/// (`RXDESK_E2E_APP` overrides), the sandbox and browser program built beside
/// the bench, outputs in `target/bench/e2e`.
pub fn layout(root: &Path) -> Result<Layout> {
    let release = root.join("target/release");
    // The sandbox and the browser program are built beside this binary.
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| release.clone());
    let from_env =
        |var: &str, default: PathBuf| std::env::var_os(var).map(PathBuf::from).unwrap_or(default);
    let app = match std::env::var_os("RXDESK_E2E_APP") {
        Some(app) => PathBuf::from(app),
        None => crate::size::production_app(root)?,
    };
    Ok(Layout {
        app,
        sandbox: from_env("RXDESK_E2E_SANDBOX", beside.join("rxdesk-sandbox")),
        browser: beside.join("e2e-browser"),
        // The bench runs no journey that needs a webhook receiver.
        webhook_receiver: beside.join("examples").join("webhook_receiver"),
        fixture: root.join("tests/fixtures/e2e.toml"),
        out: root.join("target/bench/e2e"),
        profile_dir: beside,
        link: None,
        // What a network logs at: the sandbox's own cost per request as users meet it.
        sandbox_log: "info".to_owned(),
        // What users run: no RUST_LOG, the app's default (`info`).
        app_log: None,
    })
}

/// The cold-start note: where Rx Desk's start-up time went (medians of the
/// phases its log and its page give, see [`Phases`]) and, for the empty app,
/// when its page started loading and had run its scripts.
fn start_phases(
    world: &World,
    app: &[crate::startup::ColdStart],
    empty: &[crate::startup::ColdStart],
) -> String {
    let dir = world.home.data().join(APP_IDENTIFIER).join("logs");
    let mut text = String::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    for file in files {
        text.push_str(&std::fs::read_to_string(file).unwrap_or_default());
    }
    let logged = logged_starts(&text);
    let phases: Vec<Phases> = app
        .iter()
        .filter_map(|start| {
            let line = logged.iter().find(|l| {
                l.started_at > start.asked_at && l.started_at < start.asked_at + start.ms
            })?;
            line.status_at.is_finite().then(|| Phases::of(start, line))
        })
        .collect();
    let ours = Phases::median(&phases).map_or_else(
        || format!("no start-up phases in {}", dir.display()),
        |p| {
            format!(
                "Rx Desk, median ms over {} runs: {}",
                phases.len(),
                p.describe()
            )
        },
    );
    let median = |starts: &[crate::startup::ColdStart],
                  f: fn(&crate::startup::ColdStart) -> f64| {
        crate::stats::percentile(&starts.iter().map(f).collect::<Vec<_>>(), 0.5).unwrap_or(f64::NAN)
    };
    let page = |s: &crate::startup::ColdStart| s.page_at - s.asked_at;
    format!(
        "{ours}; page navigation at {:.0} for Rx Desk, {:.0} for the empty app, whose \
         scripts ran {:.0} later; after navigation, last resource answered / load event done / \
         found ready: Rx Desk {:.0} / {:.0} / {:.0}, the empty app {:.0} / {:.0} / {:.0}; \
         in Rx Desk's page, after navigation: UI mounted {:.0}, listeners registered {:.0}, \
         first status answered {:.0} and applied {:.0}, first paint with content {:.0} (-1: not \
         told), the empty app's first paint {:.0}",
        median(app, page),
        median(empty, page),
        median(empty, |s| s.scripts_ms),
        median(app, |s| s.resources_ms),
        median(app, |s| s.loaded_ms),
        median(app, crate::startup::ColdStart::ready_in_page),
        median(empty, |s| s.resources_ms),
        median(empty, |s| s.loaded_ms),
        median(empty, crate::startup::ColdStart::ready_in_page),
        median(app, |s| s.mounted_ms),
        median(app, |s| s.listening_ms),
        median(app, |s| s.answered_ms),
        median(app, |s| s.status_ms),
        median(app, |s| s.painted_ms),
        median(empty, |s| s.painted_ms),
    )
}

/// `i` in letters: 0 → "a", 25 → "z", 26 → "ba" (names take no digits).
pub fn letters(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (i % 26) as u8);
        i /= 26;
        if i == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

pub async fn figures(plan: &Plan, root: &Path, empty: &EmptyApp) -> Result<Vec<Figure>> {
    let layout = layout(root)?;
    let world = World::start(layout.clone()).await?;
    let origin = world.sandbox.url.clone();
    let http = rxdesk_e2e::http_client();
    let token = services::machine_token(&http, &origin, HARBOR_BACKEND).await?;
    network::add_patient(&http, &origin, &token, PATIENT).await?;
    let patient_name = format!("{} {}", PATIENT.0, PATIENT.1);
    let env = world.app_env(&world.sandbox);
    let logs = layout.logs();
    let gone = Duration::from_secs(20);

    eprintln!(
        "==> cold start: Rx Desk and the empty app, {} runs each",
        plan.cold_starts
    );
    let (mut starts_app, mut starts_empty) = (Vec::new(), Vec::new());
    let mut web = WebProcessEnv::default();
    for _ in 0..plan.cold_starts {
        world.keyring.clear(KEYRING_SERVICE)?;
        let log = logs.join("start-rxdesk.log");
        let (start, told) = cold_start(&layout.app, &env, &log, RXDESK_READY, gone).await?;
        starts_app.push(start);
        web = told;
        let log = logs.join("start-empty.log");
        let empty_env = web.applied_to(&env);
        starts_empty.push(
            cold_start(&empty.binary, &empty_env, &log, EMPTY_READY, gone)
                .await?
                .0,
        );
    }
    let empty_env = web.applied_to(&env);
    let start_app: Vec<f64> = starts_app.iter().map(|s| s.ms).collect();
    let start_empty: Vec<f64> = starts_empty.iter().map(|s| s.ms).collect();
    let start_note = start_phases(&world, &starts_app, &starts_empty);

    eprintln!("==> idle memory: {} launches each", plan.runs);
    let (mut memory_app, mut memory_empty) = (Vec::new(), Vec::new());
    let (mut breakdown_app, mut breakdown_empty) = (String::new(), String::new());
    for _ in 0..plan.runs {
        let app = world.launch("bench-rxdesk", &world.sandbox).await?;
        if !flows::is_signed_in(&app, &PIA).await? {
            flows::sign_in(&world, &app, "bench-rxdesk", &PIA, Some(HARBOR)).await?;
        }
        flows::open_patient(&app, &patient_name).await?;
        tokio::time::sleep(plan.idle).await;
        let reading = memory::read(&layout.app)?;
        memory_app.push(reading.total_mib);
        breakdown_app = reading.breakdown();
        app.quit().await?;
        memory::wait_gone(&layout.app, gone).await?;

        let window = Desktop::launch(
            &empty.binary,
            &empty_env,
            &logs.join("bench-empty-app.log"),
            Shots::new(layout.screenshots().join("empty-app")),
        )
        .await?;
        window.wait_for_text(empty_app::HEADING).await?;
        tokio::time::sleep(plan.idle).await;
        let reading = memory::read(&empty.binary)?;
        memory_empty.push(reading.total_mib);
        breakdown_empty = reading.breakdown();
        window.quit().await?;
        memory::wait_gone(&empty.binary, gone).await?;
    }

    Ok(vec![
        Figure::measured(
            "idle_memory",
            &format!(
                "idle memory (PSS of the app and its WebKit processes, {} s after the window shows, signed in, one patient open)",
                plan.idle.as_secs()
            ),
            "MiB",
            &memory_app,
            ("the empty app's window", Some(&memory_empty)),
            Target::RatioAtMost(1.2),
        )?
        .with_note(format!(
            "both at the production log level (no RUST_LOG: info), {}; last run, MiB per \
             process — Rx Desk: {breakdown_app}; empty app: {breakdown_empty}",
            web.words()
        )),
        Figure::measured(
            "cold_start",
            "cold start to interactive (process start → the first screen's main control is focusable)",
            "ms",
            &start_app,
            ("the empty app's window shown", Some(&start_empty)),
            Target::RatioAtMost(1.2),
        )?
        .with_note(format!(
            "from the WebDriver request that spawns the process to the control found \
             focusable by a 5 ms poll in the page: Rx Desk's **Sign in with your browser**, \
             the empty app's heading; {}; {start_note}",
            web.words()
        )),
    ])
}

/// Patient page, screening, search and signing on the clean link and a
/// clinic's link ([`felt`]), on a world of their own.
pub async fn felt_figures(plan: &Plan, root: &Path) -> Result<Vec<Figure>> {
    let world = World::start(layout(root)?).await?;
    felt::figures(plan, &world).await
}

/// A compressed day at the workstation on the clinic link ([`day`]), on a
/// world of its own.
pub async fn day_figures(plan: &Plan, root: &Path) -> Result<Vec<Figure>> {
    let world = World::start(layout(root)?).await?;
    day::figures(plan, &world).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_distinct_letter_suffixes() {
        assert_eq!(letters(0), "a");
        assert_eq!(letters(25), "z");
        assert_eq!(letters(26), "ba");
        let all: std::collections::HashSet<String> = (0..1000).map(letters).collect();
        assert_eq!(all.len(), 1000);
    }
}
