//! Command-level tests: the app's commands called through Tauri's mock runtime,
//! as the UI calls them (camelCase arguments), against a sandbox started
//! in-process (its demo fixture: Maple and Birch, ada, mo, the demo patients),
//! with keyring-core's mock store. What these check is what the UI receives:
//! results, `CommandError`s and events.

use crate::support;

use std::collections::BTreeSet;
use std::time::Duration;

use rxdesk_lib::index::{Index, UsedTemplate};
use rxdesk_lib::ipc::{
    AlertKind, AppStatus, ChangeStatus, ChoiceView, ClinicalEdit, CommandError, DiagnosisPick,
    DraftForm, DraftStatus, EntryInput, EnvironmentInput, ExceptionKind, Fulfillment, LinkEvent,
    LinkTarget, NetworkCheck, OrderOutcome, OrderState, OrderView, PatientInput, PatientOutcome,
    PatientRecord, PatientSummary, PatientWork, PharmacyAnswer, PharmacySearch,
    PrescriptionOutcome, PrescriptionView, PriceKind, RecordKind, Revocation, SessionEnd,
    SessionEvent, SessionStorage, Sex, SignInEvent, SignInFailure, SignOutSummary, SignRequest,
    SignResult, SigningState, TemplateView, WorkLists,
};
use rxdesk_lib::ipc::{
    BenefitEdit, BenefitInput, MedicationStatus, MedicationStatusChange, PatientAddress,
    PreferredPharmacyAnswer,
};
use rxdesk_lib::session_store::SessionStore;
use serde_json::{Value, json};
use support::*;

const LISINOPRIL_TEMPLATE: &str = "tmpl_maple_lisinopril_10_daily";
const AMOXICILLIN_TEMPLATE: &str = "tmpl_maple_amoxicillin_strep";
const AMOXICILLIN: &str = "med_amoxicillin_500_cap";
const AZITHROMYCIN: &str = "med_azithromycin_250_tab";
/// A mobile number in the fictional range (not a sandbox landline).
const MOBILE: &str = "+16175550123";

// ---- helpers: the UI's calls ---------------------------------------------------------

fn status(app: &TestApp) -> AppStatus {
    app.invoke_ok(args::app_status {})
}

/// A sandbox and the app signed in to it as `email` (at Maple Street Clinic).
fn signed_in(email: &str) -> (rxdesk_sandbox::Sandbox, TestApp) {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(email);
    (sandbox, app)
}

/// The patient form, filled in completely (a mobile phone, no email).
fn form(first: &str, last: &str, date_of_birth: &str) -> PatientInput {
    PatientInput {
        first_name: first.into(),
        last_name: last.into(),
        date_of_birth: date_of_birth.into(),
        sex: Some(Sex::Female),
        email: None,
        phone: Some(MOBILE.into()),
        middle_name: None,
        gender: None,
        address: None,
        notes: None,
    }
}

fn save_patient(app: &TestApp, id: Option<&str>, input: &PatientInput) -> PatientOutcome {
    app.invoke_ok(args::save_patient {
        action: None,
        id: id.map(str::to_owned),
        input: input.clone(),
    })
}

/// Adds a new patient (nobody on record has this name); returns the record.
fn add_patient(app: &TestApp, first: &str, last: &str) -> PatientRecord {
    match save_patient(app, None, &form(first, last, "1980-04-02")) {
        PatientOutcome::Saved { patient, .. } => *patient,
        other => panic!("not added: {other:?}"),
    }
}

fn find_patients(app: &TestApp, query: &str) -> Vec<PatientSummary> {
    app.invoke_ok(args::find_patients {
        action: None,
        query: query.to_owned(),
    })
}

/// The one demo patient found for `name` (e.g. "Rosa Delgado").
fn demo_patient(app: &TestApp, name: &str) -> PatientSummary {
    let found = find_patients(app, name);
    assert_eq!(found.len(), 1, "{name}: {found:?}");
    found.into_iter().next().unwrap()
}

fn edit_clinical(app: &TestApp, id: &str, edit: &ClinicalEdit) -> PatientOutcome {
    app.invoke_ok(args::edit_clinical {
        action: None,
        id: id.to_owned(),
        edit: edit.clone(),
    })
}

fn saved_patient(outcome: PatientOutcome) -> (PatientRecord, Vec<rxdesk_lib::ipc::ChangeNote>) {
    match outcome {
        PatientOutcome::Saved { patient, notes } => (*patient, notes),
        other => panic!("expected saved, got {other:?}"),
    }
}

fn allergy(name: Option<&str>, id: Option<&str>) -> ClinicalEdit {
    ClinicalEdit {
        add_allergies: vec![EntryInput {
            name: name.map(str::to_owned),
            id: id.map(str::to_owned),
            status: None,
        }],
        ..Default::default()
    }
}

fn template(id: &str) -> DraftForm {
    DraftForm {
        template_id: Some(id.into()),
        ..Default::default()
    }
}

fn drug(id: &str) -> DraftForm {
    DraftForm {
        drug_id: Some(id.into()),
        instructions: Some("Take 1 by mouth twice daily.".into()),
        quantity: Some(20.0),
        unit: Some("capsule".into()),
        days_supply: Some(10),
        refills: Some(0),
        ..Default::default()
    }
}

fn save_draft(
    app: &TestApp,
    patient_id: &str,
    id: Option<&str>,
    form: &DraftForm,
) -> PrescriptionOutcome {
    app.invoke_ok(args::save_draft {
        action: None,
        patient_id: patient_id.to_owned(),
        id: id.map(str::to_owned),
        key: create_key(),
        form: form.clone(),
    })
}

/// A new draft, saved; returns it as the network holds it.
fn draft(app: &TestApp, patient_id: &str, form: &DraftForm) -> PrescriptionView {
    match save_draft(app, patient_id, None, form) {
        PrescriptionOutcome::Saved { prescription, .. } => *prescription,
        other => panic!("no draft: {other:?}"),
    }
}

/// Signs each prescription with the content hash it showed.
fn sign(app: &TestApp, shown: &[&PrescriptionView]) -> Vec<SignResult> {
    let items: Vec<SignRequest> = shown
        .iter()
        .map(|p| SignRequest {
            id: p.id.clone(),
            content_hash: p.content_hash.clone(),
        })
        .collect();
    app.invoke_ok(args::sign_prescriptions {
        action: None,
        items: items.clone(),
    })
}

fn signed(result: &SignResult) -> &PrescriptionView {
    match result {
        SignResult::Signed { prescription } => prescription,
        other => panic!("not signed: {other:?}"),
    }
}

fn order_saved(outcome: OrderOutcome) -> (OrderView, Vec<rxdesk_lib::ipc::ChangeNote>) {
    match outcome {
        OrderOutcome::Saved { order, notes, .. } => (*order, notes),
        other => panic!("order not saved: {other:?}"),
    }
}

fn draft_order(app: &TestApp, patient_id: &str, prescription_ids: &[&str]) -> OrderView {
    let outcome = app.invoke_ok(args::draft_order {
        action: None,
        patient_id: patient_id.to_owned(),
        prescription_ids: prescription_ids.iter().map(|id| (*id).to_owned()).collect(),
        key: create_key(),
    });
    let (order, notes) = order_saved(outcome);
    assert!(notes.is_empty(), "{notes:?}");
    order
}

/// A new patient with a signed lisinopril prescription on a draft order.
fn order_ready_to_send(app: &TestApp, last: &str) -> OrderView {
    let patient = add_patient(app, "Olive", last);
    let rx = draft(app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    signed(&sign(app, &[&rx])[0]);
    draft_order(app, &patient.id, &[&rx.id])
}

/// Whether a workflow now answers `SignedOut` (the session is gone).
fn is_signed_out(app: &TestApp) -> bool {
    matches!(
        app.invoke(args::work_lists { action: None }),
        Err(CommandError::SignedOut { .. })
    )
}

fn work_lists(app: &TestApp) -> WorkLists {
    app.invoke_ok(args::work_lists { action: None })
}

fn ids<'a>(items: impl IntoIterator<Item = &'a String>) -> BTreeSet<&'a str> {
    items.into_iter().map(String::as_str).collect()
}

// ---- sessions and sign-in ------------------------------------------------------------

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
        stored_session(&keyring).is_some(),
        "session stored in the keyring"
    );

    let restarted = TestApp::start(Options::new(&sandbox, &keyring));
    let status = status(&restarted);
    assert_eq!(status.storage, SessionStorage::Keyring);
    assert_eq!(status.session.expect("restored").user_email, ADA);
    assert_eq!(find_patients(&restarted, "Delgado").len(), 1);
}

#[test]
fn session_is_not_sent_to_an_edited_environment() {
    let issuing = sandbox();
    let keyring = mock_keyring();
    {
        let app = TestApp::start(Options::new(&issuing, &keyring));
        app.sign_in_as(ADA);
    }
    // The same environment id (the RXDESK_* variables), now another server.
    let other = sandbox();

    let restarted = TestApp::start(Options::new(&other, &keyring));

    assert!(
        status(&restarted).session.is_none(),
        "a session issued elsewhere was taken up"
    );
    assert!(
        stored_session(&keyring).is_none(),
        "the session issued elsewhere is still stored"
    );
    assert!(is_signed_out(&restarted), "still signed in");
}

#[test]
fn locking_after_idle_time_ends_the_session_so_going_on_needs_a_fresh_sign_in() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    assert_eq!(status(&app).idle_lock_seconds, 15 * 60);

    let summary: SignOutSummary = app.invoke_ok(args::lock_session {});

    assert_eq!(summary.revocation, Revocation::Revoked);
    assert_eq!(stored_session(&keyring), None);
    assert!(is_signed_out(&app), "still signed in");
}

