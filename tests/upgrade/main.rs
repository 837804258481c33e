//! An upgrade, as a clinic gets one: the previous release's `.deb` installed
//! and used — signed in, a patient opened, an environment added in Settings —
//! then this version's `.deb` installed over it, and then the previous one
//! again (a downgrade). After each install the installed `/usr/bin/rxdesk`
//! starts signed in (the session in the keyring kept), lists the patient under
//! Recent patients (the index kept, and migrated by the new version) and the
//! environment in Settings (its file kept). The package is removed by
//! `cargo xtask upgrade` afterwards, which checks no file of it is left.
//!
//! Gated: without `RXDESK_UPGRADE_FROM` and `RXDESK_UPGRADE_TO` (the two
//! `.deb` files) this prints that it skipped and passes. It installs packages
//! system-wide (`apt-get`, as root): `cargo xtask upgrade` runs it. Outputs go
//! to `target/upgrade/` (logs, screenshots).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, ensure};
use rxdesk_e2e::desktop::Desktop;
use rxdesk_e2e::fixture::{HARBOR_BACKEND, SAM};
use rxdesk_e2e::services::SYNC_PATIENT;
use rxdesk_e2e::{APP_IDENTIFIER, Layout, World, flows};

/// The installed binary, as the package puts it.
const INSTALLED_APP: &str = "/usr/bin/rxdesk";
/// The Debian package's name.
const PACKAGE: &str = "rx-desk";
/// The index's schema version the previous release leaves (it wrote none) and
/// the one this version migrates it to (`src-tauri/src/index/schema.rs`).
const PREVIOUS_INDEX_VERSION: i64 = 0;
const INDEX_VERSION: i64 = 3;

/// The environment added in the previous release's Settings.
const STAGING: [(&str, &str); 5] = [
    ("Name", "Upgrade staging"),
    ("Authorization server URL", "https://auth.staging.example"),
    ("API URL", "https://api.staging.example"),
    ("Audience", "rxdesk-api"),
    ("Application client ID", "rxdesk-desktop"),
];

