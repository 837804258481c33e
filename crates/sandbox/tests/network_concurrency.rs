//! Racing state changes on one order: every call is one transaction, so when
//! many requests race for the same transition exactly one applies it (the
//! others find it done: a repeated send is answered with the order as it is),
//! and racing transitions end in one consistent state.
//! (Racing signatures are in `network_prescription.rs`, racing `externalId`
//! drafts too.)

use crate::network_support;

use network_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::Value;

/// A sandbox, Ada's Maple token and a draft order holding a signed prescription
/// of a patient who takes texts: ready to send.
async fn sendable_order() -> (Sandbox, String, String) {
    let sb = start().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", "1980-05-17").await;
    let rx = signed(&sb, &ada, &patient, METFORMIN).await;
    let order = draft_order(&sb, &ada, &patient, &[&rx]).await;
    (sb, ada, order)
}

/// Whether the answer applied the `state` change it asked for.
fn applied_state(answer: &Value) -> bool {
    answer["appliedChanges"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["key"] == "state"))
}

/// Whether the answer refused the `state` change.
fn refused_state(answer: &Value) -> bool {
    answer["unappliedChanges"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["key"] == "state" && c["status"] == "REJECTED")
    })
}

#[tokio::test]
async fn twenty_concurrent_sends_of_one_order_submit_it_once() {
    let (sb, ada, order) = sendable_order().await;

    let answers =
        futures::future::join_all((0..20).map(|_| set_order_state(&sb, &ada, &order, "SUBMITTED")))
            .await;

    // One sends it; the others find it sent: the order as it is, no change.
    assert_eq!(
        answers.iter().filter(|a| applied_state(a)).count(),
        1,
        "{answers:#?}"
    );
    assert!(
        answers
            .iter()
            .all(|a| order_of(a)["state"] == "SUBMITTED" && !refused_state(a)),
        "{answers:#?}"
    );
    let got = get_order(&sb, &ada, &order).await;
    assert_eq!(order_of(&got)["state"], "SUBMITTED");
}

#[tokio::test]
async fn a_send_racing_a_cancel_ends_in_one_consistent_state() {
    let (sb, ada, order) = sendable_order().await;

    let (sent, canceled) = tokio::join!(
        set_order_state(&sb, &ada, &order, "SUBMITTED"),
        set_order_state(&sb, &ada, &order, "CANCELED"),
    );

    // The send always applies: a draft cannot be canceled, so a cancel that came
    // first was refused and left the draft to be sent. A cancel that came second
    // canceled the sent order.
    assert!(applied_state(&sent), "{sent:#}");
    let got = get_order(&sb, &ada, &order).await;
    let state = &order_of(&got)["state"];
    if applied_state(&canceled) {
        assert_eq!(state, "CANCELED", "{canceled:#}");
    } else {
        assert!(refused_state(&canceled), "{canceled:#}");
        assert_eq!(state, "SUBMITTED");
    }
}
