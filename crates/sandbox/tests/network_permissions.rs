//! The Network API's permission table (docs/network-api.md, "Permissions"), with
//! the fixture's custom roles: vic (viewer: read:patient, read:prescription,
//! read:order), reg (registrar: read:patient, write:patient) and rita (rx_reader:
//! read:prescription). Permissions are checked before anything is looked up, and a
//! refusal is the same answer every time.

use crate::network_support;

use network_support::*;
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

fn assert_refused(r: &Value, code: &str, permission: Option<&str>) {
    assert_eq!(r["__typename"], "UnauthorizedError", "{r:#}");
    assert_eq!(r["code"], code, "{r:#}");
    assert!(
        !r["message"].as_str().unwrap_or_default().is_empty(),
        "{r:#}"
    );
    if let Some(permission) = permission {
        assert_eq!(r["requiredPermission"], permission, "{r:#}");
    }
}

// ------------------------------------------------------------------ patient

#[tokio::test]
async fn a_token_without_write_patient_is_refused_a_sync_and_nothing_is_added() {
    let sb = start().await;
    let vic = viewer(&sb).await;
    let ada = prescriber(&sb).await;

    let r = patient(
        &sb,
        &vic,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    assert_refused(&r, "PATIENT_WRITE_UNAUTHORIZED", Some("write:patient"));
    let search = patient(&sb, &ada, json!({ "demographic": { "dateOfBirth": DOB } })).await;
    assert_eq!(
        search["__typename"], "PatientPayload",
        "no candidates: {search:#}"
    );
}

#[tokio::test]
async fn a_token_without_write_patient_is_refused_an_update_the_same_way_twice() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let vic = viewer(&sb).await;
    let update = json!({ "id": id, "demographic": { "phone": "+16175550142" } });

    let first = patient(&sb, &vic, update.clone()).await;
    let second = patient(&sb, &vic, update).await;

    assert_refused(&first, "PATIENT_WRITE_UNAUTHORIZED", Some("write:patient"));
    assert_eq!(first, second);
    let got = get_patient(&sb, &ada, &id).await;
    assert_eq!(patient_of(&got)["demographic"]["phone"], MOBILE);
}

#[tokio::test]
async fn a_token_with_read_patient_gets_a_patient() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let vic = viewer(&sb).await;

    let r = get_patient(&sb, &vic, &id).await;

    assert_eq!(patient_of(&r)["id"], id.as_str(), "{r:#}");
}

#[tokio::test]
async fn a_token_without_read_patient_is_refused_a_get() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rita = rx_reader(&sb).await;

    let r = get_patient(&sb, &rita, &id).await;

    assert_refused(&r, "PATIENT_READ_UNAUTHORIZED", Some("read:patient"));
}

#[tokio::test]
async fn a_patient_get_is_refused_the_same_for_a_known_and_an_unknown_id() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rita = rx_reader(&sb).await;

    let known = get_patient(&sb, &rita, &id).await;
    let unknown = get_patient(&sb, &rita, UNKNOWN_PATIENT).await;

    assert_refused(&unknown, "PATIENT_READ_UNAUTHORIZED", Some("read:patient"));
    assert_eq!(known, unknown);
}

// ------------------------------------------------------------------ prescription

#[tokio::test]
async fn a_token_without_read_prescription_is_refused_a_look_up() {
    let sb = start().await;
    let reg = registrar(&sb).await;

    let r = prescription(&sb, &reg, json!({ "treatment": { "name": "ibuprofen" } })).await;

    assert_refused(
        &r,
        "PRESCRIPTION_READ_UNAUTHORIZED",
        Some("read:prescription"),
    );
}

#[tokio::test]
async fn a_token_without_read_prescription_is_refused_a_draft() {
    let sb = start().await;
    let reg = registrar(&sb).await;
    let id = add_patient(&sb, &reg, "Grace", "Hopper", DOB).await;

    let r = prescription(&sb, &reg, draft_input(&id, METFORMIN)).await;

    assert_refused(
        &r,
        "PRESCRIPTION_READ_UNAUTHORIZED",
        Some("read:prescription"),
    );
}

