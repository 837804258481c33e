//! Installer size: the production `.deb` (no sandbox) that `cargo xtask
//! bundle` leaves in `target/installers/production/`, against the empty Tauri
//! app's `.deb` bundled in the same run by the same CLI. A file's size does
//! not vary between runs: one build each. The note gives the binaries the two
//! packages install, where most of a `.deb` is.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::empty_app::EmptyApp;
use crate::report::Figure;
use crate::stats::Target;

const MIB: f64 = 1024.0 * 1024.0;

pub fn figure(root: &Path, empty: &EmptyApp) -> Result<Figure> {
    let deb = production_deb(root)?;
    let size = |p: &Path| -> Result<f64> {
        Ok(std::fs::metadata(p)
            .with_context(|| format!("no {}", p.display()))?
            .len() as f64
            / MIB)
    };
    let (app, reference) = (size(&deb)?, size(&empty.deb)?);
    let binaries = match (size(&production_app(root)?), size(&empty.binary)) {
        (Ok(a), Ok(e)) => format!("; binaries inside: rxdesk {a:.1} MiB, empty app {e:.1} MiB"),
        _ => String::new(),
    };
    Ok(Figure::measured(
        "installer_size",
        "installer size (.deb, production build without the sandbox)",
        "MiB",
        &[app],
        (
            "empty Tauri 2 app, same Tauri and icons",
            Some(&[reference]),
        ),
        Target::RatioAtMost(1.5),
    )?
    .with_note(format!(
        "{} vs {}{binaries}",
        file_name(&deb),
        file_name(&empty.deb)
    )))
}

/// The production `.deb` of `cargo xtask bundle`.
pub fn production_deb(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target/installers/production");
    std::fs::read_dir(&dir)
        .with_context(|| format!("no {} (cargo xtask bundle)", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .with_context(|| format!("no .deb in {} (cargo xtask bundle)", dir.display()))
}

/// The app the production `.deb` installs (`/usr/bin/rxdesk`), unpacked under
/// `target/bench/production-app/`: the very binary whose installer is measured,
/// whatever later builds leave in `target/release`.
pub fn production_app(root: &Path) -> Result<PathBuf> {
    let deb = production_deb(root)?;
    let dir = root.join("target/bench/production-app");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    // dpkg-deb makes the last directory only; the bench's may not exist yet.
    std::fs::create_dir_all(&dir)?;
    let status = std::process::Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&dir)
        .status()
        .context("cannot start dpkg-deb")?;
    anyhow::ensure!(status.success(), "dpkg-deb -x {} failed", deb.display());
    Ok(dir.join("usr/bin/rxdesk"))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
