//! The Network API's `order` upsert (docs/network-api.md, "Order"): drafting by
//! Sync, the checks of Send, Cancel, what may change after sending, one live order
//! per prescription, choosing a pharmacy, and the exceptions that appear after
//! sending.

use crate::network_support;

use network_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

const DOB: &str = "1980-05-17";

/// A sandbox, Ada's Maple token, a patient with a mobile phone and a signed
/// prescription of theirs.
async fn setup() -> (Sandbox, String, String, String) {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", DOB).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    (sb, ada, patient, rx)
}

fn ord(result: &Value) -> &Value {
    let o = order_of(result);
    assert!(o.is_object(), "no order in {result:#}");
    o
}

fn assert_send_refused(r: &Value) {
    let c = unapplied(r, "state");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
}

/// The pharmacy's change in `list` (`appliedChanges` or `unappliedChanges`). The
/// spec calls it "a `pharmacy` change"; its key is the input path, `pharmacy` or
/// `pharmacy.pharmacy`: either is accepted.
fn pharmacy_change(result: &Value, list: &str) -> Value {
    result[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {result:#}"))
        .iter()
        .find(|c| c["key"] == "pharmacy" || c["key"] == "pharmacy.pharmacy")
        .cloned()
        .unwrap_or_else(|| panic!("no pharmacy change in {list} of {result:#}"))
}

async fn assert_still_draft(sb: &Sandbox, token: &str, id: &str) {
    let got = get_order(sb, token, id).await;
    assert_eq!(ord(&got)["state"], "DRAFT", "{got:#}");
}

// ------------------------------------------------------------------ drafting

#[tokio::test]
async fn a_sync_drafts_an_order_for_the_patient() {
    let (sb, ada, patient, rx) = setup().await;

    let r = order(&sb, &ada, order_sync(&patient, &[&rx])).await;

    let o = ord(&r);
    assert!(o["id"].as_str().unwrap().starts_with("ord_"), "{r:#}");
    assert_eq!(o["state"], "DRAFT");
    assert_eq!(o["patient"]["__typename"], "Patient");
    assert_eq!(o["patient"]["id"], patient.as_str());
    assert_eq!(ids_of(&o["prescriptions"]), vec![rx]);
    assert_eq!(o["pharmacy"], Value::Null);
    assert_eq!(o["exceptions"], json!([]));
}

#[tokio::test]
async fn a_second_sync_for_the_patient_adds_to_the_same_draft() {
    let (sb, ada, patient, rx1) = setup().await;
    let rx2 = signed(&sb, &ada, &patient, ACETAMINOPHEN).await;
    let first = draft_order(&sb, &ada, &patient, &[&rx1]).await;

    let r = order(&sb, &ada, order_sync(&patient, &[&rx2])).await;

    assert_eq!(ord(&r)["id"], first.as_str(), "{r:#}");
    assert_eq!(ids_of(&ord(&r)["prescriptions"]), sorted(&[&rx1, &rx2]));
}

#[tokio::test]
async fn a_prescription_added_by_external_id_is_found() {
    let (sb, ada, patient, _) = setup().await;
    let mut input = draft_input(&patient, ACETAMINOPHEN);
    input["externalId"] = json!("ehr-rx-7");
    let (rx, _) = draft_with(&sb, &ada, input).await;

    let r = order(
        &sb,
        &ada,
        json!({ "patient": { "id": patient }, "prescriptions": { "add": [{ "externalId": "ehr-rx-7" }] } }),
    )
    .await;

    assert_eq!(ids_of(&ord(&r)["prescriptions"]), vec![rx], "{r:#}");
}

#[tokio::test]
async fn a_sync_with_two_drafts_for_the_patient_is_ambiguous() {
    let (sb, ada, patient, rx1) = setup().await;
    let rx2 = signed(&sb, &ada, &patient, ACETAMINOPHEN).await;
    let rx3 = signed(&sb, &ada, &patient, AZITHROMYCIN).await;
    let mut one = order_sync(&patient, &[&rx1]);
    one["externalId"] = json!("ehr-order-1");
    let mut two = order_sync(&patient, &[&rx2]);
    two["externalId"] = json!("ehr-order-2");
    let a = ord(&order(&sb, &ada, one).await)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = ord(&order(&sb, &ada, two).await)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(a, b, "setup: two drafts");

    let r = order(&sb, &ada, order_sync(&patient, &[&rx3])).await;

    assert_eq!(r["__typename"], "AmbiguousOrderMatch", "{r:#}");
    assert_eq!(candidate_ids(&r), sorted(&[&a, &b]));
    assert!(!r["reason"].as_str().unwrap_or_default().is_empty());
}

#[tokio::test]
async fn an_order_external_id_used_again_returns_that_order() {
    let (sb, ada, patient, rx) = setup().await;
    let mut input = order_sync(&patient, &[&rx]);
    input["externalId"] = json!("ehr-order-1");
    let first = ord(&order(&sb, &ada, input.clone()).await)["id"].clone();

    let r = order(&sb, &ada, input).await;

    assert_eq!(ord(&r)["id"], first, "{r:#}");
}

#[tokio::test]
async fn an_order_external_id_used_again_for_another_patient_is_refused_and_saves_nothing() {
    let (sb, ada, patient, rx) = setup().await;
    let other = add_patient(&sb, &ada, "Katherine", "Johnson", "1978-08-26").await;
    let other_rx = signed(&sb, &ada, &other, METFORMIN).await;
    let mut input = order_sync(&patient, &[&rx]);
    input["externalId"] = json!("ehr-order-shared");
    ord(&order(&sb, &ada, input).await);
    let mut reused = order_sync(&other, &[&other_rx]);
    reused["externalId"] = json!("ehr-order-shared");

    let r = order(&sb, &ada, reused).await;

    assert!(order_of(&r).is_null(), "no record answered: {r:#}");
    let refused = unapplied(&r, "externalId");
    assert_eq!(refused["status"], "REJECTED", "{r:#}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("another patient"),
        "{refused:#}"
    );
    // Nothing saved: the other patient has no draft order, so the next Sync
    // makes one and adds the prescription (not "already on this order").
    let next = order(&sb, &ada, order_sync(&other, &[&other_rx])).await;
    assert_eq!(ids_of(&ord(&next)["prescriptions"]), vec![other_rx]);
    assert!(
        changes(&next)
            .iter()
            .all(|c| !c["reason"].as_str().unwrap_or_default().contains("Already")),
        "{next:#}"
    );
}

#[tokio::test]
async fn an_order_external_id_used_again_for_the_same_patient_still_answers_the_first_order() {
    let (sb, ada, patient, rx) = setup().await;
    let mut input = order_sync(&patient, &[&rx]);
    input["externalId"] = json!("ehr-order-same");
    let first = ord(&order(&sb, &ada, input.clone()).await)["id"].clone();

    let r = order(&sb, &ada, input).await;

    assert_eq!(ord(&r)["id"], first, "{r:#}");
    assert!(changes(&r).is_empty(), "{r:#}");
}

#[tokio::test]
async fn a_medical_ops_token_drafts_and_sends_orders() {
    let (sb, _, patient, rx) = setup().await;
    let mo = medical_ops(&sb).await;
    let id = draft_order(&sb, &mo, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &mo, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
}

// ------------------------------------------------------------------ sending

#[tokio::test]
async fn a_machine_token_sends_an_order_once_every_prescription_is_signed() {
    let (sb, _, patient, rx) = setup().await;
    let machine = machine(&sb).await;
    let id = draft_order(&sb, &machine, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &machine, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
    assert!(
        r["unappliedChanges"].as_array().unwrap().is_empty(),
        "{r:#}"
    );
    let got = get_order(&sb, &machine, &id).await;
    assert_eq!(ord(&got)["state"], "SUBMITTED");
}

#[tokio::test]
async fn sending_an_order_without_prescriptions_is_refused() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    let emptied = order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "remove": [{ "id": rx }] } }),
    )
    .await;
    assert_eq!(
        ord(&emptied)["prescriptions"],
        json!([]),
        "setup: {emptied:#}"
    );

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_send_refused(&r);
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn sending_an_order_with_an_unsigned_prescription_is_refused() {
    let (sb, ada, patient, rx) = setup().await;
    let (unsigned, _) = draft(&sb, &ada, &patient, ACETAMINOPHEN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx, &unsigned]).await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_send_refused(&r);
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn a_prescription_of_another_patient_is_added_with_an_advisory() {
    let (sb, ada, patient, rx) = setup().await;
    let other = add_patient(&sb, &ada, "Alan", "Kay", "1940-05-17").await;
    let theirs = signed(&sb, &ada, &other, ACETAMINOPHEN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "add": [{ "id": theirs }] } }),
    )
    .await;

    let c = applied(&r, "prescriptions.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("APPLIED"), &json!("ADVISORY")),
        "{c:#}"
    );
    assert_eq!(ids_of(&ord(&r)["prescriptions"]), sorted(&[&rx, &theirs]));
}

