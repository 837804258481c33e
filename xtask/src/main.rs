//! `cargo xtask`: the project's own commands, so a newcomer and CI run the same
//! steps. `cargo xtask run` starts Rx Desk on the built-in sandbox; `cargo xtask
//! test` runs every check CI runs (format, lints, UI checks, all test suites).
//! No business logic lives here: only the order in which tools are called.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};

mod bench;

mod bundle;

mod upgrade;

mod windows;

mod wine_setup;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  run     start Rx Desk on the built-in local sandbox
          (--sandbox-only: just the sandbox network, data under target/sandbox-data)
  test    run every check CI runs: UI checks and tests, format, lints, all Rust tests,
          the end-to-end journeys (twice: clean link, then --link clinic), the
          installers (bundle --check), bench --quick
  e2e     build and run only the end-to-end journeys (optional journey-name filters;
          --link clinic|hotspot|MS: on that latency with a seeded 5 % of transient
          faults, lost answers after commit included)
  bench   measure Rx Desk against references built in the same run; writes
          target/bench/report.md and report.json (--quick: one tiny run, checks the shape)
  bundle  build the Linux installers (.deb, .rpm) into target/installers/
          (--check: install, launch, uninstall the production .deb; see --help)
  upgrade the previous release's .deb (xtask/previous-release.toml) installed and
          used, this version's installed over it, then the previous again; each
          launched and checked; removed at the end (as root; see --help)
  windows cross-build for Windows on this machine (Debian's toolchain, offline):
          check (clippy), test (under Wine), installer (the setup .exe),
          setup (the setup .exe installed and removed under Wine); see --help

Missing Debian packages are installed with apt-get when run as root; otherwise the
command to install them is printed.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("test") => test(),
        Some("e2e") => e2e_command(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("bundle") => bundle::bundle(&args[1..]),
        Some("upgrade") => upgrade::upgrade(&args[1..]),
        Some("windows") => windows::windows(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's directory).
fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map_or_else(|| manifest.to_path_buf(), Path::to_path_buf)
}

/// Cargo as this xtask's steps run it: in the workspace root, without the
/// variables cargo set for the xtask itself ([`without_xtask_variables`]).
fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    without_xtask_variables(&mut cmd);
    cmd
}

/// Drops from `cmd`'s environment what cargo set for this xtask itself
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`…). Build scripts that watch those
/// names (ring's, through `rerun-if-env-changed`) otherwise run again, and
/// everything above them is rebuilt (ring, rustls, reqwest, the client, the
/// app), whenever a build started from here follows one started by hand
/// (`cargo test -p …`), or the other way round.
fn without_xtask_variables(cmd: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(xtask_own_variable) {
            cmd.env_remove(name);
        }
    }
}

/// A variable cargo sets for the program it runs (here, this xtask).
fn xtask_own_variable(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
        )
}

/// Runs `cmd`, echoing it first, and fails with its name when it fails.
fn step(what: &str, mut cmd: Command) -> Result<()> {
    eprintln!("\n==> {what}");
    let status = cmd
        .status()
        .with_context(|| format!("cannot start: {what}"))?;
    if !status.success() {
        bail!("failed: {what} ({status})");
    }
    Ok(())
}

/// Debian packages that building the desktop app needs (WebKitGTK and friends).
const BUILD_PACKAGES: &[&str] = &[
    "pkg-config",
    "libssl-dev",
    "libwebkit2gtk-4.1-dev",
    "libgtk-3-dev",
    "librsvg2-dev",
    "libayatana-appindicator3-dev",
    // The production app links the system's SQLite on Linux.
    "libsqlite3-dev",
];

/// Debian packages the end-to-end suite needs: an X display, WebDriver for
/// WebKit, a Secret Service, and Chromium with its driver for the sign-in page.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    "dbus",
    "dbus-x11",
    "gnome-keyring",
    "libsecret-tools",
    "chromium",
    "chromium-driver",
    "x11-utils",
];

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// `apt-get` that never stops to ask (CI has no terminal).
fn apt_get() -> Command {
    let mut cmd = Command::new("apt-get");
    cmd.env("DEBIAN_FRONTEND", "noninteractive");
    cmd
}

/// Installs the missing Debian packages (as root), or says which command to run.
fn ensure_packages(packages: &[&str]) -> Result<()> {
    if !Path::new("/usr/bin/dpkg-query").exists() {
        eprintln!(
            "xtask: not a Debian system; make sure these are installed: {}",
            packages.join(" ")
        );
        return Ok(());
    }
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !is_root() {
        bail!(
            "missing Debian packages; install them with:\n  sudo apt-get install --no-install-recommends {}",
            missing.join(" ")
        );
    }
    let mut update = apt_get();
    update.args(["update", "-qq"]);
    step("apt-get update", update)?;
    let mut install = apt_get();
    install
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(&missing);
    step(&format!("apt-get install {}", missing.join(" ")), install)
}

/// `tauri-driver`, the WebDriver bridge of the end-to-end suite, from crates.io.
fn ensure_tauri_driver() -> Result<()> {
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("tauri-driver").is_file())
    });
    if on_path {
        return Ok(());
    }
    let mut install = cargo();
    install.args(["install", "tauri-driver", "--locked", "--version", "^2"]);
    step("cargo install tauri-driver", install)
}

fn run(extra: &[String]) -> Result<()> {
    if extra.iter().any(|a| a == "--sandbox-only") {
        let rest: Vec<&String> = extra.iter().filter(|a| *a != "--sandbox-only").collect();
        let data = root().join("target").join("sandbox-data");
        let mut cmd = cargo();
        cmd.args(["run", "--package", "rxdesk-sandbox", "--", "--data"])
            .arg(&data)
            .args(rest);
        return step("start the local sandbox", cmd);
    }
    ensure_packages(BUILD_PACKAGES)?;
    if !root().join("ui").join("node_modules").exists() {
        step("npm ci (ui)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    }
    step("ui: build", npm(&["run", "build"]))?;
    let mut cmd = cargo();
    cmd.args(["run", "--package", "rxdesk", "--"]).args(extra);
    step("Rx Desk", cmd)
}

/// What driving the real app needs: the Debian packages, `tauri-driver`, and
/// a fresh `ui/dist` (the app embeds it when it compiles).
fn prepare_desktop_run() -> Result<()> {
    ensure_packages(BUILD_PACKAGES)?;
    ensure_packages(TEST_PACKAGES)?;
    ensure_tauri_driver()?;
    if !root().join("ui").join("node_modules").exists() {
        step("npm ci (ui)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    }
    step("ui: build", npm(&["run", "build"]))
}

/// `cargo xtask e2e [--link LINK] [FILTER…]`.
fn e2e_command(args: &[String]) -> Result<()> {
    let mut link = None;
    let mut filters = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--link" {
            let Some(value) = args.next() else {
                bail!("--link needs a value: clinic, hotspot or milliseconds (80, 80±10)");
            };
            link = Some(value.as_str());
        } else if let Some(value) = arg.strip_prefix("--link=") {
            link = Some(value);
        } else {
            filters.push(arg.clone());
        }
    }
    e2e(true, link, &filters)
}

/// The end-to-end journeys: the real app under Xvfb with a real keyring and a
/// real browser sign-in. `build` first builds the binaries they drive (the
/// `test` command already has them from `cargo test`). With `link`, every
/// sandbox of the run answers on that link with seeded transient faults
/// (`RXDESK_E2E_LINK`; outputs under `target/e2e-<link>/`).
fn e2e(build: bool, link: Option<&str>, filters: &[String]) -> Result<()> {
    if build {
        prepare_desktop_run()?;
        build_test_programs()?;
    }
    let mut journeys = cargo();
    journeys.env("RXDESK_E2E", "1");
    match link {
        Some(link) => journeys.env("RXDESK_E2E_LINK", link),
        None => journeys.env_remove("RXDESK_E2E_LINK"),
    };
    journeys
        .args([
            "test",
            "--workspace",
            "--locked",
            "--test",
            "journeys",
            "--",
        ])
        .args(filters);
    let what = match link {
        Some(link) => format!("end-to-end journeys on a bad link ({link}, seeded faults)"),
        None => "end-to-end journeys".to_owned(),
    };
    step(&what, journeys)
}

/// Builds every program the test harnesses drive (the app, the sandbox, the
/// e2e browser, the bench, the examples such as the webhook receiver) and
/// every test, for the whole workspace at once. Cargo resolves features per
/// invocation: a build of a few packages (`-p rxdesk-e2e`) gets another feature
/// set than `cargo test --workspace` and compiles about 80 dependencies a
/// second time (a minute on 2 cores, and their copies on disk). Every step that
/// runs a test or a test program after `cargo test --workspace` therefore
/// names `--workspace` too, and this build of it compiles nothing anew.
fn build_test_programs() -> Result<()> {
    let mut build = cargo();
    build.args([
        "build",
        "--workspace",
        "--locked",
        "--bins",
        "--tests",
        "--examples",
    ]);
    step(
        "build the workspace's test programs (app, sandbox, e2e browser, bench, examples)",
        build,
    )
}

fn npm(args: &[&str]) -> Command {
    let mut cmd = Command::new("npm");
    cmd.current_dir(root().join("ui")).args(args);
    cmd
}

/// Installs the UI's locked dependencies, type-checks, tests and builds it.
/// The build comes first because the app embeds `ui/dist` at compile time.
fn ui() -> Result<()> {
    step("npm ci (ui)", npm(&["ci", "--no-audit", "--no-fund"]))?;
    step("ui: type check", npm(&["run", "check"]))?;
    step("ui: tests", npm(&["test"]))?;
    step("ui: build", npm(&["run", "build"]))
}

/// What a full `cargo xtask test` on a fresh clone writes under `target/` at its
/// peak, with some room to spare (measured with `CARGO_INCREMENTAL=0`, as
/// `.ci/run` sets it: 9.1 GiB at the end of a run with the Windows check, its
/// largest, since the bench's quick run also builds the installer's floor; the
/// Windows tests add 3.5 GiB: their build and the Wine prefix; the upgrade
/// check holds the previous release's build, 2.7 GiB, for a few minutes and
/// removes it).
const TEST_DISK_GIB: u64 = 14;

/// Says how much room the disk under `target/` has, and warns when a full run
/// will not fit: a full disk otherwise shows up as a compiler I/O error minutes
/// later. Only a warning, because cargo may reuse what an earlier run built.
fn report_disk_room() {
    let target = root().join("target");
    let at = if target.exists() { target } else { root() };
    let Ok(out) = Command::new("df").arg("-Pk").arg(&at).output() else {
        return;
    };
    let Some(free_gib) = free_gib(&String::from_utf8_lossy(&out.stdout)) else {
        return;
    };
    eprintln!(
        "xtask: {free_gib} GiB free under {}; a fresh full run needs about {TEST_DISK_GIB} GiB",
        at.display()
    );
    if free_gib < TEST_DISK_GIB {
        eprintln!(
            "xtask: warning: that may not be enough room; a full disk fails the build \
             with \"No space left on device\""
        );
    }
}

/// The available GiB in `df -Pk` output: a header line, then
/// `filesystem 1024-blocks used available capacity mounted-on`.
fn free_gib(df: &str) -> Option<u64> {
    let line = df.lines().nth(1)?;
    let kib: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
    Some(kib / (1024 * 1024))
}

fn test() -> Result<()> {
    report_disk_room();
    ensure_packages(BUILD_PACKAGES)?;
    ensure_packages(TEST_PACKAGES)?;
    ensure_tauri_driver()?;
    ui()?;

    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    step("cargo fmt --check", fmt)?;

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]);
    step("cargo clippy -D warnings", clippy)?;
    // The production app (installers): no built-in sandbox compiled in.
    let mut production = cargo();
    production.args([
        "clippy",
        "--locked",
        "-p",
        "rxdesk",
        "--no-default-features",
        "--features",
        "custom-protocol",
        "--",
        "-D",
        "warnings",
    ]);
    step("cargo clippy, production app (no sandbox)", production)?;

    let mut tests = cargo();
    tests.args(["test", "--workspace", "--locked"]);
    step("cargo test (all crates)", tests)?;

    // The journeys on the clean link, then again on a clinic link (60 ± 20 ms)
    // with a seeded 5 % of transient faults: both end with the duplicate audit.
    e2e(false, None, &[])?;
    e2e(false, Some("clinic"), &[])?;

    // The production installers, installed, launched and removed again.
    bundle::build(bundle::PRODUCTION)?;
    bundle::check_production()?;
    // An upgrade from the previous release to these installers, and back.
    upgrade::check()?;

    // The benchmark on a tiny run, over the installers just built: every figure
    // of the report is produced and well-formed (the figures are not judged here).
    bench::bench(&["--quick".to_owned(), "--no-bundle".to_owned()])?;

    // Windows, cross-built with Debian's toolchain into target/windows/: clippy
    // of every crate that runs there, then the client's and the sandbox's tests
    // built for Windows and run under Wine. The installer (`cargo xtask windows
    // installer`) is not in CI: its production build alone takes longer than
    // the rest of the Windows steps (README, "Windows, cross-built here").
    windows::check()?;
    windows::test()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{cargo, free_gib};

    #[test]
    fn cargo_run_from_the_xtask_leaves_out_the_variables_cargo_set_for_the_xtask() {
        // `cargo test` sets them for this test as `cargo run` does for the xtask.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());

        let cargo = cargo();

        assert_leaves_out_the_xtasks_variables(&cargo);
    }

    /// `cmd` removes three of the variables cargo set for the xtask.
    pub(crate) fn assert_leaves_out_the_xtasks_variables(cmd: &std::process::Command) {
        let removed: Vec<&std::ffi::OsStr> = cmd
            .get_envs()
            .filter_map(|(name, value)| value.is_none().then_some(name))
            .collect();
        for name in ["CARGO_MANIFEST_DIR", "CARGO_PKG_NAME", "CARGO_PKG_VERSION"] {
            assert!(removed.contains(&std::ffi::OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn free_room_is_read_from_the_available_column_of_df() {
        let df = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n\
                  /dev/vda         264241152 74448896  19922944      79% /\n";
        assert_eq!(free_gib(df), Some(19));
    }

    #[test]
    fn unreadable_df_output_gives_no_figure() {
        assert_eq!(free_gib("df: /nowhere: No such file or directory\n"), None);
    }
}
