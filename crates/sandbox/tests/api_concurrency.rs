//! Concurrency: every state change is one transaction, so when many requests
//! race for the same transition exactly one wins and the others are told why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use serde_json::{Value, json};

fn count(results: &[Value], key: &str, value: &str) -> usize {
    results.iter().filter(|r| r[key] == value).count()
}

#[tokio::test]
async fn twenty_concurrent_signings_of_one_draft_activate_it_exactly_once() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;
    let doc = sign_prescription_doc();

    let results = futures::future::join_all(
        (0..20).map(|_| mutate(&sandbox, &tokens.prescriber, &doc, json!({ "id": draft }))),
    )
    .await;

    assert_eq!(count(&results, "state", "ACTIVE"), 1, "{results:?}");
    assert_eq!(
        count(&results, "code", "PRESCRIPTION_NOT_DRAFT"),
        19,
        "{results:?}"
    );
}

#[tokio::test]
async fn concurrent_batch_signings_sign_each_draft_once() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let a = new_draft(&sandbox, &tokens.machine, &patient).await;
    let b = new_draft(&sandbox, &tokens.machine, &patient).await;
    let doc = sign_prescriptions_doc();

    let results = futures::future::join_all(
        (0..10).map(|_| mutate(&sandbox, &tokens.prescriber, &doc, json!({ "ids": [a, b] }))),
    )
    .await;

    let all: Vec<Value> = results
        .iter()
        .flat_map(|r| r.as_array().unwrap().clone())
        .collect();
    assert_eq!(count(&all, "state", "ACTIVE"), 2, "{all:?}");
    assert_eq!(count(&all, "code", "PRESCRIPTION_NOT_DRAFT"), 18, "{all:?}");
}

#[tokio::test]
async fn twenty_concurrent_sends_of_one_order_send_it_once() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;
    let doc = send_order_doc();

    let results = futures::future::join_all(
        (0..20).map(|_| mutate(&sandbox, &tokens.machine, &doc, json!({ "id": order }))),
    )
    .await;

    assert_eq!(count(&results, "state", "PLACED"), 1, "{results:?}");
    assert_eq!(
        count(&results, "code", "ORDER_NOT_DRAFT"),
        19,
        "{results:?}"
    );
}

#[tokio::test]
async fn a_send_racing_a_cancel_ends_in_one_consistent_state() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let rx = new_draft(&sandbox, &tokens.machine, &patient).await;
    sign(&sandbox, &tokens.prescriber, &rx).await;
    let order = new_order(&sandbox, &tokens.machine, &patient, &[&rx]).await;
    let (send_doc, cancel_doc) = (send_order_doc(), cancel_order_doc());

    let (sent, canceled) = tokio::join!(
        mutate(&sandbox, &tokens.machine, &send_doc, json!({ "id": order })),
        mutate(
            &sandbox,
            &tokens.machine,
            &cancel_doc,
            json!({ "id": order })
        ),
    );

    // Either the send came first (then the cancel canceled the sent order) or the
    // cancel came first (then the send was refused); never both a send and a draft.
    assert_eq!(canceled["state"], "CANCELED");
    assert!(
        sent["state"] == "PLACED" || sent["code"] == "ORDER_NOT_DRAFT",
        "{sent}"
    );
}
