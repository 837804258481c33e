//! Journeys 3–6 and 8: the session as the user and the Secret Service see it —
//! restored after a restart, removed and revoked on sign-out, expired beyond
//! renewal in the middle of a form, a sign-in cancelled in the browser, and a
//! locked workstation where no environment in the list gives a session back.

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA, SAM};
use rxdesk_e2e::services::Lifetimes;
use rxdesk_e2e::tokens::{files_containing, stored_sessions};
use rxdesk_e2e::{CLIENT_ID, KEYRING_SERVICE};

use crate::Run;
use crate::steps::{
    open_patient, patient_via_backend, patients, remember_stored_tokens, sign_in,
    start_prescription,
};

const J4: &str = "03-restart";
const J5: &str = "04-sign-out";
const J6: &str = "05-expiry";
const J7: &str = "06-cancel";
const J8: &str = "08-lock";

/// The environment the lock journey adds through the environments file, beside
/// the built-in Local sandbox and the one named by `RXDESK_*`.
const FILE_ENVIRONMENT: &str = "Clinic network";

/// Lines the browser program has logged so far (a sign-in adds some).
fn browser_lines(run: &Run) -> usize {
    std::fs::read_to_string(run.world.browser_log()).map_or(0, |t| t.lines().count())
}

/// Journey 3. Follows journey 2, which left the prescriber signed in.
pub async fn after_a_restart_the_session_is_back_from_the_secret_service_and_no_file_holds_the_token(
    run: &mut Run,
) -> Result<()> {
    let listing = run.world.keyring.search(KEYRING_SERVICE)?;
    ensure!(
        // The app stores at most one session, under one entry.
        listing.contains("attribute.username = session"),
        "secret-tool search finds no session entry before the restart:\n{listing}"
    );
    let browsed = browser_lines(run);
    let mut app = run.world.launch(J4, &run.world.sandbox).await?;
    app.button("Sign out")
        .await
        .context("the session was not restored")?;
    app.wait_for_text(PIA.name).await?;
    ensure!(
        browser_lines(run) == browsed,
        "the restart went through the browser"
    );
    app.shot("signed in again without the browser").await?;

    let sessions = stored_sessions(&run.world.keyring, KEYRING_SERVICE)?;
    let tokens: Vec<String> = sessions.iter().flat_map(|s| s.tokens()).collect();
    ensure!(
        !tokens.is_empty(),
        "the keyring entry holds no token: {sessions:?}"
    );
    remember_stored_tokens(run, J4)?;
    let needles: Vec<(String, String)> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("stored token #{i}"), t.clone()))
        .collect();
    let dirs = run.world.app_dirs();
    let hits = files_containing(&dirs, &needles);
    ensure!(
        hits.is_empty(),
        "the token is in files of the app's dirs {dirs:?}: {hits:?}"
    );
    app.quit().await
}

/// Journey 4.
pub async fn signing_out_removes_the_keyring_entry_and_revokes_the_refresh_token(
    run: &mut Run,
) -> Result<()> {
    let mut app = run.world.launch(J5, &run.world.sandbox).await?;
    app.button("Sign out")
        .await
        .context("not signed in at start")?;
    let refresh = stored_sessions(&run.world.keyring, KEYRING_SERVICE)?
        .iter()
        .find_map(|s| s.refresh_token())
        .context("no refresh token in the keyring entry")?;
    run.saw_token(J5, &refresh);

    app.click("Sign out").await?;
    app.wait_for_text("Sign in with your browser").await?;
    app.shot("signed out").await?;
    let listing = run.world.keyring.search(KEYRING_SERVICE)?;
    ensure!(
        !listing.contains("attribute.username"),
        "entries left after sign-out:\n{listing}"
    );
    ensure!(
        !run.world.sandbox.refresh_works(CLIENT_ID, &refresh).await?,
        "the refresh token still works at the sandbox after sign-out"
    );
    let shots = app.shots().clone();
    app.quit().await?;

    let mut app = run
        .world
        .launch_continuing(J5, &run.world.sandbox, shots)
        .await?;
    app.wait_for_text("Sign in with your browser").await?;
    ensure!(
        !app.text().await?.contains(PIA.name),
        "still signed in after a restart"
    );
    app.shot("restart shows sign-in").await?;
    app.quit().await
}

