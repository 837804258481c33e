//! `cargo xtask windows`: Rx Desk cross-built for Windows (`x86_64-pc-windows-gnu`)
//! on this Debian machine, offline: `check` (clippy `-D warnings` of the crates
//! that run on Windows), `test` (their tests under Wine) and `installer` (the
//! production app wrapped by the project's own NSIS script). Only the order in which tools are called lives
//! here; the installer's behaviour is `src-tauri/windows/installer.nsi`.
//!
//! The toolchain is Debian's, pinned by the Debian release (see [`PACKAGES`]):
//! rustup's toolchain has no Windows standard library and cannot fetch one
//! offline, so Debian's `cargo`/`rustc` build `std` from its sources
//! (`-Zbuild-std`, allowed by `RUSTC_BOOTSTRAP=1` for these builds only), and
//! mingw-w64 links. Everything goes to `target/windows/`, so the host builds
//! are never touched.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail, ensure};

use crate::{ensure_packages, npm, root, step};

/// The Debian 12 packages of the cross build, with the versions it was made
/// with (README, "Windows"): Rust 1.96 (`rustc-web`, `cargo-web`, `rust-web-src`,
/// and `rust-web-clippy` for `check`), mingw-w64 GCC 12, NSIS 3.08, Wine 8.0.
pub const PACKAGES: &[&str] = &[
    "rustc-web",
    "cargo-web",
    "rust-web-src",
    "rust-web-clippy",
    "gcc-mingw-w64-x86-64",
    "nsis",
    "wine64",
];

/// The Rust target: the GNU ABI, the one that links with mingw-w64 here (the
/// MSVC build stays on the release workflow's Windows runner).
pub const TARGET: &str = "x86_64-pc-windows-gnu";

/// Debian's toolchain (never rustup's, which is first on `PATH`).
const DEBIAN_CARGO: &str = "/usr/bin/cargo";
const DEBIAN_RUSTC: &str = "/usr/bin/rustc";
const DEBIAN_CARGO_CLIPPY: &str = "/usr/bin/cargo-clippy";
const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";
/// Debian's `wine64` package leaves Wine off `PATH`.
pub(crate) const WINE: &str = "/usr/lib/wine/wine64";
const WINESERVER: &str = "/usr/lib/wine/wineserver";

/// The crates built for Windows. Left out: `xtask` (a developer's tool run on
/// the build machine), `tests` (the end-to-end journeys drive the app under
/// Xvfb with WebKitGTK's WebDriver: Linux only) and `bench` (Linux `perf` and
/// the Linux installers).
const CHECKED: &[&str] = &["rxdesk-client", "rxdesk-sandbox", "rxdesk"];

/// The crates whose tests run under Wine. The app (`rxdesk`) is checked, not
/// tested there: a test build of it links Tauri and WebView2 again for minutes,
/// and Wine has no WebView2 runtime to run its windowed tests.
const TESTED: &[&str] = &["rxdesk-client", "rxdesk-sandbox"];

const USAGE: &str = "\
usage: cargo xtask windows <check|test|installer|setup>

  check      clippy -D warnings of rxdesk-client, rxdesk-sandbox and the app
             (all targets) for x86_64-pc-windows-gnu
  test       the client's and the sandbox's tests, built for Windows and run
             under Wine (private prefix target/windows/wine, where the tests
             that write to the Credential Manager and ProgramData run too)
  installer  the production app (installer profile) and
             target/installers/windows/Rx Desk_<version>_x64-setup.exe,
             made offline by makensis from src-tauri/windows/installer.nsi
  setup      the installer (made first), then tried under Wine in a fresh
             prefix (target/windows/wine-setup): refused without the WebView2
             runtime; setup /S with it (a registry stand-in) installs per user,
             /S /UPDATE over it, uninstall.exe /S removes it all
             (setup PATH: tries that setup program instead, built elsewhere)
  (no command: check, then test, then setup)

Builds go to target/windows/. Missing Debian packages are installed as root.
";

pub fn windows(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("check") => check(),
        Some("test") => test(),
        Some("installer") => installer().map(drop),
        Some("setup") => setup(args.get(1).map(PathBuf::from)),
        None => {
            check()?;
            test()?;
            setup(None)
        }
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n{USAGE}"),
    }
}

/// Where every Windows build goes.
fn target_dir() -> PathBuf {
    root().join("target").join("windows")
}

/// `PATH` without rustup's `~/.cargo/bin` (its `cargo`/`rustc` proxies would
/// win over Debian's, and `rustc` must be the one with the `std` sources).
fn path_without_rustup() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&path)
        .filter(|dir| !dir.ends_with(".cargo/bin") && !dir.join("rustup").is_file());
    // Joining only fails on a `:` inside a directory name, which the split
    // above cannot produce.
    std::env::join_paths(kept).unwrap_or(path)
}

