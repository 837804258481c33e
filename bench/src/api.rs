//! Sandbox API throughput and latency: in one process, two sandboxes
//! (`rxdesk_sandbox::Sandbox`, demo fixture) — one in memory, one on disk (a
//! data directory under `target/bench/`, SQLite in WAL) — and a bare axum
//! handler on another loopback port that returns the very bytes the in-memory
//! sandbox answers a patient Get with. A tokio load generator — 64 workers on
//! keep-alive connections — sends the same Get (with a machine token, checked
//! by the sandbox on every request) to each in turn for a fixed time, the
//! order of the three rotating from run to run; each run gives requests per
//! second, p50 and p99. Both sandboxes are compared with the same reference.
//!
//! Then one more load run of each of the three is profiled (`profile.rs`:
//! `perf` on this process; 3 s each, half a second in a `--quick` run) and
//! summarised as the figures' "where the time goes" note.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::body::Bytes;
use rxdesk_e2e::services;
use url::Url;

use crate::graphql_floor;
use crate::network;
use crate::plan::Plan;
use crate::profile;
use crate::report::Figure;
use crate::stats::{Summary, Target, percentile};

/// Concurrent clients of the figure.
pub const WORKERS: usize = 64;

/// The sandbox's p99 may be at most this many times the bare handler's.
const P99_RATIO: f64 = 2.0;

/// One load run against one server.
#[derive(Debug, Clone, Copy)]
pub struct LoadRun {
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub requests: usize,
    /// CPU time of the whole process (load generator included) per request,
    /// in µs: what a request costs, whatever else the machine runs.
    pub cpu_us: Option<f64>,
}

/// Sends one Get (`body`) to `url` with `token` and reads its whole answer;
/// an answer other than 2xx is an error. The load, the sandbox's start and
/// `examples/api_calls.rs` send their Gets through it.
pub async fn post_get(
    http: &reqwest::Client,
    url: &Url,
    token: &str,
    body: &Bytes,
) -> Result<Bytes> {
    let answer = http
        .post(url.clone())
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await?;
    let status = answer.status();
    let bytes = answer.bytes().await?;
    if !status.is_success() {
        bail!("{url} answered {status}");
    }
    Ok(bytes)
}

/// A running sandbox and the Get the load sends it (`examples/api_calls.rs`
/// starts one too).
pub struct Server {
    pub sandbox: rxdesk_sandbox::Sandbox,
    /// The sandbox's `/graphql`.
    pub graphql: Url,
    /// A machine token of the fixture's backend.
    pub token: String,
    /// The Get of one patient added for the load.
    pub body: Bytes,
    /// The sandbox's answer to it (the bare handler answers the same bytes).
    pub answer: Bytes,
}

