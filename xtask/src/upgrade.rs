//! `cargo xtask upgrade [--no-bundle]`: the previous release's `.deb` built
//! from its commit (`xtask/previous-release.toml`), then the upgrade journey
//! (the `upgrade` test of the e2e crate: the previous release installed and
//! used, this tree's production `.deb` installed over it, the previous one
//! again), then the package removed and none of the files of either `.deb`
//! left. As root (it installs packages): CI runs it after `bundle --check`.
//!
//! The previous release is built in a git worktree of its commit under
//! `target/previous-release/`, with a target dir of its own (never this
//! tree's: cargo would reuse this tree's crates for the other's). Its
//! dependencies are copied from this tree's installer build first, when there
//! is one (the same `Cargo.lock` lines build the same artifacts), and every
//! artifact of the workspace's own crates is deleted from the copy, so only
//! Rx Desk's crates and the final link are built. The `.deb` lands in
//! `target/installers/previous/`, reused while it names the same commit; the
//! worktree and its target are removed once it is built.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail, ensure};

use crate::bundle::{self, PRODUCTION};
use crate::{TEST_PACKAGES, build_test_programs, cargo, ensure_packages, is_root, root, step};

/// The file naming the last release.
const RELEASE_FILE: &str = "xtask/previous-release.toml";

const USAGE: &str = "\
usage: cargo xtask upgrade [--no-bundle]

  builds the previous release's .deb from its commit (xtask/previous-release.toml)
  into target/installers/previous/, and this tree's production .deb (--no-bundle:
  the one already in target/installers/production/); then, as root, installs the
  previous release, uses it, installs this version over it and the previous
  one again (the e2e crate's `upgrade` test), removes the package and checks
  none of its files are left
";

/// The last release: its version and the commit it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: String,
    pub commit: String,
}

pub fn upgrade(args: &[String]) -> Result<()> {
    let mut bundle_new = true;
    for arg in args {
        match arg.as_str() {
            "--no-bundle" => bundle_new = false,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    ensure!(
        is_root(),
        "`cargo xtask upgrade` installs a package system-wide: run it as root (CI does)"
    );
    if bundle_new {
        bundle::build(PRODUCTION)?;
    }
    check()
}

/// The upgrade journey over this tree's production `.deb` (already built) and
/// the previous release's (built now unless already there).
pub fn check() -> Result<()> {
    let release = previous_release()?;
    let started = std::time::Instant::now();
    let previous = previous_deb(&release)?;
    eprintln!(
        "previous release {} ready in {} s: {}",
        release.version,
        started.elapsed().as_secs(),
        previous.display()
    );
    let next = bundle::installer(PRODUCTION, "deb")?;
    let mut files = bundle::check_deb_metadata(&previous)?;
    files.extend(bundle::check_deb_metadata(&next)?);
    files.sort();
    files.dedup();

    ensure_packages(TEST_PACKAGES)?;
    crate::ensure_tauri_driver()?;
    build_test_programs()?;
    if bundle::installed_package() {
        step("remove an earlier install", bundle::purge())?;
    }
    let started = std::time::Instant::now();
    let mut test = cargo();
    test.env("RXDESK_UPGRADE_FROM", &previous)
        .env("RXDESK_UPGRADE_TO", &next)
        .args(["test", "--workspace", "--locked", "--test", "upgrade"]);
    let journey = step(
        &format!(
            "upgrade journey: {} → this version → {} again",
            release.version, release.version
        ),
        test,
    );
    eprintln!("upgrade journey: {} s", started.elapsed().as_secs());
    // Whatever happened, take the package off the machine again.
    let removed = bundle::uninstall(&files);
    journey.and(removed)
}

/// Reads [`RELEASE_FILE`].
pub fn previous_release() -> Result<Release> {
    let path = root().join(RELEASE_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    parse_release(&text).with_context(|| format!("in {}", path.display()))
}

/// `version = "…"` and `commit = "…"` (40 hex digits); comments and blank
/// lines aside, nothing else.
fn parse_release(text: &str) -> Result<Release> {
    let (mut version, mut commit) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            bail!("not `key = \"value\"`: {line}");
        };
        let value = value
            .trim()
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .with_context(|| format!("not a quoted value: {line}"))?
            .to_owned();
        match key.trim() {
            "version" => version = Some(value),
            "commit" => commit = Some(value),
            other => bail!("unknown key {other:?}"),
        }
    }
    let version = version.context("no version")?;
    let commit = commit.context("no commit")?;
    ensure!(
        commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "the commit is not 40 hex digits: {commit}"
    );
    Ok(Release { version, commit })
}

/// The previous release's `.deb`: the one in `target/installers/previous/`
/// when it was built from `release.commit`, else built now.
fn previous_deb(release: &Release) -> Result<PathBuf> {
    let out = root().join("target").join("installers").join("previous");
    let stamp = out.join("commit");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == release.commit)
        && let Ok(deb) = single_deb(&out)
    {
        return Ok(deb);
    }
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    std::fs::create_dir_all(&out)?;
    let work = root().join("target").join("previous-release");
    let tree = work.join("tree");
    remove_tree(&tree)?;
    ensure_commit(&release.commit)?;
    let mut add = Command::new("git");
    add.current_dir(root())
        .args(["worktree", "add", "--detach"])
        .arg(&tree)
        .arg(&release.commit);
    step(
        &format!("git worktree add (release {})", release.version),
        add,
    )?;
    let built = build_previous(&tree, release, &out);
    let removed = remove_tree(&tree);
    let deb = built?;
    removed?;
    std::fs::write(&stamp, &release.commit)?;
    Ok(deb)
}

