//! Shared plumbing of the GraphQL API tests: posting GraphQL documents over real
//! HTTP, the documents themselves, valid inputs, record builders, and a fixture
//! with custom roles. No assertions about the API's behaviour live here beyond
//! "this setup step worked".
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rxdesk_sandbox::{Config, FixtureSource, Sandbox};
use serde_json::{Value, json};

use crate::support;

/// What a mutation result selects: the record's id and state, or the refusal.
pub fn outcome(record: &str) -> String {
    let fields = match record {
        "Patient" => "id externalId",
        "Prescription" => "id externalId state writtenAt prescriber { id name npi }",
        _ => "id externalId state sentAt fills { id state }",
    };
    format!(
        "__typename ... on {record} {{ {fields} }} \
         ... on UnauthorizedError {{ code message requiredPermission }} \
         ... on ValidationError {{ code message field }}"
    )
}

fn doc(signature: &str, call: &str, record: &str) -> String {
    format!("mutation{signature} {{ {call} {{ {} }} }}", outcome(record))
}

pub fn create_patient_doc() -> String {
    doc(
        "($input: CreatePatientInput!)",
        "createPatient(input: $input)",
        "Patient",
    )
}
pub fn update_patient_doc() -> String {
    doc(
        "($id: ID!, $input: UpdatePatientInput!)",
        "updatePatient(id: $id, input: $input)",
        "Patient",
    )
}
pub fn create_prescription_doc() -> String {
    doc(
        "($input: CreatePrescriptionInput!)",
        "createPrescription(input: $input)",
        "Prescription",
    )
}
pub fn sign_prescription_doc() -> String {
    doc("($id: ID!)", "signPrescription(id: $id)", "Prescription")
}
pub fn sign_prescriptions_doc() -> String {
    doc(
        "($ids: [ID!]!)",
        "signPrescriptions(ids: $ids)",
        "Prescription",
    )
}
pub fn cancel_prescription_doc() -> String {
    doc("($id: ID!)", "cancelPrescription(id: $id)", "Prescription")
}
pub fn create_order_doc() -> String {
    doc(
        "($input: CreateOrderInput!)",
        "createOrder(input: $input)",
        "Order",
    )
}
pub fn send_order_doc() -> String {
    doc("($id: ID!)", "sendOrder(id: $id)", "Order")
}
pub fn cancel_order_doc() -> String {
    doc("($id: ID!)", "cancelOrder(id: $id)", "Order")
}