/// The authorize URL of the next sign-in, and the sign-in finished as `email`.
fn sign_in_url(app: &TestApp, email: &str) -> url::Url {
    app.browser.set(Act::SignIn(email.to_owned()));
    let () = app.invoke_ok(args::sign_in {
        this_run_only: None,
    });
    let SignInEvent::Waiting { url, .. } = app.next_sign_in_event() else {
        panic!("no waiting event");
    };
    match app.next_sign_in_event() {
        SignInEvent::SignedIn { .. } => {}
        other => panic!("sign-in failed: {other:?}"),
    }
    url::Url::parse(&url).unwrap()
}

fn asks_fresh_login(url: &url::Url) -> bool {
    url.query_pairs()
        .any(|(k, v)| k == "prompt" && v == "login")
        && url.query_pairs().any(|(k, v)| k == "max_age" && v == "0")
}

/// Session events until one says the session ended (waits up to 5 s each).
fn next_end(app: &TestApp) -> SessionEvent {
    loop {
        let event = app
            .session_events
            .recv_timeout(Duration::from_secs(5))
            .expect("no session event");
        if event.session.is_none() {
            return event;
        }
    }
}

#[test]
fn lock_ends_the_sessions_of_every_environment() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    // Signed in on the built-in Local sandbox, then on the variables' network.
    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: "sandbox".into(),
    });
    app.sign_in_as(ADA);
    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: ENV_ID.to_owned(),
    });
    app.sign_in_as(ADA);

    let _: SignOutSummary = app.invoke_ok(args::lock_session {});

    let environments = status(&app).environments;
    assert!(environments.len() >= 2, "{environments:?}");
    for environment in environments {
        let picked: AppStatus = app.invoke_ok(args::select_environment {
            id: environment.id.clone(),
        });
        assert_eq!(
            picked.session, None,
            "picking {} after the lock signed someone in",
            environment.id
        );
        assert!(
            is_signed_out(&app),
            "{} answers as signed in",
            environment.id
        );
    }
    assert_eq!(stored_session(&keyring), None);
}

#[test]
fn picking_another_environment_ends_the_session_rather_than_keeping_two() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);

    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: "sandbox".into(),
    });
    let back: AppStatus = app.invoke_ok(args::select_environment {
        id: ENV_ID.to_owned(),
    });

    assert_eq!(back.session, None, "coming back restored the session");
    assert_eq!(stored_session(&keyring), None);
    assert!(matches!(
        next_end(&app).ended,
        Some(SessionEnd::EnvironmentChanged)
    ));
}

#[test]
fn removing_the_environment_in_use_signs_out_and_says_so() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    let saved: AppStatus = app.invoke_ok(clinic_at(sandbox.url()));
    let clinic = saved
        .environments
        .iter()
        .find(|e| e.name == "Clinic")
        .unwrap()
        .id
        .clone();
    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: clinic.to_owned(),
    });
    app.sign_in_as(ADA);
    let old: rxdesk_client::Session =
        serde_json::from_value(stored_session(&keyring).unwrap()).unwrap();

    let after: AppStatus = app.invoke_ok(args::remove_environment {
        id: clinic.to_owned(),
    });

    assert_eq!(after.session, None);
    assert!(matches!(
        next_end(&app).ended,
        Some(SessionEnd::EnvironmentRemoved)
    ));
    assert_eq!(stored_session(&keyring), None);
    assert!(is_signed_out(&app), "commands still run as someone");
    let client =
        rxdesk_client::Client::new(rxdesk_client::Environment::sandbox(sandbox.url()).unwrap())
            .unwrap();
    let pong = tauri::async_runtime::block_on(client.network(&old).ping());
    assert!(
        pong.is_err(),
        "the removed environment's session still works"
    );
}

/// Polls `done` every 50 ms for up to `limit`; whether it came true.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + limit;
    while std::time::Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// The Settings form for the environment "Clinic" at `url` (the sandbox's client).
fn clinic_at(url: &url::Url) -> args::save_environment {
    args::save_environment {
        input: EnvironmentInput {
            name: "Clinic".into(),
            auth_url: url.to_string(),
            api_url: url.to_string(),
            audience: "rxdesk-sandbox".into(),
            client_id: "rxdesk-desktop".into(),
            callback_port: None,
            client_secret: None,
            require_issuer: false,
        },
    }
}

#[test]
fn saving_the_environment_in_use_with_new_addresses_revokes_its_session_at_the_old_ones() {
    let old_network = sandbox();
    let new_network = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&old_network, &keyring));
    let saved: AppStatus = app.invoke_ok(clinic_at(old_network.url()));
    let clinic = saved
        .environments
        .iter()
        .find(|e| e.name == "Clinic")
        .unwrap()
        .id
        .clone();
    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: clinic.to_owned(),
    });
    app.sign_in_as(ADA);
    let old: rxdesk_client::Session =
        serde_json::from_value(stored_session(&keyring).unwrap()).unwrap();

    let after: AppStatus = app.invoke_ok(clinic_at(new_network.url()));

    assert_eq!(after.active_environment, clinic);
    assert_eq!(after.session, None, "the old session is still held");
    assert!(matches!(
        next_end(&app).ended,
        Some(SessionEnd::EnvironmentEdited)
    ));
    assert_eq!(stored_session(&keyring), None);
    let at_old_addresses =
        rxdesk_client::Client::new(rxdesk_client::Environment::sandbox(old_network.url()).unwrap())
            .unwrap();
    let ended = eventually(Duration::from_secs(20), || {
        tauri::async_runtime::block_on(at_old_addresses.network(&old).ping()).is_err()
    });
    assert!(ended, "the old session still works at the old addresses");
    let renewed = tauri::async_runtime::block_on(at_old_addresses.renew(&old));
    assert!(
        matches!(renewed, Err(rxdesk_client::ClientError::SignedOut { ref code, .. }) if code != "other_environment"),
        "the old refresh token still works (or was never tried): {renewed:?}"
    );
    let summary: SignOutSummary = app.invoke_ok(args::sign_out {});
    assert_eq!(summary.revocation, Revocation::NothingToRevoke);
}

#[test]
fn saving_the_environment_in_use_with_the_same_addresses_keeps_its_session() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    let saved: AppStatus = app.invoke_ok(clinic_at(sandbox.url()));
    let clinic = saved
        .environments
        .iter()
        .find(|e| e.name == "Clinic")
        .unwrap()
        .id
        .clone();
    let _: AppStatus = app.invoke_ok(args::select_environment {
        id: clinic.to_owned(),
    });
    app.sign_in_as(ADA);
    let mut same = clinic_at(sandbox.url());
    same.input.require_issuer = true;

    let after: AppStatus = app.invoke_ok(same);

    assert_eq!(after.session.expect("signed in").user_email, ADA);
    assert!(stored_session(&keyring).is_some());
    assert_eq!(find_patients(&app, "Delgado").len(), 1);
}

#[test]
fn a_restart_after_the_idle_limit_asks_for_sign_in() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    {
        let app = TestApp::start(Options::new(&sandbox, &keyring));
        app.sign_in_as(ADA);
    }
    let session = stored_session(&keyring).unwrap();
    store_session_used_at(&keyring, ENV_ID, &session, unix_now() - 16 * 60);

    let restarted = TestApp::start(Options::new(&sandbox, &keyring));

    let status = status(&restarted);
    assert_eq!(status.session, None, "an idle session was restored");
    assert_eq!(status.ended, Some(SessionEnd::Locked { idle_minutes: 15 }));
    assert_eq!(stored_session(&keyring), None);
    assert!(is_signed_out(&restarted));
}

#[test]
fn a_stored_session_this_version_cannot_read_is_removed_and_sign_in_asked_for_in_words() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    // What another version might have stored: valid JSON, another shape.
    keyring
        .save(
            rxdesk_lib::session_store::SESSION_ENTRY,
            r#"{"v":9,"session":{"opaque":"from a later version"}}"#,
        )
        .unwrap();

    let app = TestApp::start(Options::new(&sandbox, &keyring));

    let status = status(&app);
    assert_eq!(status.session, None);
    assert_eq!(status.ended, Some(SessionEnd::Unreadable));
    assert_eq!(
        keyring
            .load(rxdesk_lib::session_store::SESSION_ENTRY)
            .unwrap(),
        None,
        "the unreadable entry was kept"
    );
    assert!(is_signed_out(&app));
}

#[test]
fn a_stored_session_the_network_will_not_renew_at_start_is_removed_and_sign_in_asked_for_saying_it_expired()
 {
    // Expired, with a refresh token the network does not know.
    let (_sandbox, keyring, app) = restarted_with_stored_session(|s| {
        s["exp"] = json!(1);
        s["rt"] = json!("unknown-refresh-token");
    });

    let status = status(&app);
    assert_eq!(status.session, None);
    assert_eq!(status.ended, Some(SessionEnd::Expired));
    assert_eq!(
        stored_session(&keyring),
        None,
        "the stored session was kept"
    );
}

#[test]
fn the_core_locks_a_session_idle_past_the_limit_whatever_the_webview_does() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options {
        idle_lock: Duration::from_secs(1),
        ..Options::new(&sandbox, &keyring)
    });
    app.sign_in_as(ADA);
    std::thread::sleep(Duration::from_millis(1_200));

    let answer = app.invoke(args::find_patients {
        action: None,
        query: "Delgado".into(),
    });

    assert!(
        matches!(answer, Err(CommandError::SignedOut { ref message }) if message.contains("locked")),
        "{answer:?}"
    );
    assert!(matches!(
        next_end(&app).ended,
        Some(SessionEnd::Locked { .. })
    ));
    assert_eq!(stored_session(&keyring), None);
    let late: Result<(), CommandError> = app.invoke(args::note_activity {});
    assert!(late.is_ok(), "nobody signed in: input changes nothing");
    assert!(is_signed_out(&app));
}

