//! After Send: the simulated pharmacy (docs/network-api.md, "After Send"). A sent
//! order moves through the documented sequence of its fulfillment type on the test
//! clock; fixture rules make some orders meet a closed pharmacy (rerouted, placed
//! again) or an order error; a Get shows the pharmacy and exceptions the real
//! schema allows; prescriptions are created when signed, depleted when every fill
//! is on a sent order and active again when that order is canceled. Each rule is
//! read from the webhook events a subscribed receiver gets.

use crate::after_send_support;
use crate::network_support;

use after_send_support::*;
use network_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

const DOB: &str = "1975-03-02";
const LAKESIDE: &str = "phr_lakeside";

/// Ada's token and a patient with a mobile phone.
async fn patient(sb: &Sandbox) -> (String, String) {
    let ada = prescriber(sb).await;
    let patient = add_patient(sb, &ada, "Iris", "Okonkwo", DOB).await;
    (ada, patient)
}

/// Drafts an order of `rxs` for `patient`, at `pharmacy` when given, and sends it.
async fn send(
    sb: &Sandbox,
    token: &str,
    patient: &str,
    rxs: &[&str],
    pharmacy: Option<&str>,
) -> String {
    let id = draft_order(sb, token, patient, rxs).await;
    if let Some(pharmacy) = pharmacy {
        let r = order(
            sb,
            token,
            json!({ "id": id, "pharmacy": { "pharmacy": { "id": pharmacy } } }),
        )
        .await;
        assert_eq!(order_of(&r)["pharmacy"]["id"], pharmacy, "setup: {r:#}");
    }
    send_ok(sb, token, &id).await;
    id
}

fn order_types(events: &[Value], order: &str) -> Vec<String> {
    types_about(events, order)
}

#[tokio::test]
async fn a_pick_up_order_is_placed_received_ready_and_picked_up() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    advance(&sb, 4).await;

    let events = receiver
        .wait_for_types(&order, &["photon:order:completed"])
        .await;
    assert_eq!(
        order_types(&events, &order),
        [
            "photon:order:created",
            "photon:order:placed",
            "photon:order:fulfillment",
            "photon:order:fulfillment",
            "photon:order:fulfillment",
            "photon:order:completed",
        ]
    );
    assert_eq!(
        fulfillment_states(&events, &order),
        ["RECEIVED", "READY", "PICKED_UP"]
    );
    let step = &of_type(&events, &order, "photon:order:fulfillment")[0]["data"];
    assert_eq!(step["fulfillment"]["type"], "PICK_UP");
    assert_eq!(step["fulfillment"].get("trackingNumber"), None);
}

#[tokio::test]
async fn a_mail_order_is_filled_shipped_with_tracking_and_delivered() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(MAILRX)).await;

    advance(&sb, 4).await;

    let events = receiver
        .wait_for_types(&order, &["photon:order:completed"])
        .await;
    assert_eq!(
        fulfillment_states(&events, &order),
        ["FILLING", "SHIPPED", "DELIVERED"]
    );
    let shipped = of_type(&events, &order, "photon:order:fulfillment")[1]["data"].clone();
    assert_eq!(shipped["fulfillment"]["type"], "MAIL_ORDER");
    assert_eq!(shipped["fulfillment"]["carrier"], "USPS");
    assert!(
        shipped["fulfillment"]["trackingNumber"].is_string(),
        "{shipped:#}"
    );
    assert_eq!(
        order_types(&events, &order).last().unwrap(),
        "photon:order:completed"
    );
}

#[tokio::test]
async fn nothing_moves_until_a_step_has_passed_on_the_clock() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    sb.clock().advance(STEP / 2).await.unwrap();
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert_eq!(order_types(&events, &order), ["photon:order:created"]);
}

/// Another patient's order, sent now: its `order:created` arriving shows the
/// worker delivered everything before it.
async fn send_second_order(sb: &Sandbox, token: &str) -> String {
    let other = add_patient(sb, token, "Omar", "Haddad", "1990-09-09").await;
    let rx = signed(sb, token, &other, METFORMIN).await;
    send(sb, token, &other, &[&rx], Some(HARBOR_SOUTHSIDE)).await
}

#[tokio::test]
async fn an_order_sent_without_a_pharmacy_is_placed_where_the_patient_chooses() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], None).await;

    advance(&sb, 1).await;

    let events = receiver
        .wait_for_types(&order, &["photon:order:placed"])
        .await;
    let created = of_type(&events, &order, "photon:order:created")[0];
    assert_eq!(created["data"]["pharmacyId"], Value::Null);
    let placed = of_type(&events, &order, "photon:order:placed")[0];
    assert_eq!(placed["data"]["pharmacy"]["id"], MAPLE_PHARMACY);
    let got = get_order(&sb, &ada, &order).await;
    assert_eq!(order_of(&got)["pharmacy"]["id"], MAPLE_PHARMACY);
}