impl std::fmt::Debug for Server {
    // The token is left out: tokens never reach logs or panics.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("graphql", &self.graphql)
            .field("answer_bytes", &self.answer.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts a sandbox with `config`, adds the patient and checks its Get.
    pub async fn start(http: &reqwest::Client, config: rxdesk_sandbox::Config) -> Result<Self> {
        let sandbox = rxdesk_sandbox::Sandbox::start(config)
            .await
            .context("the in-process sandbox did not start")?;
        let origin = sandbox.url().clone();
        let token = services::machine_token(http, &origin, network::MAPLE_BACKEND).await?;
        let patient = network::add_patient(http, &origin, &token, ("Imogen", "Throughput")).await?;
        let body = Bytes::from(serde_json::to_vec(&network::get_patient_body(&patient))?);
        let graphql = origin.join("/graphql")?;
        let answer = post_get(http, &graphql, &token, &body).await?;
        if !String::from_utf8_lossy(&answer).contains(&patient) {
            bail!(
                "the Get did not answer the patient: {}",
                String::from_utf8_lossy(&answer)
            );
        }
        Ok(Self {
            sandbox,
            graphql,
            token,
            body,
            answer,
        })
    }

    async fn load(&self, http: &reqwest::Client, duration: Duration) -> Result<LoadRun> {
        load(http, &self.graphql, &self.token, &self.body, duration).await
    }
}

/// The six rows: throughput (≥ 50 % of the bare handler), p50 (reported) and
/// p99 (≤ 2× the bare handler's), for the in-memory and the on-disk sandbox.
pub async fn figures(plan: &Plan, root: &Path) -> Result<Vec<Figure>> {
    let http = load_client()?;
    let memory = Server::start(&http, rxdesk_sandbox::Config::in_memory()).await?;
    let bench_dir = root.join("target/bench");
    std::fs::create_dir_all(&bench_dir)?;
    let data = tempfile::Builder::new()
        .prefix("api-disk-")
        .tempdir_in(&bench_dir)
        .context("no room for the on-disk sandbox's data directory")?;
    let disk = Server::start(
        &http,
        rxdesk_sandbox::Config {
            storage: rxdesk_sandbox::Storage::Data(data.path().to_owned()),
            ..rxdesk_sandbox::Config::in_memory()
        },
    )
    .await?;

    // The bytes the sandbox answers, served by a handler that does nothing else.
    let answer_len = memory.answer.len();
    if disk.answer.len() != answer_len {
        bail!(
            "the two sandboxes answer the Get with {} and {} bytes: the reference cannot stand for both",
            answer_len,
            disk.answer.len()
        );
    }
    let bare = bare_handler(memory.answer.clone()).await?;
    let bare_url = Url::parse(&format!("http://{bare}/graphql"))?;
    let bare_load = |duration| load(&http, &bare_url, &memory.token, &memory.body, duration);
    // The same bytes from the smallest async-graphql server of this Get.
    let floor = graphql_floor::serve(&http, &memory.body, &memory.answer).await?;
    let floor_url = Url::parse(&format!("http://{floor}/graphql"))?;
    let floor_load = |duration| load(&http, &floor_url, &memory.token, &memory.body, duration);

    let warm_up = Duration::from_millis(300);
    memory.load(&http, warm_up).await?;
    disk.load(&http, warm_up).await?;
    bare_load(warm_up).await?;
    floor_load(warm_up).await?;
    let (mut in_memory, mut on_disk, mut reference) = (Vec::new(), Vec::new(), Vec::new());
    let mut floor_runs = Vec::new();
    // Interleaved, in an order that rotates, so drift in the machine's load
    // hits the four alike.
    for run in 0..plan.runs {
        for turn in 0..4 {
            let (name, runs, measured) = match (run + turn) % 4 {
                0 => (
                    "in memory",
                    &mut in_memory,
                    memory.load(&http, plan.api_duration).await?,
                ),
                1 => ("bare", &mut reference, bare_load(plan.api_duration).await?),
                2 => (
                    "floor",
                    &mut floor_runs,
                    floor_load(plan.api_duration).await?,
                ),
                _ => (
                    "on disk",
                    &mut on_disk,
                    disk.load(&http, plan.api_duration).await?,
                ),
            };
            eprintln!(
                "    run {run} {name:>9}: {:>6.0} req/s, p50 {:.2} ms, p99 {:.2} ms, {} µs CPU per Get",
                measured.per_second,
                measured.p50_ms,
                measured.p99_ms,
                measured
                    .cpu_us
                    .map_or("?".to_owned(), |c| format!("{c:.0}")),
            );
            runs.push(measured);
        }
    }
    // A quick run only proves the profile step runs (or says why it cannot).
    let duration = if plan.quick {
        Duration::from_millis(500)
    } else {
        Duration::from_secs(3)
    };
    let memory_profile = profile::during(duration, memory.load(&http, duration)).await;
    let disk_profile = profile::during(duration, disk.load(&http, duration)).await;
    let bare_profile = profile::during(duration, bare_load(duration)).await;
    let floor_profile = profile::during(duration, floor_load(duration)).await;
    memory.sandbox.shutdown().await;
    disk.sandbox.shutdown().await;
    drop(data);

    let reference_name = "bare axum handler, same bytes";
    let profile_line = |sandbox: &str| {
        if sandbox == bare_profile {
            // Neither was profiled, for the same reason.
            sandbox.to_owned()
        } else {
            format!(
                "{sandbox}; the async-graphql floor's: {floor_profile}; the bare handler's, for \
                 comparison: {bare_profile}"
            )
        }
    };
    let cpu = |runs: &[LoadRun]| {
        let samples: Vec<f64> = runs.iter().filter_map(|r| r.cpu_us).collect();
        Summary::of(&samples).map_or("?".to_owned(), |s| format!("{:.0}", s.median))
    };
    let note = |runs: &[LoadRun], storage: &str, profile: String| {
        let requests: usize = runs.iter().map(|r| r.requests).sum();
        format!(
            "{storage}; {WORKERS} workers on keep-alive connections, {} s per run, {requests} Gets \
             in all; the bare handler and the async-graphql floor run in the same process and \
             answer the same {answer_len} bytes. CPU time of the process per Get (load generator \
             included, median): {} µs, against {} µs for the async-graphql floor and {} µs for \
             the bare handler. Where the time goes: {profile}",
            plan.api_duration.as_secs_f64(),
            cpu(runs),
            cpu(&floor_runs),
            cpu(&reference),
        )
    };
    let rows = |keys: [&str; 3], what: &str, runs: &[LoadRun], note: String| -> Result<_> {
        let pick =
            |runs: &[LoadRun], f: fn(&LoadRun) -> f64| runs.iter().map(f).collect::<Vec<_>>();
        Ok([
            Figure::measured(
                keys[0],
                &format!("{what} API throughput, Get with token verification, 64 clients"),
                "req/s",
                &pick(runs, |r| r.per_second),
                (reference_name, Some(&pick(&reference, |r| r.per_second))),
                Target::RatioAtLeast(0.5),
            )?
            .with_note(note),
            Figure::measured(
                keys[1],
                &format!("{what} API p50 latency, 64 clients"),
                "ms",
                &pick(runs, |r| r.p50_ms),
                (reference_name, Some(&pick(&reference, |r| r.p50_ms))),
                Target::Report,
            )?,
            Figure::measured(
                keys[2],
                &format!("{what} API p99 latency, 64 clients"),
                "ms",
                &pick(runs, |r| r.p99_ms),
                (reference_name, Some(&pick(&reference, |r| r.p99_ms))),
                Target::RatioAtMost(P99_RATIO),
            )?,
        ])
    };
    let pick = |runs: &[LoadRun], f: fn(&LoadRun) -> f64| runs.iter().map(f).collect::<Vec<_>>();
    let floor_name = "the async-graphql floor, same bytes";
    let floor_figures = vec![
        Figure::measured(
            "api_floor_throughput",
            "async-graphql floor throughput (the Get's fields only, a constant patient, no \
             token, store or contract), 64 clients",
            "req/s",
            &pick(&floor_runs, |r| r.per_second),
            (reference_name, Some(&pick(&reference, |r| r.per_second))),
            Target::Report,
        )?
        .with_note(format!(
            "The smallest async-graphql server answering the Get with the sandbox's bytes \
             (`bench/src/graphql_floor.rs`): a schema of the selected fields with the same types \
             and unions, one resolver returning a constant patient, each document parsed once, \
             async-graphql's Fast validation. CPU per Get (load generator included, median): {} \
             µs, against {} µs for the bare handler. It is what async-graphql and JSON cost any \
             server of this Get; the sandbox's figures over it are the sandbox's own.",
            cpu(&floor_runs),
            cpu(&reference),
        )),
        Figure::measured(
            "api_floor_p99",
            "async-graphql floor p99 latency, 64 clients",
            "ms",
            &pick(&floor_runs, |r| r.p99_ms),
            (reference_name, Some(&pick(&reference, |r| r.p99_ms))),
            Target::Report,
        )?,
        Figure::measured(
            "api_over_floor",
            "sandbox API throughput against the async-graphql floor, 64 clients",
            "req/s",
            &pick(&in_memory, |r| r.per_second),
            (floor_name, Some(&pick(&floor_runs, |r| r.per_second))),
            Target::Report,
        )?,
    ];
    let mut figures = Vec::new();
    figures.extend(rows(
        ["api_throughput", "api_p50", "api_p99"],
        "sandbox",
        &in_memory,
        note(
            &in_memory,
            "SQLite in memory",
            profile_line(&memory_profile),
        ),
    )?);
    figures.extend(rows(
        ["api_disk_throughput", "api_disk_p50", "api_disk_p99"],
        "on-disk sandbox",
        &on_disk,
        note(
            &on_disk,
            "SQLite in a data directory (WAL, synchronous=NORMAL)",
            profile_line(&disk_profile),
        ),
    )?);
    figures.extend(floor_figures);
    Ok(figures)
}

/// An HTTP/1.1 client keeping a connection per worker alive.
pub fn load_client() -> Result<reqwest::Client> {
    rxdesk_e2e::install_crypto();
    Ok(reqwest::Client::builder()
        .pool_max_idle_per_host(WORKERS)
        .tcp_nodelay(true)
        .build()?)
}

/// `POST /graphql` answering `answer` as JSON, on a loopback port; runs until
/// the process ends.
pub async fn bare_handler(answer: Bytes) -> Result<SocketAddr> {
    let answer = Arc::new(answer);
    let app = axum::Router::new().route(
        "/graphql",
        axum::routing::post(move || {
            let answer = Arc::clone(&answer);
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    Bytes::clone(&answer),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("bench: the bare handler stopped: {e}");
        }
    });
    Ok(addr)
}

/// [`WORKERS`] workers sending `body` to `url` back to back for `duration`.
async fn load(
    http: &reqwest::Client,
    url: &Url,
    token: &str,
    body: &Bytes,
    duration: Duration,
) -> Result<LoadRun> {
    let cpu_before = process_cpu_seconds();
    let start = Instant::now();
    let deadline = start + duration;
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..WORKERS {
        let (http, url, token, body) = (http.clone(), url.clone(), token.to_owned(), body.clone());
        workers.spawn(async move {
            let mut latencies = Vec::with_capacity(4096);
            while Instant::now() < deadline {
                let sent = Instant::now();
                post_get(&http, &url, &token, &body).await?;
                latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
            }
            anyhow::Ok(latencies)
        });
    }
    let mut latencies = Vec::new();
    while let Some(done) = workers.join_next().await {
        latencies.extend(done??);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu_us = match (cpu_before, process_cpu_seconds()) {
        (Some(before), Some(after)) if !latencies.is_empty() => {
            Some((after - before) * 1e6 / latencies.len() as f64)
        }
        _ => None,
    };
    Ok(LoadRun {
        cpu_us,
        per_second: latencies.len() as f64 / elapsed,
        p50_ms: percentile(&latencies, 0.5).context("no request completed")?,
        p99_ms: percentile(&latencies, 0.99).context("no request completed")?,
        requests: latencies.len(),
    })
}

/// User + system CPU time of this process so far, from `/proc/self/stat`
/// (Linux; `None` elsewhere). Its clock ticks are USER_HZ, 100 a second on
/// every Linux architecture the bench runs on.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name (in parentheses, which may hold spaces): state,
    // then fields 4…; utime and stime are fields 14 and 15.
    let (_, after_name) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    Some((ticks(11)? + ticks(12)?) / 100.0)
}
