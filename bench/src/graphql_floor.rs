//! The API figure's second reference: the smallest async-graphql server that
//! answers the bench's patient Get with the very bytes the sandbox answers.
//!
//! Its schema has only what the Get selects (the same type names, unions and
//! fields); its one resolver returns a constant patient read from the
//! sandbox's own answer; each distinct document is parsed once, as the
//! sandbox does, and async-graphql validates each request in its Fast mode.
//! It reads no token, no store and no rules of the network's contract. What
//! it costs over the bare handler is what async-graphql and JSON cost any
//! server of this Get; what the sandbox costs over it is the sandbox's own.
//!
//! What does not live here: the load, the bare handler and the rows
//! (`api.rs`).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use anyhow::{Context as _, Result, bail};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{
    EmptySubscription, Enum, ID, InputObject, Object, Schema, SimpleObject, Union, ValidationMode,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// `HumanName`, as the Get selects it.
#[derive(Debug, Clone, SimpleObject, Deserialize)]
struct HumanName {
    first: Option<String>,
    last: Option<String>,
}

/// `PatientDemographic`, as the Get selects it. Dates and the sex are
/// strings here: the answer's JSON is the same.
#[derive(Debug, Clone, SimpleObject, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PatientDemographic {
    name: HumanName,
    date_of_birth: Option<String>,
    sex: Option<String>,
    phone: Option<String>,
    email: Option<String>,
}

/// An allergy, a medication or a diagnosis: the Get selects their names.
#[derive(Debug, Clone, SimpleObject, Deserialize)]
struct Named {
    name: String,
}

/// `PatientClinical`, as the Get selects it.
#[derive(Debug, Clone, SimpleObject, Deserialize)]
struct PatientClinical {
    allergies: Vec<Named>,
    medications: Vec<Named>,
    diagnoses: Vec<Named>,
}

/// `Patient`, as the Get selects it.
#[derive(Debug, Clone, SimpleObject, Deserialize)]
struct Patient {
    id: ID,
    demographic: Option<PatientDemographic>,
    clinical: Option<PatientClinical>,
}

#[derive(Debug, Clone, SimpleObject)]
struct UpstreamServiceError {
    code: String,
    message: String,
}

#[derive(Debug, Clone, SimpleObject)]
struct UnauthorizedError {
    code: String,
    message: String,
}

#[derive(Debug, Clone, Union)]
enum PatientRecordResult {
    Patient(Patient),
    UpstreamServiceError(UpstreamServiceError),
}

#[derive(Debug, Clone, SimpleObject)]
struct PatientPayload {
    patient: Option<PatientRecordResult>,
}

#[derive(Debug, Clone, Union)]
enum PatientResult {
    PatientPayload(PatientPayload),
    UnauthorizedError(UnauthorizedError),
}

#[derive(Debug, InputObject)]
struct PatientInput {
    #[allow(dead_code)] // Read by async-graphql's coercion, as the sandbox's is.
    id: Option<ID>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
enum RequestSource {
    DirectApi,
    WebApp,
}

#[derive(Debug, InputObject)]
#[allow(dead_code)] // Read by async-graphql's coercion, as the sandbox's is.
struct RequestMetadata {
    source: RequestSource,
    client: Option<String>,
}

struct Query;

#[Object]
impl Query {
    async fn ping(&self) -> Option<String> {
        Some("pong".to_owned())
    }
}

/// The one resolver: the constant patient.
struct Mutation(Patient);

#[Object]
impl Mutation {
    async fn patient(&self, _patient: PatientInput, _metadata: RequestMetadata) -> PatientResult {
        PatientResult::PatientPayload(PatientPayload {
            patient: Some(PatientRecordResult::Patient(self.0.clone())),
        })
    }
}

type FloorSchema = Schema<Query, Mutation, EmptySubscription>;

/// The server's state: the schema and the one document it has parsed.
struct Floor {
    schema: FloorSchema,
    parsed: OnceLock<(String, ExecutableDocument)>,
}

/// Serves the floor on a loopback port until the process ends, after
/// checking that it answers `body` with exactly `answer`.
pub async fn serve(http: &reqwest::Client, body: &Bytes, answer: &Bytes) -> Result<SocketAddr> {
    let patient = patient_of(answer)?;
    let floor = Arc::new(Floor {
        schema: Schema::build(Query, Mutation(patient), EmptySubscription)
            .validation_mode(ValidationMode::Fast)
            .finish(),
        parsed: OnceLock::new(),
    });
    let app = axum::Router::new()
        .route("/graphql", axum::routing::post(execute))
        .with_state(floor);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("bench: the async-graphql floor stopped: {e}");
        }
    });
    let url = url::Url::parse(&format!("http://{addr}/graphql"))?;
    let answered = crate::api::post_get(http, &url, "", body).await?;
    if answered != *answer {
        bail!(
            "the async-graphql floor answers other bytes than the sandbox: {}",
            String::from_utf8_lossy(&answered)
        );
    }
    Ok(addr)
}

/// The patient inside the sandbox's answer to the Get.
fn patient_of(answer: &[u8]) -> Result<Patient> {
    let mut answer: serde_json::Value = serde_json::from_slice(answer)?;
    let patient = answer
        .pointer_mut("/data/patient/patient")
        .map(serde_json::Value::take)
        .context("the sandbox's answer holds no patient")?;
    serde_json::from_value(patient).context("the sandbox's patient is not of the Get's shape")
}

async fn execute(State(floor): State<Arc<Floor>>, body: Bytes) -> Response {
    let mut request: async_graphql::Request = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(_) => return axum::http::StatusCode::BAD_REQUEST.into_response(),
    };
    if let Some(parsed) = parsed_once(&floor, &request.query) {
        request.set_parsed_query(parsed);
    }
    let response = floor.schema.execute(request).await;
    match serde_json::to_vec(&response) {
        Ok(json) => (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            json,
        )
            .into_response(),
        Err(_) => axum::http::StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The document's parse: made by the first request, cloned for the next ones
/// with the same text (the sandbox keeps each distinct document's parse too).
fn parsed_once(floor: &Floor, query: &str) -> Option<ExecutableDocument> {
    let (text, parsed) = match floor.parsed.get() {
        Some(cached) => cached,
        None => {
            let parsed = async_graphql::parser::parse_query(query).ok()?;
            floor.parsed.get_or_init(|| (query.to_owned(), parsed))
        }
    };
    (text == query).then(|| parsed.clone())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_constant_patient_is_read_from_the_sandboxs_answer() {
        let answer = br#"{"data":{"patient":{"__typename":"PatientPayload","patient":{"__typename":"Patient","id":"pat_1","demographic":{"name":{"first":"Imogen","last":"Throughput"},"dateOfBirth":"1968-03-14","sex":"FEMALE","phone":"+16175550188","email":null},"clinical":{"allergies":[],"medications":[],"diagnoses":[]}}}}}"#;

        let patient = patient_of(answer).unwrap();

        assert_eq!(patient.id.as_str(), "pat_1");
        let demographic = patient.demographic.unwrap();
        assert_eq!(demographic.name.last.as_deref(), Some("Throughput"));
        assert_eq!(demographic.date_of_birth.as_deref(), Some("1968-03-14"));
    }

    #[test]
    fn an_answer_without_a_patient_is_an_error() {
        let refused = br#"{"data":{"patient":{"__typename":"UnauthorizedError","code":"FORBIDDEN","message":"no"}}}"#;

        assert!(patient_of(refused).is_err());
    }
}