#[tokio::test]
async fn a_prescription_get_is_refused_the_same_for_a_known_and_an_unknown_id() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (rx, _) = draft(&sb, &ada, &patient_id, METFORMIN).await;
    let reg = registrar(&sb).await;

    let known = get_prescription(&sb, &reg, &rx).await;
    let unknown = get_prescription(&sb, &reg, UNKNOWN_PRESCRIPTION).await;

    assert_refused(
        &known,
        "PRESCRIPTION_READ_UNAUTHORIZED",
        Some("read:prescription"),
    );
    assert_eq!(known, unknown);
}

#[tokio::test]
async fn a_read_prescription_token_looks_up_treatments() {
    let sb = start().await;
    let rita = rx_reader(&sb).await;

    let r = prescription(
        &sb,
        &rita,
        json!({ "treatment": { "name": IBUPROFEN_400_NAME } }),
    )
    .await;

    assert_eq!(r["__typename"], "PrescriptionPayload", "{r:#}");
    assert_eq!(option_values(&change(&r, "treatment")), vec![IBUPROFEN_400]);
}

#[tokio::test]
async fn a_viewer_drafts_but_is_refused_signing() {
    let sb = start().await;
    let vic = viewer(&sb).await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let (rx, hash) = draft(&sb, &vic, &patient_id, METFORMIN).await;

    let r = sign(&sb, &vic, &rx, &hash).await;

    assert_refused(
        &r,
        "PRESCRIPTION_SIGNING_UNAUTHORIZED",
        Some("write:prescription"),
    );
}

// ------------------------------------------------------------------ order

#[tokio::test]
async fn a_token_without_read_order_is_refused_an_order_draft() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient_id, METFORMIN).await;
    let reg = registrar(&sb).await;

    let r = order(&sb, &reg, order_sync(&patient_id, &[&rx])).await;

    assert_refused(&r, "ORDER_READ_UNAUTHORIZED", Some("read:order"));
}

#[tokio::test]
async fn a_token_without_write_order_drafts_an_order_but_is_refused_sending_it() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient_id, METFORMIN).await;
    let vic = viewer(&sb).await;
    let id = draft_order(&sb, &vic, &patient_id, &[&rx]).await;

    let first = set_order_state(&sb, &vic, &id, "SUBMITTED").await;
    let second = set_order_state(&sb, &vic, &id, "SUBMITTED").await;

    assert_refused(&first, "ORDER_SENDING_UNAUTHORIZED", Some("write:order"));
    assert_eq!(first, second);
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(order_of(&got)["state"], "DRAFT");
}

#[tokio::test]
async fn a_token_without_write_order_is_refused_canceling() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient_id, METFORMIN).await;
    let id = draft_order(&sb, &ada, &patient_id, &[&rx]).await;
    send_ok(&sb, &ada, &id).await;
    let vic = viewer(&sb).await;

    let r = set_order_state(&sb, &vic, &id, "CANCELED").await;

    assert_refused(&r, "ORDER_CANCELING_UNAUTHORIZED", Some("write:order"));
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(order_of(&got)["state"], "SUBMITTED");
}

#[tokio::test]
async fn sending_is_refused_the_same_for_a_known_and_an_unknown_order() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient_id = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient_id, METFORMIN).await;
    let id = draft_order(&sb, &ada, &patient_id, &[&rx]).await;
    let vic = viewer(&sb).await;

    let known = set_order_state(&sb, &vic, &id, "SUBMITTED").await;
    let unknown = set_order_state(&sb, &vic, UNKNOWN_ORDER, "SUBMITTED").await;

    assert_refused(&unknown, "ORDER_SENDING_UNAUTHORIZED", Some("write:order"));
    assert_eq!(known, unknown);
}