#[test]
fn input_reported_after_the_idle_limit_does_not_unlock() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options {
        idle_lock: Duration::from_secs(1),
        ..Options::new(&sandbox, &keyring)
    });
    app.sign_in_as(ADA);
    std::thread::sleep(Duration::from_millis(1_200));

    let late = app.invoke(args::note_activity {});

    assert!(
        matches!(late, Err(CommandError::SignedOut { .. })),
        "{late:?}"
    );
    assert!(is_signed_out(&app));
}

#[test]
fn the_sign_in_after_a_lock_asks_the_network_for_a_fresh_login() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    let first = sign_in_url(&app, ADA);

    let _: SignOutSummary = app.invoke_ok(args::lock_session {});
    let after_lock = sign_in_url(&app, ADA);
    let _: SignOutSummary = app.invoke_ok(args::sign_out {});
    let after_sign_out = sign_in_url(&app, ADA);

    assert!(asks_fresh_login(&first), "at start: {first}");
    assert!(
        asks_fresh_login(&after_lock),
        "after the lock: {after_lock}"
    );
    assert!(
        asks_fresh_login(&after_sign_out),
        "after sign-out: {after_sign_out}"
    );
}

#[test]
fn sign_out_with_the_network_unreachable_says_the_session_was_not_revoked() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    tauri::async_runtime::block_on(sandbox.shutdown());

    let summary: SignOutSummary = app.invoke_ok(args::sign_out {});

    assert!(
        matches!(summary.revocation, Revocation::Failed { ref message } if !message.is_empty()),
        "{summary:?}"
    );
    assert_eq!(stored_session(&keyring), None, "forgotten here anyway");
    assert!(status(&app).session.is_none());
}

#[test]
fn a_keyring_that_fails_to_delete_at_sign_out_is_reported() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    // The first part of the stored session, removed last.
    fail_next_keyring_call(
        &keyring,
        "session#1.0",
        keyring_core::Error::PlatformFailure("the keyring broke".into()),
    );

    let summary: SignOutSummary = app.invoke_ok(args::sign_out {});

    let problem = summary
        .keyring_problem
        .expect("the failed delete is reported");
    assert!(problem.contains("did not remove"), "{problem}");
    assert_eq!(summary.revocation, Revocation::Revoked);
}

#[test]
fn what_the_ui_receives_about_a_session_never_holds_the_token() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);

    let stored: Value = stored_session(&keyring).unwrap();
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
    let old: rxdesk_client::Session =
        serde_json::from_value(stored_session(&keyring).unwrap()).unwrap();

    let summary: SignOutSummary = app.invoke_ok(args::sign_out {});

    assert_eq!(summary.revocation, Revocation::Revoked);
    assert_eq!(summary.keyring_problem, None);
    assert_eq!(stored_session(&keyring), None);
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
        matches!(renewed, Err(rxdesk_client::ClientError::SignedOut { ref code, .. }) if code != "other_environment"),
        "the revoked refresh token still works (or was never tried): {renewed:?}"
    );
    assert!(matches!(
        app.invoke(args::find_patients {
            action: None,
            query: "Delgado".into()
        }),
        Err(CommandError::SignedOut { .. })
    ));
}

#[test]
fn a_rejected_token_without_renewal_answers_signed_out_mid_form_and_ends_the_session() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    // A session whose token the network rejects and which cannot be renewed.
    let far = 4_000_000_000u64;
    let url = sandbox.url().to_string();
    let issued_for =
        json!({"auth": url, "api": url, "aud": "rxdesk-sandbox", "cid": "rxdesk-desktop"});
    let forged = json!({"at": "not-a-token", "exp": far, "perm": ["read:patient", "write:patient"],
                        "user": {"id": "u", "name": "Ada Quinn"}, "org": {"id": "org_maple", "name": MAPLE},
                        "for": issued_for});
    store_session(&keyring, ENV_ID, &forged);
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    assert!(
        status(&app).session.is_some(),
        "restored without a network call"
    );

    let answer = app.invoke(args::save_patient {
        action: None,
        id: None,
        input: form("Kept", "Typed", "1990-01-01"),
    });

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
        stored_session(&keyring),
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
    let mut stored: Value = stored_session(&keyring).unwrap();
    stored["at"] = json!("rejected-token");
    store_session(&keyring, ENV_ID, &stored);

    let app = TestApp::start(Options::new(&sandbox, &keyring));
    let found = find_patients(&app, "Delgado");

    assert_eq!(found.len(), 1);
    let now: Value = stored_session(&keyring).unwrap();
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

/// A stored session whose access token the network now rejects (its refresh
/// token still good), as the next start of the app finds it.
fn reject_the_stored_access_token(keyring: &SessionStore) {
    let mut stored: Value = stored_session(keyring).unwrap();
    stored["at"] = json!("rejected-token");
    store_session(keyring, ENV_ID, &stored);
}

#[test]
fn a_rejected_token_is_renewed_silently_before_the_work_lists_are_read() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new(&sandbox, &keyring);
    options.index_file = Some(dir.path().join("index.sqlite"));
    let patient = {
        let app = TestApp::start(Options {
            index_file: options.index_file.clone(),
            ..Options::new(&sandbox, &keyring)
        });
        app.sign_in_as(ADA);
        add_patient(&app, "Lena", "Listed")
    };
    reject_the_stored_access_token(&keyring);
    let app = TestApp::start(options);

    let lists = app.invoke(args::work_lists { action: None });

    let lists = lists.unwrap_or_else(|e| panic!("not renewed: {e:?}"));
    assert_eq!(
        lists
            .recent_patients
            .iter()
            .map(|p| &p.id)
            .collect::<Vec<_>>(),
        [&patient.id]
    );
}

#[test]
fn a_rejected_token_is_renewed_silently_before_signing() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let rx = {
        let app = TestApp::start(Options::new(&sandbox, &keyring));
        app.sign_in_as(ADA);
        let patient = add_patient(&app, "Rena", "Renewed");
        draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE))
    };
    reject_the_stored_access_token(&keyring);
    let app = TestApp::start(Options::new(&sandbox, &keyring));

    let results = sign(&app, &[&rx]);

    assert_eq!(signed(&results[0]).id, rx.id);
}

#[test]
fn pressing_cancel_on_the_sign_in_page_reaches_the_ui_as_access_denied() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.browser.set(Act::Cancel);

    let () = app.invoke_ok(args::sign_in {
        this_run_only: None,
    });

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
    assert!(app.invoke(args::open_sign_in_again {}).is_err());

    let () = app.invoke_ok(args::sign_in {
        this_run_only: None,
    });
    let SignInEvent::Waiting {
        url,
        browser_opened,
    } = app.next_sign_in_event()
    else {
        panic!("expected Waiting");
    };
    assert!(browser_opened);
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    let () = app.invoke_ok(args::open_sign_in_again {});
    let () = app.invoke_ok(args::cancel_sign_in {});

    assert!(matches!(
        app.next_sign_in_event(),
        SignInEvent::Failed {
            reason: SignInFailure::Cancelled,
            ..
        }
    ));
}

/// The refresh tokens the sandbox keeping its data in `dir` has issued, and
/// how many of them were not revoked, as its database says.
fn refresh_tokens_issued_and_live(dir: &std::path::Path) -> (i64, i64) {
    let db = rusqlite::Connection::open_with_flags(
        dir.join("sandbox.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    db.query_row(
        "SELECT COUNT(*), COALESCE(SUM(revoked_at IS NULL), 0) FROM refresh_tokens",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .unwrap()
}

#[test]
fn a_sign_in_completing_after_it_was_cancelled_leaves_its_refresh_token_revoked() {
    use rxdesk_sandbox::link::{Latency, LinkSettings, Operation, OperationSettings};
    let dir = tempfile::tempdir().unwrap();
    let sandbox =
        tauri::async_runtime::block_on(rxdesk_sandbox::Sandbox::start(rxdesk_sandbox::Config {
            storage: rxdesk_sandbox::Storage::Data(dir.path().to_owned()),
            ..rxdesk_sandbox::Config::in_memory()
        }))
        .unwrap();
    // A slow token endpoint: the code is still being exchanged when the app locks.
    let mut slow_tokens = LinkSettings::default();
    slow_tokens.operations.insert(
        Operation::Token,
        OperationSettings {
            latency: Some(Latency {
                ms: 3_000,
                jitter_ms: 0,
            }),
            faults: None,
        },
    );
    sandbox.link().set(slow_tokens).unwrap();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.browser.set(Act::SignIn(ADA.to_owned()));
    let () = app.invoke_ok(args::sign_in {
        this_run_only: None,
    });
    let exchanging = || {
        let counters = sandbox.link().counters();
        counters
            .requests
            .get(&Operation::Token)
            .copied()
            .unwrap_or(0)
            >= 1
    };
    assert!(
        eventually(Duration::from_secs(20), exchanging),
        "the code never reached the token endpoint"
    );

    let _: SignOutSummary = app.invoke_ok(args::lock_session {});

    let all_revoked = || {
        let (issued, live) = refresh_tokens_issued_and_live(dir.path());
        issued >= 1 && live == 0
    };
    assert!(
        eventually(Duration::from_secs(20), all_revoked),
        "the cancelled sign-in's refresh token still works: {:?} (issued, live)",
        refresh_tokens_issued_and_live(dir.path())
    );
    assert!(
        status(&app).session.is_none(),
        "the cancelled sign-in was taken up"
    );
}

#[test]
fn no_callback_in_time_reaches_the_ui_as_a_timeout() {
    let sandbox = sandbox();
    let mut options = Options::new(&sandbox, &mock_keyring());
    options.sign_in_timeout = Duration::from_secs(1);
    let app = TestApp::start(options);

    let () = app.invoke_ok(args::sign_in {
        this_run_only: None,
    });

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
fn an_environment_carrying_a_client_secret_is_refused_on_that_field() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));

    let answer = app.invoke(args::save_environment {
        input: EnvironmentInput {
            name: "Leaky".into(),
            auth_url: "https://auth.example".into(),
            api_url: "https://api.example".into(),
            audience: "aud".into(),
            client_id: "desk".into(),
            callback_port: None,
            client_secret: Some("s3cret".into()),
            require_issuer: false,
        },
    });

    assert!(
        matches!(&answer, Err(CommandError::Invalid { field: Some(f), message, .. })
            if f == "client_secret" && message.contains("public client must never hold a secret")),
        "{answer:?}"
    );
    let saved: AppStatus = app.invoke_ok(args::save_environment {
        input: EnvironmentInput {
            name: "Staging".into(),
            auth_url: "https://auth.example".into(),
            api_url: "https://api.example".into(),
            audience: "aud".into(),
            client_id: "desk".into(),
            callback_port: None,
            client_secret: None,
            require_issuer: false,
        },
    });
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
    assert!(stored_session(&keyring).is_some());
}