/// Journey 5. Its own sandbox: user tokens of 10 s (under the app's renewal
/// margin, so every request renews and rotates), refresh tokens of 25 s
/// (sign-in to the last request takes a few seconds).
pub async fn a_session_expired_beyond_renewal_mid_form_asks_to_sign_in_and_gives_the_form_back(
    run: &mut Run,
) -> Result<()> {
    let lifetimes = Lifetimes {
        user_token: Duration::from_secs(10),
        refresh_token: Duration::from_secs(25),
    };
    let sandbox = run.world.extra_sandbox("short-sandbox", lifetimes)?;
    patient_via_backend(&sandbox, HARBOR_BACKEND, patients::EXPIRY)
        .await?
        .record(run);
    run.world.keyring.clear(KEYRING_SERVICE)?;

    let mut app = run.world.launch(J6, &sandbox).await?;
    sign_in(run, &app, J6, &SAM, None).await?;
    open_patient(&app, &patients::full(patients::EXPIRY)).await?;
    let medication = start_prescription(&app, "Amox").await?;
    // The medication search was the last request: every token issued until now
    // is dead once the refresh lifetime has passed since.
    let last_request = tokio::time::Instant::now();
    app.fill("Quantity", "21").await?;
    app.fill(
        "Instructions",
        "One capsule three times daily for seven days",
    )
    .await?;
    app.shot("prescription half filled").await?;
    remember_stored_tokens(run, J6)?;
    // Whether a rotated refresh token keeps its family's expiry or gets its
    // own, the newest was issued before `last_request`.
    tokio::time::sleep_until(last_request + lifetimes.refresh_token + Duration::from_secs(2)).await;

    app.click("Save draft").await?;
    app.wait_for_text("Your session ended").await?;
    // Nothing of the patient shows behind the sign-in screen.
    ensure!(
        !app.text().await?.contains(patients::EXPIRY.1),
        "the patient's name shows through the sign-in screen"
    );
    app.shot("asked to sign in again, nothing behind").await?;

    // The same user signs back in: the form is back as it was typed.
    sign_in(run, &app, J6, &SAM, None).await?;
    let quantity = app
        .value_of("Quantity")
        .await
        .context("the prescription form is gone after signing in again: what was typed was lost")?;
    ensure!(quantity == "21", "the quantity typed was lost");
    ensure!(
        app.value_of("Instructions").await? == "One capsule three times daily for seven days",
        "the instructions typed were lost"
    );
    app.wait_for_text(&format!("Chosen: {medication}")).await?;
    app.shot("form kept after signing in again").await?;
    app.click("Save draft").await?;
    app.wait_for_text("Screening:").await?;
    app.wait_for_text(&medication).await?;
    app.shot("submitted after signing in again").await?;
    app.quit().await?;
    drop(sandbox);
    Ok(())
}

/// Journey 6.
pub async fn cancelling_on_the_sign_in_page_says_access_was_denied_and_offers_to_try_again(
    run: &mut Run,
) -> Result<()> {
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J7, &run.world.sandbox).await?;
    run.world.plan_cancel(J7, &SAM)?;
    app.click("Sign in with your browser").await?;
    app.wait_for_text("Sign-in was cancelled or refused in the browser.")
        .await?;
    app.button("Sign in with your browser")
        .await
        .context("no way to try again")?;
    app.shot("access denied, try again offered").await?;
    app.quit().await
}

/// Journey 8. A prescriber signs in and the workstation locks; a second person
/// then picks every environment in the sign-in screen's list, one after the
/// other, and none of them signs anyone in: the lock ended the session at the
/// network and left nothing in the keyring to restore.
pub async fn after_the_lock_no_environment_in_the_list_gives_a_session_back(
    run: &mut Run,
) -> Result<()> {
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let config_dir = run
        .world
        .app_dirs()
        .into_iter()
        .nth(1)
        .context("no config dir")?;
    std::fs::create_dir_all(&config_dir)?;
    let origin = run.world.sandbox.origin();
    std::fs::write(
        config_dir.join("environments.toml"),
        format!(
            "[[environments]]\nname = \"{FILE_ENVIRONMENT}\"\nauth_url = \"{origin}\"\napi_url = \"{origin}\"\naudience = \"{}\"\nclient_id = \"{CLIENT_ID}\"\n",
            rxdesk_e2e::services::AUDIENCE
        ),
    )?;
    let mut app = run.world.launch(J8, &run.world.sandbox).await?;
    sign_in(run, &app, J8, &PIA, Some(HARBOR)).await?;
    let refresh = stored_sessions(&run.world.keyring, KEYRING_SERVICE)?
        .iter()
        .find_map(|s| s.refresh_token())
        .context("no refresh token in the keyring after sign-in")?;
    run.saw_token(J8, &refresh);
    app.shot("prescriber signed in").await?;

    app.click("Lock").await?;
    app.wait_for_text("Rx Desk is locked.").await?;
    app.shot("locked").await?;
    // The screen locks at once; revoking and deleting follow in the core.
    let started = tokio::time::Instant::now();
    let listing = loop {
        let listing = run.world.keyring.search(KEYRING_SERVICE)?;
        if !listing.contains("attribute.username") || started.elapsed() > Duration::from_secs(15) {
            break listing;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    ensure!(
        !listing.contains("attribute.username"),
        "entries left in the keyring 15 s after the lock:\n{listing}"
    );
    ensure!(
        !run.world.sandbox.refresh_works(CLIENT_ID, &refresh).await?,
        "the prescriber's refresh token still works at the network after the lock"
    );

    let options = app.all("//select[@id='environment']/option").await?;
    let mut names = Vec::new();
    for option in options {
        names.push(option.text().await?.trim().to_owned());
    }
    ensure!(
        names.len() >= 3 && names.iter().any(|n| n == FILE_ENVIRONMENT),
        "the list does not hold the built-in, variable and file environments: {names:?}"
    );
    // Each twice, so every environment is also picked after another one.
    for name in names.iter().chain(names.iter()) {
        app.fill("Environment", name).await?;
        let started = tokio::time::Instant::now();
        while started.elapsed() < Duration::from_secs(2) {
            ensure!(
                !app.has("//button[normalize-space()='Sign out']").await?
                    && !app.text().await?.contains(PIA.name),
                "picking {name:?} on the locked screen signed the prescriber in"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        app.button("Sign in with your browser")
            .await
            .with_context(|| format!("no sign-in offered after picking {name:?}"))?;
    }
    app.shot("every environment picked: still signed out")
        .await?;
    let listing = run.world.keyring.search(KEYRING_SERVICE)?;
    ensure!(
        !listing.contains("attribute.username"),
        "picking environments put a session back in the keyring:\n{listing}"
    );
    app.quit().await?;
    std::fs::remove_file(config_dir.join("environments.toml"))?;
    Ok(())
}
