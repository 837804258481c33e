//! Command-level tests: the app's commands called through Tauri's mock runtime,
//! against a sandbox started in-process, with keyring-core's mock store. What
//! these check is what the UI receives: results, `CommandError`s and events.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use rxdesk_lib::ipc::{
    AppStatus, CommandError, Medication, Order, Patient, Prescription, SessionStorage, SignInEvent,
    SignInFailure, SignOutcome,
};
use rxdesk_lib::session_store::SessionStore;
use serde_json::{Value, json};
use support::*;

fn status(app: &TestApp) -> AppStatus {
    app.ok("app_status", json!({}))
}

/// A patient with one draft prescription; returns (patient, prescription).
fn patient_with_draft(app: &TestApp, last_name: &str) -> (Patient, Prescription) {
    let patient: Patient = app.ok(
        "create_patient",
        json!({"input": {"firstName": "Test", "lastName": last_name, "dateOfBirth": "1980-04-02",
                          "sex": "FEMALE", "email": null, "phone": null}}),
    );
    let meds: Vec<Medication> = app.ok("search_medications", json!({"query": "am"}));
    let med = meds
        .first()
        .expect("the catalog has a medication matching 'am'");
    let draft: Prescription = app.ok(
        "create_prescription",
        json!({"input": {"patientId": patient.id, "medicationId": med.id, "dispenseQuantity": 30.0,
                          "dispenseUnit": "tablet", "refills": 1, "daysSupply": 30,
                          "instructions": "One tablet daily", "notes": null, "effectiveDate": null}}),
    );
    (patient, draft)
}

#[test]
fn signing_in_stores_the_session_and_the_next_start_restores_it_without_a_browser() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    {
        let app = TestApp::start(Options::new(&sandbox, &keyring));
        assert!(status(&app).session.is_none());
        app.sign_in_as(ADA);
        let signed_in = status(&app).session.expect("signed in");
        assert_eq!(signed_in.user_email, ADA);
        assert_eq!(signed_in.organization_name, MAPLE);
        assert!(
            signed_in
                .permissions
                .iter()
                .any(|p| p == "write:prescription")
        );
    }
    assert!(
        keyring.load(ENV_ID).unwrap().is_some(),
        "session stored in the keyring"
    );

    let restarted = TestApp::start(Options::new(&sandbox, &keyring));
    let status = status(&restarted);
    assert_eq!(status.storage, SessionStorage::Keyring);
    assert_eq!(status.session.expect("restored").user_email, ADA);
    let page: Value = restarted.ok("search_patients", json!({"query": "", "after": null}));
    assert!(page["items"].is_array());
}

#[test]
fn what_the_ui_receives_about_a_session_never_holds_the_token() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);

    let stored: Value = serde_json::from_str(&keyring.load(ENV_ID).unwrap().unwrap()).unwrap();
    let token = stored["at"]
        .as_str()
        .expect("access token stored")
        .to_owned();
    let seen = serde_json::to_string(&status(&app)).unwrap();
    assert!(!seen.contains(&token));
    assert!(!seen.contains("eyJ"), "no JWT reaches the UI: {seen}");
}

#[test]
fn sign_out_removes_the_stored_session_and_revokes_its_refresh_token() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    let stored = keyring.load(ENV_ID).unwrap().unwrap();
    let old: rxdesk_client::Session = serde_json::from_str(&stored).unwrap();

    let () = app.ok("sign_out", json!({}));

    assert_eq!(keyring.load(ENV_ID).unwrap(), None);
    assert!(status(&app).session.is_none());
    let ended = app
        .session_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    assert!(
        ended.session.is_none()
            || app
                .session_events
                .recv_timeout(Duration::from_secs(5))
                .unwrap()
                .session
                .is_none()
    );
    let client =
        rxdesk_client::Client::new(rxdesk_client::Environment::sandbox(sandbox.url()).unwrap())
            .unwrap();
    let renewed = tauri::async_runtime::block_on(client.renew(&old));
    assert!(
        matches!(renewed, Err(rxdesk_client::ClientError::SignedOut { .. })),
        "the revoked refresh token still works: {renewed:?}"
    );
    assert!(matches!(
        app.call::<Value>("search_patients", json!({"query": "", "after": null})),
        Err(CommandError::SignedOut { .. })
    ));
}