#[tokio::test]
async fn sending_an_order_with_another_patients_prescription_is_refused() {
    let (sb, ada, patient, rx) = setup().await;
    let other = add_patient(&sb, &ada, "Alan", "Kay", "1940-05-17").await;
    let theirs = signed(&sb, &ada, &other, ACETAMINOPHEN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "add": [{ "id": theirs }] } }),
    )
    .await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_send_refused(&r);
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn removing_the_other_patients_prescription_lets_the_order_be_sent() {
    let (sb, ada, patient, rx) = setup().await;
    let other = add_patient(&sb, &ada, "Alan", "Kay", "1940-05-17").await;
    let theirs = signed(&sb, &ada, &other, ACETAMINOPHEN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "add": [{ "id": theirs }] } }),
    )
    .await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "remove": [{ "id": theirs }] } }),
    )
    .await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
}

#[tokio::test]
async fn sending_for_a_patient_without_a_phone_is_refused() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let mut demo = demographic("Grace", "Hopper", DOB);
    demo.as_object_mut().unwrap().remove("phone");
    let patient = add_patient_with(&sb, &ada, demo).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_send_refused(&r);
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn sending_for_a_patient_with_a_landline_is_refused() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let mut demo = demographic("Grace", "Hopper", DOB);
    demo["phone"] = json!(LANDLINE);
    let patient = add_patient_with(&sb, &ada, demo).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_send_refused(&r);
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn a_number_just_outside_the_landline_block_takes_texts() {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let mut demo = demographic("Grace", "Hopper", DOB);
    demo["phone"] = json!("+16175550200");
    let patient = add_patient_with(&sb, &ada, demo).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
}