fn main() -> ExitCode {
    let (Some(from), Some(to)) = (
        std::env::var_os("RXDESK_UPGRADE_FROM").map(PathBuf::from),
        std::env::var_os("RXDESK_UPGRADE_TO").map(PathBuf::from),
    ) else {
        println!("upgrade: skipped (run by `cargo xtask upgrade`)");
        return ExitCode::SUCCESS;
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("upgrade: FAILED: no tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(an_upgrade_keeps_the_session_the_index_and_the_environments(
        &from, &to,
    )) {
        Ok(()) => {
            println!(
                "upgrade: {} → {} → {} kept the session, the index and the environments",
                from.display(),
                to.display(),
                from.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("upgrade: FAILED: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn an_upgrade_keeps_the_session_the_index_and_the_environments(
    from: &Path,
    to: &Path,
) -> Result<()> {
    let previous = deb_version(from)?;
    let next = deb_version(to)?;
    ensure!(
        version_lower(&previous, &next)?,
        "{} ({previous}) is not older than {} ({next})",
        from.display(),
        to.display()
    );
    let mut layout = Layout::discover(Path::new(env!("CARGO_BIN_EXE_e2e-browser")))?;
    layout.out = layout
        .out
        .parent()
        .context("target/e2e has no parent")?
        .join("upgrade");
    layout.app = PathBuf::from(INSTALLED_APP);
    let world = World::start(layout).await?;
    let patient = add_patient(&world, ("Ilse", "Vandermeer")).await?;
    let index = world.home.data().join(APP_IDENTIFIER).join("index.sqlite");

    // The previous release, used as a clinic uses it.
    install(from, &previous, false)?;
    let mut app = world.launch("1-previous", &world.sandbox).await?;
    flows::sign_in(&world, &app, "1-previous", &SAM, None).await?;
    flows::open_patient(&app, &patient).await?;
    add_environment(&app).await?;
    app.shot("an environment added").await?;
    app.quit().await?;
    ensure!(
        index_version(&index)? == PREVIOUS_INDEX_VERSION,
        "the previous release's index is not at version {PREVIOUS_INDEX_VERSION}"
    );

    // This version over it: everything kept, the index migrated.
    install(to, &next, false)?;
    let mut app = world.launch("2-upgraded", &world.sandbox).await?;
    everything_kept(&mut app, &patient, "after the upgrade").await?;
    app.quit().await?;
    let version = index_version(&index)?;
    ensure!(
        version == INDEX_VERSION,
        "the upgraded app left the index at version {version}, not {INDEX_VERSION}"
    );

    // The previous release again, over this one (dpkg warns, apt needs
    // --allow-downgrades): it reads what this version left.
    install(from, &previous, true)?;
    let mut app = world.launch("3-downgraded", &world.sandbox).await?;
    everything_kept(&mut app, &patient, "after the downgrade").await?;
    app.quit().await?;
    ensure!(
        index_version(&index)? == INDEX_VERSION,
        "the previous release changed the index's version"
    );
    Ok(())
}

/// The session, the patient opened before and the environment added before,
/// all there without signing in again (a screenshot of each screen).
async fn everything_kept(app: &mut Desktop, patient: &str, when: &str) -> Result<()> {
    ensure!(
        flows::is_signed_in(app, &SAM).await?,
        "{when}: the app showed its sign-in screen: the session was not kept"
    );
    app.click("Work").await?;
    app.wait_for_text("Recent patients").await?;
    app.wait_for_text(patient)
        .await
        .with_context(|| format!("{when}: {patient} is not under Recent patients"))?;
    app.shot("work").await?;
    app.click("Settings").await?;
    app.wait_for_text(STAGING[0].1)
        .await
        .with_context(|| format!("{when}: the environment added before is not listed"))?;
    app.shot("settings").await?;
    Ok(())
}

/// Settings → Add an environment, filled and saved; waits until it is listed.
async fn add_environment(app: &Desktop) -> Result<()> {
    app.click("Settings").await?;
    for (label, value) in STAGING {
        app.fill(label, value).await?;
    }
    app.click("Add environment").await?;
    app.button(&format!("Remove {}", STAGING[0].1))
        .await
        .context("the environment was not added")?;
    Ok(())
}

/// A patient of Harbor Lane, added through its backend; their full name.
async fn add_patient(world: &World, (first, last): (&str, &str)) -> Result<String> {
    let (client_id, secret) = HARBOR_BACKEND;
    let token = world.sandbox.machine_token(client_id, secret).await?;
    let data = world
        .sandbox
        .graphql(
            &token,
            SYNC_PATIENT,
            serde_json::json!({
                "patient": { "demographic": {
                    "name": { "first": first, "last": last },
                    "dateOfBirth": "1968-02-14",
                    "sex": "FEMALE",
                    "phone": "+16175550142",
                }},
                "metadata": { "source": "DIRECT_API", "client": "rxdesk-upgrade" },
            }),
        )
        .await?;
    ensure!(
        data["patient"]["patient"]["id"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "the patient was not added: {data}"
    );
    Ok(format!("{first} {last}"))
}

/// Installs `deb` over whatever is installed, and checks dpkg now lists
/// `version`.
fn install(deb: &Path, version: &str, downgrade: bool) -> Result<()> {
    let deb = deb.canonicalize()?;
    let mut apt = Command::new("apt-get");
    apt.env("DEBIAN_FRONTEND", "noninteractive").args([
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
    ]);
    if downgrade {
        apt.arg("--allow-downgrades");
    }
    let status = apt.arg(&deb).status().context("apt-get")?;
    ensure!(status.success(), "apt-get install {} failed", deb.display());
    let installed = output(Command::new("dpkg-query").args(["-W", "-f=${Version}", PACKAGE]))?;
    ensure!(
        installed.trim() == version,
        "dpkg lists {PACKAGE} {installed}, not {version}"
    );
    println!("upgrade: installed {PACKAGE} {version}");
    Ok(())
}

fn deb_version(deb: &Path) -> Result<String> {
    Ok(output(
        Command::new("dpkg-deb")
            .arg("--field")
            .arg(deb)
            .arg("Version"),
    )?
    .trim()
    .to_owned())
}

/// Whether dpkg orders `a` before `b`.
fn version_lower(a: &str, b: &str) -> Result<bool> {
    Ok(Command::new("dpkg")
        .args(["--compare-versions", a, "lt", b])
        .status()
        .context("dpkg --compare-versions")?
        .success())
}

fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().with_context(|| format!("{cmd:?}"))?;
    ensure!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The index file's schema version (`PRAGMA user_version`), read through
/// SQLite (the app's last changes may still be in the write-ahead log).
fn index_version(index: &Path) -> Result<i64> {
    let conn =
        rusqlite::Connection::open_with_flags(index, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .with_context(|| format!("opening {}", index.display()))?;
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}
