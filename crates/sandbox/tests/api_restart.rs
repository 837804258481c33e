//! A sandbox restarted on the same data directory (and port, so tokens stay
//! valid) loses no clinical record and no state change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use rxdesk_sandbox::{Config, Storage};
use serde_json::json;

#[tokio::test]
async fn a_restart_on_the_same_data_dir_keeps_patients_prescriptions_and_orders() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    };
    let first = support::start_with(config.clone()).await;
    let addr = first.addr();
    let tokens = MapleTokens::get(&first).await;
    let patient = new_patient(&first, &tokens.machine).await;
    let signed = new_draft(&first, &tokens.machine, &patient).await;
    let draft = new_draft(&first, &tokens.machine, &patient).await;
    sign(&first, &tokens.prescriber, &signed).await;
    let order = new_order(&first, &tokens.machine, &patient, &[&signed]).await;
    send(&first, &tokens.machine, &order).await;
    let query = "query($p: ID!, $s: ID!, $d: ID!, $o: ID!) {
        patient(id: $p) { id name { full } dateOfBirth address { postalCode } }
        signed: prescription(id: $s) { state writtenAt prescriber { name npi } treatment { id } }
        draft: prescription(id: $d) { state }
        order(id: $o) { state sentAt pharmacy { id } fills { state prescription { id } } }
    }";
    let vars = json!({ "p": patient, "s": signed, "d": draft, "o": order });
    let before = gql(&first, &tokens.machine, query, vars.clone())
        .await
        .data()
        .clone();
    first.shutdown().await;

    let second = support::start_with(Config {
        listen: addr,
        ..config
    })
    .await;
    let after = gql(&second, &tokens.machine, query, vars).await;

    assert_eq!(after.data(), &before);
    assert_eq!(before["order"]["state"], "PLACED");
    assert_eq!(before["signed"]["state"], "ACTIVE");
    second.shutdown().await;
}

#[tokio::test]
async fn after_a_restart_drafts_can_still_be_signed_and_external_ids_still_deduplicate() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    };
    let first = support::start_with(config.clone()).await;
    let addr = first.addr();
    let tokens = MapleTokens::get(&first).await;
    let input = json!({ "input": patient_input(Some("ehr-restart")) });
    let created = mutate(
        &first,
        &tokens.machine,
        &create_patient_doc(),
        input.clone(),
    )
    .await;
    let draft = new_draft(&first, &tokens.machine, created["id"].as_str().unwrap()).await;
    first.shutdown().await;

    let second = support::start_with(Config {
        listen: addr,
        ..config
    })
    .await;
    let retried = mutate(&second, &tokens.machine, &create_patient_doc(), input).await;
    let signed = mutate(
        &second,
        &tokens.prescriber,
        &sign_prescription_doc(),
        json!({ "id": draft }),
    )
    .await;

    assert_eq!(retried["id"], created["id"]);
    assert_eq!(signed["state"], "ACTIVE");
    second.shutdown().await;
}
