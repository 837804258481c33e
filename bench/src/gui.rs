//! The figures of the running app, driven like the end-to-end suite drives it
//! (`rxdesk_e2e::World`: Xvfb, a private bus with gnome-keyring, the sandbox
//! binary with the suite's fixture, Chromium signing in as `$BROWSER`): cold
//! start ([`crate::startup`]), idle memory ([`crate::memory`]), search as you
//! type ([`crate::search`]) and signing ([`crate::signing`]), each against its
//! reference measured in between.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rxdesk_e2e::desktop::{Desktop, Shots};
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA};
use rxdesk_e2e::services;
use rxdesk_e2e::{KEYRING_SERVICE, Layout, World, flows};

use crate::empty_app::{self, EmptyApp};
use crate::plan::Plan;
use crate::report::Figure;
use crate::startup::{EMPTY_READY, RXDESK_READY, cold_start};
use crate::stats::Target;
use crate::{memory, network, search, signing};

/// The patient kept open while memory is read, and searched for.
const PATIENT: (&str, &str) = ("Beatrix", "Benchmark");
/// The patients whose drafts are signed: the last name gets letters (a, b, …, ba…).
const SIGNING_PATIENT: (&str, &str) = ("Silas", "Signature");
/// Search samples per launch of the app.
const SEARCHES: usize = 3;

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
        // The bench runs no journey that needs a clinic backend.
        webhook_receiver: beside.join("examples").join("webhook_receiver"),
        fixture: root.join("tests/fixtures/e2e.toml"),
        out: root.join("target/bench/e2e"),
        profile_dir: beside,
        link: None,
        // What users run: no RUST_LOG, the app's default (`info`).
        app_log: None,
    })
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
    let patient = network::add_patient(&http, &origin, &token, PATIENT).await?;
    let patient_name = format!("{} {}", PATIENT.0, PATIENT.1);
    let env = world.app_env(&world.sandbox);
    let logs = layout.logs();
    let gone = Duration::from_secs(20);

    eprintln!(
        "==> cold start: Rx Desk and the empty app, {} runs each",
        plan.runs
    );
    let (mut start_app, mut start_empty) = (Vec::new(), Vec::new());
    for _ in 0..plan.runs {
        world.keyring.clear(KEYRING_SERVICE)?;
        let log = logs.join("start-rxdesk.log");
        start_app.push(cold_start(&layout.app, &env, &log, RXDESK_READY, gone).await?);
        let log = logs.join("start-empty.log");
        start_empty.push(cold_start(&empty.binary, &env, &log, EMPTY_READY, gone).await?);
    }

    eprintln!("==> idle memory and search: {} launches each", plan.runs);
    let (mut memory_app, mut memory_empty, mut searches) = (Vec::new(), Vec::new(), Vec::new());
    let (mut breakdown_app, mut breakdown_empty) = (String::new(), String::new());
    let mut signing_runs: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    let mut made = 0;
    for run in 0..plan.runs {
        let app = world.launch("bench-rxdesk", &world.sandbox).await?;
        if !flows::is_signed_in(&app, &PIA).await? {
            flows::sign_in(&world, &app, "bench-rxdesk", &PIA, Some(HARBOR)).await?;
        }
        flows::open_patient(&app, &patient_name).await?;
        tokio::time::sleep(plan.idle).await;
        let reading = memory::read(&layout.app)?;
        memory_app.push(reading.total_mib);
        breakdown_app = reading.breakdown();

        app.click("Patients").await?;
        for _ in 0..SEARCHES {
            searches
                .push(search::keystroke_to_candidates(&app, &patient_name, &patient_name).await?);
        }
        if run + 1 == plan.runs {
            eprintln!(
                "==> signing: N = {:?}, {} runs each",
                plan.signing, plan.runs
            );
            for _ in 0..plan.runs {
                for &n in &plan.signing {
                    // One patient per draft: a second draft of the same drug for a
                    // patient screens as duplicate therapy and is not signed.
                    let mut drafts = Vec::with_capacity(n);
                    for _ in 0..n {
                        let name = (
                            SIGNING_PATIENT.0,
                            format!("{}{}", SIGNING_PATIENT.1, letters(made)),
                        );
                        made += 1;
                        let patient =
                            network::add_patient(&http, &origin, &token, (name.0, &name.1)).await?;
                        drafts.push(network::add_draft(&http, &origin, &token, &patient).await?);
                    }
                    let took = signing::sign(&app, &drafts).await?;
                    signing_runs.entry(n).or_default().push(took);
                }
            }
        }
        app.quit().await?;
        memory::wait_gone(&layout.app, gone).await?;

        let window = Desktop::launch(
            &empty.binary,
            &env,
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
    let round_trips =
        search::get_round_trips(&origin, &token, &patient, searches.len().max(5)).await?;

    let one = signing_runs
        .get(&1)
        .context("no single signature measured")?
        .clone();
    let mid = signing_runs
        .get(&10)
        .context("no batch of 10 measured")?
        .clone();
    let (max_n, max) = signing_runs
        .iter()
        .next_back()
        .map(|(n, runs)| (*n, runs.clone()))
        .context("no signing measured")?;
    let one_signature = "one signature (N = 1)";
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
            "both at the production log level (no RUST_LOG: info); last run, MiB per process — \
             Rx Desk: {breakdown_app}; empty app: {breakdown_empty}"
        )),
        Figure::measured(
            "cold_start",
            "cold start to interactive (process start → the first screen's main control is focusable)",
            "ms",
            &start_app,
            ("the empty app's window shown", Some(&start_empty)),
            Target::RatioAtMost(1.2),
        )?
        .with_note(
            "from the WebDriver request that spawns the process to the control found \
             focusable by a 5 ms poll in the page: Rx Desk's **Sign in with your browser**, \
             the empty app's heading",
        ),
        Figure::measured(
            "signing_1",
            "signing 1 draft, from the app's command to the last outcome",
            "ms",
            &one,
            ("—", None),
            Target::Report,
        )?,
        Figure::measured(
            "signing_10",
            "signing 10 drafts, from the app's command to the last outcome",
            "ms",
            &mid,
            (one_signature, Some(&one)),
            Target::Report,
        )?,
        Figure::measured(
            "signing_max",
            &format!("signing {max_n} drafts, from the app's command to the last outcome"),
            "ms",
            &max,
            (one_signature, Some(&one)),
            Target::RatioAtMost(3.0),
        )?
        .with_note(
            "`sign_prescriptions` invoked through the window's IPC, timed in the page; \
             every draft came back signed",
        ),
        Figure::measured(
            "search_keystroke",
            "patient search as you type: keystroke → candidates on screen, sandbox on loopback",
            "ms",
            &searches,
            ("a patient Get round trip", Some(&round_trips)),
            Target::RatioAtMost(2.0),
        )?
        .with_note(format!(
            "{SEARCHES} searches per launch; the UI searches at once, one request in flight, \
             the latest text's answer shown (ui/src/lib/search.svelte.ts)"
        )),
    ])
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
