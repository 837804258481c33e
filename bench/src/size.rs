//! Installer size: the production `.deb` (no sandbox) that `cargo xtask
//! bundle` leaves in `target/installers/production/`, against the empty Tauri
//! app's `.deb` bundled in the same run by the same CLI. A file's size does
//! not vary between runs: one build each. The note gives the stripped-or-not
//! release binaries beside them, where most of a `.deb` is.

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
    let binaries = match (
        size(&root.join("target/release/rxdesk")),
        size(&empty.binary),
    ) {
        (Ok(a), Ok(e)) => format!("; release binaries: rxdesk {a:.1} MiB, empty app {e:.1} MiB"),
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

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
