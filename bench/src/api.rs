//! Sandbox API throughput and latency: in one process, the sandbox
//! (`rxdesk_sandbox::Sandbox`, in memory, demo fixture) and a bare axum handler
//! on another loopback port that returns the very bytes the sandbox answers a
//! patient Get with. A tokio load generator — 64 workers on keep-alive
//! connections — sends the same Get (with a machine token, verified by the
//! sandbox on every request) to each in turn for a fixed time; each run gives
//! requests per second, p50 and p99.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::body::Bytes;
use rxdesk_e2e::services;
use url::Url;

use crate::network;
use crate::plan::Plan;
use crate::report::Figure;
use crate::stats::{Target, percentile};

/// Concurrent clients of the figure.
pub const WORKERS: usize = 64;

/// One load run against one server.
#[derive(Debug, Clone, Copy)]
pub struct LoadRun {
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub requests: usize,
}

/// The three rows: throughput (≥ 50 % of the bare handler), p50 and p99 (< 5 ms).
pub async fn figures(plan: &Plan) -> Result<Vec<Figure>> {
    let sandbox = rxdesk_sandbox::Sandbox::start(rxdesk_sandbox::Config::in_memory())
        .await
        .context("the in-process sandbox did not start")?;
    let origin = sandbox.url().clone();
    let http = load_client()?;
    let token = services::machine_token(&http, &origin, network::MAPLE_BACKEND).await?;
    let patient = network::add_patient(&http, &origin, &token, ("Imogen", "Throughput")).await?;
    let body = Bytes::from(serde_json::to_vec(&network::get_patient_body(&patient))?);
    let graphql = origin.join("/graphql")?;

    // The bytes the sandbox answers, served by a handler that does nothing else.
    let answer = http
        .post(graphql.clone())
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await?
        .bytes()
        .await?;
    if !String::from_utf8_lossy(&answer).contains(&patient) {
        bail!(
            "the Get did not answer the patient: {}",
            String::from_utf8_lossy(&answer)
        );
    }
    let answer_len = answer.len();
    let bare = bare_handler(answer).await?;
    let bare_url = Url::parse(&format!("http://{bare}/graphql"))?;

    let warm_up = Duration::from_millis(300);
    load(&http, &graphql, &token, &body, warm_up).await?;
    load(&http, &bare_url, &token, &body, warm_up).await?;
    let (mut api, mut reference) = (Vec::new(), Vec::new());
    // Interleaved, so drift in the machine's load hits both alike.
    for _ in 0..plan.runs {
        api.push(load(&http, &graphql, &token, &body, plan.api_duration).await?);
        reference.push(load(&http, &bare_url, &token, &body, plan.api_duration).await?);
    }
    sandbox.shutdown().await;

    let pick = |runs: &[LoadRun], f: fn(&LoadRun) -> f64| runs.iter().map(f).collect::<Vec<_>>();
    let requests: usize = api.iter().map(|r| r.requests).sum();
    let note = format!(
        "{WORKERS} workers on keep-alive connections, {} s per run, {requests} Gets in all; \
         the bare handler runs in the same process and answers the same {} bytes",
        plan.api_duration.as_secs_f64(),
        answer_len
    );
    let reference_name = "bare axum handler, same bytes";
    Ok(vec![
        Figure::measured(
            "api_throughput",
            "sandbox API throughput, Get with token verification, 64 clients",
            "req/s",
            &pick(&api, |r| r.per_second),
            (reference_name, Some(&pick(&reference, |r| r.per_second))),
            Target::RatioAtLeast(0.5),
        )?
        .with_note(note),
        Figure::measured(
            "api_p50",
            "sandbox API p50 latency, 64 clients",
            "ms",
            &pick(&api, |r| r.p50_ms),
            (reference_name, Some(&pick(&reference, |r| r.p50_ms))),
            Target::Report,
        )?,
        Figure::measured(
            "api_p99",
            "sandbox API p99 latency, 64 clients",
            "ms",
            &pick(&api, |r| r.p99_ms),
            (reference_name, Some(&pick(&reference, |r| r.p99_ms))),
            Target::Below(5.0),
        )?,
    ])
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
async fn bare_handler(answer: Bytes) -> Result<SocketAddr> {
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
    let start = Instant::now();
    let deadline = start + duration;
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..WORKERS {
        let (http, url, token, body) = (http.clone(), url.clone(), token.to_owned(), body.clone());
        workers.spawn(async move {
            let mut latencies = Vec::with_capacity(4096);
            while Instant::now() < deadline {
                let sent = Instant::now();
                let answer = http
                    .post(url.clone())
                    .bearer_auth(&token)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await?;
                let status = answer.status();
                answer.bytes().await?;
                if !status.is_success() {
                    bail!("{url} answered {status}");
                }
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
    Ok(LoadRun {
        per_second: latencies.len() as f64 / elapsed,
        p50_ms: percentile(&latencies, 0.5).context("no request completed")?,
        p99_ms: percentile(&latencies, 0.99).context("no request completed")?,
        requests: latencies.len(),
    })
}
