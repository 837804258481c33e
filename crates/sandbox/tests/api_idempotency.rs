//! Safe retries: a create carrying an `externalId` already used in the
//! organization returns the existing record instead of making a second one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use serde_json::json;

#[tokio::test]
async fn creating_a_patient_twice_with_one_external_id_returns_the_first() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let input = json!({ "input": patient_input(Some("ehr-42")) });

    let first = mutate(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        input.clone(),
    )
    .await;
    let retry = mutate(&sandbox, &tokens.machine, &create_patient_doc(), input).await;

    assert_eq!(first["__typename"], "Patient");
    assert_eq!(first, retry);
    let list = gql(
        &sandbox,
        &tokens.machine,
        "{ patients(filter: { externalId: \"ehr-42\" }) { nodes { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(
        list.data()["patients"]["nodes"].as_array().unwrap().len(),
        1
    );
}

#[tokio::test]
async fn a_retry_by_another_token_of_the_organization_returns_the_same_patient() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let input = json!({ "input": patient_input(Some("ehr-7")) });

    let first = mutate(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        input.clone(),
    )
    .await;
    let retry = mutate(&sandbox, &tokens.medical_ops, &create_patient_doc(), input).await;

    assert_eq!(first["id"], retry["id"]);
}

#[tokio::test]
async fn creating_a_prescription_twice_with_one_external_id_returns_the_first() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let input = json!({ "input": prescription_input(&patient, Some("ehr-rx-9")) });

    let first = mutate(
        &sandbox,
        &tokens.machine,
        &create_prescription_doc(),
        input.clone(),
    )
    .await;
    let retry = mutate(&sandbox, &tokens.machine, &create_prescription_doc(), input).await;

    assert_eq!(first["__typename"], "Prescription");
    assert_eq!(first, retry);
}

#[tokio::test]
async fn a_prescription_retry_after_signing_returns_the_signed_prescription() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let input = json!({ "input": prescription_input(&patient, Some("ehr-rx-10")) });
    let first = mutate(
        &sandbox,
        &tokens.machine,
        &create_prescription_doc(),
        input.clone(),
    )
    .await;
    sign(&sandbox, &tokens.prescriber, first["id"].as_str().unwrap()).await;

    let retry = mutate(&sandbox, &tokens.machine, &create_prescription_doc(), input).await;

    assert_eq!(retry["id"], first["id"]);
    assert_eq!(retry["state"], "ACTIVE");
}

#[tokio::test]
async fn creating_an_order_twice_with_one_external_id_returns_the_first() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    let mut input = order_input(&patient, &[&rx], Some(MAPLE_PHARMACY));
    input["externalId"] = json!("ehr-order-1");
    let input = json!({ "input": input });

    let first = mutate(
        &sandbox,
        &tokens.machine,
        &create_order_doc(),
        input.clone(),
    )
    .await;
    let retry = mutate(&sandbox, &tokens.machine, &create_order_doc(), input).await;

    assert_eq!(first["__typename"], "Order");
    assert_eq!(first, retry);
}

#[tokio::test]
async fn concurrent_creates_with_one_external_id_make_one_patient() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let doc = create_patient_doc();
    let input = json!({ "input": patient_input(Some("ehr-race")) });

    let results = futures::future::join_all(
        (0..20).map(|_| mutate(&sandbox, &tokens.machine, &doc, input.clone())),
    )
    .await;

    let ids: std::collections::HashSet<_> = results
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1, "{results:?}");
}