/// Makes the built-in sandbox of `dir` find its recorded port taken at its
/// next start (as another program would hold it), so it starts on another.
fn hold_the_recorded_port(dir: &std::path::Path) -> std::net::TcpListener {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    std::fs::write(dir.join("port"), format!("{port}\n")).unwrap();
    holder
}

#[test]
fn a_session_follows_the_local_sandbox_restarted_on_another_port() {
    let keyring = mock_keyring();
    let data = tempfile::tempdir().unwrap();
    let before = {
        let app = TestApp::start(Options::built_in_on_disk(&keyring, data.path()));
        app.sign_in_as(ADA);
        status(&app).environments[0].auth_url.clone()
    };
    let _taken = hold_the_recorded_port(data.path());

    let restarted = TestApp::start(Options::built_in_on_disk(&keyring, data.path()));
    let after = status(&restarted);

    assert_ne!(
        after.environments[0].auth_url, before,
        "started on another port"
    );
    assert_eq!(after.session.expect("still signed in").user_email, ADA);
    assert_eq!(find_patients(&restarted, "Delgado").len(), 1);
}

#[test]
fn a_session_of_another_local_sandbox_is_not_taken_up() {
    let keyring = mock_keyring();
    let first = tempfile::tempdir().unwrap();
    {
        let app = TestApp::start(Options::built_in_on_disk(&keyring, first.path()));
        app.sign_in_as(ADA);
    }
    // Another data directory: another sandbox, with an issuer of its own.
    let other = tempfile::tempdir().unwrap();

    let restarted = TestApp::start(Options::built_in_on_disk(&keyring, other.path()));

    assert!(
        status(&restarted).session.is_none(),
        "another sandbox's session was taken up"
    );
    assert!(stored_session(&keyring).is_none());
    assert!(is_signed_out(&restarted), "still signed in");
}

#[test]
fn the_network_check_finds_the_sandbox_compatible_with_what_the_app_sends() {
    let (_sandbox, app) = signed_in(ADA);

    let check: NetworkCheck = app.invoke_ok(args::check_network {});

    assert_eq!(check, NetworkCheck::Compatible);
}

// ---- patients ------------------------------------------------------------------------

#[test]
fn searching_by_name_answers_candidates_and_never_creates_anyone() {
    let (_sandbox, app) = signed_in(MO);

    let first = find_patients(&app, "Rosa Delgado");
    let again = find_patients(&app, "Rosa Delgado");
    let nobody = find_patients(&app, "Nadia Newcombe");
    let nobody_again = find_patients(&app, "Nadia Newcombe");

    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].name, "Rosa Delgado");
    assert_eq!(first[0].date_of_birth.as_deref(), Some("1988-04-17"));
    assert_eq!(again, first, "searching twice changes nothing");
    assert_eq!(
        find_patients(&app, "rosa"),
        first,
        "one word is a first or a last name"
    );
    assert!(nobody.is_empty() && nobody_again.is_empty());
    assert!(
        find_patients(&app, "Newcombe").is_empty(),
        "the search added nobody"
    );
    let rosa: PatientRecord = app.invoke_ok(args::get_patient {
        action: None,
        id: first[0].id.clone(),
    });
    assert_eq!(rosa.full_name, "Rosa Delgado");
}

#[test]
fn adding_a_patient_with_missing_fields_answers_not_saved_naming_each_missing_field() {
    let (_sandbox, app) = signed_in(MO);
    let mut input = form("Mira", "Unlisted", "");
    input.sex = None;

    let outcome = save_patient(&app, None, &input);

    let PatientOutcome::NotSaved { problems } = outcome else {
        panic!("expected notSaved, got {outcome:?}");
    };
    let keys: BTreeSet<&str> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(
        keys,
        BTreeSet::from(["demographic.dateOfBirth", "demographic.sex"])
    );
    assert!(find_patients(&app, "Unlisted").is_empty());
}

#[test]
fn a_birth_date_in_the_future_is_not_saved_and_the_field_is_named() {
    let (_sandbox, app) = signed_in(MO);

    let outcome = save_patient(&app, None, &form("Future", "Child", "2999-01-01"));

    let PatientOutcome::NotSaved { problems } = outcome else {
        panic!("expected notSaved, got {outcome:?}");
    };
    let problem = problems
        .iter()
        .find(|p| p.key == "demographic.dateOfBirth")
        .expect("the date of birth is named");
    assert_eq!(problem.status, ChangeStatus::Rejected);
    assert!(find_patients(&app, "Child").is_empty());
}

#[test]
fn adding_someone_whose_name_and_birth_date_are_on_record_opens_that_patient() {
    let (_sandbox, app) = signed_in(MO);
    let rosa = demo_patient(&app, "Rosa Delgado");
    let mut input = form("rosa", "DELGADO", "1988-04-17");
    input.phone = None;

    let (patient, _) = saved_patient(save_patient(&app, None, &input));

    assert_eq!(patient.id, rosa.id);
    assert_eq!(
        patient.allergies[0].name, "Penicillins",
        "her record, as it was"
    );
    assert_eq!(find_patients(&app, "Delgado").len(), 1, "nobody was added");
}

#[test]
fn partial_details_that_fit_several_patients_answer_candidates_and_save_nothing() {
    let (_sandbox, app) = signed_in(MO);
    let patricia = add_patient(&app, "Patricia", "Candidate");
    let patrick = add_patient(&app, "Patrick", "Candidate");
    let mut partial = form("Pat", "Candidate", "");
    partial.sex = None;
    partial.phone = None;

    let outcome = save_patient(&app, None, &partial);

    let PatientOutcome::Candidates { reason, candidates } = outcome else {
        panic!("expected candidates, got {outcome:?}");
    };
    assert!(!reason.is_empty());
    assert_eq!(
        ids(candidates.iter().map(|c| &c.id)),
        ids([&patricia.id, &patrick.id])
    );
    assert_eq!(find_patients(&app, "Candidate").len(), 2);
}

#[test]
fn changing_a_patients_demographics_keeps_the_patient_and_changes_the_fields_sent() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Iris", "Renamed");
    let mut changed = form("Irene", "Renamed", "1980-04-02");
    changed.email = Some("irene@example.org".into());

    let (after, _) = saved_patient(save_patient(&app, Some(&patient.id), &changed));

    assert_eq!(after.id, patient.id);
    assert_eq!(after.first_name, "Irene");
    assert_eq!(after.email.as_deref(), Some("irene@example.org"));
}

#[test]
fn an_allergy_added_by_name_resolves_to_the_catalogs_allergen() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Alma", "Allergic");

    let (after, notes) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &allergy(Some("amoxicillin"), None),
    ));

    assert_eq!(after.allergies.len(), 1, "{notes:?}");
    assert_eq!(after.allergies[0].name, "Amoxicillin");
    assert_eq!(after.allergies[0].code.as_deref(), Some("723"));
    assert!(notes.iter().all(|n| n.status != ChangeStatus::Ambiguous));
}

#[test]
fn an_ambiguous_allergy_name_answers_a_note_with_options_and_resending_the_chosen_id_applies_it() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Abel", "Ambiguous");

    let (unchanged, notes) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &allergy(Some("antibiotics"), None),
    ));

    assert!(unchanged.allergies.is_empty(), "nothing saved");
    let note = notes
        .iter()
        .find(|n| n.status == ChangeStatus::Ambiguous)
        .expect("an ambiguous note");
    assert_eq!(note.key, "clinical.allergies.add.0");
    let labels: BTreeSet<&str> = note.options.iter().map(|o| o.label.as_str()).collect();
    assert!(
        labels.contains("Macrolide Antibiotics") && labels.contains("Sulfonamide Antibiotics"),
        "{labels:?}"
    );
    let chosen = note
        .options
        .iter()
        .find(|o| o.label == "Macrolide Antibiotics")
        .unwrap();
    assert_eq!(
        chosen.argument.as_deref(),
        Some("clinical.allergies.add.0.id")
    );

    let (after, _) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &allergy(None, chosen.value.as_deref()),
    ));

    let names: Vec<&str> = after.allergies.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["Macrolide Antibiotics"]);
}

#[test]
fn no_known_allergies_clears_the_allergy_list() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Nora", "Noallergy");
    let (with, _) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &allergy(Some("Penicillins"), None),
    ));
    assert_eq!(with.allergies.len(), 1);

    let (after, _) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &ClinicalEdit {
            no_known_allergies: true,
            ..Default::default()
        },
    ));

    assert!(after.allergies.is_empty(), "{:?}", after.allergies);
}

// ---- prescriptions -------------------------------------------------------------------

