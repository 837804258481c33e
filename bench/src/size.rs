//! Installer size: the production `.deb` (no sandbox) that `cargo xtask
//! bundle` leaves in `target/installers/production/`, against the empty Tauri
//! app's `.deb` bundled in the same run by the same CLI, with the same cargo
//! profile. A file's size does not vary between runs: one build each. The
//! note gives the binaries the two packages install (most of a `.deb`) and
//! where their bytes go, from the linkers' maps ([`crate::link_map`]): Rx
//! Desk's largest crates, what it holds beyond the empty app crate by crate,
//! and the embedded UI.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::empty_app::EmptyApp;
use crate::link_map::LinkMap;
use crate::report::Figure;
use crate::stats::Target;

const MIB: f64 = 1024.0 * 1024.0;

/// The linker's map `cargo xtask bundle` leaves beside the installers.
pub const LINK_MAP: &str = "rxdesk.map";

/// The installer figure, then its floor ([`crate::stack_app`]: the empty app
/// plus the stack the design names) against the empty app, and Rx Desk
/// against the floor.
pub fn figures(root: &Path, empty: &EmptyApp, stack: &EmptyApp) -> Result<Vec<Figure>> {
    let deb = production_deb(root)?;
    let (app, floor, reference) = (size(&deb)?, size(&stack.deb)?, size(&empty.deb)?);
    let stack_bytes = match (LinkMap::read(&stack.map), LinkMap::read(&empty.map)) {
        (Ok(ours), Ok(theirs)) => beyond(&ours, &theirs),
        (Err(e), _) | (_, Err(e)) => format!("no breakdown: {e:#}"),
    };
    let binary = size(&stack.binary).map_or(String::new(), |b| format!("; its binary {b:.1} MiB"));
    Ok(vec![
        figure(root, &deb, app, empty)?,
        Figure::measured(
            "installer_floor",
            "installer floor: the empty app plus the stack the design names, each crate used once \
             (.deb)",
            "MiB",
            &[floor],
            (EMPTY_APP, Some(&[reference])),
            Target::Report,
        )?
        .with_note(format!(
            "{} (`bench/src/stack_app.rs`): tokio, reqwest with rustls, the platform's trust \
             store and HTTP/2, oauth2 (PKCE code exchange), serde, keyring, SQLite (the \
             system's), url, tracing, and Tauri's updater, deep-link and single-instance \
             plugins, each as Rx Desk's manifests write it, with the same profile{binary}; {}",
            file_name(&stack.deb),
            stack_bytes
        )),
        Figure::measured(
            "installer_over_floor",
            "installer size (.deb, production) against the installer floor",
            "MiB",
            &[app],
            ("the installer floor", Some(&[floor])),
            Target::Report,
        )?,
    ])
}

/// The reference's label in the installer rows.
const EMPTY_APP: &str = "empty Tauri 2 app, same Tauri and icons";

/// A file's size in MiB.
fn size(p: &Path) -> Result<f64> {
    Ok(std::fs::metadata(p)
        .with_context(|| format!("no {}", p.display()))?
        .len() as f64
        / MIB)
}

/// The installer figure alone: Rx Desk's `.deb` (`app` MiB) against the empty
/// app's.
fn figure(root: &Path, deb: &Path, app: f64, empty: &EmptyApp) -> Result<Figure> {
    let reference = size(&empty.deb)?;
    let binaries = match (size(&production_app(root)?), size(&empty.binary)) {
        (Ok(a), Ok(e)) => format!("; binaries inside: rxdesk {a:.1} MiB, empty app {e:.1} MiB"),
        _ => String::new(),
    };
    Ok(Figure::measured(
        "installer_size",
        "installer size (.deb, production build without the sandbox)",
        "MiB",
        &[app],
        (EMPTY_APP, Some(&[reference])),
        Target::RatioAtMost(2.0),
    )?
    .with_note(format!(
        "{} vs {}{binaries}; {}",
        file_name(deb),
        file_name(&empty.deb),
        where_the_bytes_go(root, empty)
    )))
}

/// How many crates each list of the note names.
const NAMED: usize = 10;

fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / MIB)
}

/// The note's breakdown, from both binaries' linker maps and the UI's files.
fn where_the_bytes_go(root: &Path, empty: &EmptyApp) -> String {
    let ui = match crate::ui_size::dist_gzipped(&root.join("ui/dist")) {
        Ok(bytes) => format!(
            "; the embedded UI (ui/dist): {:.0} KiB gzipped",
            bytes as f64 / 1024.0
        ),
        Err(e) => format!("; the UI not measured: {e}"),
    };
    let ours = match LinkMap::read(&root.join("target/installers/production").join(LINK_MAP)) {
        Ok(map) => map,
        Err(e) => return format!("no breakdown: {e:#} (cargo xtask bundle writes it){ui}"),
    };
    let largest = ours
        .largest(NAMED)
        .iter()
        .map(|(c, b)| format!("{c} {}", mib(*b)))
        .collect::<Vec<_>>()
        .join(", ");
    let tables = format!(
        "unwind tables {}, relocations {}",
        mib(ours.section_bytes(&[".eh_frame", ".eh_frame_hdr", ".gcc_except_table"])),
        mib(ours.section_bytes(&[".rela.dyn"]))
    );
    let beyond = match LinkMap::read(&empty.map) {
        Ok(theirs) => format!("; {}", beyond(&ours, &theirs)),
        Err(e) => format!("; the empty app's map: {e:#}"),
    };
    format!("where Rx Desk's bytes go (linker map, MiB): {largest}; {tables}{beyond}{ui}")
}

/// "code and constants beyond the empty app's (+N net): crate +MiB, …": what
/// `ours` holds more of than `theirs`, crate by crate, from their link maps.
fn beyond(ours: &LinkMap, theirs: &LinkMap) -> String {
    let more = ours.beyond(theirs);
    let net = ours.crates.values().sum::<u64>() as f64 - theirs.crates.values().sum::<u64>() as f64;
    let named = more
        .iter()
        .take(NAMED)
        .map(|(c, b)| format!("{c} +{}", mib(*b)))
        .collect::<Vec<_>>()
        .join(", ");
    let rest: u64 = more.iter().skip(NAMED).map(|(_, b)| b).sum();
    format!(
        "code and constants beyond the empty app's ({:+.2} net): {named}, {} more crates +{}",
        net / MIB,
        more.len().saturating_sub(NAMED),
        mib(rest)
    )
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
