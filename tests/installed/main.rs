#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The installed package, tried as a new user would: `/usr/bin/rxdesk` as the
//! `.deb` put it there (not the build tree's binary) opens its window under
//! Xvfb, shows its sign-in screen, and signs in through the system browser into
//! the real Secret Service. `cargo xtask bundle --check` installs the package,
//! runs this, and uninstalls it; the package-level checks (desktop entry,
//! scheme handler, files left behind) live there.
//!
//! Gated: without `RXDESK_INSTALLED_APP` (the installed binary's path) this
//! prints that it skipped and passes, so `cargo test --workspace` needs no
//! installed package. Outputs go to `target/installed/` (logs, screenshots).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context as _, Result, ensure};
use rxdesk_e2e::fixture::SAM;
use rxdesk_e2e::process::wait_for;
use rxdesk_e2e::{Layout, World};

fn main() -> ExitCode {
    let Some(app) = std::env::var_os("RXDESK_INSTALLED_APP").map(PathBuf::from) else {
        println!("installed package: skipped (run by `cargo xtask bundle --check`)");
        return ExitCode::SUCCESS;
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    match runtime.block_on(the_installed_app_opens_its_sign_in_screen_and_signs_in(
        &app,
    )) {
        Ok(()) => {
            println!("installed package: {} opened and signed in", app.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("installed package: FAILED: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn the_installed_app_opens_its_sign_in_screen_and_signs_in(app: &Path) -> Result<()> {
    ensure!(app.is_file(), "{} is not installed", app.display());
    let mut layout = Layout::discover(Path::new(env!("CARGO_BIN_EXE_e2e-browser")))?;
    layout.out = layout
        .out
        .parent()
        .context("target/e2e has no parent")?
        .join("installed");
    layout.app = app.to_owned();
    let world = World::start(layout).await?;
    let mut desktop = world.launch("installed", &world.sandbox).await?;

    wait_for(
        "the document title Rx Desk",
        Duration::from_secs(30),
        || async { Ok((desktop.title().await? == "Rx Desk").then_some(())) },
    )
    .await?;
    desktop.wait_for_text("Sign in with your browser").await?;
    let tree = Command::new("xwininfo")
        .args(["-root", "-tree", "-display", &world.display.name])
        .output()
        .context("xwininfo (Debian package x11-utils)")?;
    ensure!(
        String::from_utf8_lossy(&tree.stdout).contains("\"Rx Desk\""),
        "no X window titled \"Rx Desk\""
    );
    desktop.shot("sign-in").await?;

    world.plan_sign_in("installed", &SAM, None)?;
    desktop.click("Sign in with your browser").await?;
    desktop.button("Sign out").await.with_context(|| {
        format!(
            "the installed app did not sign in; see {}",
            world.browser_log().display()
        )
    })?;
    desktop.wait_for_text(SAM.name).await?;
    desktop.shot("signed-in").await?;
    desktop.quit().await
}
