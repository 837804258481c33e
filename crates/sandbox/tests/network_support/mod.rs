//! Plumbing of the Network API's tests (`POST /graphql`, docs/network-api.md): a
//! sandbox with `tests/fixtures/network.toml`, tokens of every kind, the three
//! mutations with the vendor's full selection sets, reading changes out of an
//! answer, and small builders (a patient, a draft, a signature, an order). No
//! assertions about the API's behaviour live here beyond "this setup step worked".
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rxdesk_sandbox::{Config, FixtureSource, Sandbox};
use serde_json::{Value, json};

use crate::support;

// ------------------------------------------------------------------ the fixture

/// The fixture every Network API test starts from.
pub fn fixture_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/network.toml")
}

/// An in-memory sandbox with `tests/fixtures/network.toml`.
pub async fn start() -> Sandbox {
    support::start_with(Config {
        fixture: FixtureSource::File(fixture_path()),
        ..Config::in_memory()
    })
    .await
}

/// Catalog ids of `network.toml`.
pub const AMOXICILLIN: &str = "med_amoxicillin_500_cap";
pub const AZITHROMYCIN: &str = "med_azithromycin_250_tab";
pub const IBUPROFEN_400: &str = "med_ibuprofen_400_tab";
pub const IBUPROFEN_400_NAME: &str = "Ibuprofen 400 MG Oral Tablet";
pub const IBUPROFEN_800: &str = "med_ibuprofen_800_tab";
pub const LISINOPRIL: &str = "med_lisinopril_10_tab";
pub const SPIRONOLACTONE: &str = "med_spironolactone_25_tab";
pub const SERTRALINE: &str = "med_sertraline_50_tab";
pub const SUMATRIPTAN: &str = "med_sumatriptan_50_tab";
pub const METFORMIN: &str = "med_metformin_500_tab";
pub const METFORMIN_RXNORM: &str = "861007";
pub const ACETAMINOPHEN: &str = "med_acetaminophen_500_tab";
pub const ALG_PENICILLIN: &str = "alg_penicillin";
pub const ALG_AMOXICILLIN: &str = "alg_amoxicillin";
pub const ALG_NSAID: &str = "alg_nsaid";
pub const ALG_PENICILLIN_G: &str = "alg_penicillin_g";
pub const ALG_PENICILLIN_V: &str = "alg_penicillin_v";
pub const HARBOR_DOWNTOWN: &str = "phr_harbor_downtown";
pub const HARBOR_SOUTHSIDE: &str = "phr_harbor_southside";
pub const MAPLE_PHARMACY: &str = "phr_maple_street";
pub const CORNERSTONE: &str = "phr_cornerstone";
pub const MAILRX: &str = "phr_mailrx";
pub const MAPLE_TEMPLATE: &str = "tmpl_maple_metformin";
pub const BIRCH_TEMPLATE: &str = "tmpl_birch_amoxicillin";

/// A mobile number (not one of the sandbox's `+1 NPA 555-019X` landlines).
pub const MOBILE: &str = "+16175550123";
/// A landline: the sandbox will not text it.
pub const LANDLINE: &str = "+16175550195";

/// Well-formed ids that were never issued.
pub const UNKNOWN_PATIENT: &str = "pat_01J9ZZZZZZZZZZZZZZZZZZZZZZ";
pub const UNKNOWN_PRESCRIPTION: &str = "rx_01J9ZZZZZZZZZZZZZZZZZZZZZZ";
pub const UNKNOWN_ORDER: &str = "ord_01J9ZZZZZZZZZZZZZZZZZZZZZZ";

// ------------------------------------------------------------------ tokens

/// Ada, a prescriber, signed in to Maple Street Clinic (all six permissions).
pub async fn prescriber(sandbox: &Sandbox) -> String {
    support::user_token(
        sandbox,
        support::ADA,
        support::DEMO_PASSWORD,
        Some(support::MAPLE),
    )
    .await
}

