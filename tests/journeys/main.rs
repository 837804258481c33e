#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The end-to-end journeys of Rx Desk, run in order in one process against one
//! [`World`] (Xvfb, a private bus with gnome-keyring, the sandbox): each journey
//! is a function named for the story it tells, and later ones build on what
//! earlier ones left (the patient, the drafts, the signed prescriptions).
//!
//! Gated: without `RXDESK_E2E=1` this prints that it skipped and passes, so a
//! plain `cargo test --workspace` needs none of the system packages. With it,
//! anything missing fails the run loudly. Run it as `cargo xtask e2e` does:
//!
//! ```text
//! npm --prefix ui run build
//! cargo build --workspace --bins --tests --examples
//! RXDESK_E2E=1 cargo test --workspace --test journeys
//! ```
//!
//! Arguments: words that select journeys by substring (like libtest filters).
//! `RXDESK_E2E_LINK=clinic` runs them on a bad link (latency and a seeded 5 %
//! of transient faults, see `rxdesk_e2e::link`); the last journeys audit the
//! sandbox's records for duplicates either way.

mod a_clinics_day;
mod after_send;
mod audit;
mod clinic_day;
mod clinic_day_rx;
mod keyring;
mod killed;
mod logs;
mod session;
mod smoke;
mod steps;
mod workflows;

use std::future::Future;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use rxdesk_e2e::tokens::KeyringWatch;
use rxdesk_e2e::{KEYRING_SERVICE, Layout, World};

/// A journey that takes longer than this has hung.
const JOURNEY_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Debug)]
/// What journeys share: the running world and what earlier journeys created.
pub struct Run {
    pub world: World,
    /// Every token seen during the run (keyring snapshots, machine tokens).
    pub tokens: Vec<(String, String)>,
    /// Every patient name used during the run.
    pub patient_names: Vec<String>,
    /// Tokens the keyring held at any moment of the run (polled).
    pub keyring_watch: KeyringWatch,
    /// Links staff copied for the prescriber (journey 1 → journey 2).
    pub draft_link: Option<String>,
    pub order_link: Option<String>,
}

impl Run {
    /// Remembers `token` (seen at `when`) for the log check.
    pub fn saw_token(&mut self, when: &str, token: &str) {
        if !self.tokens.iter().any(|(_, t)| t == token) {
            self.tokens.push((when.to_owned(), token.to_owned()));
        }
    }
}

fn main() -> ExitCode {
    if std::env::var("RXDESK_E2E").as_deref() != Ok("1") {
        println!("e2e journeys: skipped (set RXDESK_E2E=1, run via cargo xtask e2e)");
        return ExitCode::SUCCESS;
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        tokio::select! {
            code = run(&filters) => code,
            () = interrupted() => {
                eprintln!("e2e journeys: interrupted; stopping everything started");
                ExitCode::FAILURE
            }
        }
    })
}

/// Ctrl-C or SIGTERM: returning lets every guard stop its processes.
async fn interrupted() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