#[test]
fn a_rejected_token_without_renewal_answers_signed_out_mid_form_and_ends_the_session() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    // A session whose token the network rejects and which cannot be renewed.
    let far = 4_000_000_000u64;
    let forged = json!({"at": "not-a-token", "exp": far, "perm": ["read:patient", "write:patient"],
                        "user": {"id": "u", "name": "Ada Quinn"}, "org": {"id": "org_maple", "name": MAPLE}});
    keyring.save(ENV_ID, &forged.to_string()).unwrap();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    assert!(
        status(&app).session.is_some(),
        "restored without a network call"
    );

    let answer = app.call::<Patient>(
        "create_patient",
        json!({"input": {"firstName": "Kept", "lastName": "Typed", "dateOfBirth": "1990-01-01",
                          "sex": "MALE", "email": null, "phone": null}}),
    );

    assert!(
        matches!(answer, Err(CommandError::SignedOut { .. })),
        "{answer:?}"
    );
    let event = app
        .session_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    assert!(event.session.is_none(), "the UI is told the session ended");
    assert_eq!(
        keyring.load(ENV_ID).unwrap(),
        None,
        "the dead session is removed"
    );
}

#[test]
fn a_rejected_token_is_renewed_silently_with_the_refresh_token_and_the_call_goes_through() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    {
        let app = TestApp::start(Options::new(&sandbox, &keyring));
        app.sign_in_as(MO);
    }
    let mut stored: Value = serde_json::from_str(&keyring.load(ENV_ID).unwrap().unwrap()).unwrap();
    stored["at"] = json!("rejected-token");
    keyring.save(ENV_ID, &stored.to_string()).unwrap();

    let app = TestApp::start(Options::new(&sandbox, &keyring));
    let page: Value = app.ok("search_patients", json!({"query": "", "after": null}));

    assert!(page["items"].is_array());
    let now: Value = serde_json::from_str(&keyring.load(ENV_ID).unwrap().unwrap()).unwrap();
    assert_ne!(
        now["at"],
        json!("rejected-token"),
        "the renewed session is stored"
    );
    assert_ne!(
        now["rt"], stored["rt"],
        "the rotated refresh token is stored"
    );
}

#[test]
fn signing_as_medical_operations_reaches_the_ui_as_the_networks_refusal() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(MO);
    let (_, draft) = patient_with_draft(&app, "Refused");

    let answer = app.call::<Vec<SignOutcome>>("sign_prescriptions", json!({"ids": [draft.id]}));

    let refusal = match answer {
        Err(e) => e,
        Ok(outcomes) => outcomes[0].error.clone().expect("not signed"),
    };
    assert_eq!(
        refusal,
        CommandError::Refused {
            code: "PRESCRIPTION_SIGNING_UNAUTHORIZED".into(),
            message: match &refusal {
                CommandError::Refused { message, .. } => message.clone(),
                _ => String::new(),
            },
            required_permission: Some("write:prescription".into()),
        }
    );
}

#[test]
fn an_order_with_an_unsigned_prescription_cannot_be_sent_and_the_ui_is_told_why() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(MO);
    let (patient, draft) = patient_with_draft(&app, "Unsigned");
    let order: Order = app.ok(
        "create_order",
        json!({"input": {"patientId": patient.id, "prescriptionIds": [draft.id], "pharmacyId": null}}),
    );
    assert_eq!(order.state, "DRAFT");
    assert_eq!(order.prescriptions[0].state, "DRAFT");

    let answer = app.call::<Order>("send_order", json!({"id": order.id}));

    assert!(
        matches!(&answer, Err(CommandError::Invalid { code, .. }) if code == "ORDER_HAS_UNSIGNED_PRESCRIPTIONS"),
        "{answer:?}"
    );
}