fn build_previous(tree: &Path, release: &Release, out: &Path) -> Result<PathBuf> {
    seed_dependencies(&root().join("target"), &tree.join("target"))?;
    let mut npm = Command::new("npm");
    npm.current_dir(tree.join("ui"))
        .args(["ci", "--no-audit", "--no-fund"]);
    step(&format!("npm ci (release {})", release.version), npm)?;
    let mut tauri = Command::new(tree.join("ui/node_modules/.bin/tauri"));
    tauri.current_dir(tree).args([
        "build",
        "--ci",
        "--bundles",
        "deb",
        "--",
        "--locked",
        "--profile",
        bundle::PROFILE,
        "--no-default-features",
        "--features",
        "custom-protocol",
    ]);
    step(
        &format!("tauri build: release {} .deb", release.version),
        tauri,
    )?;
    let built = single_deb(
        &tree
            .join("target")
            .join(bundle::PROFILE)
            .join("bundle")
            .join("deb"),
    )?;
    let name = built.file_name().context("a .deb has a name")?;
    let deb = out.join(name);
    std::fs::copy(&built, &deb)
        .with_context(|| format!("copying {} to {}", built.display(), deb.display()))?;
    Ok(deb)
}

/// Copies the installer profile's dependency artifacts of `from` (this
/// tree's target) into `to` (the previous release's), without any of the
/// workspace's own crates (`rxdesk*`): those are built from the other tree.
/// Nothing to copy is no error (everything is built).
fn seed_dependencies(from: &Path, to: &Path) -> Result<()> {
    let from = from.join(bundle::PROFILE);
    let to = to.join(bundle::PROFILE);
    std::fs::create_dir_all(&to)?;
    for dir in ["deps", "build", ".fingerprint"] {
        if !from.join(dir).is_dir() {
            continue;
        }
        let mut copy = Command::new("cp");
        copy.arg("-a").arg(from.join(dir)).arg(&to);
        step(&format!("seed the previous release's {dir}/"), copy)?;
        for entry in std::fs::read_dir(to.join(dir))? {
            let entry = entry?;
            if is_own_crate(&entry.file_name().to_string_lossy()) {
                let path = entry.path();
                if path.is_dir() {
                    std::fs::remove_dir_all(&path)?;
                } else {
                    std::fs::remove_file(&path)?;
                }
            }
        }
    }
    Ok(())
}