#[test]
fn a_drug_look_up_offers_the_catalogs_drugs_as_options_and_creates_nothing() {
    let (_sandbox, app) = signed_in(ADA);

    let options: Vec<ChoiceView> = app.invoke_ok(args::look_up_drug {
        action: None,
        query: "amoxicillin".into(),
    });

    assert!(options.len() > 1, "{options:?}");
    assert!(
        options
            .iter()
            .all(|o| o.argument.as_deref() == Some("treatment.id"))
    );
    assert!(
        options
            .iter()
            .any(|o| o.value.as_deref() == Some(AMOXICILLIN))
    );
    assert!(work_lists(&app).drafts.is_empty(), "no draft was made");
}

#[test]
fn a_diagnosis_look_up_offers_the_catalogs_icd10_diagnoses_and_creates_nothing() {
    let (_sandbox, app) = signed_in(ADA);

    let options: Vec<ChoiceView> = app.invoke_ok(args::look_up_diagnosis {
        action: None,
        query: "pharyngitis".into(),
    });

    assert_eq!(options.len(), 1, "{options:?}");
    assert_eq!(options[0].label, "J02.9 Acute pharyngitis, unspecified");
    assert_eq!(options[0].value.as_deref(), Some("dx_J02_9"));
    assert!(work_lists(&app).drafts.is_empty(), "no draft was made");
}

/// Amoxicillin with a diagnosis chosen from the look-up, a note to the
/// pharmacy and dispense-as-written.
fn whole(app: &TestApp) -> DraftForm {
    let options: Vec<ChoiceView> = app.invoke_ok(args::look_up_diagnosis {
        action: None,
        query: "J02".into(),
    });
    let option = options.first().expect("a diagnosis option");
    DraftForm {
        dispense_as_written: Some(true),
        notes: Some("Blister packs, please.".into()),
        add_diagnoses: vec![DiagnosisPick {
            id: option.value.clone(),
            name: option.label.clone(),
        }],
        ..drug(AMOXICILLIN)
    }
}

#[test]
fn a_new_draft_carries_its_diagnoses_note_to_the_pharmacy_and_dispense_as_written() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Wanda", "Whole");

    let rx = draft(&app, &patient.id, &whole(&app));

    assert_eq!(rx.dispense.dispense_as_written, Some(true));
    assert_eq!(rx.notes.as_deref(), Some("Blister packs, please."));
    let codes: Vec<Option<&str>> = rx.diagnoses.iter().map(|d| d.code.as_deref()).collect();
    assert_eq!(codes, [Some("J02.9")]);
}

#[test]
fn changing_a_draft_adds_and_removes_diagnoses_and_sets_the_note_and_dispense_as_written() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Carl", "Changed");
    let first = draft(&app, &patient.id, &whole(&app));
    let changes = DraftForm {
        dispense_as_written: Some(false),
        notes: Some("Call before filling.".into()),
        add_diagnoses: vec![DiagnosisPick {
            id: Some("dx_J01_90".into()),
            name: "J01.90 Acute sinusitis, unspecified".into(),
        }],
        remove_diagnoses: vec![first.diagnoses[0].id.clone()],
        ..Default::default()
    };

    let changed = match save_draft(&app, &patient.id, Some(&first.id), &changes) {
        PrescriptionOutcome::Saved { prescription, .. } => *prescription,
        other => panic!("not changed: {other:?}"),
    };

    assert_eq!(changed.id, first.id);
    assert_eq!(changed.dispense.dispense_as_written, Some(false));
    assert_eq!(changed.notes.as_deref(), Some("Call before filling."));
    let codes: Vec<Option<&str>> = changed
        .diagnoses
        .iter()
        .map(|d| d.code.as_deref())
        .collect();
    assert_eq!(codes, [Some("J01.90")]);
    assert_ne!(
        changed.content_hash, first.content_hash,
        "dispense-as-written is in the hash"
    );
}

#[test]
fn the_note_and_diagnoses_leave_the_content_hash_as_it_was() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Hana", "Hash");
    let first = draft(&app, &patient.id, &whole(&app));
    let changes = DraftForm {
        notes: Some("Another note.".into()),
        remove_diagnoses: vec![first.diagnoses[0].id.clone()],
        ..Default::default()
    };

    let changed = match save_draft(&app, &patient.id, Some(&first.id), &changes) {
        PrescriptionOutcome::Saved { prescription, .. } => *prescription,
        other => panic!("not changed: {other:?}"),
    };

    assert!(changed.diagnoses.is_empty());
    assert_eq!(changed.content_hash, first.content_hash);
}

fn prescribe_again(app: &TestApp, id: &str) -> PrescriptionView {
    match app.invoke_ok(args::prescribe_again {
        action: None,
        id: id.to_owned(),
        key: create_key(),
    }) {
        PrescriptionOutcome::Saved { prescription, .. } => *prescription,
        other => panic!("not drafted again: {other:?}"),
    }
}

#[test]
fn a_signed_prescription_prescribed_again_is_a_new_unsigned_draft_with_its_drug_sig_and_dispense() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Renata", "Again");
    let first = signed(&sign(&app, &[&draft(&app, &patient.id, &drug(AMOXICILLIN))])[0]).clone();

    let again = prescribe_again(&app, &first.id);

    assert_ne!(again.id, first.id);
    assert_eq!(again.signing, SigningState::Unsigned);
    assert_eq!(again.patient_id, first.patient_id);
    assert_eq!(again.drug, first.drug);
    assert_eq!(again.instructions, first.instructions);
    assert_eq!(again.dispense, first.dispense);
    assert_eq!(again.status, Some(DraftStatus::Ready));
}

#[test]
fn a_signed_prescription_prescribed_again_carries_its_diagnoses_and_dispense_as_written() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Renata", "Diagnosed");
    let first = signed(&sign(&app, &[&draft(&app, &patient.id, &whole(&app))])[0]).clone();
    assert_eq!(first.diagnoses.len(), 1);

    let again = prescribe_again(&app, &first.id);

    assert_eq!(again.diagnoses, first.diagnoses);
    assert_eq!(again.dispense.dispense_as_written, Some(true));
    assert_eq!(again.content_hash, first.content_hash, "the same content");
    assert_eq!(again.signing, SigningState::Unsigned);
}

#[test]
fn prescribing_again_after_a_new_allergy_is_screened_afresh_and_blocked() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Renata", "Allergic");
    let first = signed(&sign(&app, &[&draft(&app, &patient.id, &drug(AMOXICILLIN))])[0]).clone();
    saved_patient(edit_clinical(
        &app,
        &patient.id,
        &allergy(None, Some("alg_penicillin")),
    ));

    let again = prescribe_again(&app, &first.id);

    assert_eq!(again.status, Some(DraftStatus::Blocked));
    assert_eq!(again.signing, SigningState::Unsigned);
}

#[test]
fn a_draft_is_not_prescribed_again() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Renata", "Draft");
    let unsigned = draft(&app, &patient.id, &drug(AMOXICILLIN));

    let refused = app.invoke(args::prescribe_again {
        action: None,
        id: unsigned.id.clone(),
        key: create_key(),
    });

    assert!(
        matches!(&refused, Err(CommandError::Invalid { code, .. }) if code == "NOT_SIGNED"),
        "{refused:?}"
    );
}

#[test]
fn amoxicillin_for_a_penicillin_allergic_patient_is_blocked_with_an_allergen_alert_offering_an_alternative()
 {
    let (_sandbox, app) = signed_in(ADA);
    let rosa = demo_patient(&app, "Rosa Delgado");

    let rx = draft(&app, &rosa.id, &drug(AMOXICILLIN));

    assert_eq!(rx.status, Some(DraftStatus::Blocked));
    let alert = rx
        .alerts
        .iter()
        .find(|a| a.kind == AlertKind::Allergen)
        .expect("an ALLERGEN alert");
    assert!(
        alert.involved.iter().any(|i| i == "Penicillins"),
        "{:?}",
        alert.involved
    );
    assert!(
        alert
            .alternatives
            .iter()
            .any(|o| o.value.as_deref() == Some(AZITHROMYCIN)
                && o.argument.as_deref() == Some("treatment.id")),
        "{:?}",
        alert.alternatives
    );
}

#[test]
fn a_draft_from_a_template_is_saved_with_the_templates_drug_and_directions() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Tess", "Template");

    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));

    assert_eq!(rx.template_id.as_deref(), Some(LISINOPRIL_TEMPLATE));
    assert_eq!(rx.drug.id, "med_lisinopril_10_tab");
    assert_eq!(
        rx.instructions.as_deref(),
        Some("Take 1 tablet by mouth once daily.")
    );
    assert_eq!(rx.dispense.quantity, Some(30.0));
    assert_eq!(rx.signing, SigningState::Unsigned);
    assert_eq!(rx.patient_id.as_deref(), Some(patient.id.as_str()));
}

fn find_templates(app: &TestApp, query: &str) -> Vec<TemplateView> {
    app.invoke_ok(args::find_templates {
        query: query.to_owned(),
    })
}

#[test]
fn a_template_used_here_is_offered_by_name() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Otto", "Offered");
    assert!(
        find_templates(&app, "lisinopril").is_empty(),
        "offered before use"
    );

    let _ = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let offered = find_templates(&app, "lisinopril");

    assert_eq!(
        offered,
        [TemplateView {
            id: LISINOPRIL_TEMPLATE.into(),
            name: Some("Lisinopril 10 mg daily".into()),
            drug_name: "Lisinopril 10 MG Oral Tablet".into(),
        }]
    );
}

#[test]
fn a_template_the_network_does_not_know_here_is_no_longer_offered() {
    let sandbox = sandbox();
    let dir = tempfile::tempdir().unwrap();
    let index_file = dir.path().join("index.sqlite");
    Index::open(&index_file)
        .unwrap()
        .remember_template(
            &maple_scope(),
            &UsedTemplate {
                id: "tmpl_withdrawn".into(),
                name: Some("Withdrawn template".into()),
                drug_name: "Lisinopril 10 MG Oral Tablet".into(),
            },
        )
        .unwrap();
    let app = TestApp::start(Options {
        index_file: Some(index_file),
        ..Options::new(&sandbox, &mock_keyring())
    });
    app.sign_in_as(ADA);
    let patient = add_patient(&app, "Wanda", "Withdrawn");
    assert_eq!(find_templates(&app, "withdrawn").len(), 1);

    let outcome = save_draft(&app, &patient.id, None, &template("tmpl_withdrawn"));

    assert!(
        matches!(outcome, PrescriptionOutcome::NotSaved { .. }),
        "{outcome:?}"
    );
    assert!(find_templates(&app, "withdrawn").is_empty());
}