#[test]
fn a_prescriber_signs_selected_drafts_in_one_request_and_the_order_can_then_be_sent() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    let (patient, first) = patient_with_draft(&app, "Signed");
    let queue: Vec<Prescription> = app.ok("signing_queue", json!({}));
    assert!(queue.iter().any(|p| p.id == first.id));

    let outcomes: Vec<SignOutcome> = app.ok("sign_prescriptions", json!({"ids": [first.id]}));
    assert_eq!(outcomes.len(), 1);
    assert_eq!(
        outcomes[0].signed.as_ref().map(|p| p.state.as_str()),
        Some("ACTIVE")
    );

    let order: Order = app.ok(
        "create_order",
        json!({"input": {"patientId": patient.id, "prescriptionIds": [first.id], "pharmacyId": null}}),
    );
    let sent: Order = app.ok("send_order", json!({"id": order.id}));
    assert_ne!(sent.state, "DRAFT");
    let detail: Value = app.ok("get_patient", json!({"id": patient.id}));
    assert_eq!(detail["prescriptions"][0]["state"], "ACTIVE");
}

#[test]
fn invalid_input_names_the_field_for_inline_messages() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(MO);

    let answer = app.call::<Patient>(
        "create_patient",
        json!({"input": {"firstName": "Bad", "lastName": "Date", "dateOfBirth": "yesterday",
                          "sex": "FEMALE", "email": null, "phone": null}}),
    );

    match answer {
        Err(CommandError::Invalid {
            field: Some(field), ..
        }) => {
            assert!(field.contains("dateOfBirth"), "{field}")
        }
        other => panic!("expected Invalid with a field, got {other:?}"),
    }
}

#[test]
fn pressing_cancel_on_the_sign_in_page_reaches_the_ui_as_access_denied() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.browser.set(Act::Cancel);

    let () = app.ok("sign_in", json!({}));

    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Waiting { .. }
    ));
    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Failed {
            reason: SignInFailure::AccessDenied,
            ..
        }
    ));
    assert!(status(&app).session.is_none());
}

#[test]
fn cancel_in_the_app_ends_the_wait_and_open_again_needs_a_waiting_sign_in() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    assert!(app.call::<()>("open_sign_in_again", json!({})).is_err());

    let () = app.ok("sign_in", json!({}));
    let SignInEvent::Waiting {
        url,
        browser_opened,
    } = app.next_sign_in_event()
    else {
        panic!("expected Waiting");
    };
    assert!(browser_opened);
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    let () = app.ok("open_sign_in_again", json!({}));
    let () = app.ok("cancel_sign_in", json!({}));

    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Failed {
            reason: SignInFailure::Cancelled,
            ..
        }
    ));
}

#[test]
fn no_callback_in_time_reaches_the_ui_as_a_timeout() {
    let sandbox = sandbox();
    let mut options = Options::new(&sandbox, &mock_keyring());
    options.sign_in_timeout = Duration::from_secs(1);
    let app = TestApp::start(options);

    let () = app.ok("sign_in", json!({}));

    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Waiting { .. }
    ));
    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Failed {
            reason: SignInFailure::Timeout,
            ..
        }
    ));
}

#[test]
fn without_a_keyring_the_session_lives_in_memory_and_the_ui_is_told_why() {
    let sandbox = sandbox();
    let memory = SessionStore::memory("no keyring service: Failed to connect to address");
    let app = TestApp::start(Options::new(&sandbox, &memory));

    let status = status(&app);

    assert!(
        matches!(status.storage, SessionStorage::MemoryOnly { ref reason } if reason.contains("no keyring"))
    );
    app.sign_in_as(ADA);
    assert!(self::status(&app).session.is_some());
}