/// Whether an artifact under `deps/`, `build/` or `.fingerprint/` belongs to
/// one of the workspace's crates (`rxdesk`, `rxdesk-client`, `librxdesk_lib…`).
fn is_own_crate(file_name: &str) -> bool {
    file_name.starts_with("rxdesk") || file_name.starts_with("librxdesk")
}

/// Makes sure the clone holds `commit`: a shallow clone (CI systems often
/// clone with `--depth 1`) fetches it from `origin` first, and a clone that
/// still lacks it is refused in words rather than by `git worktree add`.
fn ensure_commit(commit: &str) -> Result<()> {
    let has = || {
        Command::new("git")
            .current_dir(root())
            .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has() {
        return Ok(());
    }
    let mut fetch = Command::new("git");
    fetch
        .current_dir(root())
        .args(["fetch", "--quiet", "origin", commit]);
    // A failed fetch is told by the check below, with what to do.
    let _ = step(
        "git fetch origin <previous release> (the clone lacks it)",
        fetch,
    );
    ensure!(
        has(),
        "this clone has no commit {commit} (the previous release, {RELEASE_FILE}): \
         clone with history (`git clone` without `--depth`) or `git fetch --unshallow`"
    );
    Ok(())
}

/// Removes the worktree at `tree` (and its target dir) if there is one.
fn remove_tree(tree: &Path) -> Result<()> {
    if !tree.exists() {
        return Ok(());
    }
    let mut remove = Command::new("git");
    remove
        .current_dir(root())
        .args(["worktree", "remove", "--force"])
        .arg(tree);
    // Whatever git leaves (its target dir, ignored; a tree git no longer
    // knows) is removed by hand.
    if let Err(e) = step("git worktree remove (previous release)", remove) {
        eprintln!("{e:#}");
    }
    if tree.exists() {
        std::fs::remove_dir_all(tree)?;
    }
    let mut prune = Command::new("git");
    prune.current_dir(root()).args(["worktree", "prune"]);
    step("git worktree prune", prune)
}

fn single_deb(dir: &Path) -> Result<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "deb") {
            found.push(path);
        }
    }
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => bail!(
            "expected one .deb in {}, found {}",
            dir.display(),
            found.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_release_file_names_a_version_and_a_whole_commit() {
        let release = parse_release(
            "# the last release\nversion = \"0.1.0\"\ncommit = \"e412496346314e0d7a04ff9bce7c0c83a094f255\"\n",
        )
        .unwrap();
        assert_eq!(
            release,
            Release {
                version: "0.1.0".into(),
                commit: "e412496346314e0d7a04ff9bce7c0c83a094f255".into(),
            }
        );
    }

    #[test]
    fn a_short_commit_is_refused() {
        let e = parse_release("version = \"0.1.0\"\ncommit = \"e412496\"\n").unwrap_err();
        assert!(e.to_string().contains("40 hex digits"), "{e}");
    }

    #[test]
    fn the_checked_in_release_file_reads() {
        let release = previous_release().unwrap();
        assert_eq!(release.version, "0.1.0");
    }

    #[test]
    fn only_the_workspaces_own_artifacts_are_left_out_of_the_seed() {
        for own in [
            "rxdesk-client-86e97cbcbf636d99",
            "librxdesk_lib-b83537a99b492c3e.rlib",
            "rxdesk_client-86e97cbcbf636d99.d",
        ] {
            assert!(is_own_crate(own), "{own}");
        }
        for dependency in ["libtauri-1c2f.rlib", "ring-77ab", "librusqlite-9f.rmeta"] {
            assert!(!is_own_crate(dependency), "{dependency}");
        }
    }
}
