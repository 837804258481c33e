//! What the in-process figures share: the Network API documents the bench
//! sends (a patient Get, a draft) and the set-up calls made with them. The
//! machine token and the GraphQL call itself are the e2e harness's
//! ([`rxdesk_e2e::services`]).

use anyhow::{Result, bail};
use rxdesk_e2e::services::{SYNC_PATIENT, graphql};
use url::Url;

/// The built-in demo fixture's backend (client id, secret), which the
/// in-process sandbox of the API and machine-token figures serves.
pub const MAPLE_BACKEND: (&str, &str) = ("maple-backend", "maple-backend-secret");

/// The patient Get: `patient(patient: { id })` — reads, changes nothing.
pub const GET_PATIENT: &str = "mutation Get($patient: PatientInput!, $metadata: RequestMetadata!) { \
    patient(patient: $patient, metadata: $metadata) { __typename \
    ... on PatientPayload { patient { __typename ... on Patient { id \
    demographic { name { first last } dateOfBirth sex phone email } \
    clinical { allergies { name } medications { name } diagnoses { name } } } } } \
    ... on UnauthorizedError { code message } } }";

/// A draft from a drug: its id and the content hash a prescriber signs.
const DRAFT: &str = "mutation Draft($prescription: PrescriptionInput!, $metadata: RequestMetadata!) { \
    prescription(prescription: $prescription, metadata: $metadata) { __typename \
    ... on PrescriptionPayload { prescription { id signing { state contentHash } } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

/// The Network API's request metadata, as a backend sends it.
pub fn metadata() -> serde_json::Value {
    serde_json::json!({ "source": "DIRECT_API", "client": "rxdesk-bench" })
}

/// The request body of a Get of `patient_id`.
pub fn get_patient_body(patient_id: &str) -> serde_json::Value {
    serde_json::json!({
        "query": GET_PATIENT,
        "variables": { "patient": { "id": patient_id }, "metadata": metadata() },
    })
}

/// Adds a patient (a Sync of someone new); returns the id.
pub async fn add_patient(
    http: &reqwest::Client,
    origin: &Url,
    token: &str,
    (first, last): (&str, &str),
) -> Result<String> {
    let data = graphql(
        http,
        origin,
        token,
        SYNC_PATIENT,
        serde_json::json!({
            "patient": { "demographic": {
                "name": { "first": first, "last": last },
                "dateOfBirth": "1968-03-14",
                "sex": "FEMALE",
                "phone": "+16175550188",
            }},
            "metadata": metadata(),
        }),
    )
    .await?;
    let id = data["patient"]["patient"]["id"]
        .as_str()
        .unwrap_or_default();
    if id.is_empty() {
        bail!("the patient was not added: {data}");
    }
    Ok(id.to_owned())
}

/// A signable draft (azithromycin, which screens clean without allergies) for
/// `patient_id`; returns `(id, content hash)`.
pub async fn add_draft(
    http: &reqwest::Client,
    origin: &Url,
    token: &str,
    patient_id: &str,
) -> Result<(String, String)> {
    let data = graphql(
        http,
        origin,
        token,
        DRAFT,
        serde_json::json!({
            "prescription": {
                "patient": { "id": patient_id },
                "treatment": { "id": "med_azithromycin_250_tab" },
                "instructions": "Take 2 tablets on day 1, then 1 daily",
                "dispense": { "quantity": 6, "unit": "tablet", "daysSupply": 5 },
            },
            "metadata": metadata(),
        }),
    )
    .await?;
    let p = &data["prescription"]["prescription"];
    match (p["id"].as_str(), p["signing"]["contentHash"].as_str()) {
        (Some(id), Some(hash)) => Ok((id.to_owned(), hash.to_owned())),
        _ => bail!("no draft: {data}"),
    }
}

/// A search by name as the app sends one (partial demographics, never sex, so
/// nobody is added): answers how many candidates came back.
const FIND_BY_NAME: &str = "mutation Find($patient: PatientInput!, $metadata: RequestMetadata!) { \
    patient(patient: $patient, metadata: $metadata) { __typename \
    ... on AmbiguousPatientMatch { candidates { __typename } } \
    ... on PatientPayload { patient { __typename } } \
    ... on UnauthorizedError { code message } } }";

/// Searches for `first last` the way the app's search box does.
pub async fn find_by_name(
    http: &reqwest::Client,
    origin: &Url,
    token: &str,
    (first, last): (&str, &str),
) -> Result<()> {
    let data = graphql(
        http,
        origin,
        token,
        FIND_BY_NAME,
        serde_json::json!({
            "patient": { "demographic": { "name": { "first": first, "last": last } } },
            "metadata": metadata(),
        }),
    )
    .await?;
    if data["patient"]["__typename"] == "UnauthorizedError" {
        bail!("the search was refused: {data}");
    }
    Ok(())
}