/// Debian's cargo, set up for the Windows target: `cargo <sub> <target args>`.
/// `clippy` is Debian's `cargo-clippy` called by path: cargo looks for
/// subcommands in `~/.cargo/bin` first, where rustup's proxy would answer
/// with rustup's toolchain.
fn windows_cargo(subcommand: &str) -> Command {
    let mut cmd = if subcommand == "clippy" {
        let mut clippy = Command::new(DEBIAN_CARGO_CLIPPY);
        clippy.env("CARGO", DEBIAN_CARGO);
        clippy
    } else {
        let mut cargo = Command::new(DEBIAN_CARGO);
        cargo.env_remove("CARGO");
        cargo
    };
    cmd.current_dir(root())
        .env("PATH", path_without_rustup())
        .env("RUSTC", DEBIAN_RUSTC)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER", MINGW_GCC)
        // What rustup's cargo (which runs this xtask) sets for its children.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTUP_HOME")
        .env_remove("RUSTDOC")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_TARGET_DIR");
    crate::without_xtask_variables(&mut cmd);
    cmd.arg(subcommand)
        .args([
            "--locked",
            "-Zbuild-std=std,panic_abort",
            "--target",
            TARGET,
        ])
        .arg("--target-dir")
        .arg(target_dir());
    cmd
}

fn packages() -> Result<()> {
    ensure_packages(PACKAGES)?;
    ensure!(
        Path::new(DEBIAN_CARGO).is_file() && Path::new(DEBIAN_RUSTC).is_file(),
        "Debian's {DEBIAN_CARGO} and {DEBIAN_RUSTC} are missing (packages cargo-web, rustc-web)"
    );
    Ok(())
}

/// `cargo xtask windows check`: one clippy invocation for every crate, so
/// `std` and the shared dependencies are built once.
pub fn check() -> Result<()> {
    packages()?;
    let mut clippy = windows_cargo("clippy");
    for krate in CHECKED {
        clippy.args(["-p", krate]);
    }
    clippy.args(["--all-targets", "--", "-D", "warnings"]);
    step(
        "Windows: cargo clippy -D warnings (client, sandbox, app)",
        clippy,
    )
}

