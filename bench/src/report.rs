//! The report: every figure with Rx Desk's runs, its reference's runs from the
//! same run, the ratio and the verdict against the target, written as
//! `report.md` (a table under a line naming the date and the machine) and
//! `report.json`; and [`check_report_shape`], which `cargo xtask bench --quick`
//! runs on what it wrote. Pure functions except the writing and reading.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::stats::{Summary, Target, Verdict, ratio};

/// Every figure a report must hold, by key, in table order.
pub const FIGURES: &[&str] = &[
    "installer_size",
    // The installer's floor (`stack_app.rs`): the stack alone, and Rx Desk
    // against it.
    "installer_floor",
    "installer_over_floor",
    "idle_memory",
    "cold_start",
    "api_throughput",
    "api_p50",
    "api_p99",
    "api_disk_throughput",
    "api_disk_p50",
    "api_disk_p99",
    // The API's second reference (`graphql_floor.rs`): what async-graphql costs
    // any server of the Get, and the sandbox against it.
    "api_floor_throughput",
    "api_floor_p99",
    "api_over_floor",
    "machine_tokens",
    // What a prescriber feels, on each link (`felt.rs`): clean loopback …
    "clean_patient_page",
    "clean_screening",
    "clean_search",
    "clean_signing_1",
    "clean_signing_10",
    "clean_signing_max",
    // … and a clinic's link, 60 ± 20 ms round trip.
    "clinic_patient_page",
    "clinic_screening",
    "clinic_search",
    "clinic_signing_1",
    "clinic_signing_10",
    "clinic_signing_max",
    // A compressed day at the workstation on the clinic link (`day.rs`).
    "day_workflow",
    "day_memory",
    "day_anon_memory",
    "day_threads",
    "day_descriptors",
    "day_errors",
    "ui_size",
];

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Stable name (one of [`FIGURES`]).
    pub key: String,
    /// What was measured, as the table says it.
    pub name: String,
    pub unit: String,
    pub app: Summary,
    /// What Rx Desk is compared with ("an empty Tauri 2 app", "one signature"…).
    pub reference_label: String,
    /// The reference's runs, when it is measured (not for a contract or "—").
    pub reference: Option<Summary>,
    pub ratio: Option<f64>,
    pub target: Target,
    pub verdict: Verdict,
    /// Anything the reader needs beside the numbers (what the N is, what costs a miss).
    pub note: String,
}

impl Figure {
    /// A row from the raw runs: summarised, compared and judged.
    pub fn measured(
        key: &str,
        name: &str,
        unit: &str,
        app: &[f64],
        reference: (&str, Option<&[f64]>),
        target: Target,
    ) -> Result<Self> {
        let app = Summary::of(app).with_context(|| format!("{key}: no valid runs"))?;
        let (reference_label, reference) = reference;
        let reference = match reference {
            Some(samples) => Some(
                Summary::of(samples)
                    .with_context(|| format!("{key}: no valid runs of the reference"))?,
            ),
            None => None,
        };
        let ratio = reference.as_ref().and_then(|r| ratio(&app, r));
        Ok(Self {
            key: key.into(),
            name: name.into(),
            unit: unit.into(),
            verdict: target.verdict(&app, ratio),
            app,
            reference_label: reference_label.into(),
            reference,
            ratio,
            target,
            note: String::new(),
        })
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// UTC, RFC 3339.
    pub date: String,
    pub machine: Machine,
    /// `--quick`: one run each, smaller N; the numbers only prove the shape.
    pub quick: bool,
    pub figures: Vec<Figure>,
}

/// A number with as many decimals as it deserves.
pub fn number(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn cell(summary: &Summary, unit: &str) -> String {
    let runs = if summary.runs == 1 { "run" } else { "runs" };
    format!(
        "{} {unit} ({}–{}, {} {runs})",
        number(summary.median),
        number(summary.min),
        number(summary.max),
        summary.runs
    )
}

impl Report {
    /// The header line: when and on what the run was measured.
    pub fn header(&self) -> String {
        let mode = if self.quick {
            "`--quick` (one run each: shape only, not figures)"
        } else {
            "full"
        };
        format!(
            "Measured {} on {}. Mode: {mode}. Each cell: median (min–max, runs).",
            self.date,
            self.machine.describe()
        )
    }

    /// The table, one row per figure.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| figure | Rx Desk | reference, same run | ratio | target | verdict |\n\
             | --- | --- | --- | --- | --- | --- |\n",
        );
        for f in &self.figures {
            let reference = match &f.reference {
                Some(r) => format!("{}: {}", f.reference_label, cell(r, &f.unit)),
                None => f.reference_label.clone(),
            };
            let ratio = f.ratio.map_or("—".into(), |r| format!("{}×", number(r)));
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                f.name,
                cell(&f.app, &f.unit),
                reference,
                ratio,
                f.target.describe(&f.unit),
                f.verdict.word()
            ));
        }
        out
    }

    /// `report.md`: title, header line, table, then the notes.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# Rx Desk benchmarks\n\n{}\n\n{}",
            self.header(),
            self.table()
        );
        let notes: Vec<&Figure> = self.figures.iter().filter(|f| !f.note.is_empty()).collect();
        if !notes.is_empty() {
            out.push_str("\nNotes:\n\n");
            for f in notes {
                out.push_str(&format!("- **{}**: {}\n", f.name, f.note));
            }
        }
        out
    }

    /// Writes `report.md` and `report.json` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("report.md"), self.markdown())?;
        std::fs::write(
            dir.join("report.json"),
            serde_json::to_string_pretty(self)? + "\n",
        )?;
        Ok(())
    }
}

