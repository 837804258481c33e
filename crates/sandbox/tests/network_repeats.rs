//! Repeated calls are harmless (docs/network-api.md, "Repeated calls and
//! `externalId`"): a client whose answer was lost sends the same call again,
//! and gets the record as it is — no second record, no second signature or
//! submission, and no error it cannot explain. What must still be refused stays
//! refused. (An `externalId` used again on a prescription draft is in
//! `network_prescription.rs`, on an order Sync in `network_order.rs`.)

use crate::network_support;

use network_support::*;
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

fn rx(result: &Value) -> &Value {
    let p = prescription_of(result);
    assert!(p.is_object(), "no prescription in {result:#}");
    p
}

fn ord(result: &Value) -> &Value {
    let o = order_of(result);
    assert!(o.is_object(), "no order in {result:#}");
    o
}

// ------------------------------------------------------------------ patients

#[tokio::test]
async fn a_repeated_patient_sync_adds_no_second_patient() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let input = json!({ "demographic": demographic("Grace", "Hopper", DOB) });
    let first = patient(&sb, &ada, input.clone()).await;

    let again = patient(&sb, &ada, input).await;

    assert_eq!(
        patient_of(&again)["id"],
        patient_of(&first)["id"],
        "{again:#}"
    );
    assert!(!has_blocking(&again), "{again:#}");
    let search = patient(
        &sb,
        &ada,
        json!({ "demographic": { "name": { "first": "Grace", "last": "Hopper" } } }),
    )
    .await;
    assert_eq!(
        candidate_ids(&search),
        vec![patient_of(&first)["id"].as_str().unwrap().to_owned()],
        "one Grace Hopper on record"
    );
}

#[tokio::test]
async fn removing_an_allergy_not_on_file_is_a_noted_no_op() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    update_clinical(
        &sb,
        &ada,
        &id,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }, { "id": ALG_NSAID }] } }),
    )
    .await;
    let remove =
        json!({ "id": id, "clinical": { "allergies": { "remove": [{ "id": ALG_NSAID }] } } });
    patient(&sb, &ada, remove.clone()).await;

    let again = patient(&sb, &ada, remove).await;

    let c = applied(&again, "clinical.allergies.remove.0");
    assert_eq!(
        (&c["severity"], &c["operation"]),
        (&json!("INFO"), &json!("REMOVED")),
        "{c:#}"
    );
    assert!(
        c["reason"].as_str().unwrap().contains("not on file"),
        "{c:#}"
    );
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(
        ids_of(&patient_of(&got)["clinical"]["allergies"]),
        vec![ALG_PENICILLIN]
    );
}

#[tokio::test]
async fn removing_a_benefit_not_on_file_is_a_noted_no_op() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let added = patient(
        &sb,
        &ada,
        json!({ "id": id, "demographic": { "benefits": { "add": [{ "bin": "610014", "memberId": "M1" }] } } }),
    )
    .await;
    let benefit = patient_of(&added)["demographic"]["benefits"][0]["id"].clone();
    let remove =
        json!({ "id": id, "demographic": { "benefits": { "remove": [{ "id": benefit }] } } });
    patient(&sb, &ada, remove.clone()).await;

    let again = patient(&sb, &ada, remove).await;

    let c = applied(&again, "demographic.benefits.remove.0");
    assert_eq!(c["severity"], "INFO", "{c:#}");
    assert!(!has_blocking(&again), "{again:#}");
    assert_eq!(patient_of(&again)["demographic"]["benefits"], json!([]));
}

// ------------------------------------------------------------------ signing

#[tokio::test]
async fn a_repeated_signature_with_the_same_hash_answers_the_signed_prescription_and_changes_nothing()
 {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let first = sign(&sb, &ada, &id, &hash).await;

    let again = sign(&sb, &ada, &id, &hash).await;

    assert_eq!(again["__typename"], "PrescriptionPayload", "{again:#}");
    assert_eq!(rx(&again)["signing"]["state"], "SIGNED");
    assert!(changes(&again).is_empty(), "no change, no error: {again:#}");
    assert_eq!(rx(&again), rx(&first));
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"], rx(&first)["signing"]);
}

#[tokio::test]
async fn another_hash_on_a_signed_prescription_is_still_refused() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    sign_ok(&sb, &ada, &id, &hash).await;

    let other = sign(&sb, &ada, &id, &"0".repeat(64)).await;

    let c = unapplied(&other, "signing");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
    assert_eq!(rx(&other)["signing"]["state"], "SIGNED");
}