#[test]
fn signing_with_the_content_hash_shown_signs_the_prescription() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Sid", "Signed");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));

    let results = sign(&app, &[&rx]);

    assert_eq!(results.len(), 1);
    let done = signed(&results[0]);
    assert_eq!(done.id, rx.id);
    assert_eq!(done.signing, SigningState::Signed);
    assert!(done.signed_at.is_some());
    let now: PrescriptionView = app.invoke_ok(args::get_prescription {
        action: None,
        id: rx.id.clone(),
    });
    assert_eq!(now.signing, SigningState::Signed);
}

#[test]
fn signing_after_the_draft_changed_answers_invalidated_with_the_new_content_and_the_new_hash_signs()
{
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Ivan", "Invalidated");
    let shown = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let changed = DraftForm {
        instructions: Some("Take 2 tablets by mouth once daily.".into()),
        ..Default::default()
    };
    let PrescriptionOutcome::Saved { .. } =
        save_draft(&app, &patient.id, Some(&shown.id), &changed)
    else {
        panic!("the draft was not changed");
    };

    let results = sign(&app, &[&shown]);

    let SignResult::Invalidated { current, reason } = &results[0] else {
        panic!("expected invalidated, got {results:?}");
    };
    assert!(!reason.is_empty());
    assert_eq!(current.id, shown.id);
    assert_ne!(current.content_hash, shown.content_hash);
    assert_eq!(
        current.instructions.as_deref(),
        Some("Take 2 tablets by mouth once daily.")
    );
    assert_ne!(current.signing, SigningState::Signed);
    let again = sign(&app, &[current]);
    assert_eq!(signed(&again[0]).id, shown.id);
}

#[test]
fn a_blocked_draft_is_rejected_when_signed() {
    let (_sandbox, app) = signed_in(ADA);
    let rosa = demo_patient(&app, "Rosa Delgado");
    let rx = draft(&app, &rosa.id, &template(AMOXICILLIN_TEMPLATE));
    assert_eq!(rx.status, Some(DraftStatus::Blocked));

    let results = sign(&app, &[&rx]);

    let SignResult::Rejected { id, reasons } = &results[0] else {
        panic!("expected rejected, got {results:?}");
    };
    assert_eq!(id, &rx.id);
    assert!(!reasons.is_empty());
    let now: PrescriptionView = app.invoke_ok(args::get_prescription {
        action: None,
        id: rx.id.clone(),
    });
    assert_eq!(now.signing, SigningState::Unsigned);
}

#[test]
fn medical_operations_signing_fails_with_the_networks_refusal_naming_the_permission() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Rhea", "Refused");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));

    let results = sign(&app, &[&rx]);

    let SignResult::Failed { id, error } = &results[0] else {
        panic!("expected failed, got {results:?}");
    };
    assert_eq!(id, &rx.id);
    assert!(
        matches!(error, CommandError::Refused { code, required_permission: Some(permission), .. }
            if code == "PRESCRIPTION_SIGNING_UNAUTHORIZED" && permission == "write:prescription"),
        "{error:?}"
    );
}

#[test]
fn several_drafts_get_one_result_each_in_order_and_progress_counts_up_to_the_total() {
    let (_sandbox, app) = signed_in(ADA);
    let rosa = demo_patient(&app, "Rosa Delgado");
    let one = draft(
        &app,
        &add_patient(&app, "Una", "First").id,
        &template(LISINOPRIL_TEMPLATE),
    );
    let blocked = draft(&app, &rosa.id, &drug(AMOXICILLIN));
    let two = draft(
        &app,
        &add_patient(&app, "Tomas", "Second").id,
        &template(LISINOPRIL_TEMPLATE),
    );

    let results = sign(&app, &[&one, &blocked, &two]);

    assert_eq!(results.len(), 3);
    assert_eq!(signed(&results[0]).id, one.id);
    assert!(matches!(&results[1], SignResult::Rejected { id, .. } if *id == blocked.id));
    assert_eq!(signed(&results[2]).id, two.id);
    let progress = app.signing_progress_until_done();
    let counts: Vec<(u32, u32)> = progress.iter().map(|p| (p.done, p.total)).collect();
    assert_eq!(counts, vec![(0, 3), (1, 3), (2, 3), (3, 3)]);
    let mut answered: Vec<&str> = progress
        .iter()
        .filter_map(|p| p.answered.as_deref())
        .collect();
    answered.sort_unstable();
    let mut drafts = vec![one.id.as_str(), blocked.id.as_str(), two.id.as_str()];
    drafts.sort_unstable();
    assert_eq!(answered, drafts);
}

// ---- orders --------------------------------------------------------------------------

#[test]
fn sending_an_order_with_an_unsigned_prescription_keeps_it_a_draft_with_a_note_saying_why() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Una", "Unsigned");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let order = draft_order(&app, &patient.id, &[&rx.id]);
    assert_eq!(order.state, OrderState::Draft);

    let (after, notes) = order_saved(app.invoke_ok(args::send_order {
        action: None,
        id: order.id.clone(),
    }));

    assert_eq!(after.state, OrderState::Draft);
    assert!(
        notes.iter().any(|n| n.key == "state"
            && n.reason
                .as_deref()
                .is_some_and(|r| r.contains("not signed"))),
        "{notes:?}"
    );
}

#[test]
fn an_order_for_a_patient_with_a_landline_is_not_sent_and_the_note_says_why() {
    let (_sandbox, app) = signed_in(ADA);
    let walter = demo_patient(&app, "Walter Brooks");
    let rx = draft(&app, &walter.id, &drug(AZITHROMYCIN));
    let order = draft_order(&app, &walter.id, &[&rx.id]);

    let (after, notes) = order_saved(app.invoke_ok(args::send_order {
        action: None,
        id: order.id.clone(),
    }));

    assert_eq!(after.state, OrderState::Draft);
    assert!(
        notes.iter().any(|n| n
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("cannot receive texts"))),
        "{notes:?}"
    );
}

#[test]
fn an_order_of_signed_prescriptions_is_sent_and_a_sent_order_can_be_canceled() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Sender");

    let (sent, notes) = order_saved(app.invoke_ok(args::send_order {
        action: None,
        id: order.id.clone(),
    }));
    assert_eq!(sent.state, OrderState::Submitted, "{notes:?}");
    assert!(notes.is_empty(), "{notes:?}");

    let (canceled, _) = order_saved(app.invoke_ok(args::cancel_order {
        action: None,
        id: order.id.clone(),
    }));
    assert_eq!(canceled.state, OrderState::Canceled);
    let now: OrderView = app.invoke_ok(args::get_order {
        action: None,
        id: order.id.clone(),
    });
    assert_eq!(now.state, OrderState::Canceled);
}

#[test]
fn a_pharmacy_name_that_fits_several_answers_options_with_offers_and_choosing_one_by_id_sets_it() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Pharmacist");
    let search = PharmacySearch {
        name: Some("Harbor Drug".into()),
        ..Default::default()
    };

    let answer: PharmacyAnswer = app.invoke_ok(args::find_pharmacies {
        action: None,
        order_id: order.id.clone(),
        search: search.clone(),
    });

    let PharmacyAnswer::Options { options } = answer else {
        panic!("expected options, got {answer:?}");
    };
    assert!(options.len() > 1);
    assert!(options.iter().all(|o| o.label.contains("Harbor Drug")));
    assert!(options.iter().all(|o| !o.offers.is_empty()), "{options:?}");
    let chosen = options[1]
        .value
        .clone()
        .expect("an option names its pharmacy");
    let (after, _) = order_saved(app.invoke_ok(args::choose_pharmacy {
        action: None,
        order_id: order.id.clone(),
        pharmacy_id: Some(chosen.clone()),
    }));
    assert_eq!(after.pharmacy.map(|p| p.id), Some(chosen));
}

#[test]
fn a_pharmacy_search_near_a_postal_code_lists_the_nearest_first_with_their_prices() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Nearby");

    let answer: PharmacyAnswer = app.invoke_ok(args::find_pharmacies {
        action: None,
        order_id: order.id.clone(),
        search: PharmacySearch {
            near: Some("02116".into()),
            fulfillment: Some(Fulfillment::PickUp),
            ..Default::default()
        },
    });

    let PharmacyAnswer::Options { options } = answer else {
        panic!("expected options, got {answer:?}");
    };
    let nearest = &options[0];
    assert_eq!(nearest.value.as_deref(), Some("phr_harbor_drug_back_bay"));
    assert!(
        nearest
            .reason
            .as_deref()
            .is_some_and(|r| r.ends_with("miles away")),
        "{nearest:?}"
    );
    let price = nearest.offers[0]
        .price
        .as_ref()
        .expect("Back Bay prices lisinopril");
    assert_eq!(
        (price.kind, price.total, price.retail, price.savings),
        (Some(PriceKind::Cash), Some(4.0), Some(15.99), Some(11.99))
    );
}

#[test]
fn a_pharmacy_name_that_fits_one_pharmacy_sets_it_on_the_order() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Prairie");

    let answer: PharmacyAnswer = app.invoke_ok(args::find_pharmacies {
        action: None,
        order_id: order.id.clone(),
        search: PharmacySearch {
            name: Some("Prairie Drug".into()),
            ..Default::default()
        },
    });

    let PharmacyAnswer::Chosen { order } = answer else {
        panic!("expected chosen, got {answer:?}");
    };
    assert_eq!(
        order.pharmacy.map(|p| p.id).as_deref(),
        Some("phr_prairie_drug")
    );
}