/// `cargo xtask windows test`: the tests of [`TESTED`] in one invocation,
/// each test binary run by Wine in a private prefix.
pub fn test() -> Result<()> {
    packages()?;
    let prefix = wine_prefix()?;
    let mut tests = windows_cargo("test");
    for krate in TESTED {
        tests.args(["-p", krate]);
    }
    // Every binary runs, so one run tells every Windows failure.
    tests.arg("--no-fail-fast");
    tests
        .env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER", WINE)
        // The prefix is private to this build: the tests that write to the
        // Credential Manager and to ProgramData (`crates/client/tests/windows_app.rs`)
        // may do so here, never on a developer's Windows by default.
        .env("RXDESK_REAL_KEYRING", "1")
        .env("RXDESK_WINE", "1")
        .env("WINEPREFIX", &prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", WINE_OVERRIDES);
    let result = step("Windows: client and sandbox tests under Wine", tests);
    stop_wine(&prefix);
    result
}

/// No Mono or Gecko install prompts in a headless prefix.
const WINE_OVERRIDES: &str = "mscoree,mshtml=";

/// The private Wine prefix `target/windows/wine`, made on first use, with the
/// `ProcessPrng` shim as its `bcryptprimitives.dll` (test set-up only; see
/// `xtask/wine/process_prng.c`).
fn wine_prefix() -> Result<PathBuf> {
    let prefix = target_dir().join("wine");
    let system32 = prefix.join("drive_c/windows/system32");
    if !system32.is_dir() {
        let mut boot = Command::new(WINE);
        boot.args(["wineboot", "--init"])
            .env("WINEPREFIX", &prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", WINE_OVERRIDES);
        step("Wine: a private prefix under target/windows/wine", boot)?;
        // wineboot returns before the server has written the prefix out.
        stop_wine(&prefix);
    }
    ensure!(system32.is_dir(), "wineboot made no {}", system32.display());
    let source = root().join("xtask/wine/process_prng.c");
    let mut shim = Command::new(MINGW_GCC);
    shim.args(["-shared", "-O2", "-s", "-o"])
        .arg(system32.join("bcryptprimitives.dll"))
        .arg(&source)
        .arg("-ladvapi32");
    step(
        "Wine: the ProcessPrng shim (bcryptprimitives.dll, test set-up only)",
        shim,
    )?;
    Ok(prefix)
}

/// Waits for the prefix's wineserver to write everything out and stop.
pub(crate) fn stop_wine(prefix: &Path) {
    let _ = Command::new(WINESERVER)
        .arg("-w")
        .env("WINEPREFIX", prefix)
        .status();
}

/// Product name, identifier and version, as the Tauri config says.
#[derive(Debug, PartialEq, Eq)]
pub struct Product {
    pub name: String,
    pub identifier: String,
    pub version: String,
}

/// Reads `productName`, `identifier` and `version` from a `tauri.conf.json`
/// text; refuses values that `makensis` would read as its own syntax.
pub fn product(config: &str) -> Result<Product> {
    let json: serde_json::Value =
        serde_json::from_str(config).context("tauri.conf.json is not JSON")?;
    let field = |key: &str| -> Result<String> {
        let value = json
            .get(key)
            .and_then(serde_json::Value::as_str)
            .with_context(|| format!("tauri.conf.json has no string {key}"))?;
        ensure!(
            !value.is_empty() && !value.contains(['\\', '$', '"', '\n']),
            "tauri.conf.json: {key} {value:?} cannot be passed to makensis"
        );
        Ok(value.to_owned())
    };
    Ok(Product {
        name: field("productName")?,
        identifier: field("identifier")?,
        version: field("version")?,
    })
}

/// The setup program's file name, as Tauri names its NSIS installer.
pub fn setup_name(product: &Product) -> String {
    format!("{}_{}_x64-setup.exe", product.name, product.version)
}

/// The production app's profile and features: what the release workflow's
/// Windows job passes to cargo (after `--` in `tauri build`'s arguments).
const PRODUCTION_BUILD: &[&str] = &[
    "--profile",
    crate::bundle::PROFILE,
    "--no-default-features",
    "--features",
    "custom-protocol",
];

/// `cargo xtask windows installer`: the UI, the production app for Windows
/// (installer profile, no built-in sandbox), `WebView2Loader.dll` beside it,
/// and the setup program from `src-tauri/windows/installer.nsi`.
pub fn installer() -> Result<PathBuf> {
    packages()?;
    let config = std::fs::read_to_string(root().join("src-tauri/tauri.conf.json"))
        .context("cannot read src-tauri/tauri.conf.json")?;
    let product = product(&config)?;

    if !root().join("ui/node_modules").exists() {
        step("npm ci (ui)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    }
    step("ui: build", npm(&["run", "build"]))?;

    let mut build = windows_cargo("build");
    build
        .args(["-p", "rxdesk", "--bin", "rxdesk"])
        .args(PRODUCTION_BUILD);
    step("Windows: the production app (installer profile)", build)?;
    let out = target_dir().join(TARGET).join(crate::bundle::PROFILE);
    let exe = out.join("rxdesk.exe");
    ensure!(exe.is_file(), "the build left no {}", exe.display());
    let loader = webview2_loader(&out)?;

    let dest = root().join("target/installers/windows");
    std::fs::create_dir_all(&dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let setup = dest.join(setup_name(&product));
    let mut nsis = Command::new("makensis");
    nsis.current_dir(root().join("src-tauri/windows"))
        .arg("-V2")
        .arg("-INPUTCHARSET")
        .arg("UTF8")
        .arg(format!("-DPRODUCT_NAME={}", product.name))
        .arg(format!("-DIDENTIFIER={}", product.identifier))
        .arg(format!("-DVERSION={}", product.version))
        .arg(define("APP_EXE", &exe))
        .arg(define("WEBVIEW2_LOADER", &loader))
        .arg(define("ICON", &root().join("icons/icon.ico")))
        .arg(define("OUTFILE", &setup))
        .arg("installer.nsi");
    step("makensis: the Windows setup program", nsis)?;
    let size = std::fs::metadata(&setup)
        .with_context(|| format!("makensis left no {}", setup.display()))?
        .len();
    eprintln!(
        "xtask: {} ({:.2} MiB)",
        setup.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    Ok(setup)
}

/// `cargo xtask windows setup [PATH]`: the setup program at `PATH`, or the
/// one [`installer`] makes, tried under Wine (`wine_setup.rs`).
fn setup(given: Option<PathBuf>) -> Result<()> {
    packages()?;
    let config = std::fs::read_to_string(root().join("src-tauri/tauri.conf.json"))
        .context("cannot read src-tauri/tauri.conf.json")?;
    let product = product(&config)?;
    let built = target_dir()
        .join(TARGET)
        .join(crate::bundle::PROFILE)
        .join("rxdesk.exe");
    let (setup, app) = match given {
        Some(path) => (path, None),
        None => (installer()?, Some(built.as_path())),
    };
    crate::wine_setup::try_setup(
        &setup,
        target_dir().join("wine-setup"),
        &crate::wine_setup::Expected {
            name: &product.name,
            version: &product.version,
            app,
        },
    )
}

fn define(name: &str, path: &Path) -> OsString {
    let mut arg = OsString::from(format!("-D{name}="));
    arg.push(path);
    arg
}

/// `WebView2Loader.dll` for x64, which the `webview2-com-sys` build script
/// copies into its `OUT_DIR` (`build/webview2-com-sys-<hash>/out/x64/`); the
/// GNU build loads it at run time, so it ships beside `rxdesk.exe`.
fn webview2_loader(out: &Path) -> Result<PathBuf> {
    let build = out.join("build");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(&build)
        .with_context(|| format!("cannot read {}", build.display()))?
        .flatten()
    {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with("webview2-com-sys-")
        {
            continue;
        }
        let dll = entry.path().join("out/x64/WebView2Loader.dll");
        if let Ok(modified) = dll.metadata().and_then(|m| m.modified()) {
            found.push((modified, dll));
        }
    }
    found.sort();
    found
        .pop()
        .map(|(_, dll)| dll)
        .with_context(|| format!("no WebView2Loader.dll under {}", build.display()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn product_name_identifier_and_version_come_from_the_tauri_config() {
        let config = r#"{ "productName": "Rx Desk", "version" : "1.2.3",
                          "identifier":"dev.rxdesk.desktop" }"#;
        let product = product(config).expect("three string fields");
        assert_eq!(
            product,
            Product {
                name: "Rx Desk".into(),
                identifier: "dev.rxdesk.desktop".into(),
                version: "1.2.3".into(),
            }
        );
        assert_eq!(setup_name(&product), "Rx Desk_1.2.3_x64-setup.exe");
    }

    #[test]
    fn a_config_without_a_version_or_with_nsis_syntax_in_it_is_refused() {
        assert!(product(r#"{"productName":"A","identifier":"b"}"#).is_err());
        assert!(product(r#"{"productName":"A$B","identifier":"b","version":"1"}"#).is_err());
    }

    fn read(relative: &str) -> String {
        std::fs::read_to_string(root().join(relative)).expect("a file of the repository")
    }

    #[test]
    fn the_setup_exe_is_built_and_behaves_as_the_release_workflows_windows_installer() {
        let release = read(".github/workflows/release.yml");
        let tauri: serde_json::Value =
            serde_json::from_str(&read("src-tauri/tauri.conf.json")).expect("JSON");
        let windows: serde_json::Value =
            serde_json::from_str(&read("src-tauri/tauri.windows.conf.json")).expect("JSON");
        let nsis = read("src-tauri/windows/installer.nsi");

        // The same cargo profile and features.
        let build = format!("-- {}", PRODUCTION_BUILD.join(" "));
        assert!(release.contains(&build), "release.yml passes no {build:?}");
        // Per user, no administrator, as `installMode: currentUser`.
        assert_eq!(
            windows["bundle"]["windows"]["nsis"]["installMode"],
            "currentUser"
        );
        assert!(nsis.contains("RequestExecutionLevel user"));
        assert!(nsis.contains(r#"InstallDir "$LOCALAPPDATA\${PRODUCT_NAME}""#));
        // WebView2 through Microsoft's bootstrapper, silently.
        assert_eq!(
            windows["bundle"]["windows"]["webviewInstallMode"],
            serde_json::json!({ "type": "downloadBootstrapper", "silent": true })
        );
        assert!(nsis.contains(r#"ExecWait '"$1" /silent /install' $0"#));
        // The link scheme the deep-link plugin registers.
        assert_eq!(
            tauri["plugins"]["deep-link"]["desktop"]["schemes"],
            serde_json::json!(["rxdesk"])
        );
        assert!(nsis.contains(r#"!define SCHEME "rxdesk""#));
    }

    #[test]
    fn what_cargo_set_for_the_xtask_is_not_passed_to_the_windows_build() {
        // `cargo test` sets them for this test as `cargo run` does for the xtask.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());

        let cargo = windows_cargo("test");

        crate::tests::assert_leaves_out_the_xtasks_variables(&cargo);
        assert!(!crate::xtask_own_variable("CARGO_HOME"));
    }

    #[test]
    fn rustups_bin_directory_is_dropped_from_the_path() {
        let path = path_without_rustup();
        assert!(
            std::env::split_paths(&path).all(|dir| !dir.ends_with(".cargo/bin")),
            "{path:?}"
        );
    }
}