#[tokio::test]
async fn a_signature_repeated_by_another_prescriber_is_refused() {
    let sb = start().await;
    let ada = ada_in_birch(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    sign_ok(&sb, &ada, &id, &hash).await;

    let by_ben = sign(&sb, &ben, &id, &hash).await;

    assert_eq!(
        unapplied(&by_ben, "signing")["status"],
        "REJECTED",
        "{by_ben:#}"
    );
}

#[tokio::test]
async fn a_repeated_signature_after_the_draft_changed_is_still_an_invalidated_sign() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (id, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    prescription(
        &sb,
        &ada,
        json!({ "id": id, "instructions": "Take 2 tablets by mouth once daily." }),
    )
    .await;

    let first = sign(&sb, &ada, &id, &hash).await;
    let again = sign(&sb, &ada, &id, &hash).await;

    for answer in [&first, &again] {
        assert_eq!(
            rx(answer)["signing"]["state"],
            "INVALIDATED_SIGN",
            "{answer:#}"
        );
    }
    let got = get_prescription(&sb, &ada, &id).await;
    assert_eq!(rx(&got)["signing"]["state"], "UNSIGNED");
}

// ------------------------------------------------------------------ orders

/// A sandbox, Ada's token, a patient and a draft order of one signed prescription.
async fn sendable() -> (rxdesk_sandbox::Sandbox, String, String, String) {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx_id = signed(&sb, &ada, &patient, METFORMIN).await;
    let order_id = draft_order(&sb, &ada, &patient, &[&rx_id]).await;
    (sb, ada, order_id, rx_id)
}

#[tokio::test]
async fn sending_a_sent_order_again_answers_it_as_it_is() {
    let (sb, ada, id, _) = sendable().await;
    let sent = send_ok(&sb, &ada, &id).await;

    let again = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(ord(&again)["state"], "SUBMITTED", "{again:#}");
    assert!(changes(&again).is_empty(), "no change, no error: {again:#}");
    assert_eq!(ord(&again), ord(&sent));
}

#[tokio::test]
async fn canceling_a_canceled_order_again_answers_it_as_it_is() {
    let (sb, ada, id, _) = sendable().await;
    send_ok(&sb, &ada, &id).await;
    set_order_state(&sb, &ada, &id, "CANCELED").await;

    let again = set_order_state(&sb, &ada, &id, "CANCELED").await;

    assert_eq!(ord(&again)["state"], "CANCELED", "{again:#}");
    assert!(changes(&again).is_empty(), "no change, no error: {again:#}");
}

#[tokio::test]
async fn removing_a_prescription_no_longer_on_the_order_is_a_noted_no_op() {
    let (sb, ada, id, rx_id) = sendable().await;
    let remove = json!({ "id": id, "prescriptions": { "remove": [{ "id": rx_id }] } });
    order(&sb, &ada, remove.clone()).await;

    let again = order(&sb, &ada, remove).await;

    let c = applied(&again, "prescriptions.remove.0");
    assert_eq!(c["severity"], "INFO", "{c:#}");
    assert!(
        c["reason"].as_str().unwrap().contains("Not on this order"),
        "{c:#}"
    );
    assert_eq!(ord(&again)["prescriptions"], json!([]));
}

#[tokio::test]
async fn removing_an_unknown_prescription_from_an_order_is_still_refused() {
    let (sb, ada, id, _) = sendable().await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "remove": [{ "id": UNKNOWN_PRESCRIPTION }] } }),
    )
    .await;

    assert_eq!(
        unapplied(&r, "prescriptions.remove.0")["status"],
        "REJECTED",
        "{r:#}"
    );
}

#[tokio::test]
async fn eight_concurrent_order_syncs_with_one_external_id_make_one_order() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx_id = signed(&sb, &ada, &patient, METFORMIN).await;
    let mut input = order_sync(&patient, &[&rx_id]);
    input["externalId"] = json!("ehr-order-race");

    let answers = futures::future::join_all((0..8).map(|_| order(&sb, &ada, input.clone()))).await;

    let ids: std::collections::BTreeSet<String> = answers
        .iter()
        .map(|a| ord(a)["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1, "{answers:#?}");
}
