//! No patient data and no token reaches a log line: a whole journey (with refused
//! and rejected requests among it) is captured at TRACE level and searched for
//! every patient field and every token; the API's own spans name only the
//! operation and its outcome. One test only: it installs the process-wide
//! tracing subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use serde_json::json;

#[tokio::test]
async fn no_patient_field_or_token_appears_in_the_logs() {
    let captured = support::capture_logs();
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = json!({
        "externalId": "ehr-Xq7-secret-id",
        "name": { "first": "Zebulon", "middle": "Quillfeather", "last": "Marchbanks" },
        "dateOfBirth": "1961-07-23",
        "sex": "MALE",
        "gender": "Nonbinaryish-marker",
        "email": "zebulon.marchbanks@example.org",
        "phone": "(971) 555-0142",
        "address": { "street1": "7781 Quietwater Lane", "city": "Tillamook", "state": "OR", "postalCode": "97141" }
    });
    let created = mutate(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        json!({ "input": patient }),
    )
    .await;
    let patient_id = created["id"].as_str().unwrap().to_owned();
    let mut rx = prescription_input(&patient_id, None);
    rx["instructions"] = json!("Dissolve under tongue at moonrise, Marchbanks-specific");
    rx["notes"] = json!("Allergic to walnut-9931");
    let rx = mutate(
        &sandbox,
        &tokens.machine,
        &create_prescription_doc(),
        json!({ "input": rx }),
    )
    .await;
    let rx_id = rx["id"].as_str().unwrap().to_owned();
    // A refusal, a rejected input, a signing, an order, reads.
    mutate(
        &sandbox,
        &tokens.machine,
        &sign_prescription_doc(),
        json!({ "id": rx_id }),
    )
    .await;
    let mut bad = patient_input(None);
    bad["email"] = json!("broken-email-8812@");
    mutate(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        json!({ "input": bad }),
    )
    .await;
    sign(&sandbox, &tokens.prescriber, &rx_id).await;
    let order = new_order(&sandbox, &tokens.medical_ops, &patient_id, &[&rx_id]).await;
    send(&sandbox, &tokens.machine, &order).await;
    gql(
        &sandbox,
        &tokens.machine,
        "{ patients(filter: { name: \"Zebulon\" }) { nodes { name { full } email } } }",
        json!({}),
    )
    .await;
    let _ = post_raw(&sandbox, Some("Bearer not-a-jwt-77131"), "{}".into()).await;
    sandbox.shutdown().await;

    let logs = captured.text();
    assert!(
        logs.contains("op=\"signPrescription\""),
        "the API's spans were captured: {logs}"
    );
    assert!(
        logs.contains("PRESCRIPTION_SIGNING_UNAUTHORIZED"),
        "outcomes are logged"
    );
    for secret in [
        "ehr-Xq7-secret-id",
        "Zebulon",
        "Quillfeather",
        "Marchbanks",
        "1961-07-23",
        "Nonbinaryish-marker",
        "zebulon.marchbanks@example.org",
        "555-0142",
        "Quietwater",
        "Tillamook",
        "moonrise",
        "walnut-9931",
        "broken-email-8812",
        "not-a-jwt-77131",
        &tokens.machine,
        &tokens.prescriber,
        &tokens.medical_ops,
    ] {
        let leak = logs.lines().find(|l| l.contains(secret));
        assert!(
            leak.is_none(),
            "patient data or a token leaked into the logs: {leak:?}"
        );
    }
}
