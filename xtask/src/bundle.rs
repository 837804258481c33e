//! `cargo xtask bundle`: the Linux installers (`.deb`, `.rpm`) built offline with
//! the Tauri CLI (the UI's locked npm dev dependency, run from the workspace root
//! so its `beforeBuildCommand` builds the UI), and `--check`: the production
//! `.deb` installed, launched and removed as a new user would, the `.rpm`'s
//! metadata and file list read back. Nothing about what the app does lives here.
//!
//! Variants: **production** (no built-in sandbox; what clinics install) and
//! **training** (the demo sandbox compiled in, named "Rx Desk Training"
//! everywhere a user or IT sees a name). Outputs: `target/installers/<variant>/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail, ensure};

use crate::{
    BUILD_PACKAGES, TEST_PACKAGES, apt_get, build_test_programs, cargo, ensure_packages, is_root,
    npm, root, step,
};

/// One kind of installer: its cargo features and the config overlay naming it.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub name: &'static str,
    features: &'static str,
    overlay: Option<&'static str>,
}

/// What clinics install: no demo network, no demo secrets.
pub const PRODUCTION: Variant = Variant {
    name: "production",
    features: "custom-protocol",
    overlay: None,
};

/// For training rooms and demos: the Local sandbox built in, named as such.
pub const TRAINING: Variant = Variant {
    name: "training",
    features: "custom-protocol,training",
    overlay: Some("src-tauri/tauri.training.conf.json"),
};

/// The cargo profile installers are built with (the root `Cargo.toml`: the
/// release profile optimised for size at link time); the CLI then leaves the
/// binary and bundles under `target/<PROFILE>/`.
pub const PROFILE: &str = "installer";

/// The linker's map of the binary, beside the installers (`src-tauri/build.rs`
/// writes it when `RXDESK_LINK_MAP` names it): where the bench finds what the
/// binary is made of.
pub const LINK_MAP: &str = "rxdesk.map";

/// The Debian package name Tauri derives from the product name "Rx Desk".
const PACKAGE: &str = "rx-desk";
/// The desktop entry the package installs (named after the product).
const DESKTOP_ENTRY: &str = "/usr/share/applications/Rx Desk.desktop";
/// The installed binary.
const INSTALLED_APP: &str = "/usr/bin/rxdesk";

/// What `--check` needs beyond the build and e2e packages: `rpm` to read the
/// `.rpm`, `xdg-utils` (xdg-mime) and `desktop-file-utils` (the dpkg trigger
/// that indexes desktop entries' MIME types).
const CHECK_PACKAGES: &[&str] = &["rpm", "xdg-utils", "desktop-file-utils"];

