//! Limits: pages (`first` defaults to 25, more than 100 is refused), cursors,
//! query depth and complexity, parser nesting, batch size and body size. Abusive
//! requests get GraphQL errors with a code (or a 4xx for an oversized body),
//! never a 5xx.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use serde_json::json;

async fn sandbox_with_patients(n: usize) -> (rxdesk_sandbox::Sandbox, MapleTokens) {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    for _ in 0..n {
        new_patient(&sandbox, &tokens.machine).await;
    }
    (sandbox, tokens)
}

const PAGE: &str = "query($after: String, $first: Int) {
    patients(after: $after, first: $first) { nodes { id } pageInfo { hasNextPage endCursor } }
}";

#[tokio::test]
async fn a_list_returns_25_records_by_default_and_says_there_are_more() {
    let (sandbox, tokens) = sandbox_with_patients(30).await;

    let reply = gql(&sandbox, &tokens.machine, PAGE, json!({})).await;

    let page = &reply.data()["patients"];
    assert_eq!(page["nodes"].as_array().unwrap().len(), 25);
    assert_eq!(page["pageInfo"]["hasNextPage"], true);
}

#[tokio::test]
async fn the_end_cursor_continues_where_the_page_stopped() {
    let (sandbox, tokens) = sandbox_with_patients(30).await;
    let first = gql(&sandbox, &tokens.machine, PAGE, json!({}))
        .await
        .data()
        .clone();
    let cursor = first["patients"]["pageInfo"]["endCursor"].clone();

    let second = gql(&sandbox, &tokens.machine, PAGE, json!({ "after": cursor })).await;

    let rest = &second.data()["patients"];
    assert_eq!(rest["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(rest["pageInfo"]["hasNextPage"], false);
    let seen: std::collections::HashSet<_> = first["patients"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["nodes"].as_array().unwrap())
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen.len(), 30);
}

#[tokio::test]
async fn first_100_is_accepted() {
    let (sandbox, tokens) = sandbox_with_patients(3).await;

    let reply = gql(&sandbox, &tokens.machine, PAGE, json!({ "first": 100 })).await;

    assert_eq!(
        reply.data()["patients"]["nodes"].as_array().unwrap().len(),
        3
    );
}

#[tokio::test]
async fn first_over_100_is_refused_with_invalid_input_on_first() {
    let (sandbox, tokens) = sandbox_with_patients(0).await;

    let reply = gql(&sandbox, &tokens.machine, PAGE, json!({ "first": 101 })).await;

    assert_eq!(reply.status, 200);
    assert_eq!(reply.error_code(), "INVALID_INPUT");
    assert_eq!(reply.error()["extensions"]["field"], "first");
}

#[tokio::test]
async fn a_negative_first_is_refused() {
    let (sandbox, tokens) = sandbox_with_patients(0).await;

    let reply = gql(&sandbox, &tokens.machine, PAGE, json!({ "first": -1 })).await;

    assert_eq!(reply.error_code(), "INVALID_INPUT");
}

#[tokio::test]
async fn a_cursor_not_made_by_the_api_is_refused_with_invalid_input_on_after() {
    let (sandbox, tokens) = sandbox_with_patients(0).await;

    let reply = gql(
        &sandbox,
        &tokens.machine,
        PAGE,
        json!({ "after": "garbage" }),
    )
    .await;

    assert_eq!(reply.error_code(), "INVALID_INPUT");
    assert_eq!(reply.error()["extensions"]["field"], "after");
}

#[tokio::test]
async fn a_query_deeper_than_the_limit_is_a_graphql_error() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let deep = format!(
        "{{ __schema {{ types {{ fields {{ type {{ {} name {} }} }} }} }} }}",
        "ofType {".repeat(20),
        "}".repeat(20)
    );

    let reply = gql(&sandbox, &tokens.machine, &deep, json!({})).await;

    assert_eq!(reply.status, 200);
    assert!(reply.body["data"].is_null());
    assert_eq!(reply.error_code(), "GRAPHQL_VALIDATION_FAILED");
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
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let reply = gql(&sandbox, &tokens.machine, INTROSPECTION, json!({})).await;

    assert_eq!(reply.data()["__schema"]["mutationType"]["name"], "Mutation");
}

