//! The whole journey across token kinds: a machine token syncs a patient and
//! drafts prescriptions; a medical-operations user drafts an order; sending is
//! refused while a prescription is unsigned; a prescriber signs them in one batch;
//! the order is sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use serde_json::json;

#[tokio::test]
async fn machine_syncs_ops_drafts_the_order_prescriber_signs_and_the_order_is_sent() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    // A machine token syncs a patient and drafts two prescriptions.
    let patient = mutate(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        json!({ "input": patient_input(Some("ehr-patient-1")) }),
    )
    .await;
    assert_eq!(patient["__typename"], "Patient");
    let patient_id = patient["id"].as_str().unwrap().to_owned();
    let mut drafts = Vec::new();
    for external_id in ["ehr-rx-1", "ehr-rx-2"] {
        let rx = mutate(
            &sandbox,
            &tokens.machine,
            &create_prescription_doc(),
            json!({ "input": prescription_input(&patient_id, Some(external_id)) }),
        )
        .await;
        assert_eq!(rx["state"], "DRAFT", "{rx}");
        drafts.push(rx["id"].as_str().unwrap().to_owned());
    }

    // Medical operations drafts the order.
    let order = mutate(
        &sandbox,
        &tokens.medical_ops,
        &create_order_doc(),
        json!({ "input": order_input(&patient_id, &[&drafts[0], &drafts[1]], Some(MAPLE_PHARMACY)) }),
    )
    .await;
    assert_eq!(order["state"], "DRAFT", "{order}");
    let order_id = order["id"].as_str().unwrap().to_owned();

    // Sending is refused while unsigned, and changes nothing.
    let refused = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": order_id }),
    )
    .await;
    assert_eq!(refused["__typename"], "ValidationError");
    assert_eq!(refused["code"], "ORDER_HAS_UNSIGNED_PRESCRIPTIONS");
    let still = gql(
        &sandbox,
        &tokens.machine,
        "query($id: ID!) { order(id: $id) { state } }",
        json!({ "id": order_id }),
    )
    .await;
    assert_eq!(still.data()["order"]["state"], "DRAFT");

    // The prescriber signs both in one request.
    let signed = mutate(
        &sandbox,
        &tokens.prescriber,
        &sign_prescriptions_doc(),
        json!({ "ids": drafts }),
    )
    .await;
    for result in signed.as_array().unwrap() {
        assert_eq!(result["state"], "ACTIVE", "{result}");
        assert_eq!(result["prescriber"]["name"], "Ada Quinn");
        assert_eq!(result["prescriber"]["npi"], "1234567893");
        assert!(result["writtenAt"].is_string());
    }

    // The machine sends the order.
    let sent = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": order_id }),
    )
    .await;
    assert_eq!(sent["__typename"], "Order");
    assert_eq!(sent["state"], "PLACED");
    assert!(sent["sentAt"].is_string());
    assert!(
        sent["fills"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["state"] == "SENT")
    );
}

#[tokio::test]
async fn an_order_without_pharmacy_is_sent_to_routing() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = mutate(
        &sandbox,
        &tokens.machine,
        &create_order_doc(),
        json!({ "input": order_input(&patient, &[&rx], None) }),
    )
    .await;

    let sent = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": order["id"] }),
    )
    .await;

    assert_eq!(sent["state"], "ROUTING");
}

#[tokio::test]
async fn a_sent_order_cannot_be_sent_again() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;
    send(&sandbox, &tokens.machine, &order).await;

    let again = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": order }),
    )
    .await;

    assert_eq!(again["code"], "ORDER_NOT_DRAFT");
}

#[tokio::test]
async fn signing_a_signed_prescription_is_refused_as_not_a_draft() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;

    let again = mutate(
        &sandbox,
        &tokens.prescriber,
        &sign_prescription_doc(),
        json!({ "id": rx }),
    )
    .await;

    assert_eq!(again["__typename"], "ValidationError");
    assert_eq!(again["code"], "PRESCRIPTION_NOT_DRAFT");
}

