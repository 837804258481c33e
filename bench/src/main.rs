//! `rxdesk-bench [--quick] [--only GROUP,…] [--check REPORT.json]
//! [--summarize-perf PERF.txt]`: measures
//! every figure and writes `target/bench/report.md` + `report.json`, then
//! checks the report's shape (a missing or malformed figure fails the run).
//! `--only ui,api,tokens,size,app,felt,day` measures some groups into
//! `target/bench/partial/` without the check (while working on one figure).
//! `--summarize-perf` prints the "where the time goes" line of a profile kept
//! with `RXDESK_BENCH_PERF_KEEP` (its `perf script` text).
//! `cargo xtask bench` builds what it needs and runs this in release mode.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use rxdesk_bench::machine::Machine;
use rxdesk_bench::plan::Plan;
use rxdesk_bench::report::{FIGURES, Figure, Report};
use rxdesk_bench::{
    api, check_report_shape, empty_app, gui, machine_tokens, size, stack_app, ui_size,
};

/// The sandbox's allocator (`crates/sandbox/src/main.rs`): the API figure
/// runs the sandbox in this process, so it allocates as the sandbox does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let summarize = args.iter().position(|a| a == "--summarize-perf");
    let result = match args.iter().position(|a| a == "--check") {
        Some(i) => args
            .get(i + 1)
            .context("--check needs the path of a report.json")
            .and_then(|path| check_report_shape(Path::new(path))),
        None if summarize.is_some() => summarize
            .and_then(|i| args.get(i + 1))
            .context("--summarize-perf needs the path of a `perf script` text")
            .and_then(|path| {
                let text = std::fs::read_to_string(path)?;
                let summary =
                    rxdesk_bench::profile::summarize(&text).context("no sample in that text")?;
                println!(
                    "perf, {} CPU samples, by crate: {}",
                    summary.samples,
                    summary.by_crate()
                );
                Ok(())
            }),
        None => {
            let only = args
                .iter()
                .position(|a| a == "--only")
                .and_then(|i| args.get(i + 1))
                .map(|groups| groups.split(',').map(str::to_owned).collect::<Vec<_>>());
            run(args.iter().any(|a| a == "--quick"), only.as_deref())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rxdesk-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace this binary was built in.
fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map_or_else(|| manifest.to_path_buf(), Path::to_path_buf)
}

fn run(quick: bool, only: Option<&[String]>) -> Result<()> {
    let wanted = |group: &str| only.is_none_or(|groups| groups.iter().any(|g| g == group));
    let plan = if quick { Plan::quick() } else { Plan::full() };
    let root = root();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut figures: Vec<Figure> = Vec::new();

    if wanted("ui") {
        eprintln!("==> the built UI");
        figures.push(ui_size::figure(&root.join("ui/dist"))?);
    }
    if wanted("api") {
        eprintln!("==> sandbox API throughput, {} runs", plan.runs);
        figures.extend(runtime.block_on(api::figures(&plan, &root))?);
    }
    if wanted("tokens") {
        eprintln!(
            "==> machine tokens, {} calls, {} runs",
            plan.token_calls, plan.runs
        );
        figures.push(runtime.block_on(machine_tokens::figure(&plan))?);
    }
    if wanted("felt") {
        eprintln!("==> what a prescriber feels, on the clean and a clinic's link");
        figures.extend(runtime.block_on(gui::felt_figures(&plan, &root))?);
    }
    if wanted("day") {
        eprintln!(
            "==> a compressed day at the workstation, on a clinic's link: {} hours",
            plan.day.hours()
        );
        figures.extend(runtime.block_on(gui::day_figures(&plan, &root))?);
    }
    if wanted("size") || wanted("app") {
        // A prebuilt empty app (while working on the app's figures); its .deb
        // and linker map beside it.
        let empty = match std::env::var_os("RXDESK_BENCH_EMPTY_APP") {
            Some(binary) => empty_app::EmptyApp::prebuilt(binary.into()),
            None => empty_app::build(&root)?,
        };
        if wanted("size") {
            // The floor: the empty app plus the stack the design names.
            let stack = match std::env::var_os("RXDESK_BENCH_STACK_APP") {
                Some(binary) => empty_app::EmptyApp::prebuilt(binary.into()),
                None => stack_app::build(&root)?,
            };
            figures.extend(size::figures(&root, &empty, &stack)?);
        }
        if wanted("app") {
            figures.extend(runtime.block_on(gui::figures(&plan, &root, &empty))?);
        }
    }

    figures.sort_by_key(|f| FIGURES.iter().position(|k| *k == f.key));
    let report = Report {
        date: time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)?,
        machine: Machine::detect(),
        quick,
        figures,
    };
    let out = match only {
        Some(_) => root.join("target/bench/partial"),
        None => root.join("target/bench"),
    };
    report.write(&out)?;
    println!("{}", report.markdown());
    eprintln!("wrote {} and report.json", out.join("report.md").display());
    match only {
        Some(_) => Ok(()),
        None => check_report_shape(&out.join("report.json")),
    }
}
