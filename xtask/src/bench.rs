//! `cargo xtask bench [--quick] [--no-bundle]`: the installers first (`cargo
//! xtask bundle`, incremental), then the bench (`rxdesk-bench`, release) with
//! the sandbox binary and the e2e browser program it drives the app with; the
//! bench writes `target/bench/report.md` + `report.json` and fails when a
//! figure is missing or malformed. `--quick` runs everything once with small
//! counts and the bench in debug (the report's shape, for CI: `cargo xtask test`
//! ends with it); `--no-bundle` uses the installers already built.

use anyhow::Result;

use crate::{build_test_programs, cargo, prepare_desktop_run, root, step};

pub fn bench(args: &[String]) -> Result<()> {
    let quick = args.iter().any(|a| a == "--quick");
    prepare_desktop_run()?;
    if !args.iter().any(|a| a == "--no-bundle") {
        let mut bundle = cargo();
        bundle.args(["xtask", "bundle", "--production-only"]);
        step(
            "production installers (cargo xtask bundle --production-only)",
            bundle,
        )?;
    }
    // The bench drives the sandbox and the browser program built beside it. A
    // full run measures with release builds; `--quick` only proves the report's
    // shape, so it reuses the debug builds `cargo xtask test` already made (at
    // their feature set: `build_test_programs`).
    let profile = if quick { "debug" } else { "release" };
    if quick {
        build_test_programs()?;
    } else {
        let mut build = cargo();
        build.args([
            "build",
            "--locked",
            "--bins",
            "--release",
            "-p",
            "rxdesk-bench",
            "-p",
            "rxdesk-sandbox",
            "-p",
            "rxdesk-e2e",
        ]);
        step(
            "build the bench, the sandbox and the e2e browser (release)",
            build,
        )?;
    }
    let mut run =
        std::process::Command::new(root().join("target").join(profile).join("rxdesk-bench"));
    run.current_dir(root());
    if quick {
        run.arg("--quick");
    }
    step(
        if quick {
            "bench --quick (one run each: the report's shape)"
        } else {
            "bench (every figure, 5 runs each)"
        },
        run,
    )
}
