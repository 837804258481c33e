//! Organization walls of the Network API (docs/network-api.md, "Ids"): every record
//! belongs to the organization of the token that made it, and another
//! organization's id reads as unknown — the same answer as an id that never
//! existed. Birch tokens against Maple's records, and externalIds per organization.

use crate::network_support;

use network_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

/// Maple's records: a patient, a draft, a signed prescription and a draft order.
struct Maple {
    token: String,
    patient: String,
    draft: String,
    draft_hash: String,
    signed: String,
    order: String,
}

async fn maple(sb: &Sandbox) -> Maple {
    let token = prescriber(sb).await;
    let patient = add_patient(sb, &token, "Grace", "Hopper", DOB).await;
    let (draft_id, draft_hash) = draft(sb, &token, &patient, ACETAMINOPHEN).await;
    let signed_id = signed(sb, &token, &patient, METFORMIN).await;
    let order = draft_order(sb, &token, &patient, &[&signed_id]).await;
    Maple {
        token,
        patient,
        draft: draft_id,
        draft_hash,
        signed: signed_id,
        order,
    }
}

/// Asserts the answer about Maple's `real` id equals the answer about the
/// never-issued `unknown` id, once each id is masked (and the ids a call that saved
/// nothing may mint and mention).
fn assert_reads_as_unknown(theirs: &Value, real: &str, unknown_answer: &Value, unknown: &str) {
    assert_eq!(
        with_record_ids_masked(&with_id_masked(theirs, real)),
        with_record_ids_masked(&with_id_masked(unknown_answer, unknown)),
        "another organization's id answers differently from an unknown id"
    );
}

#[tokio::test]
async fn birch_cannot_get_a_maple_patient() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;

    let theirs = get_patient(&sb, &ben, &m.patient).await;
    let unknown = get_patient(&sb, &ben, UNKNOWN_PATIENT).await;

    assert!(patient_of(&theirs).is_null(), "{theirs:#}");
    assert_eq!(unapplied(&theirs, "id")["status"], "REJECTED");
    assert_reads_as_unknown(&theirs, &m.patient, &unknown, UNKNOWN_PATIENT);
}

#[tokio::test]
async fn birch_cannot_update_a_maple_patient() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let change = |id: &str| json!({ "id": id, "demographic": { "phone": "+16175550142" } });

    let theirs = patient(&sb, &ben, change(&m.patient)).await;
    let unknown = patient(&sb, &ben, change(UNKNOWN_PATIENT)).await;

    assert!(patient_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.patient, &unknown, UNKNOWN_PATIENT);
    let got = get_patient(&sb, &m.token, &m.patient).await;
    assert_eq!(patient_of(&got)["demographic"]["phone"], MOBILE);
}

#[tokio::test]
async fn a_birch_sync_never_matches_a_maple_patient() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;

    let r = patient(
        &sb,
        &ben,
        json!({ "demographic": demographic("Grace", "Hopper", DOB) }),
    )
    .await;

    let birch_id = patient_of(&r)["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{r:#}"));
    assert!(birch_id.starts_with("pat_"));
    assert_ne!(birch_id, m.patient);
}

#[tokio::test]
async fn a_birch_search_lists_no_maple_candidates() {
    let sb = start().await;
    let _m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;

    let r = patient(
        &sb,
        &ben,
        json!({ "demographic": { "name": { "first": "Gr" }, "dateOfBirth": DOB } }),
    )
    .await;

    assert_eq!(r["__typename"], "PatientPayload", "{r:#}");
    assert!(patient_of(&r).is_null(), "{r:#}");
}

#[tokio::test]
async fn ada_signed_in_to_birch_cannot_get_the_maple_patient_she_added() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ada_birch = ada_in_birch(&sb).await;

    let theirs = get_patient(&sb, &ada_birch, &m.patient).await;
    let unknown = get_patient(&sb, &ada_birch, UNKNOWN_PATIENT).await;

    assert!(patient_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.patient, &unknown, UNKNOWN_PATIENT);
}

#[tokio::test]
async fn birch_cannot_draft_for_a_maple_patient() {
    let sb = start().await;
    let m = maple(&sb).await;
    let birch = birch_machine(&sb).await;

    let theirs = prescription(&sb, &birch, draft_input(&m.patient, METFORMIN)).await;
    let unknown = prescription(&sb, &birch, draft_input(UNKNOWN_PATIENT, METFORMIN)).await;

    assert!(prescription_of(&theirs).is_null(), "{theirs:#}");
    assert!(has_blocking(&theirs), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.patient, &unknown, UNKNOWN_PATIENT);
}

#[tokio::test]
async fn birch_cannot_get_a_maple_prescription() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;

    let theirs = get_prescription(&sb, &ben, &m.signed).await;
    let unknown = get_prescription(&sb, &ben, UNKNOWN_PRESCRIPTION).await;

    assert!(prescription_of(&theirs).is_null(), "{theirs:#}");
    assert_eq!(unapplied(&theirs, "id")["status"], "REJECTED");
    assert_reads_as_unknown(&theirs, &m.signed, &unknown, UNKNOWN_PRESCRIPTION);
}

#[tokio::test]
async fn birch_cannot_update_a_maple_draft() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let change = |id: &str| json!({ "id": id, "instructions": "Take 2 tablets by mouth daily." });

    let theirs = prescription(&sb, &ben, change(&m.draft)).await;
    let unknown = prescription(&sb, &ben, change(UNKNOWN_PRESCRIPTION)).await;

    assert!(prescription_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.draft, &unknown, UNKNOWN_PRESCRIPTION);
    let got = get_prescription(&sb, &m.token, &m.draft).await;
    assert_eq!(prescription_of(&got)["instructions"], INSTRUCTIONS);
}

