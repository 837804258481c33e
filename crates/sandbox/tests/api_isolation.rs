//! Organizations are walls: another organization's ids read as null or
//! `NOT_FOUND`, never appear in lists, and cannot be referenced by new records.
//! `externalId`s are per organization.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

/// Records made in Maple Street Clinic, and a Birch Family Practice machine token.
struct World {
    sandbox: Sandbox,
    maple: MapleTokens,
    birch_machine: String,
    birch_prescriber: String,
    patient: String,
    draft: String,
    order: String,
}

async fn world() -> World {
    let sandbox = support::start_demo().await;
    let maple = MapleTokens::get(&sandbox).await;
    let (id, secret) = support::BIRCH_BACKEND;
    let birch_machine = support::machine_token(&sandbox, id, secret).await;
    let birch_prescriber = support::user_token(
        &sandbox,
        support::ADA,
        support::DEMO_PASSWORD,
        Some(support::BIRCH),
    )
    .await;
    let patient = new_patient(&sandbox, &maple.machine).await;
    let draft = new_draft(&sandbox, &maple.machine, &patient).await;
    let order = new_order(&sandbox, &maple.machine, &patient, &[&draft]).await;
    World {
        sandbox,
        maple,
        birch_machine,
        birch_prescriber,
        patient,
        draft,
        order,
    }
}

async fn read(w: &World, token: &str, query: &str, id: &str) -> Value {
    gql(&w.sandbox, token, query, json!({ "id": id }))
        .await
        .data()
        .clone()
}

#[tokio::test]
async fn another_organizations_patient_reads_as_null() {
    let w = world().await;

    let data = read(
        &w,
        &w.birch_machine,
        "query($id: ID!) { patient(id: $id) { id } }",
        &w.patient,
    )
    .await;

    assert_eq!(data, json!({ "patient": null }));
}

#[tokio::test]
async fn another_organizations_prescription_reads_as_null() {
    let w = world().await;

    let data = read(
        &w,
        &w.birch_machine,
        "query($id: ID!) { prescription(id: $id) { id } }",
        &w.draft,
    )
    .await;

    assert_eq!(data, json!({ "prescription": null }));
}

#[tokio::test]
async fn another_organizations_order_reads_as_null() {
    let w = world().await;

    let data = read(
        &w,
        &w.birch_machine,
        "query($id: ID!) { order(id: $id) { id } }",
        &w.order,
    )
    .await;

    assert_eq!(data, json!({ "order": null }));
}

#[tokio::test]
async fn another_organizations_records_never_appear_in_lists() {
    let w = world().await;

    let reply = gql(
        &w.sandbox,
        &w.birch_machine,
        "{ patients { nodes { id } } prescriptions { nodes { id } } orders { nodes { id } } }",
        json!({}),
    )
    .await;

    assert_eq!(
        reply.data(),
        &json!({ "patients": { "nodes": [] }, "prescriptions": { "nodes": [] }, "orders": { "nodes": [] } })
    );
}

#[tokio::test]
async fn the_same_prescriber_signed_in_to_another_organization_cannot_sign_its_drafts() {
    let w = world().await;

    let result = mutate(
        &w.sandbox,
        &w.birch_prescriber,
        &sign_prescription_doc(),
        json!({ "id": w.draft }),
    )
    .await;

    assert_eq!(result["code"], "NOT_FOUND");
    let still = read(
        &w,
        &w.maple.machine,
        "query($id: ID!) { prescription(id: $id) { state } }",
        &w.draft,
    )
    .await;
    assert_eq!(still["prescription"]["state"], "DRAFT");
}

#[tokio::test]
async fn another_organizations_patient_cannot_be_updated() {
    let w = world().await;

    let result = mutate(
        &w.sandbox,
        &w.birch_machine,
        &update_patient_doc(),
        json!({ "id": w.patient, "input": { "gender": "x" } }),
    )
    .await;

    assert_eq!(result["code"], "NOT_FOUND");
    assert_eq!(result["field"], "id");
}

#[tokio::test]
async fn another_organizations_order_cannot_be_sent_or_canceled() {
    let w = world().await;

    let sent = mutate(
        &w.sandbox,
        &w.birch_machine,
        &send_order_doc(),
        json!({ "id": w.order }),
    )
    .await;
    let canceled = mutate(
        &w.sandbox,
        &w.birch_machine,
        &cancel_order_doc(),
        json!({ "id": w.order }),
    )
    .await;

    assert_eq!(sent["code"], "NOT_FOUND");
    assert_eq!(canceled["code"], "NOT_FOUND");
}

#[tokio::test]
async fn another_organizations_patient_cannot_be_prescribed_for() {
    let w = world().await;

    let result = mutate(
        &w.sandbox,
        &w.birch_machine,
        &create_prescription_doc(),
        json!({ "input": prescription_input(&w.patient, None) }),
    )
    .await;

    assert_eq!(result["code"], "NOT_FOUND");
    assert_eq!(result["field"], "patientId");
}

#[tokio::test]
async fn another_organizations_prescription_cannot_go_on_an_order() {
    let w = world().await;
    let birch_patient = new_patient(&w.sandbox, &w.birch_machine).await;

    let result = mutate(
        &w.sandbox,
        &w.birch_machine,
        &create_order_doc(),
        json!({ "input": order_input(&birch_patient, &[&w.draft], None) }),
    )
    .await;

    assert_eq!(result["code"], "NOT_FOUND");
    assert_eq!(result["field"], "fills[0].prescriptionId");
}

#[tokio::test]
async fn the_same_external_id_in_two_organizations_makes_two_patients() {
    let w = world().await;
    let input = json!({ "input": patient_input(Some("shared-ehr-id")) });

    let maple = mutate(
        &w.sandbox,
        &w.maple.machine,
        &create_patient_doc(),
        input.clone(),
    )
    .await;
    let birch = mutate(&w.sandbox, &w.birch_machine, &create_patient_doc(), input).await;

    assert_eq!(maple["__typename"], "Patient");
    assert_eq!(birch["__typename"], "Patient");
    assert_ne!(maple["id"], birch["id"]);
}