#[test]
fn an_environment_carrying_a_client_secret_is_refused_on_that_field() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));

    let answer = app.call::<AppStatus>(
        "save_environment",
        json!({"input": {"name": "Leaky", "authUrl": "https://auth.example", "apiUrl": "https://api.example",
                          "audience": "aud", "clientId": "desk", "callbackPort": null, "clientSecret": "s3cret"}}),
    );

    assert!(
        matches!(&answer, Err(CommandError::Invalid { field: Some(f), message, .. })
            if f == "client_secret" && message.contains("public client must never hold a secret")),
        "{answer:?}"
    );
    let saved: AppStatus = app.ok(
        "save_environment",
        json!({"input": {"name": "Staging", "authUrl": "https://auth.example", "apiUrl": "https://api.example",
                          "audience": "aud", "clientId": "desk", "callbackPort": null, "clientSecret": null}}),
    );
    let names: Vec<_> = saved.environments.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names[0], "Local sandbox");
    assert!(names.contains(&"Staging"));
}

#[test]
fn the_built_in_local_sandbox_starts_in_process_and_takes_the_demo_accounts() {
    let keyring = mock_keyring();
    let app = TestApp::start(Options::built_in(&keyring));
    let before = status(&app);
    assert_eq!(before.active_environment, "sandbox");
    assert_eq!(before.environments[0].name, "Local sandbox");

    app.sign_in_as(ADA);

    let after = status(&app);
    assert_eq!(after.session.expect("signed in").user_email, ADA);
    assert!(
        after.environments[0]
            .auth_url
            .starts_with("http://127.0.0.1:")
    );
    assert!(keyring.load("sandbox").unwrap().is_some());
}

#[test]
fn patients_are_searched_page_by_page_edited_and_drafts_discarded() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(MO);
    for i in 0..27 {
        let _: Patient = app.ok(
            "create_patient",
            json!({"input": {"firstName": format!("Page{i}"), "lastName": "Paginated", "dateOfBirth": "1970-01-01",
                              "sex": "UNKNOWN", "email": null, "phone": null}}),
        );
    }
    let first: Value = app.ok(
        "search_patients",
        json!({"query": "Paginated", "after": null}),
    );
    assert_eq!(first["items"].as_array().unwrap().len(), 25);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    let second: Value = app.ok(
        "search_patients",
        json!({"query": "Paginated", "after": cursor}),
    );
    assert_eq!(second["items"].as_array().unwrap().len(), 2);
    assert!(second["nextCursor"].is_null());

    let (patient, draft) = patient_with_draft(&app, "Edited");
    let edited: Patient = app.ok(
        "update_patient",
        json!({"id": patient.id, "input": {"firstName": "Renamed", "lastName": "Edited", "dateOfBirth": "1980-04-02",
                                            "sex": "FEMALE", "email": null, "phone": null}}),
    );
    assert_eq!(edited.first_name, "Renamed");
    let discarded: Prescription = app.ok("cancel_prescription", json!({"id": draft.id}));
    assert_eq!(discarded.state, "CANCELED");
    let pharmacies: Vec<Value> = app.ok("search_pharmacies", json!({"query": "a"}));
    assert!(!pharmacies.is_empty());
}

#[test]
fn a_keyring_that_refuses_to_store_the_session_turns_memory_only_and_the_ui_is_told() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &locked_keyring()));
    assert_eq!(status(&app).storage, SessionStorage::Keyring);

    app.sign_in_as(ADA);

    let event = app
        .session_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    assert!(event.session.is_some());
    assert!(
        matches!(&event.storage, SessionStorage::MemoryOnly { reason } if reason.contains("locked")),
        "{:?}",
        event.storage
    );
    assert!(matches!(
        status(&app).storage,
        SessionStorage::MemoryOnly { .. }
    ));
    let page: Value = app.ok("search_patients", json!({"query": "", "after": null}));
    assert!(
        page["items"].is_array(),
        "the session still works from memory"
    );
}
