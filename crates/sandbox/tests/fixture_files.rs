//! Fixture files through a real start-up: a broken file stops the start with a
//! message naming the file, the entry and the rule; a valid one with an extra
//! role gives its users that role's permissions and shows no demo hint. Each
//! validation rule on its own is unit-tested in `src/fixture/tests.rs`.

use crate::support;

use rxdesk_sandbox::{Config, FixtureSource, Sandbox, StartError};
use support::*;

const FRONT_DESK: &str = r#"
[[organizations]]
id = "org_elm"
name = "Elm Clinic"

[[roles]]
name = "front_desk"
permissions = ["read:patient", "write:patient"]

[[users]]
email = "fran@elm.example"
password = "front-desk-pw"
name = "Fran Lee"
role = "front_desk"
organizations = ["org_elm"]

[[applications]]
client_id = "rxdesk-desktop"
organizations = ["org_elm"]
allowed_urls = ["http://127.0.0.1"]

[[backends]]
client_id = "elm-backend"
client_secret = "elm-secret"
organization = "org_elm"
"#;

#[tokio::test]
async fn broken_fixture_file_stops_the_start_naming_file_entry_and_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clinic.toml");
    std::fs::write(
        &path,
        FRONT_DESK.replace("role = \"front_desk\"", "role = \"prescriber\""),
    )
    .unwrap();

    let result = Sandbox::start(Config {
        fixture: FixtureSource::File(path.clone()),
        ..Config::in_memory()
    })
    .await;

    let Err(StartError::Fixture(error)) = result else {
        panic!("the start should fail on the fixture");
    };
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(
        message.contains("[[users]] #1 (fran@elm.example)"),
        "{message}"
    );
    assert!(message.contains("npi"), "{message}");
    assert!(!message.contains("front-desk-pw"), "{message}");
}

#[tokio::test]
async fn missing_fixture_file_stops_the_start() {
    let result = Sandbox::start(Config {
        fixture: FixtureSource::File("/nonexistent/fixture.toml".into()),
        ..Config::in_memory()
    })
    .await;

    let Err(StartError::Fixture(error)) = result else {
        panic!("the start should fail on the fixture");
    };
    assert!(error.to_string().contains("/nonexistent/fixture.toml"));
}

#[tokio::test]
async fn custom_role_user_gets_the_role_permissions_and_no_demo_hint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("elm.toml");
    std::fs::write(&path, FRONT_DESK).unwrap();
    let sandbox = start_with(Config {
        fixture: FixtureSource::File(path),
        ..Config::in_memory()
    })
    .await;
    let browser = browser();
    let page = Flow::new(&sandbox).open(&browser).await;
    assert!(!page.text().contains("Demo accounts"));

    let token = user_token(&sandbox, "fran@elm.example", "front-desk-pw", None).await;

    let claims = verify_with_jwks(&sandbox, &token).await;
    assert_eq!(claims.permissions, ["read:patient", "write:patient"]);
    assert_eq!(claims.org_id, "org_elm");
    let machine = machine_token(&sandbox, "elm-backend", "elm-secret").await;
    assert_eq!(verify_with_jwks(&sandbox, &machine).await.org_id, "org_elm");
}
