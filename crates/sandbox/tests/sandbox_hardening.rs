//! The local sandbox is not an open door: it answers only to loopback names
//! (against DNS rebinding), keeps its data owner-only, and names itself on every
//! authorization response (RFC 9207, against authorization-server mix-up).

use crate::support;

use support::*;

#[tokio::test]
async fn a_request_naming_another_host_is_turned_away() {
    let sandbox = start_demo().await;

    let rebound = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .header(
            "host",
            format!("attacker.example:{}", sandbox.addr().port()),
        )
        .send()
        .await
        .unwrap();
    let loopback = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap();

    assert_eq!(rebound.status(), 421);
    assert_eq!(loopback.status(), 200);
}

#[cfg(unix)]
#[tokio::test]
async fn the_data_directory_and_database_are_owner_only() {
    use rxdesk_sandbox::{Config, Storage};
    use std::os::unix::fs::PermissionsExt as _;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let sandbox = start_with(Config {
        storage: Storage::Data(dir.clone()),
        ..Config::in_memory()
    })
    .await;
    let (id, secret) = MAPLE_BACKEND;
    machine_token(&sandbox, id, secret).await;

    let mode = |name: &str| {
        std::fs::metadata(dir.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };

    assert_eq!(
        std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(mode("sandbox.db"), 0o600);
    for name in ["sandbox.db-wal", "sandbox.db-shm"] {
        if dir.join(name).exists() {
            assert_eq!(mode(name), 0o600, "{name}");
        }
    }
}

#[tokio::test]
async fn every_authorization_response_names_the_issuer() {
    let sandbox = start_demo().await;
    let flow = Flow::new(&sandbox);
    let browser = browser();
    let issuer = sandbox.url().as_str().trim_end_matches('/').to_owned();

    let cancelled = flow
        .open(&browser)
        .await
        .submit(&browser, "Cancel", &[])
        .await;
    let discovery: serde_json::Value = http()
        .get(endpoint(&sandbox, "/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    let query = query_map(&cancelled.location().expect("a redirect"));
    assert_eq!(query.get("iss"), Some(&issuer));
    assert_eq!(
        discovery["authorization_response_iss_parameter_supported"],
        true
    );
}

#[tokio::test]
async fn a_direction_override_in_any_text_is_refused_naming_the_field() {
    let sandbox = start_demo().await;
    let (id, secret) = MAPLE_BACKEND;
    let token = machine_token(&sandbox, id, secret).await;
    let query = "mutation($p: PatientInput!, $m: RequestMetadata!) { patient(patient: $p, metadata: $m) { __typename } }";
    let variables = serde_json::json!({
        "p": { "demographic": { "name": { "first": "Ann\u{202E}lleh", "last": "Rowe" }, "dateOfBirth": "1980-01-01", "sex": "FEMALE" } },
        "m": { "source": "DIRECT_API" }
    });

    let answer: serde_json::Value = http()
        .post(endpoint(&sandbox, "/graphql"))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    assert!(
        answer.get("data").is_none_or(serde_json::Value::is_null),
        "{answer}"
    );
    let error = &answer["errors"][0];
    assert_eq!(error["extensions"]["code"], "INVALID_INPUT");
    assert_eq!(
        error["extensions"]["field"],
        "variables.p.demographic.name.first"
    );
    assert!(
        error["message"].as_str().unwrap().contains("U+202E"),
        "{error}"
    );
}
