//! What a signature and a patient Get cost the sandbox, in release: an
//! in-process sandbox (`tests/fixtures/network.toml`) answers, five rounds
//! each, one signature at a time (20 of them), then a burst of 100 signatures
//! sent at once (fresh drafts each round, all drafted before the first round),
//! then a burst of 100 patient Gets.
//! Each line gives the wall time and the process's CPU time per request (the
//! HTTP client included). Not a test: it asserts nothing about time.
//!
//! ```sh
//! cargo run --release -p rxdesk-sandbox --example sign_burst [-- ROUNDS]
//! # where it goes: attach once it prints "drafts ready"
//! perf record -g -p "$(pgrep -n sign_burst)" -- sleep 5
//! ```
//!
//! It signs in like the integration tests do (`tests/support`, the browser
//! forms with a cookie-keeping client) and reuses their builders.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a harness on the test support

#[path = "../tests/network_support/mod.rs"]
mod network_support;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use network_support::*;

/// Requests of a burst.
const BURST: usize = 100;
/// Signatures sent one at a time per round.
const ONE_BY_ONE: usize = 20;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(5, |r| r.parse().expect("ROUNDS is a number"));
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Imogen", "Burst", "1968-03-14").await;
    let client = Client::new(&sb, &ada);

    let mut all = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        all.push(client.drafts(&patient, ONE_BY_ONE + BURST).await);
    }
    // A profiler attached now (`perf record -p PID`) sees the signatures and
    // Gets, not the drafting.
    println!(
        "{} drafts ready; measuring in 1 s",
        rounds * (ONE_BY_ONE + BURST)
    );
    tokio::time::sleep(Duration::from_secs(1)).await;

    for (round, drafts) in all.iter().enumerate() {
        let (one_by_one, burst) = drafts.split_at(ONE_BY_ONE);

        let mut singles = Vec::new();
        for (id, hash) in one_by_one {
            let sent = Instant::now();
            client.sign(id, hash).await;
            singles.push(sent.elapsed());
        }
        singles.sort();
        let single = singles[singles.len() / 2];

        let (signing, sign_cpu) = measured(async {
            let signs = burst.iter().map(|(id, hash)| client.sign(id, hash));
            futures::future::join_all(signs).await;
        })
        .await;
        let (getting, get_cpu) = measured(async {
            let gets = (0..BURST).map(|_| client.get_patient(&patient));
            futures::future::join_all(gets).await;
        })
        .await;

        println!(
            "round {round}: one signature {:.2} ms (median of {ONE_BY_ONE}); {BURST} at once {:.1} ms \
             = {:.1}x one, {:.0} µs CPU each; {BURST} Gets at once {:.1} ms, {:.0} µs CPU each",
            ms(single),
            ms(signing),
            signing.as_secs_f64() / single.as_secs_f64(),
            sign_cpu * 1e6 / BURST as f64,
            ms(getting),
            get_cpu * 1e6 / BURST as f64,
        );
    }
    sb.shutdown().await;
}

/// The app's side of the wire: one keep-alive HTTP client for every request
/// measured (the test builders open a client per request).
struct Client {
    http: reqwest::Client,
    url: String,
    authorization: String,
}

impl Client {
    fn new(sb: &rxdesk_sandbox::Sandbox, token: &str) -> Self {
        support::install_crypto();
        Self {
            http: reqwest::Client::new(),
            url: support::endpoint(sb, "/graphql"),
            authorization: format!("Bearer {token}"),
        }
    }

    async fn call(&self, query: &str, variables: serde_json::Value) -> serde_json::Value {
        let body = serde_json::json!({ "query": query, "variables": variables });
        let answer = self
            .http
            .post(&self.url)
            .header("authorization", &self.authorization)
            .json(&body)
            .send()
            .await
            .unwrap();
        answer.json().await.unwrap()
    }

    /// `{ id, signing: { signedHash } }`, checked signed.
    async fn sign(&self, id: &str, hash: &str) {
        let variables = serde_json::json!({
            "prescription": { "id": id, "signing": { "signedHash": hash } },
            "metadata": metadata(),
        });
        let answer = self.call(&prescription_doc(), variables).await;
        let signed = &answer["data"]["prescription"]["prescription"]["signing"]["state"];
        assert_eq!(signed, "SIGNED", "{answer}");
    }

    /// `n` signable drafts for `patient`: (id, content hash).
    async fn drafts(&self, patient: &str, n: usize) -> Vec<(String, String)> {
        let mut drafts = Vec::with_capacity(n);
        for _ in 0..n {
            let variables = serde_json::json!({
                "prescription": draft_input(patient, AZITHROMYCIN),
                "metadata": metadata(),
            });
            let answer = self.call(&prescription_doc(), variables).await;
            let rx = &answer["data"]["prescription"]["prescription"];
            let (Some(id), Some(hash)) = (rx["id"].as_str(), rx["signing"]["contentHash"].as_str())
            else {
                panic!("no draft: {answer}");
            };
            drafts.push((id.to_owned(), hash.to_owned()));
        }
        drafts
    }

    /// A patient Get, checked answered.
    async fn get_patient(&self, id: &str) {
        let variables = serde_json::json!({ "patient": { "id": id }, "metadata": metadata() });
        let answer = self.call(&patient_doc(), variables).await;
        assert_eq!(answer["data"]["patient"]["patient"]["id"], id, "{answer}");
    }
}

/// Wall time and this process's CPU time (s) of `work`.
async fn measured(work: impl std::future::Future<Output = ()>) -> (Duration, f64) {
    let cpu = cpu_seconds();
    let start = Instant::now();
    work.await;
    (start.elapsed(), cpu_seconds() - cpu)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time of this process's threads so far, in ns precision: the sum of
/// their `/proc/self/task/*/schedstat` (Linux; 0 elsewhere). A thread that
/// ended meanwhile is missed: the blocking pool keeps its threads 10 s.
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let nanos: u64 = tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    nanos as f64 / 1e9
}