// ------------------------------------------------------------------ canceling

#[tokio::test]
async fn a_draft_order_cannot_be_canceled() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = set_order_state(&sb, &ada, &id, "CANCELED").await;

    assert_eq!(unapplied(&r, "state")["status"], "REJECTED", "{r:#}");
    assert_still_draft(&sb, &ada, &id).await;
}

#[tokio::test]
async fn a_submitted_order_can_be_canceled() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &id).await;

    let r = set_order_state(&sb, &ada, &id, "CANCELED").await;

    assert_eq!(ord(&r)["state"], "CANCELED", "{r:#}");
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["state"], "CANCELED");
}

#[tokio::test]
async fn a_canceled_order_cannot_be_sent_again() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &id).await;
    set_order_state(&sb, &ada, &id, "CANCELED").await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(unapplied(&r, "state")["status"], "REJECTED", "{r:#}");
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["state"], "CANCELED");
}

// ------------------------------------------------------------------ after sending

#[tokio::test]
async fn after_sending_a_prescription_cannot_be_added() {
    let (sb, ada, patient, rx) = setup().await;
    let more = signed(&sb, &ada, &patient, ACETAMINOPHEN).await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &id).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "prescriptions": { "add": [{ "id": more }] } }),
    )
    .await;

    let rejected = unapplied_under(&r, "prescriptions");
    assert!(rejected.iter().any(|c| c["status"] == "REJECTED"), "{r:#}");
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ids_of(&ord(&got)["prescriptions"]), vec![rx]);
}