#[test]
fn a_pharmacy_search_that_fits_none_answers_nothing_with_the_networks_reason() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Nowhere");

    let answer: PharmacyAnswer = app.invoke_ok(args::find_pharmacies {
        action: None,
        order_id: order.id.clone(),
        search: PharmacySearch {
            name: Some("No Such Pharmacy".into()),
            ..Default::default()
        },
    });

    let PharmacyAnswer::Nothing { reasons } = answer else {
        panic!("expected nothing, got {answer:?}");
    };
    assert!(reasons.iter().any(|r| r.reason.is_some()), "{reasons:?}");
    let now: OrderView = app.invoke_ok(args::get_order {
        action: None,
        id: order.id.clone(),
    });
    assert_eq!(now.pharmacy, None);
}

#[test]
fn choosing_no_pharmacy_leaves_the_choice_to_the_patient() {
    let (_sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Chooser");
    let (with, _) = order_saved(app.invoke_ok(args::choose_pharmacy {
        action: None,
        order_id: order.id.clone(),
        pharmacy_id: Some("phr_prairie_drug".into()),
    }));
    assert!(with.pharmacy.is_some());

    let (after, _) = order_saved(app.invoke_ok(args::choose_pharmacy {
        action: None,
        order_id: order.id.clone(),
        pharmacy_id: None,
    }));

    assert_eq!(after.pharmacy, None);
}

#[test]
fn an_order_rerouted_from_a_closed_pharmacy_shows_the_exception_and_the_new_pharmacy_in_open_orders()
 {
    let (sandbox, app) = signed_in(ADA);
    let order = order_ready_to_send(&app, "Rerouted");
    // The demo fixture lists Harbor Drug North End as closed, rerouting to Back Bay.
    order_saved(app.invoke_ok(args::choose_pharmacy {
        action: None,
        order_id: order.id.clone(),
        pharmacy_id: Some("phr_harbor_drug_north_end".into()),
    }));
    let (sent, notes) = order_saved(app.invoke_ok(args::send_order {
        action: None,
        id: order.id.clone(),
    }));
    assert_eq!(sent.state, OrderState::Submitted, "{notes:?}");

    // The pharmacy's steps: placed at the closed pharmacy, found closed, rerouted.
    tauri::async_runtime::block_on(sandbox.clock().advance(Duration::from_secs(60))).unwrap();
    let open: Vec<OrderView> = app.invoke_ok(args::open_orders { action: None });

    let now = open
        .iter()
        .find(|o| o.id == order.id)
        .expect("the sent order is among the open orders");
    assert_eq!(
        now.pharmacy.as_ref().map(|p| p.id.as_str()),
        Some("phr_harbor_drug_back_bay")
    );
    let kinds: Vec<ExceptionKind> = now.exceptions.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [ExceptionKind::PharmacyClosed]);
    assert!(
        now.exceptions[0]
            .message
            .as_deref()
            .is_some_and(|m| m.contains("rerouted")),
        "{:?}",
        now.exceptions
    );
}

#[test]
fn open_orders_leave_out_canceled_ones() {
    let (_sandbox, app) = signed_in(ADA);
    let kept = order_ready_to_send(&app, "Kept");
    let dropped = order_ready_to_send(&app, "Dropped");
    order_saved(app.invoke_ok(args::send_order {
        action: None,
        id: dropped.id.clone(),
    }));
    order_saved(app.invoke_ok(args::cancel_order {
        action: None,
        id: dropped.id.clone(),
    }));

    let open: Vec<OrderView> = app.invoke_ok(args::open_orders { action: None });

    let ids: Vec<&str> = open.iter().map(|o| o.id.as_str()).collect();
    assert!(ids.contains(&kept.id.as_str()), "{ids:?}");
    assert!(!ids.contains(&dropped.id.as_str()), "{ids:?}");
}

// ---- work lists and the local index --------------------------------------------------

#[test]
fn a_patient_opened_a_draft_and_an_order_show_up_in_the_work_lists() {
    let (_sandbox, app) = signed_in(ADA);
    let rosa = demo_patient(&app, "Rosa Delgado");
    let _: PatientRecord = app.invoke_ok(args::get_patient {
        action: None,
        id: rosa.id.clone(),
    });
    let patient = add_patient(&app, "Wanda", "Worklist");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let order = draft_order(&app, &patient.id, &[&rx.id]);

    let lists = work_lists(&app);

    assert_eq!(
        ids(lists.recent_patients.iter().map(|p| &p.id)),
        ids([&rosa.id, &patient.id])
    );
    assert_eq!(lists.drafts.len(), 1);
    assert_eq!(lists.drafts[0].prescription.id, rx.id);
    assert_eq!(
        lists.drafts[0].patient_name.as_deref(),
        Some("Wanda Worklist")
    );
    assert_eq!(
        lists.open_orders.iter().map(|o| &o.id).collect::<Vec<_>>(),
        [&order.id]
    );
    assert_eq!(lists.dropped, 0);
}

#[test]
fn a_signed_prescription_leaves_the_drafts_list() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Dora", "Drafts");
    let kept = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let other = add_patient(&app, "Sam", "Drafts");
    let to_sign = draft(&app, &other.id, &template(LISINOPRIL_TEMPLATE));

    signed(&sign(&app, &[&to_sign])[0]);
    let lists = work_lists(&app);

    let drafts: Vec<&String> = lists.drafts.iter().map(|d| &d.prescription.id).collect();
    assert_eq!(drafts, [&kept.id]);
}

#[test]
fn the_patients_own_work_lists_their_drafts_and_orders() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Paula", "Ownwork");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let order = draft_order(&app, &patient.id, &[&rx.id]);
    let someone_else = add_patient(&app, "Oscar", "Otherwork");
    let _ = draft(&app, &someone_else.id, &template(LISINOPRIL_TEMPLATE));

    let work: PatientWork = app.invoke_ok(args::patient_work {
        action: None,
        id: patient.id.clone(),
    });

    assert_eq!(
        work.prescriptions.iter().map(|p| &p.id).collect::<Vec<_>>(),
        [&rx.id]
    );
    assert_eq!(
        work.orders.iter().map(|o| &o.id).collect::<Vec<_>>(),
        [&order.id]
    );
}

#[test]
fn another_organizations_session_sees_none_of_the_work_lists() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Mabel", "Mapleonly");
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let _ = draft_order(&app, &patient.id, &[&rx.id]);
    let _: SignOutSummary = app.invoke_ok(args::sign_out {});

    app.sign_in_at(ADA, BIRCH);
    let lists = work_lists(&app);

    assert_eq!(
        status(&app).session.map(|s| s.organization_name).as_deref(),
        Some(BIRCH)
    );
    assert!(lists.recent_patients.is_empty(), "{lists:?}");
    assert!(lists.drafts.is_empty() && lists.open_orders.is_empty());
    assert_eq!(lists.dropped, 0);
}

#[test]
fn another_organizations_patient_id_reads_as_not_found() {
    let (_sandbox, app) = signed_in(ADA);
    let patient = add_patient(&app, "Maud", "Mapleonly");
    let _: SignOutSummary = app.invoke_ok(args::sign_out {});
    app.sign_in_at(ADA, BIRCH);

    let answer = app.invoke(args::get_patient {
        action: None,
        id: patient.id.clone(),
    });

    assert!(
        matches!(answer, Err(CommandError::NotFound { .. })),
        "{answer:?}"
    );
}

#[test]
fn an_indexed_id_the_network_no_longer_knows_is_dropped_and_counted() {
    let sandbox = sandbox();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut options = Options::new(&sandbox, &mock_keyring());
    options.index_file = Some(path.clone());
    let app = TestApp::start(options);
    app.sign_in_as(ADA);
    let patient = add_patient(&app, "Gina", "Gone");
    let same_index = Index::open(&path).unwrap();
    let scope = maple_scope();
    same_index
        .touch(&scope, RecordKind::Patient, "pat_01NOSUCHPATIENT", None)
        .unwrap();
    same_index
        .touch(
            &scope,
            RecordKind::Order,
            "ord_01NOSUCHORDER",
            Some(&patient.id),
        )
        .unwrap();

    let lists = work_lists(&app);

    assert_eq!(lists.dropped, 2);
    assert_eq!(
        lists
            .recent_patients
            .iter()
            .map(|p| &p.id)
            .collect::<Vec<_>>(),
        [&patient.id]
    );
    assert!(lists.open_orders.is_empty());
    assert_eq!(
        work_lists(&app).dropped,
        0,
        "dropped from the index for good"
    );
}

#[test]
fn the_local_index_file_holds_ids_only_and_no_patient_details() {
    let sandbox = sandbox();
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new(&sandbox, &mock_keyring());
    options.index_file = Some(dir.path().join("index.sqlite"));
    let app = TestApp::start(options);
    app.sign_in_as(ADA);
    let mut input = form("Zebediah", "Quuxworth", "1950-02-03");
    input.email = Some("zeb@quux.example".into());
    let (patient, _) = saved_patient(save_patient(&app, None, &input));
    let rx = draft(&app, &patient.id, &template(LISINOPRIL_TEMPLATE));
    let _ = draft_order(&app, &patient.id, &[&rx.id]);
    let _ = work_lists(&app);

    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("index"))
        {
            bytes.extend(std::fs::read(path).unwrap());
        }
    }

    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(&patient.id), "the index holds the ids");
    for private in [
        "Zebediah",
        "Quuxworth",
        "1950-02-03",
        "zeb@quux.example",
        MOBILE,
    ] {
        assert!(!text.contains(private), "{private} is in the index file");
    }
}

// ---- links ---------------------------------------------------------------------------