#[tokio::test]
async fn a_birch_prescriber_cannot_sign_a_maple_draft() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;

    let theirs = sign(&sb, &ben, &m.draft, &m.draft_hash).await;
    let unknown = sign(&sb, &ben, UNKNOWN_PRESCRIPTION, &m.draft_hash).await;

    assert!(prescription_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.draft, &unknown, UNKNOWN_PRESCRIPTION);
    let got = get_prescription(&sb, &m.token, &m.draft).await;
    assert_eq!(prescription_of(&got)["signing"]["state"], "UNSIGNED");
}

#[tokio::test]
async fn birch_cannot_put_a_maple_prescription_on_its_order() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Alan", "Kay", "1940-05-17").await;

    let theirs = order(&sb, &ben, order_sync(&birch_patient, &[&m.draft])).await;
    let unknown = order(
        &sb,
        &ben,
        order_sync(&birch_patient, &[UNKNOWN_PRESCRIPTION]),
    )
    .await;

    assert!(order_of(&theirs).is_null(), "{theirs:#}");
    assert!(has_blocking(&theirs), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.draft, &unknown, UNKNOWN_PRESCRIPTION);
}

#[tokio::test]
async fn birch_cannot_draft_an_order_for_a_maple_patient() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Alan", "Kay", "1940-05-17").await;
    let birch_rx = signed(&sb, &ben, &birch_patient, METFORMIN).await;

    let theirs = order(&sb, &ben, order_sync(&m.patient, &[&birch_rx])).await;
    let unknown = order(&sb, &ben, order_sync(UNKNOWN_PATIENT, &[&birch_rx])).await;

    assert!(order_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.patient, &unknown, UNKNOWN_PATIENT);
}

#[tokio::test]
async fn birch_cannot_get_a_maple_order() {
    let sb = start().await;
    let m = maple(&sb).await;
    let birch = birch_machine(&sb).await;

    let theirs = get_order(&sb, &birch, &m.order).await;
    let unknown = get_order(&sb, &birch, UNKNOWN_ORDER).await;

    assert!(order_of(&theirs).is_null(), "{theirs:#}");
    assert_eq!(unapplied(&theirs, "id")["status"], "REJECTED");
    assert_reads_as_unknown(&theirs, &m.order, &unknown, UNKNOWN_ORDER);
}

#[tokio::test]
async fn birch_cannot_send_a_maple_order() {
    let sb = start().await;
    let m = maple(&sb).await;
    let birch = birch_machine(&sb).await;

    let theirs = set_order_state(&sb, &birch, &m.order, "SUBMITTED").await;
    let unknown = set_order_state(&sb, &birch, UNKNOWN_ORDER, "SUBMITTED").await;

    assert!(order_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, &m.order, &unknown, UNKNOWN_ORDER);
    let got = get_order(&sb, &m.token, &m.order).await;
    assert_eq!(order_of(&got)["state"], "DRAFT");
}

#[tokio::test]
async fn birch_cannot_use_a_maple_template() {
    let sb = start().await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Alan", "Kay", "1940-05-17").await;
    let input =
        |template: &str| json!({ "patient": { "id": birch_patient }, "templateId": template });

    let theirs = prescription(&sb, &ben, input(MAPLE_TEMPLATE)).await;
    let unknown = prescription(&sb, &ben, input("tmpl_never_made")).await;

    assert!(prescription_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, MAPLE_TEMPLATE, &unknown, "tmpl_never_made");
}

#[tokio::test]
async fn the_same_prescription_external_id_in_two_organizations_names_two_prescriptions() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Alan", "Kay", "1940-05-17").await;
    let mut maple_input = draft_input(&m.patient, METFORMIN);
    maple_input["externalId"] = json!("ehr-shared-1");
    let (maple_rx, _) = draft_with(&sb, &m.token, maple_input).await;
    let mut birch_input = draft_input(&birch_patient, AZITHROMYCIN);
    birch_input["externalId"] = json!("ehr-shared-1");

    let r = prescription(&sb, &ben, birch_input).await;

    let birch_rx = prescription_of(&r);
    assert!(birch_rx["id"].is_string(), "{r:#}");
    assert_ne!(birch_rx["id"], maple_rx.as_str());
    assert_eq!(birch_rx["treatment"]["id"], AZITHROMYCIN);
    assert_eq!(birch_rx["patient"]["id"], birch_patient.as_str());
    let maple_again = get_prescription(&sb, &m.token, &maple_rx).await;
    assert_eq!(prescription_of(&maple_again)["treatment"]["id"], METFORMIN);
}

#[tokio::test]
async fn a_birch_order_cannot_take_a_maple_prescription_by_its_external_id() {
    let sb = start().await;
    let m = maple(&sb).await;
    let ben = birch_prescriber(&sb).await;
    let birch_patient = add_patient(&sb, &ben, "Alan", "Kay", "1940-05-17").await;
    let mut maple_input = draft_input(&m.patient, AZITHROMYCIN);
    maple_input["externalId"] = json!("ehr-maple-only");
    draft_with(&sb, &m.token, maple_input).await;
    let by_external = |external: &str| json!({ "patient": { "id": birch_patient }, "prescriptions": { "add": [{ "externalId": external }] } });

    let theirs = order(&sb, &ben, by_external("ehr-maple-only")).await;
    let unknown = order(&sb, &ben, by_external("ehr-never-used")).await;

    assert!(order_of(&theirs).is_null(), "{theirs:#}");
    assert_reads_as_unknown(&theirs, "ehr-maple-only", &unknown, "ehr-never-used");
}