/// An HTTP answer of `POST /graphql`.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// `data`, after checking the request succeeded without errors.
    pub fn data(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "status of {}", self.body);
        assert!(
            self.body.get("errors").is_none(),
            "unexpected errors: {}",
            self.body
        );
        &self.body["data"]
    }

    /// The first top-level error.
    pub fn error(&self) -> &Value {
        let errors = self.body["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("no errors in {}", self.body));
        &errors[0]
    }

    pub fn error_code(&self) -> &str {
        self.error()["extensions"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no code in {}", self.body))
    }
}

/// Posts a raw body to `/graphql` with an optional `Authorization` header value.
pub async fn post_raw(
    sandbox: &Sandbox,
    authorization: Option<&str>,
    body: reqwest::Body,
) -> Reply {
    let mut request = support::http()
        .post(support::endpoint(sandbox, "/legacy/graphql"))
        .header("content-type", "application/json")
        .body(body);
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply {
        status,
        headers,
        body,
    }
}

/// Posts a GraphQL document with variables, as `Authorization: Bearer <token>`.
pub async fn gql(sandbox: &Sandbox, token: &str, query: &str, variables: Value) -> Reply {
    let body = json!({ "query": query, "variables": variables }).to_string();
    post_raw(sandbox, Some(&format!("Bearer {token}")), body.into()).await
}

/// Runs a mutation and returns its (single) result object.
pub async fn mutate(sandbox: &Sandbox, token: &str, query: &str, variables: Value) -> Value {
    let reply = gql(sandbox, token, query, variables).await;
    let data = reply.data().as_object().unwrap();
    data.values().next().unwrap().clone()
}

/// A valid `CreatePatientInput`.
pub fn patient_input(external_id: Option<&str>) -> Value {
    json!({
        "externalId": external_id,
        "name": { "first": "Grace", "middle": "B.", "last": "Hopper" },
        "dateOfBirth": "1980-05-17",
        "sex": "FEMALE",
        "email": "grace@example.com",
        "phone": "(503) 555-0199",
        "address": {
            "street1": "12 Elm Street",
            "city": "Portland",
            "state": "OR",
            "postalCode": "97214"
        }
    })
}

/// The id of a built-in catalog medication.
pub const AMOXICILLIN: &str = "med_amoxicillin_500_mg_capsule";
/// The id of a built-in catalog pharmacy.
pub const MAPLE_PHARMACY: &str = "phr_maple_street";

/// A valid `CreatePrescriptionInput` for `patient_id`.
pub fn prescription_input(patient_id: &str, external_id: Option<&str>) -> Value {
    json!({
        "externalId": external_id,
        "patientId": patient_id,
        "treatmentId": AMOXICILLIN,
        "dispenseQuantity": 30,
        "dispenseUnit": "capsule",
        "fillsAllowed": 1,
        "daysSupply": 10,
        "instructions": "Take 1 capsule by mouth three times daily for 10 days."
    })
}

/// A valid `CreateOrderInput`.
pub fn order_input(
    patient_id: &str,
    prescription_ids: &[&str],
    pharmacy_id: Option<&str>,
) -> Value {
    json!({
        "patientId": patient_id,
        "fills": prescription_ids.iter().map(|id| json!({ "prescriptionId": id })).collect::<Vec<_>>(),
        "pharmacyId": pharmacy_id,
    })
}

fn id_of(result: &Value, typename: &str) -> String {
    assert_eq!(
        result["__typename"], typename,
        "setup step failed: {result}"
    );
    result["id"].as_str().unwrap().to_owned()
}

/// Creates a patient and returns its id.
pub async fn new_patient(sandbox: &Sandbox, token: &str) -> String {
    let r = mutate(
        sandbox,
        token,
        &create_patient_doc(),
        json!({ "input": patient_input(None) }),
    )
    .await;
    id_of(&r, "Patient")
}

/// Drafts a prescription for `patient_id` and returns its id.
pub async fn new_draft(sandbox: &Sandbox, token: &str, patient_id: &str) -> String {
    let input = prescription_input(patient_id, None);
    let r = mutate(
        sandbox,
        token,
        &create_prescription_doc(),
        json!({ "input": input }),
    )
    .await;
    id_of(&r, "Prescription")
}

/// Signs a prescription (with a prescriber's token).
pub async fn sign(sandbox: &Sandbox, prescriber_token: &str, id: &str) {
    let r = mutate(
        sandbox,
        prescriber_token,
        &sign_prescription_doc(),
        json!({ "id": id }),
    )
    .await;
    assert_eq!(r["state"], "ACTIVE", "setup signing failed: {r}");
}

/// Drafts an order and returns its id.
pub async fn new_order(
    sandbox: &Sandbox,
    token: &str,
    patient_id: &str,
    prescription_ids: &[&str],
) -> String {
    let input = order_input(patient_id, prescription_ids, Some(MAPLE_PHARMACY));
    let r = mutate(
        sandbox,
        token,
        &create_order_doc(),
        json!({ "input": input }),
    )
    .await;
    id_of(&r, "Order")
}

/// Sends an order (with a token allowed to).
pub async fn send(sandbox: &Sandbox, token: &str, id: &str) {
    let r = mutate(sandbox, token, &send_order_doc(), json!({ "id": id })).await;
    assert_eq!(r["state"], "PLACED", "setup sending failed: {r}");
}

/// The demo fixture plus custom roles, all in Maple Street Clinic:
/// `fran@maple.example` (front_desk: read:patient, write:patient, read:order) and
/// `rita@maple.example` (rx_viewer: read:prescription only).
pub const CUSTOM_FIXTURE: &str = r#"
[[organizations]]
id = "org_maple"
name = "Maple Street Clinic"

[[organizations]]
id = "org_birch"
name = "Birch Family Practice"

[[roles]]
name = "front_desk"
permissions = ["read:patient", "write:patient", "read:order"]

[[roles]]
name = "rx_viewer"
permissions = ["read:prescription"]

[[users]]
email = "ada@maple.example"
password = "rxdesk-demo"
name = "Ada Quinn"
role = "prescriber"
npi = "1234567893"
organizations = ["org_maple", "org_birch"]

[[users]]
email = "mo@maple.example"
password = "rxdesk-demo"
name = "Mo Reyes"
role = "medical_ops"
organizations = ["org_maple"]

[[users]]
email = "fran@maple.example"
password = "rxdesk-demo"
name = "Fran Ortiz"
role = "front_desk"
organizations = ["org_maple"]

[[users]]
email = "rita@maple.example"
password = "rxdesk-demo"
name = "Rita Vance"
role = "rx_viewer"
organizations = ["org_maple"]

[[applications]]
client_id = "rxdesk-desktop"
organizations = ["org_maple", "org_birch"]
allowed_urls = ["http://127.0.0.1", "http://localhost"]

[[backends]]
client_id = "maple-backend"
client_secret = "maple-backend-secret"
organization = "org_maple"
"#;

pub const FRAN: &str = "fran@maple.example";
pub const RITA: &str = "rita@maple.example";

/// A sandbox loaded with [`CUSTOM_FIXTURE`].
pub async fn start_custom() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixture.toml");
    std::fs::write(&path, CUSTOM_FIXTURE).unwrap();
    let config = Config {
        fixture: FixtureSource::File(path),
        ..Config::in_memory()
    };
    // The fixture is read once at start; the directory may go afterwards.
    support::start_with(config).await
}

/// Tokens of every kind in Maple Street Clinic.
#[derive(Debug, Clone)]
pub struct MapleTokens {
    pub prescriber: String,
    pub medical_ops: String,
    pub machine: String,
}

impl MapleTokens {
    pub async fn get(sandbox: &Sandbox) -> Self {
        let (id, secret) = support::MAPLE_BACKEND;
        Self {
            prescriber: support::user_token(
                sandbox,
                support::ADA,
                support::DEMO_PASSWORD,
                Some(support::MAPLE),
            )
            .await,
            medical_ops: support::user_token(sandbox, support::MO, support::DEMO_PASSWORD, None)
                .await,
            machine: support::machine_token(sandbox, id, secret).await,
        }
    }
}
