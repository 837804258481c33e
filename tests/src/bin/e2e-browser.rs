//! `e2e-browser URL`: the `$BROWSER` the end-to-end suite gives the app. Reads
//! the plan named by `E2E_BROWSER_PLAN`, completes the sign-in at `URL` in
//! headless Chromium and exits once Chromium shows the app's callback page;
//! every step goes to the file named by `E2E_BROWSER_LOG`. The app does not wait
//! for this program (it waits for its own callback), so it may take its time.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use rxdesk_e2e::browser::{PLAN_ENV, Plan, StepLog, complete_sign_in};

/// Everything, chromedriver start included, must be over by then.
const OVERALL: Duration = Duration::from_secs(120);

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let log = StepLog::from_env();
    let Some(url) = std::env::args().nth(1) else {
        log.line("failed: usage: e2e-browser AUTHORIZE_URL");
        return ExitCode::from(2);
    };
    log.line("started");
    let Some(plan_path) = std::env::var_os(PLAN_ENV).map(PathBuf::from) else {
        log.line(&format!("failed: {PLAN_ENV} is not set"));
        return ExitCode::from(2);
    };
    let plan = match Plan::read(&plan_path) {
        Ok(plan) => plan,
        Err(e) => {
            log.line(&format!("failed: {e:#}"));
            return ExitCode::from(2);
        }
    };
    // SIGTERM (the app's group being ended) drops the sign-in, which stops
    // chromedriver and removes the profile.
    let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    else {
        log.line("failed: no SIGTERM handler");
        return ExitCode::FAILURE;
    };
    let outcome = tokio::select! {
        outcome = tokio::time::timeout(OVERALL, complete_sign_in(&url, &plan, &log)) => outcome,
        _ = term.recv() => {
            log.line("stopped by SIGTERM");
            return ExitCode::FAILURE;
        }
    };
    match outcome {
        Ok(Ok(_)) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            log.line(&format!("failed: {e:#}"));
            ExitCode::FAILURE
        }
        Err(_) => {
            log.line(&format!("failed: not done within {OVERALL:?}"));
            ExitCode::FAILURE
        }
    }
}
