//! How many signatures to keep in flight: on an in-process sandbox whose link
//! layer adds a clinic's latency (60 ± 20 ms round trip; `[link]` in its
//! fixture), a prescriber signs 1 draft — the reference — then 10 and 100
//! drafts at several windows, each batch on fresh drafts, through
//! [`Network::sign_prescriptions`]. Every time is reported as a ratio against
//! one signature measured in the same run (medians of `--runs` runs), to stdout
//! and as JSON to `--out` (default `target/signing-window.json`). A measurement,
//! never an assertion: nothing here fails on a slow figure.
//!
//! Usage: `cargo run -p rxdesk-client --example signing_window -- [--latency clinic]
//! [--windows 4,16,32,64,100] [--runs 3] [--out FILE]`

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use futures::StreamExt as _;
use rxdesk_client::network::{Network, Outcome, SIGNING_IN_FLIGHT, Signing};
use rxdesk_client::{ClientError, IdempotencyKey};
use rxdesk_sandbox::{Config, FixtureSource};

const DEMO_FIXTURE: &str = include_str!("../../sandbox/src/fixture/demo.toml");

struct Options {
    latency: String,
    windows: Vec<usize>,
    runs: usize,
    out: std::path::PathBuf,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        latency: "clinic".to_owned(),
        windows: vec![4, 16, 32, 64, 100],
        runs: 3,
        out: std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/signing-window.json"
        )),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--latency" => options.latency = value,
            "--runs" => options.runs = value.parse().map_err(|_| "--runs: a number")?,
            "--out" => options.out = value.into(),
            "--windows" => {
                options.windows = value
                    .split(',')
                    .map(|w| w.trim().parse().map_err(|_| format!("--windows: {w}")))
                    .collect::<Result<_, _>>()?;
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(options)
}

/// `n` fresh drafts for `patient`, as `(id, content hash)`.
async fn drafts(staff: &Network, patient: &str, n: usize) -> Result<Vec<(String, String)>, String> {
    let made: Vec<Result<(String, String), ClientError>> = futures::stream::iter(0..n)
        .map(|_| async {
            let input = support::azithromycin_draft(patient);
            let draft = staff
                .draft_prescription(input, &IdempotencyKey::new())
                .await?
                .into_record()
                .ok_or_else(|| ClientError::Protocol {
                    message: "the draft was not saved".into(),
                })?;
            Ok((draft.id.into_inner(), draft.signing.content_hash))
        })
        .buffer_unordered(16)
        .collect()
        .await;
    made.into_iter()
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())
}

/// Signs `n` fresh drafts `window` at a time; the time from the first call to
/// the last answer.
async fn timed_batch(
    prescriber: &Network,
    staff: &Network,
    patient: &str,
    n: usize,
    window: usize,
) -> Result<Duration, String> {
    let items = drafts(staff, patient, n).await?;
    let started = Instant::now();
    let answers = prescriber.sign_prescriptions(&items, window).await;
    let took = started.elapsed();
    if let Some(bad) = answers
        .iter()
        .find(|a| !matches!(a, Ok(Signing::Signed(_))))
    {
        return Err(format!("a signature failed: {bad:?}"));
    }
    Ok(took)
}

/// Median, min and max in milliseconds.
fn summary(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mid = times.len() / 2;
    let median = if times.len().is_multiple_of(2) {
        (ms(times[mid - 1]) + ms(times[mid])) / 2.0
    } else {
        ms(times[mid])
    };
    (median, ms(times[0]), ms(times[times.len() - 1]))
}

async fn run(options: Options) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let fixture = dir.path().join("fixture.toml");
    std::fs::write(
        &fixture,
        format!("{DEMO_FIXTURE}\n[link]\nlatency = {:?}\n", options.latency),
    )
    .map_err(|e| e.to_string())?;
    let sandbox = rxdesk_sandbox::Sandbox::start(Config {
        fixture: FixtureSource::File(fixture),
        ..Config::in_memory()
    })
    .await
    .map_err(|e| format!("the sandbox did not start (does it have a link layer?): {e}"))?;
    let client = support::client_for(sandbox.url());
    let session = support::sign_in(&client, support::ADA, Some(support::MAPLE)).await;
    let prescriber = client.network(&session);
    let staff = support::machine_network(&client, support::maple_backend());
    let patient = match staff
        .sync_patient(rxdesk_client::network::documents::PatientInput {
            demographic: Some(rxdesk_client::network::documents::PatientDemographicInput {
                name: Some(rxdesk_client::network::documents::HumanNameInput {
                    first: Some("Wendell".into()),
                    last: Some("Windowson".into()),
                    ..Default::default()
                }),
                date_of_birth: Some(rxdesk_client::network::documents::Date("1961-03-08".into())),
                sex: Some(rxdesk_client::network::documents::Sex::Male),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?
    {
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        other => return Err(format!("the patient was not added: {other:?}")),
    };
    // Warm the connection pool as the app's earlier calls would have.
    prescriber.ping().await.map_err(|e| e.to_string())?;

    let mut reference = Vec::new();
    for _ in 0..options.runs {
        reference.push(timed_batch(&prescriber, &staff, &patient, 1, 1).await?);
    }
    let (one, one_min, one_max) = summary(&mut reference);
    println!(
        "latency {}; one signature: {one:.0} ms ({one_min:.0}–{one_max:.0}, {} runs); SIGNING_IN_FLIGHT = {SIGNING_IN_FLIGHT}",
        options.latency, options.runs
    );
    println!("| window | drafts | median ms | min–max | ratio to one signature |");
    println!("| --- | --- | --- | --- | --- |");
    let mut rows = Vec::new();
    for &window in &options.windows {
        for n in [10, 100] {
            let mut times = Vec::new();
            for _ in 0..options.runs {
                times.push(timed_batch(&prescriber, &staff, &patient, n, window).await?);
            }
            let (median, min, max) = summary(&mut times);
            let ratio = median / one;
            println!("| {window} | {n} | {median:.0} | {min:.0}–{max:.0} | {ratio:.2}× |");
            rows.push(serde_json::json!({
                "window": window, "drafts": n, "median_ms": median, "min_ms": min,
                "max_ms": max, "ratio_to_one_signature": ratio,
            }));
        }
    }
    let report = serde_json::json!({
        "latency": options.latency,
        "runs": options.runs,
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
        "one_signature": { "median_ms": one, "min_ms": one_min, "max_ms": one_max },
        "signing_in_flight_default": SIGNING_IN_FLIGHT,
        "rows": rows,
    });
    if let Some(parent) = options.out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(&options.out, text).map_err(|e| e.to_string())?;
    println!("written to {}", options.out.display());
    sandbox.shutdown().await;
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = match options() {
        Ok(options) => run(options).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("signing_window: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
