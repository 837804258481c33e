//! The limits of `POST /graphql`: query depth and complexity, parser nesting, one
//! request per body, and bodies over 64 KiB however they are sent. An abusive
//! request gets a coded GraphQL error (or a 4xx for the body itself), never a
//! 5xx, and the sandbox keeps answering.

use crate::network_support;

use network_support::{Reply, gql, machine, post_raw, start};
use rxdesk_sandbox::Sandbox;
use serde_json::json;

fn error_code(reply: &Reply) -> &str {
    reply.body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {}", reply.body))
}

async fn assert_still_answering(sandbox: &Sandbox, token: &str) {
    let after = gql(sandbox, token, "query { ping }", json!({})).await;
    assert_eq!(after.data()["ping"], "pong", "the sandbox still answers");
}

#[tokio::test]
async fn a_query_deeper_than_the_limit_is_a_graphql_error_without_data() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;
    let deep = format!(
        "{{ __schema {{ types {{ fields {{ type {{ {} name {} }} }} }} }} }}",
        "ofType {".repeat(20),
        "}".repeat(20)
    );

    let reply = gql(&sandbox, &token, &deep, json!({})).await;

    assert_eq!(reply.status, 200);
    assert!(reply.body["data"].is_null(), "{}", reply.body);
    assert_eq!(error_code(&reply), "GRAPHQL_VALIDATION_FAILED");
}

/// The introspection query GraphQL tooling sends (graphql-js's, trimmed of descriptions).
const INTROSPECTION: &str = "query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name
  fields(includeDeprecated: true) { name args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name
    ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
}";

#[tokio::test]
async fn the_standard_introspection_query_fits_within_the_limits() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;

    let reply = gql(&sandbox, &token, INTROSPECTION, json!({})).await;

    assert_eq!(reply.data()["__schema"]["mutationType"]["name"], "Mutation");
}

#[tokio::test]
async fn thousands_of_nested_selections_are_a_graphql_error_not_a_crash() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;
    let nested = format!("{}{}", "{a".repeat(15_000), "}".repeat(15_000));

    let reply = gql(&sandbox, &token, &nested, json!({})).await;

    assert_eq!(reply.status, 200);
    assert_eq!(error_code(&reply), "GRAPHQL_VALIDATION_FAILED");
    assert_still_answering(&sandbox, &token).await;
}

#[tokio::test]
async fn thousands_of_aliased_fields_exceed_the_complexity_limit() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;
    let fields: String = (0..6000).map(|i| format!("a{i}:ping ")).collect();
    let huge = format!("{{ {fields} }}");
    assert!(huge.len() < 64 * 1024);

    let reply = gql(&sandbox, &token, &huge, json!({})).await;

    assert_eq!(reply.status, 200);
    assert!(reply.body["data"].is_null(), "{}", reply.body);
    assert_eq!(error_code(&reply), "GRAPHQL_VALIDATION_FAILED");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("complex"), "{message}");
}

#[tokio::test]
async fn a_batch_of_requests_in_one_body_is_a_400_with_a_code() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;
    let batch = json!([{ "query": "query { ping }" }, { "query": "query { ping }" }]);

    let reply = post_raw(
        &sandbox,
        Some(&format!("Bearer {token}")),
        batch.to_string().into(),
    )
    .await;

    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(error_code(&reply), "BAD_REQUEST");
    assert!(reply.body.get("data").is_none(), "{}", reply.body);
}

#[tokio::test]
async fn a_body_that_is_not_a_graphql_request_is_a_400_with_a_code() {
    let sandbox = start().await;
    let token = machine(&sandbox).await;

    let reply = post_raw(
        &sandbox,
        Some(&format!("Bearer {token}")),
        "{\"nope\": 1}".into(),
    )
    .await;

    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), "BAD_REQUEST");
}

#[tokio::test]
async fn a_chunked_body_over_64_kib_is_refused_with_a_graphql_shaped_413() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let sandbox = start().await;
    let token = machine(&sandbox).await;
    let mut stream = tokio::net::TcpStream::connect(sandbox.addr())
        .await
        .unwrap();
    let head = format!(
        "POST /graphql HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        sandbox.addr(),
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = format!("400\r\n{}\r\n", " ".repeat(1024));
    for _ in 0..80 {
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break; // the server may answer and close before the whole body is sent
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;

    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response);

    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(response.contains("REQUEST_TOO_LARGE"), "{response}");
    assert_still_answering(&sandbox, &token).await;
}