#[test]
fn open_link_reads_rxdesk_links_and_bare_ids_and_refuses_other_schemes() {
    let app = TestApp::start(Options::built_in(&mock_keyring()));

    let order: LinkTarget = app.invoke_ok(args::open_link {
        text: "rxdesk://order/ord_01ABC".into(),
    });
    let bare: LinkTarget = app.invoke_ok(args::open_link {
        text: " rx_01XYZ ".into(),
    });
    let other = app.invoke(args::open_link {
        text: "https://example.org/order/ord_01ABC".into(),
    });

    assert_eq!(
        order,
        LinkTarget {
            kind: RecordKind::Order,
            id: "ord_01ABC".into()
        }
    );
    assert_eq!(
        bare,
        LinkTarget {
            kind: RecordKind::Prescription,
            id: "rx_01XYZ".into()
        }
    );
    assert!(
        matches!(&other, Err(CommandError::Invalid { code, .. }) if code == "INVALID_LINK"),
        "{other:?}"
    );
    for refused in ["rxdesk://order/../../etc", "javascript:alert(1)", "hello"] {
        let answer = app.invoke(args::open_link {
            text: refused.to_owned(),
        });
        assert!(
            matches!(answer, Err(CommandError::Invalid { .. })),
            "{refused:?}: {answer:?}"
        );
    }
}

#[test]
fn a_records_link_opens_that_record() {
    let (_sandbox, app) = signed_in(MO);
    let rosa = demo_patient(&app, "Rosa Delgado");
    let record: PatientRecord = app.invoke_ok(args::get_patient {
        action: None,
        id: rosa.id.clone(),
    });

    let target: LinkTarget = app.invoke_ok(args::open_link {
        text: record.link.clone(),
    });

    assert_eq!(
        target,
        LinkTarget {
            kind: RecordKind::Patient,
            id: rosa.id
        }
    );
}

#[test]
fn a_link_the_os_hands_over_reaches_the_ui_as_an_open_link_event() {
    let app = TestApp::start(Options::built_in(&mock_keyring()));

    app.core().link_received("rxdesk://order/ord_01ABC");
    app.core().link_received("javascript:alert(1)");

    let opened = app
        .link_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    assert_eq!(
        opened,
        LinkEvent::Open {
            target: LinkTarget {
                kind: RecordKind::Order,
                id: "ord_01ABC".into()
            }
        }
    );
    let refused = app
        .link_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    assert!(matches!(refused, LinkEvent::Invalid { .. }), "{refused:?}");
}

// ---- the patient page: address, gender, middle name, notes, insurance, preferred pharmacy

fn boston() -> PatientAddress {
    PatientAddress {
        street1: "12 Elm Street".into(),
        city: "Boston".into(),
        state: "MA".into(),
        postal_code: "02110".into(),
        country: "US".into(),
        ..Default::default()
    }
}

fn edit_benefits(app: &TestApp, id: &str, edit: &BenefitEdit) -> PatientOutcome {
    app.ok("edit_benefits", json!({"id": id, "edit": edit}))
}

fn card(bin: &str, member_id: &str) -> BenefitInput {
    BenefitInput {
        bin: bin.into(),
        member_id: member_id.into(),
        ..Default::default()
    }
}

#[test]
fn a_patient_added_with_middle_name_gender_address_and_notes_shows_them_on_the_record() {
    let (_sandbox, app) = signed_in(MO);
    let mut input = form("Lena", "Whole", "1980-04-02");
    input.middle_name = Some("Maria".into());
    input.gender = Some("woman".into());
    input.address = Some(boston());
    input.notes = Some("Prefers morning calls".into());

    let (added, _) = saved_patient(save_patient(&app, None, &input));
    let read: PatientRecord = app.ok("get_patient", json!({"id": added.id}));

    assert_eq!(read.middle_name.as_deref(), Some("Maria"));
    assert_eq!(read.full_name, "Lena Maria Whole");
    assert_eq!(read.gender.as_deref(), Some("woman"));
    assert_eq!(read.address, Some(boston()));
    assert_eq!(read.notes.as_deref(), Some("Prefers morning calls"));
}

#[test]
fn an_address_without_a_country_is_refused_on_the_country_and_the_record_keeps_the_old_one() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Cora", "Countryless");
    let mut input = form("Cora", "Countryless", "1980-04-02");
    input.address = Some(PatientAddress {
        country: String::new(),
        ..boston()
    });

    let (after, notes) = saved_patient(save_patient(&app, Some(&patient.id), &input));

    assert_eq!(after.address, None);
    assert!(
        notes
            .iter()
            .any(|n| n.key == "demographic.address.country" && n.reason.is_some()),
        "{notes:?}"
    );
}

#[test]
fn an_edit_that_blanks_the_middle_name_gender_and_notes_clears_them() {
    let (_sandbox, app) = signed_in(MO);
    let mut input = form("Bea", "Blank", "1980-04-02");
    input.middle_name = Some("Ann".into());
    input.gender = Some("woman".into());
    input.notes = Some("Call first".into());
    let (patient, _) = saved_patient(save_patient(&app, None, &input));
    input.middle_name = Some(" ".into());
    input.gender = Some(String::new());
    input.notes = Some(String::new());

    let (after, _) = saved_patient(save_patient(&app, Some(&patient.id), &input));

    assert_eq!(
        (after.middle_name, after.gender, after.notes),
        (None, None, None)
    );
}

#[test]
fn insurance_is_added_corrected_in_place_corrected_to_another_member_id_and_removed() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Ines", "Insured");

    let (added, _) = saved_patient(edit_benefits(
        &app,
        &patient.id,
        &BenefitEdit::Add {
            benefit: card("610014", "M123456"),
        },
    ));
    let first = added.benefits[0].clone();
    let (grouped, _) = saved_patient(edit_benefits(
        &app,
        &patient.id,
        &BenefitEdit::Correct {
            on_file: first.clone(),
            benefit: BenefitInput {
                group_id: "RX77".into(),
                ..card("610014", "M123456")
            },
        },
    ));
    let (renumbered, _) = saved_patient(edit_benefits(
        &app,
        &patient.id,
        &BenefitEdit::Correct {
            on_file: grouped.benefits[0].clone(),
            benefit: card("610014", "M999"),
        },
    ));
    let (removed, _) = saved_patient(edit_benefits(
        &app,
        &patient.id,
        &BenefitEdit::Remove {
            id: renumbered.benefits[0].id.clone(),
        },
    ));

    assert_eq!(added.benefits.len(), 1);
    assert_eq!(
        (
            &grouped.benefits[0].id,
            grouped.benefits[0].group_id.as_deref()
        ),
        (&first.id, Some("RX77"))
    );
    assert_eq!(renumbered.benefits.len(), 1);
    assert_eq!(renumbered.benefits[0].member_id, "M999");
    assert_ne!(renumbered.benefits[0].id, first.id);
    assert!(removed.benefits.is_empty());
}

#[test]
fn insurance_added_without_a_member_id_is_refused_on_the_member_id_and_nothing_is_added() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Milo", "Memberless");

    let (after, notes) = saved_patient(edit_benefits(
        &app,
        &patient.id,
        &BenefitEdit::Add {
            benefit: card("610014", "  "),
        },
    ));

    assert!(after.benefits.is_empty());
    assert!(
        notes
            .iter()
            .any(|n| n.key == "demographic.benefits.add.0.memberId"),
        "{notes:?}"
    );
}

#[test]
fn a_preferred_pharmacy_is_chosen_from_the_orders_search_and_shown_on_the_record() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Pia", "Preferring");

    let answer: PreferredPharmacyAnswer = app.ok(
        "find_preferred_pharmacy",
        json!({"id": patient.id, "search": {"name": "Harbor Drug", "near": "02116"}}),
    );
    let PreferredPharmacyAnswer::Options { options } = answer else {
        panic!("expected options, got {answer:?}");
    };
    let nearest = options[0]
        .value
        .clone()
        .expect("an option names its pharmacy");
    let (after, _) = saved_patient(app.ok(
        "choose_preferred_pharmacy",
        json!({"id": patient.id, "pharmacyId": nearest}),
    ));
    let read: PatientRecord = app.ok("get_patient", json!({"id": patient.id}));

    assert_eq!(nearest, "phr_harbor_drug_back_bay");
    assert_eq!(
        after.preferred_pharmacy.map(|p| p.id),
        Some(nearest.clone())
    );
    assert_eq!(read.preferred_pharmacy.map(|p| p.id), Some(nearest));
}

#[test]
fn a_preferred_pharmacy_search_that_one_pharmacy_fits_sets_it() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Uma", "Unique");

    let answer: PreferredPharmacyAnswer = app.ok(
        "find_preferred_pharmacy",
        json!({"id": patient.id, "search": {"name": "Beacon Hill Apothecary"}}),
    );

    let PreferredPharmacyAnswer::Chosen { patient: after } = answer else {
        panic!("expected one set, got {answer:?}");
    };
    assert_eq!(
        after.preferred_pharmacy.map(|p| p.name).as_deref(),
        Some("Beacon Hill Apothecary")
    );
}

#[test]
fn a_medications_status_changes_from_active_to_historical() {
    let (_sandbox, app) = signed_in(MO);
    let patient = add_patient(&app, "Hal", "Historical");
    let (with, _) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &ClinicalEdit {
            add_medications: vec![EntryInput {
                name: None,
                id: Some(AZITHROMYCIN.into()),
                status: Some(MedicationStatus::Active),
            }],
            ..Default::default()
        },
    ));

    let (after, _) = saved_patient(edit_clinical(
        &app,
        &patient.id,
        &ClinicalEdit {
            update_medications: vec![MedicationStatusChange {
                id: with.medications[0].id.clone(),
                status: MedicationStatus::Historical,
            }],
            ..Default::default()
        },
    ));

    assert_eq!(after.medications[0].status, MedicationStatus::Historical);
}