/// Ada signed in to Birch Family Practice.
pub async fn ada_in_birch(sandbox: &Sandbox) -> String {
    support::user_token(
        sandbox,
        support::ADA,
        support::DEMO_PASSWORD,
        Some(support::BIRCH),
    )
    .await
}

/// Mo, medical operations in Maple (everything but `write:prescription`).
pub async fn medical_ops(sandbox: &Sandbox) -> String {
    support::user_token(sandbox, support::MO, support::DEMO_PASSWORD, None).await
}

/// Vic (role `viewer`: read:patient, read:prescription, read:order) in Maple.
pub async fn viewer(sandbox: &Sandbox) -> String {
    support::user_token(sandbox, "vic@maple.example", support::DEMO_PASSWORD, None).await
}

/// Reggie (role `registrar`: read:patient, write:patient) in Maple.
pub async fn registrar(sandbox: &Sandbox) -> String {
    support::user_token(sandbox, "reg@maple.example", support::DEMO_PASSWORD, None).await
}

/// Rita (role `rx_reader`: read:prescription only) in Maple.
pub async fn rx_reader(sandbox: &Sandbox) -> String {
    support::user_token(sandbox, "rita@maple.example", support::DEMO_PASSWORD, None).await
}

/// Maple's backend (machine token: everything but `write:prescription`).
pub async fn machine(sandbox: &Sandbox) -> String {
    let (id, secret) = support::MAPLE_BACKEND;
    support::machine_token(sandbox, id, secret).await
}

/// Ben, a prescriber in Birch Family Practice only.
pub async fn birch_prescriber(sandbox: &Sandbox) -> String {
    support::user_token(sandbox, support::BEN, support::DEMO_PASSWORD, None).await
}

/// Birch's backend.
pub async fn birch_machine(sandbox: &Sandbox) -> String {
    let (id, secret) = support::BIRCH_BACKEND;
    support::machine_token(sandbox, id, secret).await
}

// ------------------------------------------------------------------ documents

/// What a `Change` selects.
pub const CHANGE_FIELDS: &str = r#"
fragment ChangeFields on Change {
  key label status severity category operation reason
  options {
    __typename displayName reason operation argument value
    match { matchType confidence }
    ... on GenericChangeOption { matchReasons { type label confidence } }
    ... on PharmacyChangeOption { matchReasons { type label confidence } offers { source isPromoted priceSummary { priceType totalAmount totalRetailAmount totalSavings } prescriptionDeliveryEstimates { prescriptionId deliveryPromise } } }
  }
  detail {
    __typename
    ... on FieldChangeDetail { previousValue { displayValue } newValue { displayValue } }
    ... on EntityResolutionDetail { inputText resolvedEntityId }
    ... on PharmacyResolutionDetail { inputText resolvedEntityId offers { source } }
  }
}
"#;

/// What a `Patient` selects (demographic and clinical, whole).
pub const PATIENT_FIELDS: &str = r#"
fragment PatientFields on Patient {
  id
  demographic {
    name { title first middle last }
    dateOfBirth sex gender email phone
    address { street1 street2 city state postalCode country }
    benefits { id bin pcn groupId memberId }
    preferredPharmacy { id name }
  }
  clinical {
    allergies { id name rxNormId }
    medications { id name rxNormId status }
    diagnoses { id name icd10Code }
    notes
  }
}
"#;

/// What a `Prescription` selects.
pub const PRESCRIPTION_FIELDS: &str = r#"
fragment PrescriptionFields on Prescription {
  id status templateId
  patient { id }
  treatment { id name rxNormId ndc upc }
  instructions
  dispense { quantity unit daysSupply refillsAllowed dispenseAsWritten }
  clinical { diagnoses { id name icd10Code } notes }
  screeningAlerts {
    severity type description category
    involvedEntities { id name }
    options { displayName reason operation argument value }
  }
  signing { state contentHash message signedAt }
}
"#;