/// Checks a written report: `report.json` parses, holds every figure of
/// [`FIGURES`] once with well-formed runs, a measured reference and a finite
/// ratio wherever the target is a ratio, and the verdict its numbers give;
/// `report.md` beside it has a row for each. Fails naming every problem.
pub fn check_report_shape(json: &Path) -> Result<()> {
    let text = std::fs::read_to_string(json)
        .with_context(|| format!("no report at {}", json.display()))?;
    let report: Report = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a report", json.display()))?;
    let markdown_path = json.with_file_name("report.md");
    let markdown = std::fs::read_to_string(&markdown_path)
        .with_context(|| format!("no table at {}", markdown_path.display()))?;
    let problems = shape_problems(&report, &markdown);
    if !problems.is_empty() {
        bail!(
            "the report at {} is incomplete:\n  {}",
            json.display(),
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// What is wrong with `report` and its table; empty when nothing is.
pub fn shape_problems(report: &Report, markdown: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if report.date.trim().is_empty() {
        problems.push("no date".into());
    }
    if report.machine.cpus == 0 || report.machine.cpu_model.trim().is_empty() {
        problems.push("no machine description".into());
    }
    if !markdown.contains(&report.header()) {
        problems.push("report.md has no header line with the date and machine".into());
    }
    for key in FIGURES {
        let found: Vec<&Figure> = report.figures.iter().filter(|f| f.key == *key).collect();
        let f = match found.as_slice() {
            [] => {
                problems.push(format!("{key}: missing"));
                continue;
            }
            [f] => *f,
            _ => {
                problems.push(format!("{key}: {} times", found.len()));
                continue;
            }
        };
        if !f.app.is_well_formed() {
            problems.push(format!("{key}: malformed runs {:?}", f.app));
        }
        let wants_ratio = matches!(f.target, Target::RatioAtMost(_) | Target::RatioAtLeast(_));
        if wants_ratio {
            match &f.reference {
                Some(r) if r.is_well_formed() => {}
                other => problems.push(format!("{key}: no measured reference ({other:?})")),
            }
            if !f.ratio.is_some_and(f64::is_finite) {
                problems.push(format!("{key}: no ratio"));
            }
        }
        if f.target.verdict(&f.app, f.ratio) != f.verdict {
            problems.push(format!(
                "{key}: the verdict does not follow from the numbers"
            ));
        }
        if f.name.trim().is_empty() || f.unit.trim().is_empty() {
            problems.push(format!("{key}: no name or unit"));
        }
        if !markdown
            .lines()
            .any(|l| l.starts_with(&format!("| {} |", f.name)))
        {
            problems.push(format!("{key}: no row in report.md"));
        }
    }
    for f in &report.figures {
        if !FIGURES.contains(&f.key.as_str()) {
            problems.push(format!("{}: not a figure of the report", f.key));
        }
    }
    problems
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine {
            cpus: 2,
            cpu_model: "Test CPU".into(),
            memory_gib: 4.0,
            os: "Debian GNU/Linux 13".into(),
        }
    }

    fn full_report() -> Report {
        let figures = FIGURES
            .iter()
            .map(|key| {
                Figure::measured(
                    key,
                    &format!("figure {key}"),
                    "ms",
                    &[2.0, 1.0, 3.0],
                    ("reference", Some(&[1.0, 1.0, 1.0])),
                    Target::RatioAtMost(2.5),
                )
                .unwrap()
            })
            .collect();
        Report {
            date: "2026-01-02T03:04:05Z".into(),
            machine: machine(),
            quick: true,
            figures,
        }
    }

    #[test]
    fn a_figure_carries_the_ratio_of_medians_and_its_verdict() {
        let f = Figure::measured(
            "cold_start",
            "cold start",
            "ms",
            &[300.0, 320.0, 310.0],
            ("empty app", Some(&[200.0, 250.0, 240.0])),
            Target::RatioAtMost(1.2),
        )
        .unwrap();
        assert_eq!(f.ratio, Some(310.0 / 240.0));
        assert_eq!(f.verdict, Verdict::Missed);
    }

    #[test]
    fn a_figure_without_runs_is_an_error() {
        assert!(Figure::measured("x", "x", "ms", &[], ("r", None), Target::Report).is_err());
    }

    #[test]
    fn the_table_has_a_row_per_figure_with_median_min_max() {
        let report = full_report();
        let md = report.markdown();
        assert!(md.contains(&report.header()));
        assert!(md.contains("2026-01-02T03:04:05Z"));
        assert!(md.contains("2 CPUs"));
        assert!(md.contains(
            "| figure cold_start | 2 ms (1–3, 3 runs) | reference: 1 ms (1–1, 3 runs) | 2× | ≤ 2.5× | met |"
        ));
    }

    #[test]
    fn a_complete_report_has_the_right_shape() {
        let report = full_report();
        assert_eq!(
            shape_problems(&report, &report.markdown()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_missing_figure_and_a_bad_verdict_are_named() {
        let mut report = full_report();
        report.figures.retain(|f| f.key != "idle_memory");
        report.figures[0].verdict = Verdict::Missed;
        let problems = shape_problems(&report, &report.markdown());
        assert!(
            problems.iter().any(|p| p == "idle_memory: missing"),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p == "installer_size: the verdict does not follow from the numbers"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_ratio_target_without_a_reference_is_malformed() {
        let mut report = full_report();
        let memory = report
            .figures
            .iter_mut()
            .find(|f| f.key == "idle_memory")
            .unwrap();
        memory.reference = None;
        memory.ratio = None;
        memory.verdict = Verdict::Missed;
        let problems = shape_problems(&report, &report.markdown());
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("idle_memory: no measured reference")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_written_report_reads_back_and_passes_the_check() {
        let dir = std::env::temp_dir().join(format!("rxdesk-bench-test-{}", std::process::id()));
        let report = full_report();
        report.write(&dir).unwrap();
        check_report_shape(&dir.join("report.json")).unwrap();
        std::fs::write(dir.join("report.md"), "# nothing\n").unwrap();
        assert!(check_report_shape(&dir.join("report.json")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn numbers_keep_a_sensible_precision() {
        assert_eq!(number(1234.567), "1235");
        assert_eq!(number(12.345), "12.3");
        assert_eq!(number(1.2345), "1.23");
        assert_eq!(number(0.01234), "0.012");
        assert_eq!(number(1.0), "1");
    }
}
