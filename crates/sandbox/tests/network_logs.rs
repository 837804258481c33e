//! The Network API's logs at TRACE: one line per operation with its name and
//! outcome, and never a token, a secret or a patient's field.
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
    ... on PrescriptionPayload { prescription { id signing { contentHash } } }
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
    let metadata =
        json!({ "source": "DIRECT_API", "client": "log-test", "requestId": "req-logs-1" });

    let patient = network(
        &sandbox,
        &token,
        PATIENT,
        json!({ "p": { "demographic": {
            "name": { "first": "Zebulon", "last": "Quixotefield" },
            "dateOfBirth": "1961-07-13", "sex": "MALE",
            "phone": "+16175550177", "email": "zebulon.q@example.org"
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
                       "instructions": "Gargle moonlight twice nightly" }, "m": metadata }),
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
    let text = logs.text();

    assert_eq!(refused["prescription"]["__typename"], "UnauthorizedError");
    assert!(
        text.contains("req-logs-1") && text.contains("operation finished"),
        "no operation lines:\n{text}"
    );
    for secret in [
        token.as_str(),
        "maple-backend-secret",
        "Zebulon",
        "Quixotefield",
        "1961-07-13",
        "6175550177",
        "zebulon.q@example.org",
        "Snozzberry",
        "moonlight",
    ] {
        assert!(!text.contains(secret), "`{secret}` is in the logs");
    }
}
