//! The Network API's catalog through a real start-up: a fixture's tables replace
//! the built-in ones; a broken reference stops the start naming the file, the
//! entry and the rule; the demo's seeded patients are there once, also after a
//! restart on the same data directory.

use crate::support;

use rxdesk_sandbox::{Config, FixtureSource, Sandbox, StartError};
use serde_json::{Value, json};
use support::*;

const ACCOUNTS: &str = r#"
[[organizations]]
id = "org_elm"
name = "Elm Clinic"

[[applications]]
client_id = "rxdesk-desktop"
organizations = ["org_elm"]
allowed_urls = ["http://127.0.0.1"]

[[backends]]
client_id = "elm-backend"
client_secret = "elm-secret"
organization = "org_elm"
"#;

const TESTAMYCIN: &str = r#"
[[medications]]
id = "med_testamycin_1_tab"
name = "Testamycin 1 MG Oral Tablet"
ingredients = ["testamycin"]
classes = ["test class"]

[[allergens]]
id = "alg_test_class"
name = "Test class"
covers = ["test class"]

[[screening_rules]]
type = "DRUG"
between = ["testamycin", "test class"]
severity = "MINOR"
description = "Two tests."
"#;

fn write_fixture(dir: &tempfile::TempDir, extra: &str) -> std::path::PathBuf {
    let path = dir.path().join("fixture.toml");
    std::fs::write(&path, format!("{ACCOUNTS}\n{extra}")).unwrap();
    path
}

async fn start_fixture(path: std::path::PathBuf) -> Result<Sandbox, StartError> {
    Sandbox::start(Config {
        fixture: FixtureSource::File(path),
        ..Config::in_memory()
    })
    .await
}

const LOOK_UP: &str = "mutation($p: PrescriptionInput!, $m: RequestMetadata!) {
  prescription(prescription: $p, metadata: $m) {
    ... on PrescriptionPayload { unappliedChanges { status options { value } } }
  }
}";

async fn network(sandbox: &Sandbox, token: &str, query: &str, variables: Value) -> Value {
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

async fn look_up(sandbox: &Sandbox, token: &str, name: &str) -> Value {
    let variables =
        json!({ "p": { "treatment": { "name": name } }, "m": { "source": "DIRECT_API" } });
    network(sandbox, token, LOOK_UP, variables).await["prescription"]["unappliedChanges"][0].clone()
}

#[tokio::test]
async fn a_fixtures_medications_replace_the_built_in_ones() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = start_fixture(write_fixture(&dir, TESTAMYCIN))
        .await
        .unwrap();
    let token = machine_token(&sandbox, "elm-backend", "elm-secret").await;

    let own = look_up(&sandbox, &token, "testamycin").await;
    let built_in = look_up(&sandbox, &token, "lisinopril").await;

    assert_eq!(own["options"], json!([{ "value": "med_testamycin_1_tab" }]));
    assert_eq!(built_in["status"], "REJECTED");
}

async fn start_error(extra: &str) -> rxdesk_sandbox::fixture::FixtureError {
    let dir = tempfile::tempdir().unwrap();
    match start_fixture(write_fixture(&dir, extra)).await {
        Err(StartError::Fixture(e)) => e,
        Err(other) => panic!("another start error: {other}"),
        Ok(_) => panic!("a broken catalog started"),
    }
}

#[tokio::test]
async fn an_allergen_covering_nothing_known_stops_the_start() {
    let error = start_error(&format!(
        "{TESTAMYCIN}\n[[allergens]]\nid = \"alg_x\"\nname = \"X\"\ncovers = [\"no such class\"]\n"
    ))
    .await;

    assert!(error.file.ends_with("fixture.toml"), "{error}");
    assert_eq!(error.entry, "[[allergens]] #2 (alg_x)");
    assert!(
        error
            .to_string()
            .contains("unknown ingredient or class of any medication `no such class`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_template_of_an_unknown_drug_stops_the_start() {
    let error = start_error(
        "[[templates]]\nid = \"tmpl_x\"\norganization = \"org_elm\"\nname = \"X\"\ntreatment = \"med_nothing\"\n\
         instructions = \"Take one\"\ndispense = { quantity = 1, unit = \"tablet\", days_supply = 1 }\n",
    )
    .await;

    assert_eq!(error.entry, "[[templates]] #1 (tmpl_x)");
    assert!(
        error
            .to_string()
            .contains("unknown medication `med_nothing`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_screening_rule_on_an_unknown_icd10_prefix_stops_the_start() {
    let error = start_error(
        "[[screening_rules]]\ntype = \"CONDITION\"\nbetween = [\"Q99\", \"nsaid\"]\nseverity = \"MAJOR\"\ndescription = \"x\"\n",
    )
    .await;

    assert!(error.file.ends_with("fixture.toml"), "{error}");
    assert_eq!(error.entry, "[[screening_rules]] #1");
    assert!(
        error
            .to_string()
            .contains("unknown ICD-10 prefix of any diagnosis `Q99`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_price_at_an_unknown_pharmacy_stops_the_start() {
    let error = start_error(
        "[[prices]]\npharmacy = \"phr_nowhere\"\nmedication = \"med_lisinopril_10_tab\"\ntype = \"CASH\"\ntotal = 4.0\nretail = 9.0\n",
    )
    .await;

    assert_eq!(
        error.entry,
        "[[prices]] #1 (med_lisinopril_10_tab at phr_nowhere)"
    );
    assert!(
        error.to_string().contains("unknown pharmacy `phr_nowhere`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_price_above_its_retail_price_stops_the_start() {
    let error = start_error(
        "[[prices]]\npharmacy = \"phr_harbor_drug_back_bay\"\nmedication = \"med_lisinopril_10_tab\"\ntype = \"CASH\"\ntotal = 20.0\nretail = 9.0\n",
    )
    .await;

    assert!(error.file.ends_with("fixture.toml"), "{error}");
    assert!(
        error.to_string().contains("cannot be below `total`"),
        "{error}"
    );
}

const FIND: &str = "mutation($p: PatientInput!, $m: RequestMetadata!) {
  patient(patient: $p, metadata: $m) {
    __typename
    ... on AmbiguousPatientMatch { candidates { id firstName lastName } }
  }
}";

async fn demo_patients_named(sandbox: &Sandbox, last: &str) -> Vec<Value> {
    let (id, secret) = MAPLE_BACKEND;
    let token = machine_token(sandbox, id, secret).await;
    let variables = json!({ "p": { "demographic": { "name": { "last": last } } }, "m": { "source": "DIRECT_API" } });
    let answer = network(sandbox, &token, FIND, variables).await;
    answer["patient"]["candidates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn the_demo_patients_are_seeded_once_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let config = || Config {
        storage: rxdesk_sandbox::Storage::Data(dir.path().to_path_buf()),
        ..Config::in_memory()
    };
    let first = start_with(config()).await;
    let seeded = demo_patients_named(&first, "Delgado").await;
    first.shutdown().await;

    let second = start_with(config()).await;
    let after_restart = demo_patients_named(&second, "Delgado").await;

    assert_eq!(seeded.len(), 1, "{seeded:?}");
    assert_eq!(after_restart, seeded);
}
