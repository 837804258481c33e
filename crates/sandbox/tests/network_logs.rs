//! The Network API's logs at TRACE: one line per operation with its name and
//! outcome, and never a token (machine, user, or a malformed one that was
//! refused), a secret or a patient's field (not even one that was rejected).
//! One test only: it installs the process-wide tracing subscriber.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::*;

const PATIENT: &str = "mutation($p: PatientInput!, $m: RequestMetadata!) {
  patient(patient: $p, metadata: $m) { ... on PatientPayload { patient { ... on Patient { id } } } }
}";
const PRESCRIPTION: &str = "mutation($p: PrescriptionInput!, $m: RequestMetadata!) {
  prescription(prescription: $p, metadata: $m) {
    __typename
    ... on PrescriptionPayload { prescription { id signing { state contentHash } } }
  }
}";

async fn network(
    sandbox: &rxdesk_sandbox::Sandbox,
    token: &str,
    query: &str,
    variables: Value,
) -> Value {
    let answer: Value = http()
        .post(endpoint(sandbox, "/graphql"))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["data"].clone()
}

#[tokio::test]
async fn no_token_or_patient_field_reaches_the_logs_at_trace() {
    let logs = capture_logs();
    let sandbox = start_demo().await;
    let (id, secret) = MAPLE_BACKEND;
    let token = machine_token(&sandbox, id, secret).await;
    let prescriber = user_token(&sandbox, ADA, DEMO_PASSWORD, Some(MAPLE)).await;
    let metadata =
        json!({ "source": "DIRECT_API", "client": "log-test", "requestId": "req-logs-1" });

    let patient = network(
        &sandbox,
        &token,
        PATIENT,
        json!({ "p": { "demographic": {
            "name": { "first": "Zebulon", "last": "Quixotefield" },
            "dateOfBirth": "1961-07-13", "sex": "MALE",
            "phone": "+16175550177", "email": "zebulon.q@example.org",
            "address": { "street1": "7781 Quietwater Lane", "city": "Tillamook", "state": "OR",
                         "postalCode": "97141", "country": "US" }
        }, "clinical": { "allergies": { "add": [{ "name": "Snozzberry dust" }] } } }, "m": metadata }),
    )
    .await;
    let patient_id = patient["patient"]["patient"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let draft = network(
        &sandbox,
        &token,
        PRESCRIPTION,
        json!({ "p": { "patient": { "id": patient_id }, "treatment": { "id": "med_azithromycin_250_tab" },
                       "instructions": "Gargle moonlight twice nightly",
                       "dispense": { "quantity": 6, "unit": "tablet", "daysSupply": 5 } }, "m": metadata }),
    )
    .await;
    let rx = &draft["prescription"]["prescription"];
    let refused = network(
        &sandbox,
        &token,
        PRESCRIPTION,
        json!({ "p": { "id": rx["id"], "signing": { "signedHash": rx["signing"]["contentHash"] } }, "m": metadata }),
    )
    .await;
    let signed = network(
        &sandbox,
        &prescriber,
        PRESCRIPTION,
        json!({ "p": { "id": rx["id"], "signing": { "signedHash": rx["signing"]["contentHash"] } }, "m": metadata }),
    )
    .await;
    let rejected = network(
        &sandbox,
        &token,
        PATIENT,
        json!({ "p": { "id": patient_id, "demographic": { "email": "broken-email-8812@" } }, "m": metadata }),
    )
    .await;
    let malformed = http()
        .post(endpoint(&sandbox, "/graphql"))
        .header("authorization", "Bearer not-a-jwt-77131")
        .json(&json!({ "query": "query { ping }" }))
        .send()
        .await
        .unwrap()
        .status();
    let text = logs.text();

    assert_eq!(refused["prescription"]["__typename"], "UnauthorizedError");
    assert_eq!(
        signed["prescription"]["prescription"]["signing"]["state"], "SIGNED",
        "{signed}"
    );
    assert!(rejected["patient"].is_object(), "{rejected}");
    assert_eq!(malformed, 401);
    assert!(
        text.contains("req-logs-1") && text.contains("operation finished"),
        "no operation lines:\n{text}"
    );
    for secret in [
        token.as_str(),
        prescriber.as_str(),
        "not-a-jwt-77131",
        "maple-backend-secret",
        "Zebulon",
        "Quixotefield",
        "1961-07-13",
        "6175550177",
        "zebulon.q@example.org",
        "Snozzberry",
        "moonlight",
        "Quietwater",
        "Tillamook",
        "broken-email-8812",
    ] {
        assert!(!text.contains(secret), "`{secret}` is in the logs");
    }
}