#[tokio::test]
async fn after_sending_the_pharmacy_may_still_change() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &id).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": MAPLE_PHARMACY } } }),
    )
    .await;

    assert_eq!(
        pharmacy_change(&r, "appliedChanges")["status"],
        "APPLIED",
        "{r:#}"
    );
    assert_eq!(ord(&r)["pharmacy"]["id"], MAPLE_PHARMACY);
    assert_eq!(ord(&r)["state"], "SUBMITTED");
}

// ------------------------------------------------------------------ one live order per prescription

#[tokio::test]
async fn a_prescription_on_a_live_order_cannot_join_another() {
    let (sb, ada, patient, rx) = setup().await;
    let first = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &first).await;

    let r = order(&sb, &ada, order_sync(&patient, &[&rx])).await;

    let c = unapplied(&r, "prescriptions.add.0");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_prescription_whose_order_was_canceled_may_join_another() {
    let (sb, ada, patient, rx) = setup().await;
    let first = draft_order(&sb, &ada, &patient, &[&rx]).await;
    send_ok(&sb, &ada, &first).await;
    set_order_state(&sb, &ada, &first, "CANCELED").await;

    let r = order(&sb, &ada, order_sync(&patient, &[&rx])).await;

    let o = ord(&r);
    assert_ne!(o["id"], first.as_str(), "{r:#}");
    assert_eq!(ids_of(&o["prescriptions"]), vec![rx]);
}

// ------------------------------------------------------------------ pharmacy

#[tokio::test]
async fn a_pharmacy_name_that_fits_several_is_ambiguous_with_pharmacy_options() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "name": "harbor" } } }),
    )
    .await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    let options = c["options"].as_array().unwrap();
    assert!(options.len() <= 20, "{c:#}");
    let mut values = option_values(&c);
    values.sort();
    assert_eq!(values, sorted(&[HARBOR_DOWNTOWN, HARBOR_SOUTHSIDE]));
    for option in options {
        assert_eq!(option["__typename"], "PharmacyChangeOption", "{option:#}");
        assert_eq!(option["argument"], "pharmacy.pharmacy.id", "{option:#}");
        assert!(option["offers"].is_array(), "{option:#}");
    }
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["pharmacy"], Value::Null);
}

#[tokio::test]
async fn a_pharmacy_by_id_is_applied() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": HARBOR_SOUTHSIDE } } }),
    )
    .await;

    assert_eq!(
        ord(&r)["pharmacy"],
        json!({ "id": HARBOR_SOUTHSIDE, "name": "Harbor Drug Southside" })
    );
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["pharmacy"]["id"], HARBOR_SOUTHSIDE);
}

#[tokio::test]
async fn a_pharmacy_in_the_sync_is_applied_to_the_new_draft() {
    let (sb, ada, patient, rx) = setup().await;
    let mut input = order_sync(&patient, &[&rx]);
    input["pharmacy"] = json!({ "pharmacy": { "id": MAPLE_PHARMACY } });

    let r = order(&sb, &ada, input).await;

    assert_eq!(ord(&r)["pharmacy"]["id"], MAPLE_PHARMACY, "{r:#}");
}

#[tokio::test]
async fn a_pharmacy_near_a_point_within_a_small_radius_is_the_one_there() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "near": { "latLong": {
            "latitude": "42.3570", "longitude": "-71.0520", "radiusMiles": 1
        }}}}}),
    )
    .await;

    assert_eq!(
        pharmacy_change(&r, "appliedChanges")["status"],
        "APPLIED",
        "{r:#}"
    );
    assert_eq!(ord(&r)["pharmacy"]["id"], HARBOR_DOWNTOWN);
}

#[tokio::test]
async fn a_pharmacy_by_fulfillment_type_mail_order_is_the_mail_order_one() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "fulfillmentType": "MAIL_ORDER" } } }),
    )
    .await;

    assert_eq!(ord(&r)["pharmacy"]["id"], MAILRX, "{r:#}");
}

#[tokio::test]
async fn a_pharmacy_name_that_fits_nothing_is_rejected() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "name": "Nowhere Chemists" } } }),
    )
    .await;

    assert_eq!(
        pharmacy_change(&r, "unappliedChanges")["status"],
        "REJECTED",
        "{r:#}"
    );
}

