//! The duplicate audit (`rxdesk-sandbox audit --data DIR`, docs/network-api.md,
//! "Repeated calls and `externalId`"): a database written by a well-behaved
//! client — repeats included — is clean; each kind of duplicate a client that
//! retried without its key leaves is caught, by id; the binary says so in its
//! exit code and prints ids only.

use crate::network_support;
use crate::support;

use std::path::Path;
use std::process::Command;

use network_support::*;
use rxdesk_sandbox::audit::{Rule, audit_data_dir};
use rxdesk_sandbox::{Config, FixtureSource, Sandbox, Storage};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_rxdesk-sandbox");
const DOB: &str = "1980-05-17";

async fn start_in(dir: &Path) -> Sandbox {
    support::start_with(Config {
        storage: Storage::Data(dir.to_owned()),
        fixture: FixtureSource::File(fixture_path()),
        ..Config::in_memory()
    })
    .await
}

/// Drafts `treatment` for `patient` under `external_id`; returns its id.
async fn draft_keyed(sb: &Sandbox, token: &str, patient: &str, external_id: &str) -> String {
    let mut input = draft_input(patient, METFORMIN);
    input["externalId"] = json!(external_id);
    draft_with(sb, token, input).await.0
}

/// Everything a careful client does, each write sent twice as a retry would.
async fn careful_session(sb: &Sandbox) {
    let ada = prescriber(sb).await;
    let patient = add_patient(sb, &ada, "Grace", "Hopper", DOB).await;
    add_patient(sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = draft_keyed(sb, &ada, &patient, "ehr-rx-1").await;
    draft_keyed(sb, &ada, &patient, "ehr-rx-1").await;
    let (_, hash) = draft_with(sb, &ada, json!({ "id": rx })).await;
    sign_ok(sb, &ada, &rx, &hash).await;
    sign_ok(sb, &ada, &rx, &hash).await;
    let mut sync = order_sync(&patient, &[&rx]);
    sync["externalId"] = json!("ehr-order-1");
    let order_id = order_of(&order(sb, &ada, sync.clone()).await)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    order(sb, &ada, sync).await;
    send_ok(sb, &ada, &order_id).await;
    send_ok(sb, &ada, &order_id).await;
}

#[tokio::test]
async fn a_careful_clients_database_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    careful_session(&sb).await;
    sb.shutdown().await;

    let report = audit_data_dir(dir.path()).unwrap();

    assert!(report.is_clean(), "{:?}", report.findings);
    assert_eq!(report.counts.prescriptions, 1);
    assert_eq!(report.counts.signed, 1);
    assert_eq!(report.counts.orders, 1);
    assert!(
        report.summary().starts_with("audit: clean"),
        "{}",
        report.summary()
    );
}

#[tokio::test]
async fn one_draft_sent_under_two_keys_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let first = draft_keyed(&sb, &ada, &patient, "attempt-1").await;
    let second = draft_keyed(&sb, &ada, &patient, "attempt-2").await;
    sb.shutdown().await;

    let report = audit_data_dir(dir.path()).unwrap();

    let mut expected = vec![first, second];
    expected.sort();
    let found: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == Rule::DuplicatePrescription)
        .collect();
    assert_eq!(found.len(), 1, "{:?}", report.findings);
    let mut ids = found[0].ids.clone();
    ids.sort();
    assert_eq!(ids, expected);
}

#[tokio::test]
async fn a_signed_prescription_prescribed_again_at_once_is_a_renewal_not_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let first = draft_keyed(&sb, &ada, &patient, "rx-first").await;
    let (_, hash) = draft_with(&sb, &ada, json!({ "id": first })).await;
    sign_ok(&sb, &ada, &first, &hash).await;
    let again = draft_keyed(&sb, &ada, &patient, "rx-again").await;
    let (_, again_hash) = draft_with(&sb, &ada, json!({ "id": again })).await;
    assert_eq!(again_hash, hash, "the same content");
    sb.shutdown().await;

    let report = audit_data_dir(dir.path()).unwrap();

    assert!(report.is_clean(), "{:?}", report.findings);
}

