//! Steps other crates reuse to bring the app into a state — signed in through
//! the browser, a patient open — without the journeys' bookkeeping (the
//! journeys keep their own copies in `journeys/steps.rs`, which also remember
//! every token they see). Used by `rxdesk-bench`.

use anyhow::{Context, Result};

use crate::desktop::Desktop;
use crate::{User, World};

/// Whether the app shows `user` signed in, or the sign-in screen: waits for
/// one of the two. The sign-in screen shows while a stored session is being
/// restored, so it counts only once it has stayed for a few seconds.
pub async fn is_signed_in(app: &Desktop, user: &User) -> Result<bool> {
    let shown = app
        .wait_for_any(&["Sign in with your browser", user.name])
        .await?;
    if shown == user.name {
        return Ok(true);
    }
    Ok(app
        .wait_for_text_within(user.name, std::time::Duration::from_secs(5))
        .await
        .is_ok())
}

/// Clicks **Sign in with your browser** with the browser program told to sign
/// in as `user` (choosing `organization` when asked), and waits until the app
/// shows the user signed in.
pub async fn sign_in(
    world: &World,
    app: &Desktop,
    journey: &str,
    user: &User,
    organization: Option<&str>,
) -> Result<()> {
    world.plan_sign_in(journey, user, organization)?;
    app.click("Sign in with your browser").await?;
    app.button("Sign out").await.with_context(|| {
        format!(
            "not signed in as {}; see {}",
            user.email,
            world.browser_log().display()
        )
    })?;
    app.wait_for_text(user.name).await
}

/// From anywhere in the workspace: the Patients tab, search, open `name` from
/// the candidates, and wait for the patient's page.
pub async fn open_patient(app: &Desktop, name: &str) -> Result<()> {
    app.click("Patients").await?;
    app.fill("Search patients by name", name).await?;
    app.click(name).await?;
    app.wait_for_text("Allergies").await?;
    app.button("Draft prescription").await?;
    Ok(())
}