#[tokio::test]
async fn pharmacy_none_unassigns_the_pharmacy() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": MAPLE_PHARMACY } } }),
    )
    .await;

    let r = order(&sb, &ada, json!({ "id": id, "pharmacy": { "none": true } })).await;

    assert!(!has_blocking(&r), "{r:#}");
    assert_eq!(ord(&r)["pharmacy"], Value::Null);
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["pharmacy"], Value::Null);
}

// ------------------------------------------------------------------ exceptions

#[tokio::test]
async fn sending_to_a_pharmacy_needing_insurance_for_a_patient_without_benefits_raises_an_exception()
 {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": CORNERSTONE } } }),
    )
    .await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
    let exceptions = ord(&r)["exceptions"].as_array().unwrap();
    let e = exceptions
        .iter()
        .find(|e| e["type"] == "PHARMACY_NEEDS_INSURANCE_INFO")
        .unwrap_or_else(|| panic!("no PHARMACY_NEEDS_INSURANCE_INFO in {r:#}"));
    assert!(e["id"].as_str().unwrap().starts_with("exc_"), "{e:#}");
    assert!(e["createdAt"].is_string(), "{e:#}");
}

#[tokio::test]
async fn a_patient_with_benefits_raises_no_insurance_exception() {
    let (sb, ada, patient, rx) = setup().await;
    let insured = add_benefit(&sb, &ada, &patient).await;
    assert!(insured, "setup: benefits added");
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": CORNERSTONE } } }),
    )
    .await;

    let r = set_order_state(&sb, &ada, &id, "SUBMITTED").await;

    assert_eq!(ord(&r)["state"], "SUBMITTED", "{r:#}");
    assert_eq!(ord(&r)["exceptions"], json!([]), "{r:#}");
}

/// Adds a benefit to `patient_id`; whether it applied.
async fn add_benefit(sb: &Sandbox, token: &str, patient_id: &str) -> bool {
    let r = patient(
        sb,
        token,
        json!({ "id": patient_id, "demographic": { "benefits": { "add": [{ "bin": "610014", "memberId": "M123456" }] } } }),
    )
    .await;
    !has_blocking(&r)
}

#[tokio::test]
async fn a_draft_order_has_no_exceptions_before_it_is_sent() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "id": CORNERSTONE } } }),
    )
    .await;

    assert_eq!(ord(&r)["exceptions"], json!([]), "{r:#}");
}

#[tokio::test]
async fn a_pharmacy_near_a_point_without_a_radius_lists_all_nearest_first() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "near": { "latLong": {
            "latitude": "42.3570", "longitude": "-71.0520"
        }}}}}),
    )
    .await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    let values = option_values(&c);
    assert_eq!(values.len(), 6, "{c:#}");
    assert_eq!(&values[..2], &[HARBOR_DOWNTOWN, HARBOR_SOUTHSIDE], "{c:#}");
    assert_eq!(values.last().map(String::as_str), Some(MAILRX), "{c:#}");
}

#[tokio::test]
async fn a_pharmacy_near_an_address_sorts_from_the_pharmacies_in_that_postal_code() {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;

    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "near": { "address": {
            "postalCode": "02110", "country": "US"
        }}}}}),
    )
    .await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    let values = option_values(&c);
    assert_eq!(&values[..2], &[HARBOR_DOWNTOWN, HARBOR_SOUTHSIDE], "{c:#}");
}

/// The one unapplied change whose key is `key`.
fn change_at<'r>(result: &'r Value, key: &str) -> &'r Value {
    result["unappliedChanges"]
        .as_array()
        .and_then(|list| list.iter().find(|c| c["key"] == key))
        .unwrap_or_else(|| panic!("no unapplied change {key} in {result:#}"))
}

/// Sets the order's pharmacy by `near`; the answer.
async fn pharmacy_near(near: Value) -> (Sandbox, String, String, Value) {
    let (sb, ada, patient, rx) = setup().await;
    let id = draft_order(&sb, &ada, &patient, &[&rx]).await;
    let r = order(
        &sb,
        &ada,
        json!({ "id": id, "pharmacy": { "pharmacy": { "near": near } } }),
    )
    .await;
    (sb, ada, id, r)
}