#[tokio::test]
async fn a_renewal_sent_under_two_keys_is_still_caught() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let first = draft_keyed(&sb, &ada, &patient, "rx-first").await;
    let (_, hash) = draft_with(&sb, &ada, json!({ "id": first })).await;
    sign_ok(&sb, &ada, &first, &hash).await;
    let again = draft_keyed(&sb, &ada, &patient, "rx-again-1").await;
    let twice = draft_keyed(&sb, &ada, &patient, "rx-again-2").await;
    sb.shutdown().await;

    let report = audit_data_dir(dir.path()).unwrap();

    let found: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == Rule::DuplicatePrescription)
        .collect();
    assert_eq!(found.len(), 1, "{:?}", report.findings);
    let mut ids = found[0].ids.clone();
    ids.sort();
    let mut expected = vec![again, twice];
    expected.sort();
    assert_eq!(ids, expected);
}

#[tokio::test]
async fn two_empty_orders_sent_under_two_keys_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    for key in ["attempt-1", "attempt-2"] {
        order(
            &sb,
            &ada,
            json!({ "patient": { "id": patient }, "externalId": key }),
        )
        .await;
    }
    sb.shutdown().await;

    let report = audit_data_dir(dir.path()).unwrap();

    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule == Rule::DuplicateOrder),
        "{:?}",
        report.findings
    );
}

#[tokio::test]
async fn a_prescription_whose_signature_was_written_twice_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    sb.shutdown().await;
    // What a network that signed again would have written: the signature anew.
    let conn = rusqlite::Connection::open(dir.path().join("sandbox.db")).unwrap();
    conn.execute(
        "UPDATE network_prescriptions SET doc = json_set(doc, '$.signed_at', '2020-01-01') WHERE id = ?1",
        [&rx],
    )
    .unwrap();
    drop(conn);

    let report = audit_data_dir(dir.path()).unwrap();

    let twice: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule == Rule::SignedTwice)
        .collect();
    assert_eq!(twice.len(), 1, "{:?}", report.findings);
    assert_eq!(twice[0].ids, vec![rx]);
}

#[tokio::test]
async fn a_running_sandbox_can_be_audited() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_in(dir.path()).await;
    careful_session(&sb).await;

    let report = audit_data_dir(dir.path()).unwrap();
    let ada = prescriber(&sb).await;
    add_patient(&sb, &ada, "Alan", "Kay", "1940-05-17").await;

    assert!(report.is_clean(), "{:?}", report.findings);
    sb.shutdown().await;
}

#[tokio::test]
async fn the_binary_exits_1_on_duplicates_printing_ids_only_and_0_when_clean() {
    let dirty = tempfile::tempdir().unwrap();
    let sb = start_in(dirty.path()).await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    draft_keyed(&sb, &ada, &patient, "attempt-1").await;
    draft_keyed(&sb, &ada, &patient, "attempt-2").await;
    sb.shutdown().await;
    let clean = tempfile::tempdir().unwrap();
    let sb = start_in(clean.path()).await;
    careful_session(&sb).await;
    sb.shutdown().await;

    let found = Command::new(BIN)
        .args(["audit", "--data"])
        .arg(dirty.path())
        .output()
        .unwrap();
    let passed = Command::new(BIN)
        .args(["audit", "--data"])
        .arg(clean.path())
        .output()
        .unwrap();

    assert_eq!(found.status.code(), Some(1));
    let said = String::from_utf8(found.stdout).unwrap();
    assert!(said.starts_with("duplicate_prescription: rx_"), "{said}");
    for private in ["Grace", "Hopper", "Metformin", "attempt-", INSTRUCTIONS] {
        assert!(!said.contains(private), "`{private}` printed: {said}");
    }
    assert_eq!(passed.status.code(), Some(0));
    let said = String::from_utf8(passed.stdout).unwrap();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.starts_with("audit: clean"), "{said}");
}

#[test]
fn the_binary_exits_2_when_there_is_no_database() {
    let empty = tempfile::tempdir().unwrap();

    let output = Command::new(BIN)
        .args(["audit", "--data"])
        .arg(empty.path())
        .output()
        .unwrap();

    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no sandbox database"),
        "{output:?}"
    );
}