/// What an `Order` selects.
pub const ORDER_FIELDS: &str = r#"
fragment OrderFields on Order {
  id state
  patient { __typename ... on Patient { id } }
  prescriptions { id status signing { state } }
  pharmacy { id name }
  exceptions { id type message createdAt }
}
"#;

/// The refusals every result union shares.
const ERRORS: &str = r#"
    ... on OperationError { code message }
    ... on UnauthorizedError { requiredPermission }
    ... on UpstreamServiceError { service retryable }
"#;

/// `mutation { patient(patient, metadata) }` with the full selection set.
pub fn patient_doc() -> String {
    format!(
        r#"mutation Patient($patient: PatientInput!, $metadata: RequestMetadata!) {{
  patient(patient: $patient, metadata: $metadata) {{
    __typename
    ... on PatientPayload {{
      patient {{
        __typename
        ... on Patient {{ ...PatientFields }}
        ... on UpstreamServiceError {{ code message service retryable }}
      }}
      appliedChanges {{ ...ChangeFields }}
      unappliedChanges {{ ...ChangeFields }}
    }}
    ... on AmbiguousPatientMatch {{ reason candidates {{ id firstName lastName dateOfBirth }} }}
    {ERRORS}
  }}
}}
{PATIENT_FIELDS}
{CHANGE_FIELDS}"#
    )
}

/// `mutation { prescription(prescription, metadata) }` with the full selection set.
pub fn prescription_doc() -> String {
    format!(
        r#"mutation Prescription($prescription: PrescriptionInput!, $metadata: RequestMetadata!) {{
  prescription(prescription: $prescription, metadata: $metadata) {{
    __typename
    ... on PrescriptionPayload {{
      prescription {{ ...PrescriptionFields }}
      appliedChanges {{ ...ChangeFields }}
      unappliedChanges {{ ...ChangeFields }}
    }}
    ... on AmbiguousPrescriptionMatch {{
      reason
      candidates {{ id instructions dispense {{ quantity unit daysSupply refillsAllowed dispenseAsWritten }} }}
    }}
    {ERRORS}
  }}
}}
{PRESCRIPTION_FIELDS}
{CHANGE_FIELDS}"#
    )
}

/// `mutation { order(order, metadata) }` with the full selection set.
pub fn order_doc() -> String {
    format!(
        r#"mutation Order($order: OrderInput!, $metadata: RequestMetadata!) {{
  order(order: $order, metadata: $metadata) {{
    __typename
    ... on OrderPayload {{
      order {{ ...OrderFields }}
      appliedChanges {{ ...ChangeFields }}
      unappliedChanges {{ ...ChangeFields }}
    }}
    ... on AmbiguousOrderMatch {{ reason candidates {{ id pharmacyId prescriptionIds }} }}
    {ERRORS}
  }}
}}
{ORDER_FIELDS}
{CHANGE_FIELDS}"#
    )
}

static REQUESTS: AtomicUsize = AtomicUsize::new(0);

/// `RequestMetadata` of a direct API call by the tests, with a fresh `requestId`.
pub fn metadata() -> Value {
    let n = REQUESTS.fetch_add(1, Ordering::Relaxed);
    json!({ "source": "DIRECT_API", "client": "rxdesk-tests", "requestId": format!("req-test-{n}") })
}

// ------------------------------------------------------------------ HTTP

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
}