#[tokio::test]
async fn a_pharmacy_near_free_text_is_refused_naming_the_field_as_the_network_does() {
    let (sb, ada, id, r) = pharmacy_near(json!({ "text": "near 02110, please" })).await;

    let c = change_at(&r, "pharmacy.pharmacy.near.text");
    assert_eq!(
        (&c["status"], &c["severity"]),
        (&json!("REJECTED"), &json!("BLOCKING")),
        "{c:#}"
    );
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("isn't supported")),
        "{c:#}"
    );
    let got = get_order(&sb, &ada, &id).await;
    assert_eq!(ord(&got)["pharmacy"], Value::Null);
}

#[tokio::test]
async fn a_pharmacy_near_an_address_without_its_country_is_refused() {
    let (_sb, _ada, _id, r) = pharmacy_near(json!({ "address": { "postalCode": "02110" } })).await;

    let c = change_at(&r, "pharmacy.pharmacy.near.address.country");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
}

#[tokio::test]
async fn a_pharmacy_near_an_address_the_network_cannot_place_is_refused_in_words() {
    let (_sb, _ada, _id, r) =
        pharmacy_near(json!({ "address": { "city": "Atlantis", "country": "US" } })).await;

    let c = change_at(&r, "pharmacy.pharmacy.near.address");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("cannot place")),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_pharmacy_near_an_address_by_city_sorts_from_the_pharmacies_of_that_city() {
    let (_sb, _ada, _id, r) =
        pharmacy_near(json!({ "address": { "city": "somerville", "country": "US" } })).await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(c["status"], "AMBIGUOUS", "{c:#}");
    assert_eq!(
        option_values(&c).first().map(String::as_str),
        Some(CORNERSTONE),
        "{c:#}"
    );
}

#[tokio::test]
async fn a_pharmacy_near_both_a_point_and_an_address_is_refused() {
    let (_sb, _ada, _id, r) = pharmacy_near(json!({
        "latLong": { "latitude": "42.3570", "longitude": "-71.0520" },
        "address": { "postalCode": "02110", "country": "US" }
    }))
    .await;

    let c = change_at(&r, "pharmacy.pharmacy.near");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
}

#[tokio::test]
async fn a_radius_below_one_mile_is_refused() {
    let (_sb, _ada, _id, r) = pharmacy_near(json!({ "latLong": {
        "latitude": "42.3570", "longitude": "-71.0520", "radiusMiles": 0
    }}))
    .await;

    let c = change_at(&r, "pharmacy.pharmacy.near.latLong.radiusMiles");
    assert_eq!(c["status"], "REJECTED", "{c:#}");
}

/// The price summary of the option for `pharmacy` among `change`'s options.
fn price_of<'c>(change: &'c Value, pharmacy: &str) -> &'c Value {
    let option = change["options"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["value"] == pharmacy))
        .unwrap_or_else(|| panic!("no option {pharmacy} in {change:#}"));
    &option["offers"][0]["priceSummary"]
}

#[tokio::test]
async fn an_offer_where_every_medication_is_priced_carries_its_total_retail_and_savings() {
    let (_sb, _ada, _id, r) = pharmacy_near(json!({ "latLong": {
        "latitude": "42.3570", "longitude": "-71.0520"
    }}))
    .await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(
        price_of(&c, HARBOR_DOWNTOWN),
        &json!({ "priceType": "CASH", "totalAmount": 4.0, "totalRetailAmount": 12.99, "totalSavings": 8.99 }),
        "{c:#}"
    );
    assert_eq!(price_of(&c, MAILRX)["priceType"], "MEMBERSHIP", "{c:#}");
}

#[tokio::test]
async fn an_offer_at_a_pharmacy_without_prices_is_priceless() {
    let (_sb, _ada, _id, r) = pharmacy_near(json!({ "latLong": {
        "latitude": "42.3570", "longitude": "-71.0520"
    }}))
    .await;

    let c = pharmacy_change(&r, "unappliedChanges");
    assert_eq!(price_of(&c, HARBOR_SOUTHSIDE), &Value::Null, "{c:#}");
}
