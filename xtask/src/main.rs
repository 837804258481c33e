//! `cargo xtask`: the project's own commands, so a newcomer and CI run the same
//! steps. `cargo xtask run` starts Rx Desk on the built-in sandbox; `cargo xtask
//! test` runs every check CI runs (format, lints, UI checks, all test suites).
//! No business logic lives here: only the order in which tools are called.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  run     start the local sandbox network (demo fixture, data under target/sandbox-data)
  test    run every check CI runs: format, lints, UI checks, all test suites
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("test") => test(),
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
    manifest.parent().map_or_else(|| manifest.to_path_buf(), Path::to_path_buf)
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// Runs `cmd`, echoing it first, and fails with its name when it fails.
fn step(what: &str, mut cmd: Command) -> Result<()> {
    eprintln!("\n==> {what}");
    let status = cmd.status().with_context(|| format!("cannot start: {what}"))?;
    if !status.success() {
        bail!("failed: {what} ({status})");
    }
    Ok(())
}

fn run(extra: &[String]) -> Result<()> {
    let data = root().join("target").join("sandbox-data");
    let mut cmd = cargo();
    cmd.args(["run", "--package", "rxdesk-sandbox", "--", "--data"])
        .arg(&data)
        .args(extra);
    step("start the local sandbox", cmd)
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

fn test() -> Result<()> {
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

    let mut tests = cargo();
    tests.args(["test", "--workspace", "--locked"]);
    step("cargo test (all crates)", tests)?;
    Ok(())
}