#[tokio::test]
async fn signing_a_canceled_prescription_is_refused_as_not_a_draft() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    mutate(
        &sandbox,
        &tokens.machine,
        &cancel_prescription_doc(),
        json!({ "id": rx }),
    )
    .await;

    let signed = mutate(
        &sandbox,
        &tokens.prescriber,
        &sign_prescription_doc(),
        json!({ "id": rx }),
    )
    .await;

    assert_eq!(signed["code"], "PRESCRIPTION_NOT_DRAFT");
}

#[tokio::test]
async fn a_batch_signing_answers_each_id_on_its_own() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;
    let signed = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &signed).await;

    let results = mutate(
        &sandbox,
        &tokens.prescriber,
        &sign_prescriptions_doc(),
        json!({ "ids": [draft, "rx_unknown", signed] }),
    )
    .await;

    let codes: Vec<_> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["code"]
                .as_str()
                .or(r["state"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(codes, ["ACTIVE", "NOT_FOUND", "PRESCRIPTION_NOT_DRAFT"]);
}

#[tokio::test]
async fn sending_an_order_whose_prescription_was_canceled_is_refused() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;
    mutate(
        &sandbox,
        &tokens.prescriber,
        &cancel_prescription_doc(),
        json!({ "id": rx }),
    )
    .await;

    let sent = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": order }),
    )
    .await;

    assert_eq!(sent["code"], "ORDER_HAS_CANCELED_PRESCRIPTIONS");
}

#[tokio::test]
async fn canceling_a_sent_order_cancels_its_fills() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;
    send(&sandbox, &tokens.machine, &order).await;

    let canceled = mutate(
        &sandbox,
        &tokens.medical_ops,
        &cancel_order_doc(),
        json!({ "id": order }),
    )
    .await;

    assert_eq!(canceled["state"], "CANCELED");
    assert!(
        canceled["fills"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["state"] == "CANCELED")
    );
}

#[tokio::test]
async fn an_order_reads_back_with_its_patient_pharmacy_and_prescriptions() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;

    let reply = gql(
        &sandbox,
        &tokens.medical_ops,
        "query($id: ID!) { order(id: $id) {
            patient { name { full } address { state postalCode country } }
            pharmacy { name address { city state } }
            fills { state prescription { state treatment { name strength form rxcui } } }
        } }",
        json!({ "id": order }),
    )
    .await;

    assert_eq!(
        reply.data()["order"],
        json!({
            "patient": { "name": { "full": "Grace B. Hopper" }, "address": { "state": "OR", "postalCode": "97214", "country": "US" } },
            "pharmacy": { "name": "Maple Street Pharmacy", "address": { "city": "Portland", "state": "OR" } },
            "fills": [{ "state": "NEW", "prescription": { "state": "DRAFT", "treatment": {
                "name": "Amoxicillin", "strength": "500 mg", "form": "capsule", "rxcui": "308191" } } }]
        })
    );
}

#[tokio::test]
async fn medications_are_searched_case_insensitively_by_name() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let reply = gql(
        &sandbox,
        &tokens.machine,
        "{ medications(filter: { name: \"LISINO\" }) { name strength } }",
        json!({}),
    )
    .await;

    let found = reply.data()["medications"].as_array().unwrap().clone();
    assert!(!found.is_empty());
    assert!(found.iter().all(|m| m["name"] == "Lisinopril"));
}

#[tokio::test]
async fn the_built_in_catalog_has_at_least_forty_medications_and_ten_pharmacies() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let reply = gql(
        &sandbox,
        &tokens.machine,
        "{ medications(first: 100) { id } pharmacies(first: 100) { id } }",
        json!({}),
    )
    .await;

    assert!(reply.data()["medications"].as_array().unwrap().len() >= 40);
    assert!(reply.data()["pharmacies"].as_array().unwrap().len() >= 10);
}