#[tokio::test]
async fn a_closed_pharmacy_reroutes_the_order_which_is_placed_again() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(LAKESIDE)).await;

    advance(&sb, 3).await;

    let events = receiver
        .wait_until("placed twice", |e| {
            of_type(e, &order, "photon:order:placed").len() == 2
        })
        .await;
    assert_eq!(
        order_types(&events, &order)[..4],
        [
            "photon:order:created",
            "photon:order:placed",
            "photon:order:rerouted",
            "photon:order:placed",
        ]
    );
    let placed = of_type(&events, &order, "photon:order:placed");
    assert_eq!(placed[0]["data"]["pharmacy"]["id"], LAKESIDE);
    assert_eq!(placed[1]["data"]["pharmacy"]["id"], HARBOR_DOWNTOWN);
    let rerouted = of_type(&events, &order, "photon:order:rerouted")[0];
    assert_eq!(rerouted["data"]["pharmacy"]["id"], HARBOR_DOWNTOWN);
}

#[tokio::test]
async fn a_get_shows_the_closed_pharmacy_as_an_exception_and_the_new_pharmacy() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(LAKESIDE)).await;

    advance(&sb, 2).await;

    let got = get_order(&sb, &ada, &order).await;
    let o = order_of(&got);
    assert_eq!(o["state"], "SUBMITTED");
    assert_eq!(o["pharmacy"]["id"], HARBOR_DOWNTOWN);
    let exceptions = o["exceptions"].as_array().unwrap();
    assert_eq!(exceptions.len(), 1, "{o:#}");
    assert_eq!(exceptions[0]["type"], "PHARMACY_CLOSED");
    assert_eq!(
        exceptions[0]["message"],
        "Lakeside Pharmacy is closed: the order was rerouted to Harbor Drug Downtown"
    );
    assert!(exceptions[0]["id"].as_str().unwrap().starts_with("exc_"));
}

#[tokio::test]
async fn an_order_error_is_told_with_its_reason_and_the_order_stops() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, SUMATRIPTAN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    advance(&sb, 6).await;
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert_eq!(
        order_types(&events, &order),
        [
            "photon:order:created",
            "photon:order:placed",
            "photon:order:error"
        ]
    );
    let error = of_type(&events, &order, "photon:order:error")[0];
    let reason = "Sumatriptan 50 MG is on back order at this pharmacy's wholesaler: choose another pharmacy or drug";
    assert_eq!(error["data"]["reason"], reason);
    let got = get_order(&sb, &ada, &order).await;
    let exceptions = &order_of(&got)["exceptions"];
    assert_eq!(exceptions[0]["type"], "ORDER_ERROR", "{got:#}");
    assert_eq!(exceptions[0]["message"], reason);
}

#[tokio::test]
async fn changing_the_pharmacy_of_an_order_halted_by_an_error_clears_the_error() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, SUMATRIPTAN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;
    advance(&sb, 2).await;
    let halted = get_order(&sb, &ada, &order).await;
    assert_eq!(order_of(&halted)["exceptions"][0]["type"], "ORDER_ERROR");

    let r = change_pharmacy(&sb, &ada, &order, HARBOR_SOUTHSIDE).await;

    assert_eq!(order_of(&r)["pharmacy"]["id"], HARBOR_SOUTHSIDE);
    let got = get_order(&sb, &ada, &order).await;
    assert_eq!(order_of(&got)["exceptions"], json!([]), "{got:#}");
}

#[tokio::test]
async fn a_new_pharmacy_after_sending_reroutes_the_order() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;
    advance(&sb, 1).await;

    let r = change_pharmacy(&sb, &ada, &order, HARBOR_SOUTHSIDE).await;
    advance(&sb, 1).await;

    assert_eq!(order_of(&r)["pharmacy"]["id"], HARBOR_SOUTHSIDE);
    let events = receiver
        .wait_until("placed twice", |e| {
            of_type(e, &order, "photon:order:placed").len() == 2
        })
        .await;
    let rerouted = of_type(&events, &order, "photon:order:rerouted");
    assert_eq!(rerouted[0]["data"]["pharmacy"]["id"], HARBOR_SOUTHSIDE);
    let placed = of_type(&events, &order, "photon:order:placed");
    assert_eq!(placed[1]["data"]["pharmacy"]["id"], HARBOR_SOUTHSIDE);
}

/// Changes a sent order's pharmacy; the answer.
async fn change_pharmacy(sb: &Sandbox, token: &str, order_id: &str, pharmacy: &str) -> Value {
    order(
        sb,
        token,
        json!({ "id": order_id, "pharmacy": { "pharmacy": { "id": pharmacy } } }),
    )
    .await
}

// ------------------------------------------------------------------ prescriptions

/// Drafts and signs `treatment` with `refills` refills; returns its id.
async fn signed_with_refills(sb: &Sandbox, token: &str, patient: &str, refills: u32) -> String {
    let mut input = draft_input(patient, METFORMIN);
    input["dispense"]["refillsAllowed"] = json!(refills);
    let (id, hash) = draft_with(sb, token, input).await;
    sign_ok(sb, token, &id, &hash).await;
    id
}