#[tokio::test]
async fn thousands_of_nested_selections_are_a_graphql_error_not_a_crash() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let nested = format!("{}{}", "{a".repeat(15_000), "}".repeat(15_000));

    let reply = gql(&sandbox, &tokens.machine, &nested, json!({})).await;

    assert_eq!(reply.status, 200);
    assert_eq!(reply.error_code(), "GRAPHQL_VALIDATION_FAILED");
    // The sandbox still answers.
    assert_eq!(
        gql(&sandbox, &tokens.machine, "{ ping }", json!({}))
            .await
            .data()["ping"],
        "pong"
    );
}

#[tokio::test]
async fn thousands_of_aliased_fields_exceed_the_complexity_limit() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let fields: String = (0..6000).map(|i| format!("a{i}:ping ")).collect();
    let huge = format!("{{ {fields} }}");
    assert!(huge.len() < 64 * 1024);

    let reply = gql(&sandbox, &tokens.machine, &huge, json!({})).await;

    assert_eq!(reply.status, 200);
    assert!(reply.body["data"].is_null());
    assert_eq!(reply.error_code(), "GRAPHQL_VALIDATION_FAILED");
    assert!(
        reply.error()["message"]
            .as_str()
            .unwrap()
            .contains("complex")
    );
}

#[tokio::test]
async fn large_pages_of_nested_records_exceed_the_complexity_limit() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let order = "nodes { id state patient { id name { first last full } }
        fills { id state prescription { id state instructions patient { id name { full } } treatment { id name } } } }";
    let heavy = format!(
        "{{ a: orders(first: 100) {{ {order} }} b: orders(first: 100) {{ {order} }} c: orders(first: 100) {{ {order} }} }}"
    );
    let heavy = heavy.as_str();

    let reply = gql(&sandbox, &tokens.machine, heavy, json!({})).await;

    assert_eq!(reply.status, 200);
    assert_eq!(reply.error_code(), "GRAPHQL_VALIDATION_FAILED");
}

#[tokio::test]
async fn the_same_selection_with_small_pages_is_accepted() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let order = "nodes { id state patient { id name { first last full } }
        fills { id state prescription { id state instructions patient { id name { full } } treatment { id name } } } }";
    let light = format!(
        "{{ a: orders(first: 10) {{ {order} }} b: orders(first: 10) {{ {order} }} c: orders(first: 10) {{ {order} }} }}"
    );

    let reply = gql(&sandbox, &tokens.machine, &light, json!({})).await;

    assert_eq!(reply.data()["a"]["nodes"], json!([]));
}

#[tokio::test]
async fn signing_more_than_100_prescriptions_at_once_is_refused() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let ids: Vec<String> = (0..101).map(|i| format!("rx_{i}")).collect();

    let reply = gql(
        &sandbox,
        &tokens.prescriber,
        &sign_prescriptions_doc(),
        json!({ "ids": ids }),
    )
    .await;

    assert_eq!(reply.status, 200);
    assert_eq!(reply.error_code(), "INVALID_INPUT");
    assert_eq!(reply.error()["extensions"]["field"], "ids");
}

#[tokio::test]
async fn a_body_over_64_kib_with_a_content_length_is_refused_with_a_graphql_shaped_413() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let padding = " ".repeat(70 * 1024);
    let body = json!({ "query": format!("{{ ping {padding} }}") }).to_string();

    let reply = post_raw(
        &sandbox,
        Some(&format!("Bearer {}", tokens.machine)),
        body.into(),
    )
    .await;

    assert_eq!(reply.status, 413);
    assert_eq!(
        reply.body,
        json!({ "errors": [{
            "message": "The request body is larger than 65536 bytes",
            "extensions": { "code": "REQUEST_TOO_LARGE" }
        }] })
    );
    let after = gql(&sandbox, &tokens.machine, "{ ping }", json!({})).await;
    assert_eq!(after.data()["ping"], "pong", "the server stays up");
}

#[tokio::test]
async fn a_chunked_body_over_64_kib_is_refused_with_a_graphql_shaped_413() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let mut stream = tokio::net::TcpStream::connect(sandbox.addr())
        .await
        .unwrap();
    let head = format!(
        "POST /legacy/graphql HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        sandbox.addr(),
        tokens.machine
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
}

#[tokio::test]
async fn a_body_that_is_not_a_graphql_request_is_a_400_with_a_code() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let reply = post_raw(
        &sandbox,
        Some(&format!("Bearer {}", tokens.machine)),
        "{\"nope\": 1}".into(),
    )
    .await;

    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), "BAD_REQUEST");
}