const USAGE: &str = "\
usage: cargo xtask bundle [--check] [--production-only]

  builds target/installers/production/*.{deb,rpm} (no built-in sandbox) and
  target/installers/training/*.{deb,rpm} (\"Rx Desk Training\", sandbox built in)
  --production-only  skip the training variant
  --check            then install the production .deb (as root), launch it under
                     Xvfb and sign in, check its scheme handler, uninstall it and
                     check nothing is left; read the .rpm's metadata and files
";

pub fn bundle(args: &[String]) -> Result<()> {
    let mut check = false;
    let mut variants = vec![PRODUCTION, TRAINING];
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            "--production-only" => variants = vec![PRODUCTION],
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let mut built = Vec::new();
    for variant in variants {
        built.push((variant, build(variant)?));
    }
    print_sizes(&built);
    if check {
        check_production()?;
    }
    Ok(())
}

/// The installers one variant built.
#[derive(Debug)]
pub struct Installers {
    pub deb: PathBuf,
    pub rpm: PathBuf,
}

/// Where a variant's installers are copied after the build.
pub fn installers_dir(variant: Variant) -> PathBuf {
    root().join("target").join("installers").join(variant.name)
}

/// Builds the app of `variant` with the installer [`PROFILE`] and its `.deb`
/// and `.rpm` with the Tauri CLI, then moves them to [`installers_dir`].
pub fn build(variant: Variant) -> Result<Installers> {
    ensure_packages(BUILD_PACKAGES)?;
    let cli = root().join("ui/node_modules/.bin/tauri");
    if !cli.exists() {
        step("npm ci (ui)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    }
    let bundle_dir = root().join("target").join(PROFILE).join("bundle");
    for kind in ["deb", "rpm"] {
        let dir = bundle_dir.join(kind);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("emptying {}", dir.display()))?;
        }
    }
    let link_map = root().join("target").join(PROFILE).join(LINK_MAP);
    let mut tauri = Command::new(&cli);
    tauri
        .current_dir(root())
        .env("RXDESK_LINK_MAP", &link_map)
        .args(["build", "--ci", "--bundles", "deb,rpm"]);
    if let Some(overlay) = variant.overlay {
        tauri.args(["--config", overlay]);
    }
    tauri.args([
        "--",
        "--locked",
        "--profile",
        PROFILE,
        "--no-default-features",
        "--features",
        variant.features,
    ]);
    step(
        &format!("tauri build: {} .deb and .rpm", variant.name),
        tauri,
    )?;

    let out = installers_dir(variant);
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    std::fs::create_dir_all(&out)?;
    let deb = move_single(&bundle_dir.join("deb"), "deb", &out)?;
    let rpm = move_single(&bundle_dir.join("rpm"), "rpm", &out)?;
    // A binary linked without a change keeps its map from an earlier build.
    std::fs::copy(&link_map, out.join(LINK_MAP))
        .with_context(|| format!("no linker map at {}", link_map.display()))?;
    Ok(Installers { deb, rpm })
}

/// Moves the one `*.extension` file of `dir` into `out`.
fn move_single(dir: &Path, extension: &str, out: &Path) -> Result<PathBuf> {
    let found = files_with_extension(dir, extension)?;
    let [file] = found.as_slice() else {
        bail!(
            "expected one .{extension} in {}, found {}",
            dir.display(),
            found.len()
        );
    };
    let name = file.file_name().context("a file has a name")?;
    let target = out.join(name);
    std::fs::rename(file, &target)
        .with_context(|| format!("moving {} to {}", file.display(), target.display()))?;
    Ok(target)
}

fn files_with_extension(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
    Ok(found)
}

/// The one installer of `extension` a variant has (after [`build`]).
pub fn installer(variant: Variant, extension: &str) -> Result<PathBuf> {
    let dir = installers_dir(variant);
    let found = files_with_extension(&dir, extension).with_context(|| {
        format!(
            "no installers of {}: run `cargo xtask bundle`",
            variant.name
        )
    })?;
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => bail!("expected one .{extension} in {}", dir.display()),
    }
}

fn print_sizes(built: &[(Variant, Installers)]) {
    eprintln!("\ninstallers:");
    for (variant, installers) in built {
        for file in [&installers.deb, &installers.rpm] {
            let size = std::fs::metadata(file).map_or(0, |m| m.len());
            eprintln!(
                "  {:<10} {:>8.2} MiB  {}",
                variant.name,
                size as f64 / 1_048_576.0,
                file.display()
            );
        }
    }
}

/// Output of a command that must succeed, as text.
fn output(what: &str, cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot start: {what}"))?;
    ensure!(
        out.status.success(),
        "failed: {what} ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `--check`: the production `.rpm` read back, then the `.deb` installed,
/// launched, signed in, and removed without a trace.
pub fn check_production() -> Result<()> {
    ensure!(
        is_root(),
        "`cargo xtask bundle --check` installs a package system-wide: run it as root (CI does)"
    );
    ensure_packages(TEST_PACKAGES)?;
    ensure_packages(CHECK_PACKAGES)?;
    crate::ensure_tauri_driver()?;
    check_rpm(&installer(PRODUCTION, "rpm")?)?;
    let deb = installer(PRODUCTION, "deb")?;
    let files = check_deb_metadata(&deb)?;
    install(&deb)?;
    let launched = check_installed().and_then(|()| launch_installed());
    // Whatever happened, take the package off the machine again.
    let removed = uninstall(&files);
    launched.and(removed)
}

fn check_rpm(rpm: &Path) -> Result<()> {
    eprintln!("\n==> rpm -qip / -qlp {}", rpm.display());
    let info = output("rpm -qip", Command::new("rpm").arg("-qip").arg(rpm))?;
    eprint!("{info}");
    for (field, want) in [
        ("Name", PACKAGE),
        ("License", "MIT OR Apache-2.0"),
        ("Summary", "Sign and send prescriptions"),
    ] {
        ensure!(
            info.lines().any(|l| l.starts_with(field)
                && l.split_once(':').is_some_and(|(_, v)| v.trim() == want)),
            "the .rpm's {field} is not {want:?}"
        );
    }
    ensure!(
        info.lines()
            .any(|l| l.starts_with("URL") && l.contains("https://")),
        "the .rpm has no URL"
    );
    let requires = output(
        "rpm -qp --requires",
        Command::new("rpm").args(["-qp", "--requires"]).arg(rpm),
    )?;
    for need in ["xdg-utils", "libwebkit2gtk-4.1.so.0", "libsqlite3.so.0"] {
        ensure!(
            requires.lines().any(|l| l.trim().starts_with(need)),
            "the .rpm does not require {need}: {requires}"
        );
    }
    let files = output("rpm -qlp", Command::new("rpm").arg("-qlp").arg(rpm))?;
    for want in [INSTALLED_APP, DESKTOP_ENTRY] {
        ensure!(
            files.lines().any(|l| l == want),
            "the .rpm does not install {want}: {files}"
        );
    }
    ensure!(
        !files.contains("sandbox"),
        "the production .rpm carries something named sandbox: {files}"
    );
    Ok(())
}

/// Checks the `.deb`'s control fields and returns the files it installs.
pub(crate) fn check_deb_metadata(deb: &Path) -> Result<Vec<PathBuf>> {
    eprintln!("\n==> dpkg-deb --info / --contents {}", deb.display());
    let field = |name: &str| -> Result<String> {
        Ok(output(
            "dpkg-deb --field",
            Command::new("dpkg-deb").arg("--field").arg(deb).arg(name),
        )?
        .trim()
        .to_owned())
    };
    ensure!(
        field("Package")? == PACKAGE,
        "the .deb is not named {PACKAGE}"
    );
    let depends = field("Depends")?;
    eprintln!("Depends: {depends}");
    for need in ["xdg-utils", "libwebkit2gtk-4.1-0", "libsqlite3-0"] {
        ensure!(depends.contains(need), "the .deb does not depend on {need}");
    }
    ensure!(
        field("Homepage")?.starts_with("https://"),
        "the .deb has no homepage"
    );
    ensure!(
        !field("Maintainer")?.is_empty(),
        "the .deb has no maintainer"
    );
    let listing = output(
        "dpkg-deb --contents",
        Command::new("dpkg-deb").arg("--contents").arg(deb),
    )?;
    // `-rwxr-xr-x root/root 123 2026-01-01 00:00 ./usr/bin/rxdesk`: the path is
    // everything after the fifth column.
    let files: Vec<PathBuf> = listing
        .lines()
        // Directories (`d…` modes) are shared with other packages: only files count.
        .filter(|line| !line.starts_with('d'))
        .filter_map(|line| {
            let path = line
                .split_whitespace()
                .skip(5)
                .collect::<Vec<_>>()
                .join(" ");
            // `./usr/bin/rxdesk` or `usr/bin/rxdesk`, depending on the builder.
            let path = path.trim_start_matches("./").trim_start_matches('/');
            (!path.is_empty()).then(|| Path::new("/").join(path))
        })
        .collect();
    for want in [INSTALLED_APP, DESKTOP_ENTRY] {
        ensure!(
            files.iter().any(|f| f == Path::new(want)),
            "the .deb does not install {want}:\n{listing}"
        );
    }
    Ok(files)
}

fn install(deb: &Path) -> Result<()> {
    if installed_package() {
        step("remove an earlier install", purge())?;
    }
    let deb = deb.canonicalize()?;
    let mut apt = apt_get();
    apt.args(["install", "-y", "-qq", "--no-install-recommends"])
        .arg(&deb);
    step(&format!("apt-get install {}", deb.display()), apt)
}

/// Removes the package with its configuration.
pub(crate) fn purge() -> Command {
    let mut purge = apt_get();
    purge.args(["purge", "-y", "-qq", PACKAGE]);
    purge
}

pub(crate) fn installed_package() -> bool {
    crate::installed(PACKAGE)
}

/// What the package put on the machine: the binary, its desktop entry naming
/// the `rxdesk` scheme, and that entry as the scheme's handler for a new user.
fn check_installed() -> Result<()> {
    eprintln!("\n==> the installed package");
    let app = Path::new(INSTALLED_APP);
    ensure!(app.is_file(), "{INSTALLED_APP} is missing");
    let entry = std::fs::read_to_string(DESKTOP_ENTRY)
        .with_context(|| format!("reading {DESKTOP_ENTRY}"))?;
    // `%u`: the link a browser or another app opens reaches the app as its argument.
    for want in [
        "MimeType=x-scheme-handler/rxdesk;",
        "Exec=rxdesk %u",
        "Categories=",
    ] {
        ensure!(
            entry.lines().any(|l| l.starts_with(want)),
            "{DESKTOP_ENTRY} has no {want} line:\n{entry}"
        );
    }
    // A new user: an empty home, only the system's data dirs.
    let home = tempfile_dir("xdg-home")?;
    let handler = output(
        "xdg-mime query default x-scheme-handler/rxdesk",
        Command::new("xdg-mime")
            .args(["query", "default", "x-scheme-handler/rxdesk"])
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_DATA_DIRS", "/usr/local/share:/usr/share"),
    )?;
    let _ = std::fs::remove_dir_all(&home);
    let expected = Path::new(DESKTOP_ENTRY)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    ensure!(
        handler.trim() == expected,
        "xdg-mime names {:?} for rxdesk:// links, not {expected:?}",
        handler.trim()
    );
    eprintln!("xdg-mime: rxdesk:// opens with {}", handler.trim());
    Ok(())
}

fn tempfile_dir(name: &str) -> Result<PathBuf> {
    let dir = root().join("target").join("installed").join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The installed binary under Xvfb with a real Secret Service: its window,
/// its sign-in screen, a sign-in through the browser (the e2e harness's
/// `installed` test).
fn launch_installed() -> Result<()> {
    build_test_programs()?;
    let mut test = cargo();
    test.env("RXDESK_INSTALLED_APP", INSTALLED_APP).args([
        "test",
        "--workspace",
        "--locked",
        "--test",
        "installed",
    ]);
    step("launch the installed app and sign in", test)
}

/// Removes the package and checks none of its files, nor its package record,
/// nor its scheme handler is left.
pub(crate) fn uninstall(files: &[PathBuf]) -> Result<()> {
    step(&format!("apt-get purge {PACKAGE}"), purge())?;
    ensure!(!installed_package(), "dpkg still lists {PACKAGE}");
    let left: Vec<&PathBuf> = files.iter().filter(|f| f.exists()).collect();
    ensure!(
        left.is_empty(),
        "files of {PACKAGE} left after purge: {left:?}"
    );
    let cache = Path::new("/usr/share/applications/mimeinfo.cache");
    if cache.exists() {
        let text = std::fs::read_to_string(cache)?;
        ensure!(
            !text.contains("Rx Desk.desktop"),
            "{} still names Rx Desk.desktop",
            cache.display()
        );
    }
    eprintln!("uninstalled: none of its {} files left", files.len());
    Ok(())
}