#[tokio::test]
async fn a_signed_prescription_is_created_with_its_documented_fields() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;

    let rx = signed_with_refills(&sb, &ada, &patient, 2).await;

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:created"])
        .await;
    let data = &of_type(&events, &rx, "photon:prescription:created")[0]["data"];
    assert_eq!(data["id"], rx.as_str());
    assert_eq!(data["treatmentId"], METFORMIN);
    assert_eq!(data["instructions"], INSTRUCTIONS);
    assert_eq!(data["dispenseQuantity"], 30.0);
    assert_eq!(data["dispenseUnit"], "tablet");
    assert_eq!(data["fillsAllowed"], 3);
    assert_eq!(data["refillsAllowed"], 2);
    assert_eq!(data["daysSupply"], 30);
    assert_eq!(
        data["patient"],
        json!({ "id": patient, "externalId": null })
    );
    assert!(data["prescriberId"].as_str().unwrap().starts_with("usr_"));
    let effective = data["effectiveDate"].as_str().unwrap();
    let expiration = data["expirationDate"].as_str().unwrap();
    assert_eq!(effective[4..], expiration[4..], "a year apart: {data:#}");
}

#[tokio::test]
async fn a_one_fill_prescription_is_depleted_when_its_order_is_sent() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed_with_refills(&sb, &ada, &patient, 0).await;

    send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:depleted"])
        .await;
    assert_eq!(
        types_about(&events, &rx),
        [
            "photon:prescription:created",
            "photon:prescription:depleted"
        ]
    );
}

#[tokio::test]
async fn a_prescription_with_fills_left_is_not_depleted_by_one_order() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed_with_refills(&sb, &ada, &patient, 1).await;

    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;
    advance(&sb, 1).await;

    // `placed` comes after anything the send caused (one subscription's events
    // arrive in the order they happened, duplicates off).
    let events = receiver
        .wait_for_types(&order, &["photon:order:placed"])
        .await;
    assert_eq!(types_about(&events, &rx), ["photon:prescription:created"]);
    let fills = &of_type(&events, &order, "photon:order:created")[0]["data"]["fills"];
    assert_eq!(fills[0]["prescription"]["id"], rx.as_str());
    assert!(fills[0]["id"].as_str().unwrap().starts_with("fil_"));
}

#[tokio::test]
async fn canceling_the_order_makes_a_depleted_prescription_active_again() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed_with_refills(&sb, &ada, &patient, 0).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    set_order_state(&sb, &ada, &order, "CANCELED").await;

    let events = receiver
        .wait_for_types(&rx, &["photon:prescription:active"])
        .await;
    assert_eq!(
        types_about(&events, &rx),
        [
            "photon:prescription:created",
            "photon:prescription:depleted",
            "photon:prescription:active"
        ]
    );
    assert!(types_about(&events, &order).contains(&"photon:order:canceled".to_owned()));
}

#[tokio::test]
async fn a_canceled_order_moves_no_further() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;
    set_order_state(&sb, &ada, &order, "CANCELED").await;

    advance(&sb, 5).await;
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert_eq!(
        order_types(&events, &order),
        ["photon:order:created", "photon:order:canceled"]
    );
}

#[tokio::test]
async fn a_draft_sends_no_events() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let (draft, _) = draft(&sb, &ada, &patient, METFORMIN).await;
    let order = draft_order(&sb, &ada, &patient, &[&draft]).await;

    advance(&sb, 3).await;
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert!(types_about(&events, &draft).is_empty(), "{events:#?}");
    assert!(types_about(&events, &order).is_empty(), "{events:#?}");
}

#[tokio::test]
async fn a_repeated_send_emits_no_second_event() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let rx = signed_with_refills(&sb, &ada, &patient, 0).await;
    let order = send(&sb, &ada, &patient, &[&rx], Some(HARBOR_DOWNTOWN)).await;

    send_ok(&sb, &ada, &order).await;
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert_eq!(order_types(&events, &order), ["photon:order:created"]);
    assert_eq!(
        types_about(&events, &rx),
        [
            "photon:prescription:created",
            "photon:prescription:depleted"
        ]
    );
}

#[tokio::test]
async fn a_repeated_sign_emits_no_second_event() {
    let receiver = Receiver::start().await;
    let sb = start_subscribed(&receiver).await;
    let (ada, patient) = patient(&sb).await;
    let (rx, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    sign_ok(&sb, &ada, &rx, &hash).await;

    sign_ok(&sb, &ada, &rx, &hash).await;
    let second = send_second_order(&sb, &ada).await;

    let events = receiver
        .wait_for_types(&second, &["photon:order:created"])
        .await;
    assert_eq!(types_about(&events, &rx), ["photon:prescription:created"]);
}
