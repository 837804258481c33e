//! A sandbox restarted on the same data directory (and port, so the issuer and
//! every token stay valid) loses no Network API record and no state change: a
//! patient with their clinical record, a signed prescription, a draft, a sent
//! order; and a draft can still be signed, an `externalId` still names its
//! prescription. (A `kill -9` mid-write is `network_storage.rs`.)

use crate::network_support;
use crate::support;

use network_support::*;
use rxdesk_sandbox::{Config, FixtureSource, Sandbox, Storage};
use serde_json::{Value, json};

fn config(dir: &std::path::Path) -> Config {
    Config {
        fixture: FixtureSource::File(fixture_path()),
        storage: Storage::Data(dir.to_owned()),
        ..Config::in_memory()
    }
}

/// Stops `first` and starts a sandbox on its data directory and port.
async fn restart(first: Sandbox, dir: &std::path::Path) -> Sandbox {
    let addr = first.addr();
    first.shutdown().await;
    support::start_with(Config {
        listen: addr,
        ..config(dir)
    })
    .await
}

/// The records of the Gets, as the sandbox answers them.
async fn read_back(sb: &Sandbox, token: &str, patient: &str, rxs: &[&str], order: &str) -> Value {
    let mut prescriptions = Vec::new();
    for rx in rxs {
        prescriptions.push(prescription_of(&get_prescription(sb, token, rx).await).clone());
    }
    json!({
        "patient": patient_of(&get_patient(sb, token, patient).await),
        "prescriptions": prescriptions,
        "order": order_of(&get_order(sb, token, order).await),
    })
}

#[tokio::test]
async fn a_restart_keeps_patients_prescriptions_and_orders_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let first = support::start_with(config(dir.path())).await;
    let ada = prescriber(&first).await;
    let patient = add_patient(&first, &ada, "Grace", "Hopper", "1980-05-17").await;
    update_clinical(
        &first,
        &ada,
        &patient,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;
    let signed_rx = signed(&first, &ada, &patient, METFORMIN).await;
    let (draft_rx, _) = draft(&first, &ada, &patient, ACETAMINOPHEN).await;
    let order = draft_order(&first, &ada, &patient, &[&signed_rx]).await;
    send_ok(&first, &ada, &order).await;
    let before = read_back(&first, &ada, &patient, &[&signed_rx, &draft_rx], &order).await;

    let second = restart(first, dir.path()).await;
    let after = read_back(&second, &ada, &patient, &[&signed_rx, &draft_rx], &order).await;

    assert_eq!(after, before);
    assert_eq!(before["order"]["state"], "SUBMITTED");
    assert_eq!(before["prescriptions"][0]["signing"]["state"], "SIGNED");
    assert_eq!(
        before["patient"]["clinical"]["allergies"][0]["id"],
        ALG_PENICILLIN
    );
    second.shutdown().await;
}

#[tokio::test]
async fn after_a_restart_a_draft_still_signs_and_its_external_id_still_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = support::start_with(config(dir.path())).await;
    let ada = prescriber(&first).await;
    let patient = add_patient(&first, &ada, "Grace", "Hopper", "1980-05-17").await;
    let mut input = draft_input(&patient, METFORMIN);
    input["externalId"] = json!("ehr-restart-1");
    let (id, hash) = draft_with(&first, &ada, input.clone()).await;

    let second = restart(first, dir.path()).await;
    let retried = prescription(&second, &ada, input).await;
    let signed = sign(&second, &ada, &id, &hash).await;

    assert_eq!(prescription_of(&retried)["id"], id.as_str(), "{retried:#}");
    assert_eq!(
        prescription_of(&signed)["signing"]["state"],
        "SIGNED",
        "{signed:#}"
    );
    second.shutdown().await;
}
