//! Journey 7: nothing secret or personal reached a log, or the local index,
//! during the whole run.
//!
//! What it covers, honestly: the tokens are those the harness saw — the
//! keyring polled twice a second for the whole run plus after each sign-in and
//! at checkpoints of journeys 3–5 (access and refresh tokens of each user
//! session), the smoke test's own sign-in, and the machine tokens the harness
//! fetched. A token the app obtained by silent renewal and replaced within half
//! a second (journey 5 renews on every request) can escape the list: the
//! sandbox keeps no access tokens to ask for. The names are every
//! patient name the run used, whole and as first and last names. The logs are
//! every file under `target/e2e/logs` (app and driver output per journey,
//! sandboxes, keyring, Xvfb, the browser program) and the app's own log
//! data directory in the isolated home (its logs and the local index).

use anyhow::{Result, ensure};
use rxdesk_e2e::APP_IDENTIFIER;
use rxdesk_e2e::tokens::{files_containing, walk};

use crate::Run;

/// Journey 7. The local index (ids of records this workstation opened) is
/// searched too: it must hold no patient data either.
pub async fn no_log_of_the_run_holds_a_token_or_a_patient_name(run: &mut Run) -> Result<()> {
    for token in run.keyring_watch.tokens() {
        run.saw_token("keyring poll", &token);
    }
    ensure!(
        run.tokens.iter().any(|(_, t)| t.starts_with("eyJ")),
        "no access token was captured during the run; the check would be empty"
    );
    ensure!(
        run.tokens.iter().any(|(_, t)| !t.starts_with("eyJ")),
        "no refresh token was captured during the run; the check would miss them"
    );
    ensure!(
        !run.patient_names.is_empty(),
        "no patient name was used during the run"
    );

    let mut needles: Vec<(String, String)> = run
        .tokens
        .iter()
        .enumerate()
        .map(|(i, (when, token))| (format!("token #{i} ({when})"), token.clone()))
        .collect();
    for name in &run.patient_names {
        needles.push((format!("patient name {name:?}"), name.clone()));
        for part in name.split(' ').filter(|p| p.len() >= 5) {
            needles.push((format!("patient name part {part:?}"), part.to_owned()));
        }
    }
    let app_data = run.world.home.data().join(APP_IDENTIFIER);
    let app_logs = app_data.join("logs");
    let index = app_data.join("index.sqlite");
    ensure!(
        index.is_file(),
        "the app kept no local index at {}",
        index.display()
    );
    // The app's data directory: its logs and the index (with its -wal file).
    let roots = vec![run.world.layout.logs(), app_data.clone()];
    let files: Vec<_> = roots.iter().flat_map(|r| walk(r)).collect();
    ensure!(
        files.iter().any(|f| f.starts_with(&app_logs)),
        "the app wrote no log file under {}",
        app_logs.display()
    );
    let hits = files_containing(&roots, &needles);
    println!(
        "  checked {} files for {} tokens and {} patient names",
        files.len(),
        run.tokens.len(),
        run.patient_names.len()
    );
    ensure!(
        hits.is_empty(),
        "secrets or patient data in logs: {hits:#?}"
    );
    Ok(())
}