/// Posts a raw body to `/graphql` with an optional `Authorization` header value.
pub async fn post_raw(
    sandbox: &Sandbox,
    authorization: Option<&str>,
    body: reqwest::Body,
) -> Reply {
    let mut request = support::http()
        .post(support::endpoint(sandbox, "/graphql"))
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

/// `mutation { patient(patient: input) }`: the result object (a member of `PatientResult`).
pub async fn patient(sandbox: &Sandbox, token: &str, input: Value) -> Value {
    let variables = json!({ "patient": input, "metadata": metadata() });
    gql(sandbox, token, &patient_doc(), variables).await.data()["patient"].clone()
}

/// `mutation { prescription(prescription: input) }`: the result object.
pub async fn prescription(sandbox: &Sandbox, token: &str, input: Value) -> Value {
    let variables = json!({ "prescription": input, "metadata": metadata() });
    gql(sandbox, token, &prescription_doc(), variables)
        .await
        .data()["prescription"]
        .clone()
}

/// `mutation { order(order: input) }`: the result object.
pub async fn order(sandbox: &Sandbox, token: &str, input: Value) -> Value {
    let variables = json!({ "order": input, "metadata": metadata() });
    gql(sandbox, token, &order_doc(), variables).await.data()["order"].clone()
}

// ------------------------------------------------------------------ reading answers

/// Every change of a payload: applied first, then unapplied.
pub fn changes(result: &Value) -> Vec<Value> {
    let mut all = Vec::new();
    for list in ["appliedChanges", "unappliedChanges"] {
        if let Some(items) = result[list].as_array() {
            all.extend(items.iter().cloned());
        }
    }
    all
}

/// The change with `key`, applied or not; panics naming the answer when there is none.
pub fn change(result: &Value, key: &str) -> Value {
    changes(result)
        .into_iter()
        .find(|c| c["key"] == key)
        .unwrap_or_else(|| panic!("no change with key `{key}` in {result:#}"))
}

/// The change with `key` in `appliedChanges`.
pub fn applied(result: &Value, key: &str) -> Value {
    result["appliedChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("no appliedChanges in {result:#}"))
        .iter()
        .find(|c| c["key"] == key)
        .cloned()
        .unwrap_or_else(|| panic!("no applied change with key `{key}` in {result:#}"))
}

/// The change with `key` in `unappliedChanges`.
pub fn unapplied(result: &Value, key: &str) -> Value {
    result["unappliedChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("no unappliedChanges in {result:#}"))
        .iter()
        .find(|c| c["key"] == key)
        .cloned()
        .unwrap_or_else(|| panic!("no unapplied change with key `{key}` in {result:#}"))
}

/// The unapplied changes whose key starts with `prefix`.
pub fn unapplied_under(result: &Value, prefix: &str) -> Vec<Value> {
    result["unappliedChanges"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|c| c["key"].as_str().is_some_and(|k| k.starts_with(prefix)))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// Whether any change of the answer is `REJECTED` or `AMBIGUOUS` with `BLOCKING`.
pub fn has_blocking(result: &Value) -> bool {
    changes(result).iter().any(|c| c["severity"] == "BLOCKING")
}

/// The values of a change's options.
pub fn option_values(change: &Value) -> Vec<String> {
    change["options"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter_map(|o| o["value"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The ids of an Ambiguous*Match's candidates.
pub fn candidate_ids(result: &Value) -> Vec<String> {
    let mut ids: Vec<String> = result["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("no candidates in {result:#}"))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// `ids` sorted, owned.
pub fn sorted(ids: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

/// The patient record of a `PatientPayload` (`Value::Null` when none).
pub fn patient_of(result: &Value) -> &Value {
    assert_eq!(result["__typename"], "PatientPayload", "{result:#}");
    &result["patient"]
}

/// The prescription of a `PrescriptionPayload` (`Value::Null` when none).
pub fn prescription_of(result: &Value) -> &Value {
    assert_eq!(result["__typename"], "PrescriptionPayload", "{result:#}");
    &result["prescription"]
}

/// The order of an `OrderPayload` (`Value::Null` when none).
pub fn order_of(result: &Value) -> &Value {
    assert_eq!(result["__typename"], "OrderPayload", "{result:#}");
    &result["order"]
}

/// The ids of a list of records (`[{id}]`), sorted.
pub fn ids_of(list: &Value) -> Vec<String> {
    let mut ids: Vec<String> = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// `answer` as text with every occurrence of `id` replaced by `<id>`, to compare
/// the answer about one id with the answer about another.
pub fn with_id_masked(answer: &Value, id: &str) -> Value {
    let text = answer.to_string().replace(id, "<id>");
    serde_json::from_str(&text).unwrap()
}

/// `answer` with every record id (`pat_`, `rx_`, `ord_`, `ben_`, `exc_` and a
/// 26-character ULID) replaced by `<ulid>`: ids minted by a call that saved nothing
/// differ from call to call.
pub fn with_record_ids_masked(answer: &Value) -> Value {
    const PREFIXES: [&str; 5] = ["pat_", "rx_", "ord_", "ben_", "exc_"];
    let text = answer.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    'scan: while !rest.is_empty() {
        for prefix in PREFIXES {
            if let Some(tail) = rest.strip_prefix(prefix) {
                let ulid = tail.get(..26).unwrap_or_default();
                if ulid.len() == 26 && ulid.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    out.push_str(prefix);
                    out.push_str("<ulid>");
                    rest = &tail[26..];
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    serde_json::from_str(&out).unwrap()
}

// ------------------------------------------------------------------ inputs

/// Demographics enough to add someone: first, last, date of birth, sex; plus
/// email and a mobile phone.
pub fn demographic(first: &str, last: &str, date_of_birth: &str) -> Value {
    json!({
        "name": { "first": first, "last": last },
        "dateOfBirth": date_of_birth,
        "sex": "FEMALE",
        "email": format!("{}.{}@example.com", first.to_lowercase(), last.to_lowercase()),
        "phone": MOBILE,
    })
}

/// A complete dispense.
pub fn dispense() -> Value {
    json!({ "quantity": 30, "unit": "tablet", "daysSupply": 30, "refillsAllowed": 1, "dispenseAsWritten": false })
}

pub const INSTRUCTIONS: &str = "Take 1 tablet by mouth once daily.";

/// A draft input for `patient_id` and the catalog drug `treatment_id`, ready to sign.
pub fn draft_input(patient_id: &str, treatment_id: &str) -> Value {
    json!({
        "patient": { "id": patient_id },
        "treatment": { "id": treatment_id },
        "instructions": INSTRUCTIONS,
        "dispense": dispense(),
    })
}

// ------------------------------------------------------------------ builders

/// Adds a patient (Sync with `demographic`) and returns its id.
pub async fn add_patient_with(sandbox: &Sandbox, token: &str, demographic: Value) -> String {
    let r = patient(sandbox, token, json!({ "demographic": demographic })).await;
    let record = patient_of(&r);
    assert_eq!(
        record["__typename"], "Patient",
        "setup: adding a patient failed: {r:#}"
    );
    record["id"].as_str().unwrap().to_owned()
}

/// Adds `first last`, born `date_of_birth`, with email and a mobile phone.
pub async fn add_patient(
    sandbox: &Sandbox,
    token: &str,
    first: &str,
    last: &str,
    date_of_birth: &str,
) -> String {
    add_patient_with(sandbox, token, demographic(first, last, date_of_birth)).await
}

/// Updates `patient_id` with `clinical` and checks it applied.
pub async fn update_clinical(sandbox: &Sandbox, token: &str, patient_id: &str, clinical: Value) {
    let r = patient(
        sandbox,
        token,
        json!({ "id": patient_id, "clinical": clinical }),
    )
    .await;
    assert!(
        patient_of(&r)["__typename"] == "Patient" && !has_blocking(&r),
        "setup: updating the patient failed: {r:#}"
    );
}

/// Gets a patient: the `PatientPayload`.
pub async fn get_patient(sandbox: &Sandbox, token: &str, id: &str) -> Value {
    patient(sandbox, token, json!({ "id": id })).await
}

/// Drafts `input` and returns `(id, contentHash)`.
pub async fn draft_with(sandbox: &Sandbox, token: &str, input: Value) -> (String, String) {
    let r = prescription(sandbox, token, input).await;
    let rx = prescription_of(&r);
    assert!(
        rx["id"].is_string() && !has_blocking(&r),
        "setup: drafting failed: {r:#}"
    );
    (
        rx["id"].as_str().unwrap().to_owned(),
        rx["signing"]["contentHash"].as_str().unwrap().to_owned(),
    )
}

/// Drafts the catalog drug `treatment_id` for `patient_id` (complete, signable).
pub async fn draft(
    sandbox: &Sandbox,
    token: &str,
    patient_id: &str,
    treatment_id: &str,
) -> (String, String) {
    draft_with(sandbox, token, draft_input(patient_id, treatment_id)).await
}

/// `{ id, signing: { signedHash } }`: the answer.
pub async fn sign(sandbox: &Sandbox, token: &str, id: &str, hash: &str) -> Value {
    prescription(
        sandbox,
        token,
        json!({ "id": id, "signing": { "signedHash": hash } }),
    )
    .await
}

/// Signs and checks it is signed.
pub async fn sign_ok(sandbox: &Sandbox, prescriber_token: &str, id: &str, hash: &str) {
    let r = sign(sandbox, prescriber_token, id, hash).await;
    assert_eq!(
        prescription_of(&r)["signing"]["state"],
        "SIGNED",
        "setup: signing failed: {r:#}"
    );
}

/// Drafts and signs `treatment_id` for `patient_id`; returns the prescription's id.
pub async fn signed(
    sandbox: &Sandbox,
    prescriber_token: &str,
    patient_id: &str,
    treatment_id: &str,
) -> String {
    let (id, hash) = draft(sandbox, prescriber_token, patient_id, treatment_id).await;
    sign_ok(sandbox, prescriber_token, &id, &hash).await;
    id
}

/// Gets a prescription: the `PrescriptionPayload`.
pub async fn get_prescription(sandbox: &Sandbox, token: &str, id: &str) -> Value {
    prescription(sandbox, token, json!({ "id": id })).await
}

/// Syncs a draft order for `patient_id` with `prescription_ids`; returns its id.
pub async fn draft_order(
    sandbox: &Sandbox,
    token: &str,
    patient_id: &str,
    prescription_ids: &[&str],
) -> String {
    let r = order(sandbox, token, order_sync(patient_id, prescription_ids)).await;
    let o = order_of(&r);
    assert!(
        o["id"].is_string() && !has_blocking(&r),
        "setup: drafting the order failed: {r:#}"
    );
    o["id"].as_str().unwrap().to_owned()
}

/// A Sync input: `{ patient: { id }, prescriptions: { add: [{ id }…] } }`.
pub fn order_sync(patient_id: &str, prescription_ids: &[&str]) -> Value {
    json!({
        "patient": { "id": patient_id },
        "prescriptions": { "add": prescription_ids.iter().map(|id| json!({ "id": id })).collect::<Vec<_>>() },
    })
}

/// `{ id, state }`: the answer.
pub async fn set_order_state(sandbox: &Sandbox, token: &str, id: &str, state: &str) -> Value {
    order(sandbox, token, json!({ "id": id, "state": state })).await
}

/// Sends and checks it is submitted.
pub async fn send_ok(sandbox: &Sandbox, token: &str, id: &str) -> Value {
    let r = set_order_state(sandbox, token, id, "SUBMITTED").await;
    assert_eq!(
        order_of(&r)["state"],
        "SUBMITTED",
        "setup: sending failed: {r:#}"
    );
    r
}

/// Gets an order: the `OrderPayload`.
pub async fn get_order(sandbox: &Sandbox, token: &str, id: &str) -> Value {
    order(sandbox, token, json!({ "id": id })).await
}