async fn run(filters: &[String]) -> ExitCode {
    let started = Instant::now();
    let layout = match Layout::discover(Path::new(env!("CARGO_BIN_EXE_e2e-browser"))) {
        Ok(layout) => layout,
        Err(e) => return fail_setup(e),
    };
    println!("e2e journeys: outputs under {}", layout.out.display());
    let world = match World::start(layout).await {
        Ok(world) => world,
        Err(e) => return fail_setup(e),
    };
    println!(
        "e2e journeys: display {}, sandbox {}, keyring on {}, link {}",
        world.display.name,
        world.sandbox.url,
        world.keyring.address,
        world.layout.link.as_ref().map_or_else(
            || "clean".to_owned(),
            |l| format!("{} with faults {} (seed {})", l.latency, l.faults, l.seed)
        )
    );
    let keyring_watch = KeyringWatch::start((*world.keyring).clone(), KEYRING_SERVICE);
    let mut run = Run {
        keyring_watch,
        world,
        tokens: Vec::new(),
        patient_names: Vec::new(),
        draft_link: None,
        order_link: None,
    };
    let mut report = Report::default();

    macro_rules! journey {
        ($path:path) => {{
            let name = stringify!($path)
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .trim();
            if filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())) {
                report.run(name, $path(&mut run)).await;
            }
        }};
    }

    journey!(smoke::the_app_window_opens_titled_rx_desk);
    journey!(smoke::the_browser_program_completes_a_sign_in_on_its_own);
    journey!(workflows::staff_add_a_patient_with_an_allergy_draft_two_prescriptions_one_blocked_build_an_order_and_are_refused_signing);
    journey!(workflows::a_prescriber_opens_the_link_in_a_second_launch_reviews_and_signs_again_after_a_change);
    journey!(session::after_a_restart_the_session_is_back_from_the_secret_service_and_no_file_holds_the_token);
    journey!(session::signing_out_removes_the_keyring_entry_and_revokes_the_refresh_token);
    journey!(
        session::a_session_expired_beyond_renewal_mid_form_asks_to_sign_in_and_gives_the_form_back
    );
    journey!(
        session::cancelling_on_the_sign_in_page_says_access_was_denied_and_offers_to_try_again
    );
    journey!(after_send::staff_send_the_order_the_pharmacy_reroutes_it_work_flags_it_and_the_clinics_receiver_logs_its_events);
    journey!(session::after_the_lock_no_environment_in_the_list_gives_a_session_back);
    journey!(a_clinics_day::a_clinics_day_staff_add_a_patient_and_draft_the_whole_prescription_the_prescriber_signs_it_and_its_renewal_and_staff_send_both_orders_changing_the_pharmacy_of_the_one_that_fails);
    journey!(
        keyring::without_a_keyring_the_app_says_so_signs_in_for_this_run_only_and_stores_the_session_nowhere
    );
    journey!(
        killed::killed_during_send_the_order_shows_sent_or_not_truly_and_a_retried_send_sends_once
    );
    journey!(killed::killed_mid_batch_every_draft_shows_its_network_state_and_signing_the_rest_finishes_it);
    journey!(
        killed::killed_while_a_new_draft_is_saved_the_next_save_continues_it_without_a_second_draft
    );
    journey!(audit::the_network_holds_no_duplicate_draft_order_or_signature);
    journey!(logs::no_log_of_the_run_holds_a_token_or_a_patient_name);

    let failed = report.failed.len();
    println!(
        "\ne2e journeys: {} passed, {failed} failed, in {:.0?}; screenshots under {}",
        report.passed,
        started.elapsed(),
        run.world.layout.screenshots().display()
    );
    for (name, error) in &report.failed {
        println!("  FAILED {name}: {error:#}");
    }
    drop(run);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn fail_setup(e: anyhow::Error) -> ExitCode {
    eprintln!("e2e journeys: cannot set up the run: {e:#}");
    ExitCode::FAILURE
}

#[derive(Debug, Default)]
struct Report {
    passed: usize,
    failed: Vec<(String, anyhow::Error)>,
}

impl Report {
    async fn run(&mut self, name: &str, journey: impl Future<Output = Result<()>>) {
        println!("journey {name} ...");
        let started = Instant::now();
        let outcome = match tokio::time::timeout(JOURNEY_TIMEOUT, journey).await {
            Ok(outcome) => outcome,
            Err(_) => Err(anyhow::anyhow!("not done within {JOURNEY_TIMEOUT:?}")),
        };
        match outcome {
            Ok(()) => {
                println!("journey {name} ... ok ({:.1?})", started.elapsed());
                self.passed += 1;
            }
            Err(e) => {
                println!(
                    "journey {name} ... FAILED ({:.1?})\n  {e:#}",
                    started.elapsed()
                );
                self.failed.push((name.to_owned(), e));
            }
        }
    }
}
