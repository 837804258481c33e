//! Journey 9: a desktop session with no keyring at all (no Secret Service on
//! the bus, none that D-Bus could start). The app starts, the sign-in screen
//! says what is wrong and what to do, the user signs in for this run only, and
//! the session is stored nowhere: no file of the app's holds a token, the real
//! keyring of the run is untouched, and the next start is signed out again.

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::desktop::Shots;
use rxdesk_e2e::fixture::{HARBOR, PIA};
use rxdesk_e2e::services::BareBus;
use rxdesk_e2e::tokens::{jwts_in, walk};

use crate::Run;

const J9: &str = "09-no-keyring";

/// What the sign-in screen says when no keyring service answers.
const NONE_RUNNING: &str = "No keyring service is running on this computer";

/// Files of the app's directories that hold a JWT (an access or ID token).
fn files_with_a_jwt(run: &Run) -> Vec<String> {
    run.world
        .app_dirs()
        .iter()
        .flat_map(|dir| walk(dir))
        .filter(|file| {
            std::fs::read(file)
                .is_ok_and(|bytes| !jwts_in(&String::from_utf8_lossy(&bytes)).is_empty())
        })
        .map(|file| file.display().to_string())
        .collect()
}

pub async fn without_a_keyring_the_app_says_so_signs_in_for_this_run_only_and_stores_the_session_nowhere(
    run: &mut Run,
) -> Result<()> {
    let bus = BareBus::start(
        &run.world.home,
        &run.world.layout.logs().join("bare-bus.log"),
    )?;
    let keyring_before = run.world.keyring.search(KEYRING_SERVICE)?;
    let shots = Shots::new(run.world.layout.screenshots().join(J9));
    let mut app = run
        .world
        .launch_on_bus(J9, &run.world.sandbox, &bus.address, shots)
        .await?;

    app.wait_for_text(NONE_RUNNING)
        .await
        .context("the sign-in screen does not say that no keyring is running")?;
    app.button("Sign in for this run only").await?;
    app.shot("no keyring: the sign-in screen says so and what to do")
        .await?;
    run.world.plan_sign_in(J9, &PIA, Some(HARBOR))?;
    app.click("Sign in for this run only").await?;
    app.button("Sign out").await.with_context(|| {
        format!(
            "not signed in for this run only; see {}",
            run.world.browser_log().display()
        )
    })?;
    app.wait_for_text(PIA.name).await?;
    app.wait_for_text("You are signed in for this run only")
        .await?;
    app.shot("signed in for this run only").await?;

    let with_a_jwt = files_with_a_jwt(run);
    ensure!(
        with_a_jwt.is_empty(),
        "a token is in files of the app's: {with_a_jwt:?}"
    );
    ensure!(
        run.world.keyring.search(KEYRING_SERVICE)? == keyring_before,
        "the run's Secret Service changed although the app was on a bus without it"
    );

    let shots = Shots::continuing(app.shots());
    app.quit().await?;
    let mut app = run
        .world
        .launch_on_bus(J9, &run.world.sandbox, &bus.address, shots)
        .await?;
    app.wait_for_text(NONE_RUNNING).await?;
    ensure!(
        !app.has("//button[normalize-space()='Sign out']").await?,
        "the next start is signed in: the session was kept somewhere"
    );
    app.shot("the next start: signed out, and it says why")
        .await?;
    app.quit().await
}
