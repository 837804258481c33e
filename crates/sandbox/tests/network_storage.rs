//! The Network API's storage under stress: a storage fault answers
//! `UpstreamServiceError` (retryable when the store is busy) and saves nothing; a
//! `kill -9` in the middle of a burst of writes loses nothing that was answered.

use crate::support;

// The Unix-only tests (kill -9) run the sandbox binary.
#[cfg(unix)]
use std::{
    io::{BufRead as _, BufReader},
    process::{Child, Command, Stdio},
};

use rxdesk_sandbox::{Config, Storage};
use serde_json::{Value, json};
use support::*;

const SYNC: &str = "mutation($p: PatientInput!, $m: RequestMetadata!) {
  patient(patient: $p, metadata: $m) {
    __typename
    ... on PatientPayload { patient { ... on Patient { id } } appliedChanges { key } }
    ... on UpstreamServiceError { code message service retryable }
  }
}";

fn new_patient(n: usize) -> Value {
    json!({
        "p": { "demographic": {
            "name": { "first": format!("Burst{n}"), "last": "Durable" },
            "dateOfBirth": "1970-01-01", "sex": "UNKNOWN"
        } },
        "m": { "source": "DIRECT_API", "requestId": format!("burst-{n}") }
    })
}

async fn call(origin: &str, token: &str, query: &str, variables: Value) -> reqwest::Result<Value> {
    let answer: Value = http()
        .post(format!("{origin}/graphql"))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await?
        .json()
        .await?;
    Ok(answer["data"]["patient"].clone())
}

#[cfg(unix)]
async fn machine_token_at(origin: &str) -> String {
    let (id, secret) = MAPLE_BACKEND;
    let answer: Value = http()
        .post(format!("{origin}/oauth/token"))
        .json(&json!({ "client_id": id, "client_secret": secret, "audience": "rxdesk-sandbox", "grant_type": "client_credentials" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_busy_store_answers_a_retryable_upstream_error_and_saves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = start_with(Config {
        storage: Storage::Data(dir.path().to_path_buf()),
        ..Config::in_memory()
    })
    .await;
    let (id, secret) = MAPLE_BACKEND;
    let token = machine_token(&sandbox, id, secret).await;
    let origin = sandbox.url().as_str().trim_end_matches('/').to_owned();
    // Another process's write lock on the same database file: a real SQLITE_BUSY.
    let other = rusqlite::Connection::open(dir.path().join("sandbox.db")).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let answer = call(&origin, &token, SYNC, new_patient(1)).await.unwrap();
    other.execute_batch("ROLLBACK").unwrap();
    let after = call(&origin, &token, SYNC, new_patient(1)).await.unwrap();

    assert_eq!(answer["__typename"], "UpstreamServiceError", "{answer}");
    assert_eq!(answer["service"], "storage");
    assert_eq!(answer["retryable"], true);
    assert_eq!(after["__typename"], "PatientPayload", "{after}");
    let added = after["appliedChanges"].as_array().unwrap();
    assert!(
        !added.is_empty(),
        "the busy call saved the patient: {after}"
    );
}

#[cfg(unix)]
struct Reap(Child);

#[cfg(unix)]
impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(unix)]
fn start_binary(data: &std::path::Path) -> (Reap, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rxdesk-sandbox"))
        .arg("--data")
        .arg(data)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let origin = line
        .trim_end()
        .strip_prefix("rxdesk-sandbox listening on ")
        .unwrap()
        .to_owned();
    (Reap(child), origin)
}

#[cfg(unix)]
#[tokio::test]
async fn kill_9_during_a_burst_of_writes_loses_nothing_that_was_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sandbox, origin) = start_binary(dir.path());
    let token = machine_token_at(&origin).await;
    let (tx, mut answers) = tokio::sync::mpsc::unbounded_channel();
    for n in 0..120 {
        let (origin, token, tx) = (origin.clone(), token.clone(), tx.clone());
        tokio::spawn(async move {
            let answer = call(&origin, &token, SYNC, new_patient(n)).await;
            let _ = tx.send(answer);
        });
    }
    drop(tx);

    let mut saved = Vec::new();
    while let Some(answer) = answers.recv().await {
        if let Ok(answer) = answer
            && let Some(id) = answer["patient"]["id"].as_str()
        {
            saved.push(id.to_owned());
        }
        if saved.len() == 30 {
            sandbox.0.kill().unwrap();
        }
    }
    let _ = sandbox.0.wait();
    let (_restarted, origin) = start_binary(dir.path());
    let token = machine_token_at(&origin).await;

    assert!(
        saved.len() >= 30,
        "the burst was answered {} times before the kill",
        saved.len()
    );
    for id in &saved {
        let got = call(
            &origin,
            &token,
            SYNC,
            json!({ "p": { "id": id }, "m": { "source": "DIRECT_API" } }),
        )
        .await
        .unwrap();
        assert_eq!(
            got["patient"]["id"],
            id.as_str(),
            "answered {id}, lost after kill -9: {got}"
        );
    }
}
