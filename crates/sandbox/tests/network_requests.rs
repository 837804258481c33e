//! Whole requests to the Network API (docs/network-api.md, the `ping` query and
//! "Whole-request failures"): what comes back before any operation runs.

use crate::network_support;

use network_support::*;
use serde_json::{Value, json};

fn ping_body() -> reqwest::Body {
    json!({ "query": "query { ping }" }).to_string().into()
}

fn error_code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {body}"))
}

/// The request was refused before any field ran: a validation error, no data.
fn assert_refused_whole(reply: &Reply) {
    assert_eq!(reply.status, 200);
    assert_eq!(
        error_code(&reply.body),
        "GRAPHQL_VALIDATION_FAILED",
        "{}",
        reply.body
    );
    assert!(
        reply.body.get("data").is_none_or(Value::is_null),
        "{}",
        reply.body
    );
}

#[tokio::test]
async fn ping_answers_pong() {
    let sb = start().await;
    let token = machine(&sb).await;

    let reply = gql(&sb, &token, "query { ping }", json!({})).await;

    assert_eq!(reply.data()["ping"], "pong");
}

#[tokio::test]
async fn a_request_without_authorization_is_401_with_a_bearer_challenge() {
    let sb = start().await;

    let reply = post_raw(&sb, None, ping_body()).await;

    assert_eq!(reply.status, 401);
    let challenge = reply
        .headers
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    assert!(
        challenge.is_some_and(|c| c.starts_with("Bearer")),
        "{:?}",
        reply.headers
    );
    assert_eq!(
        reply.body,
        json!({"errors":[{"message":"Authentication token is not present","extensions":{"code":"EMPTY_AUTHORIZATION_HEADER"}}]})
    );
}

#[tokio::test]
async fn a_malformed_token_is_401_invalid_authorization_header() {
    let sb = start().await;

    let reply = post_raw(&sb, Some("Bearer not-a-token"), ping_body()).await;

    assert_eq!(reply.status, 401, "{}", reply.body);
    assert!(reply.headers.contains_key("www-authenticate"));
    assert_eq!(error_code(&reply.body), "INVALID_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn a_forged_token_is_401_invalid_authorization_header() {
    let sb = start().await;
    let token = machine(&sb).await;
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    parts[2] = parts[2].chars().rev().collect();
    let forged = parts.join(".");

    let reply = post_raw(&sb, Some(&format!("Bearer {forged}")), ping_body()).await;

    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(error_code(&reply.body), "INVALID_AUTHORIZATION_HEADER");
}

#[tokio::test]
async fn an_unknown_field_is_a_validation_error_without_data() {
    let sb = start().await;
    let token = machine(&sb).await;

    let reply = gql(&sb, &token, "query { ping pong }", json!({})).await;

    assert_refused_whole(&reply);
}

#[tokio::test]
async fn a_string_where_an_int_belongs_is_a_validation_error_without_data() {
    let sb = start().await;
    let token = machine(&sb).await;
    let query = r#"mutation { prescription(prescription: { dispense: { daysSupply: "thirty" } }, metadata: { source: DIRECT_API }) { __typename } }"#;

    let reply = gql(&sb, &token, query, json!({})).await;

    assert_refused_whole(&reply);
}

/// Variables are checked against the types the document declares before any
/// field runs, as a literal argument is.
#[tokio::test]
async fn a_variable_that_does_not_fit_its_type_is_a_validation_error_without_data() {
    let sb = start().await;
    let token = machine(&sb).await;
    let variables = json!({
        "patient": { "demographic": { "sex": "SOMETIMES" } },
        "metadata": metadata(),
    });

    let reply = gql(&sb, &token, &patient_doc(), variables).await;

    assert_refused_whole(&reply);
}

#[tokio::test]
async fn a_request_with_one_ill_typed_variable_runs_none_of_its_fields() {
    let sb = start().await;
    let token = machine(&sb).await;
    let two = "mutation Two($a: PatientInput!, $b: PatientInput!, $m: RequestMetadata!) { \
        a: patient(patient: $a, metadata: $m) { __typename } \
        b: patient(patient: $b, metadata: $m) { __typename } }";
    let variables = json!({
        "a": { "demographic": demographic("Grace", "Hopper", "1980-05-17") },
        "b": { "demographic": { "name": { "first": 7 } } },
        "m": metadata(),
    });

    let reply = gql(&sb, &token, two, variables).await;

    assert_refused_whole(&reply);
    let search = json!({ "demographic": {
        "name": { "first": "Grace", "last": "Hopper" },
        "dateOfBirth": "1980-05-17",
    } });
    let found = patient(&sb, &token, search).await;
    assert!(patient_of(&found).is_null(), "Grace was added: {found:#}");
}

/// A string literal is not an enum value in GraphQL (`sex: FEMALE`, not `"FEMALE"`).
#[tokio::test]
async fn a_string_where_an_enum_belongs_is_a_validation_error_without_data() {
    let sb = start().await;
    let token = machine(&sb).await;
    let query = r#"mutation { patient(patient: { demographic: { sex: "FEMALE" } }, metadata: { source: DIRECT_API }) { __typename } }"#;

    let reply = gql(&sb, &token, query, json!({})).await;

    assert_refused_whole(&reply);
}

#[tokio::test]
async fn a_body_over_64_kib_is_413_request_too_large_and_the_sandbox_keeps_answering() {
    let sb = start().await;
    let token = machine(&sb).await;
    let padding = " ".repeat(65 * 1024);
    let body = json!({ "query": format!("query {{ ping }}{padding}") }).to_string();

    let reply = post_raw(&sb, Some(&format!("Bearer {token}")), body.into()).await;

    assert_eq!(reply.status, 413);
    assert_eq!(
        reply.body,
        json!({ "errors": [{
            "message": "The request body is larger than 65536 bytes",
            "extensions": { "code": "REQUEST_TOO_LARGE" }
        }] })
    );
    let after = gql(&sb, &token, "query { ping }", json!({})).await;
    assert_eq!(after.data()["ping"], "pong");
}
