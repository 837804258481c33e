//! The app's commands on a slow or failing link: the sandbox's link layer
//! loses answers, fails calls and delays them, and the commands are called as
//! the UI calls them (a kept key per user action, an action id per run). What
//! these check: a lost answer never becomes a second record, an edit made
//! after it is not dropped, a double submit sends once, retries reach the UI
//! under the action's id, and cancelling stops what is safe to stop.

use crate::support;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rxdesk_lib::ipc::{
    ClinicalEdit, CommandError, DraftForm, EVENT_RETRY, EntryInput, OrderOutcome, PatientInput,
    PatientOutcome, PatientRecord, PrescriptionOutcome, PrescriptionView, Resumed, RetryEvent,
    RetryReason, Sex, SignRequest, SignResult,
};
use rxdesk_sandbox::audit::{AuditReport, audit_data_dir};
use rxdesk_sandbox::link::{FaultRates, Latency, LinkSettings, Operation, OperationSettings};
use rxdesk_sandbox::{Config, Sandbox, Storage};
use serde_json::{Value, json};
use support::*;
use tauri::Listener;

const LISINOPRIL_TEMPLATE: &str = "tmpl_maple_lisinopril_10_daily";
const AMOXICILLIN: &str = "med_amoxicillin_500_cap";

/// A sandbox keeping its data in `dir` (so the audit can read it), and the
/// app signed in to it as `email`.
fn signed_in_on_disk(dir: &tempfile::TempDir, email: &str) -> (Sandbox, TestApp) {
    let sandbox = tauri::async_runtime::block_on(Sandbox::start(Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    }))
    .unwrap();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(email);
    (sandbox, app)
}

fn audit(dir: &tempfile::TempDir) -> AuditReport {
    audit_data_dir(dir.path()).unwrap()
}

/// `op` gets these faults (and `latency`), everything else passes untouched.
fn set_link(sandbox: &Sandbox, op: Operation, faults: FaultRates, latency: Option<Latency>) {
    let mut settings = LinkSettings::default();
    settings.operations.insert(
        op,
        OperationSettings {
            latency,
            faults: Some(faults),
        },
    );
    sandbox.link().set(settings).unwrap();
}

fn clear_link(sandbox: &Sandbox) {
    sandbox.link().set(LinkSettings::default()).unwrap();
}

/// Every answer of `op` lost after the network applied the call.
fn answers_lost(sandbox: &Sandbox, op: Operation) {
    let faults = FaultRates {
        reset_after: 1.0,
        ..Default::default()
    };
    set_link(sandbox, op, faults, None);
}

/// Every request of `op` held back by `ms` (and counted).
fn slow(sandbox: &Sandbox, op: Operation, ms: u32) {
    set_link(
        sandbox,
        op,
        FaultRates::default(),
        Some(Latency { ms, jitter_ms: 0 }),
    );
}

fn add_patient(app: &TestApp, last: &str) -> PatientRecord {
    let input = PatientInput {
        first_name: "Iris".into(),
        last_name: last.into(),
        date_of_birth: "1975-06-30".into(),
        sex: Some(Sex::Female),
        email: None,
        phone: Some("+16175550123".into()),
        middle_name: None,
        gender: None,
        address: None,
        notes: None,
    };
    match app.invoke_ok(args::save_patient {
        action: None,
        id: None,
        input: input.clone(),
    }) {
        PatientOutcome::Saved { patient, .. } => *patient,
        other => panic!("not added: {other:?}"),
    }
}

fn amoxicillin(instructions: &str) -> DraftForm {
    DraftForm {
        drug_id: Some(AMOXICILLIN.into()),
        instructions: Some(instructions.into()),
        quantity: Some(20.0),
        unit: Some("capsule".into()),
        days_supply: Some(10),
        refills: Some(0),
        ..Default::default()
    }
}

fn save_new_draft(
    app: &TestApp,
    patient_id: &str,
    key: &str,
    form: &DraftForm,
) -> Result<PrescriptionOutcome, CommandError> {
    app.invoke(args::save_draft {
        action: Some(ActionId(new_key())),
        patient_id: patient_id.to_owned(),
        id: None,
        key: CreateKey(key.to_owned()),
        form: form.clone(),
    })
}

fn saved(outcome: PrescriptionOutcome) -> (PrescriptionView, Option<Resumed>) {
    match outcome {
        PrescriptionOutcome::Saved {
            prescription,
            resumed,
            ..
        } => (*prescription, resumed),
        other => panic!("not saved: {other:?}"),
    }
}

fn draft(app: &TestApp, patient_id: &str, form: &DraftForm) -> PrescriptionView {
    saved(save_new_draft(app, patient_id, &new_key(), form).unwrap()).0
}

/// The retry events the UI receives, as they come.
fn retry_events(app: &TestApp) -> mpsc::Receiver<RetryEvent> {
    let (tx, rx) = mpsc::channel();
    app.app.listen_any(EVENT_RETRY, move |e| {
        let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
    });
    rx
}

/// Runs the command `args` are for on another thread, as a second click or a
/// keystroke's search arrives while something else runs.
fn call_in_thread<A>(app: &TestApp, args: A) -> thread::JoinHandle<Result<A::Output, CommandError>>
where
    A: CommandArgs + Send + 'static,
    A::Output: serde::de::DeserializeOwned + Send + 'static,
{
    let window = app.window.clone();
    thread::spawn(move || invoke_on(&window, args))
}

/// Cancels `action` as soon as it runs (it may take a moment to start).
fn cancel_once_running(app: &TestApp, action: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if app.invoke_ok(args::cancel_action {
            action: ActionId(action.into()),
        }) {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    false
}

// ---- a lost answer is never a second record ------------------------------------------

#[test]
fn a_draft_whose_answer_was_lost_is_not_created_twice_through_the_app_with_the_kept_key() {
    let dir = tempfile::tempdir().unwrap();
    let (sandbox, app) = signed_in_on_disk(&dir, MO);
    let patient = add_patient(&app, "Lostanswer");
    let form = amoxicillin("Take 1 by mouth twice daily.");
    let key = new_key();
    answers_lost(&sandbox, Operation::PrescriptionDraft);

    let first = save_new_draft(&app, &patient.id, &key, &form);
    clear_link(&sandbox);
    let again = save_new_draft(&app, &patient.id, &key, &form).unwrap();

    assert!(
        matches!(first, Err(CommandError::Network { .. })),
        "{first:?}"
    );
    let (draft, resumed) = saved(again);
    assert_eq!(resumed, Some(Resumed { updated: false }));
    assert_eq!(
        draft.instructions.as_deref(),
        Some("Take 1 by mouth twice daily.")
    );
    let report = audit(&dir);
    assert_eq!(report.counts.prescriptions, 1, "{}", report.summary());
    assert!(report.is_clean(), "{:?}", report.findings);
}

#[test]
fn a_new_draft_whose_answer_died_with_the_app_is_continued_after_the_restart_not_made_twice() {
    let dir = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let sandbox = tauri::async_runtime::block_on(Sandbox::start(Config {
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    }))
    .unwrap();
    let start = || {
        let app = TestApp::start(Options {
            index_file: Some(index_dir.path().join("index.sqlite")),
            ..Options::new(&sandbox, &mock_keyring())
        });
        app.sign_in_as(MO);
        app
    };
    let app = start();
    let patient = add_patient(&app, "Cutoff");
    answers_lost(&sandbox, Operation::PrescriptionDraft);
    let first = save_new_draft(
        &app,
        &patient.id,
        &new_key(),
        &amoxicillin("Take 1 by mouth twice daily."),
    );
    assert!(
        matches!(first, Err(CommandError::Network { .. })),
        "{first:?}"
    );
    // The app dies: its UI, the form and the form's key with it.
    drop(app);
    clear_link(&sandbox);

    let app = start();
    let again = save_new_draft(
        &app,
        &patient.id,
        &new_key(),
        &amoxicillin("Take 1 by mouth three times daily."),
    )
    .unwrap();

    let (draft, resumed) = saved(again);
    assert_eq!(resumed, Some(Resumed { updated: true }));
    assert_eq!(
        draft.instructions.as_deref(),
        Some("Take 1 by mouth three times daily.")
    );
    let report = audit(&dir);
    assert_eq!(report.counts.prescriptions, 1, "{}", report.summary());
    assert!(report.is_clean(), "{:?}", report.findings);
}

#[test]
fn an_edit_made_after_a_lost_answer_is_applied_to_the_draft_that_answer_saved() {
    let dir = tempfile::tempdir().unwrap();
    let (sandbox, app) = signed_in_on_disk(&dir, MO);
    let patient = add_patient(&app, "Editedafter");
    let key = new_key();
    answers_lost(&sandbox, Operation::PrescriptionDraft);
    let first = save_new_draft(&app, &patient.id, &key, &amoxicillin("Take 1 twice daily."));
    clear_link(&sandbox);

    let edited = DraftForm {
        days_supply: Some(7),
        ..amoxicillin("Take 1 three times daily.")
    };
    let again = save_new_draft(&app, &patient.id, &key, &edited).unwrap();

    assert!(first.is_err(), "{first:?}");
    let (draft, resumed) = saved(again);
    assert_eq!(resumed, Some(Resumed { updated: true }));
    assert_eq!(
        draft.instructions.as_deref(),
        Some("Take 1 three times daily.")
    );
    assert_eq!(draft.dispense.days_supply, Some(7));
    let report = audit(&dir);
    assert_eq!(report.counts.prescriptions, 1, "{}", report.summary());
    assert!(report.is_clean(), "{:?}", report.findings);
}

#[test]
fn an_order_whose_answer_was_lost_is_made_once_with_the_prescriptions_chosen_since() {
    let dir = tempfile::tempdir().unwrap();
    let (sandbox, app) = signed_in_on_disk(&dir, MO);
    let patient = add_patient(&app, "Orderlost");
    let one = draft(&app, &patient.id, &amoxicillin("Take 1 twice daily."));
    let two = draft(
        &app,
        &patient.id,
        &DraftForm {
            template_id: Some(LISINOPRIL_TEMPLATE.into()),
            ..Default::default()
        },
    );
    let key = new_key();
    answers_lost(&sandbox, Operation::OrderDraft);
    let first: Result<OrderOutcome, _> = app.invoke(args::draft_order {
        action: None,
        patient_id: patient.id.clone(),
        prescription_ids: vec![one.id.clone()],
        key: CreateKey(key.to_owned()),
    });
    clear_link(&sandbox);

    let again: OrderOutcome = app.invoke_ok(args::draft_order {
        action: None,
        patient_id: patient.id.clone(),
        prescription_ids: vec![one.id.clone(), two.id.clone()],
        key: CreateKey(key.to_owned()),
    });

    assert!(first.is_err(), "{first:?}");
    let OrderOutcome::Saved { order, resumed, .. } = again else {
        panic!("not saved: {again:?}");
    };
    assert_eq!(resumed, Some(Resumed { updated: true }));
    let mut on: Vec<&str> = order.prescriptions.iter().map(|p| p.id.as_str()).collect();
    on.sort_unstable();
    let mut chosen = vec![one.id.as_str(), two.id.as_str()];
    chosen.sort_unstable();
    assert_eq!(on, chosen);
    let report = audit(&dir);
    assert_eq!(report.counts.orders, 1, "{}", report.summary());
    assert!(report.is_clean(), "{:?}", report.findings);
}

// ---- a double submit sends once ------------------------------------------------------

#[test]
fn a_double_submit_of_the_same_new_draft_sends_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let (sandbox, app) = signed_in_on_disk(&dir, MO);
    let patient = add_patient(&app, "Doubleclick");
    slow(&sandbox, Operation::PrescriptionDraft, 400);
    let click = |action: &str| args::save_draft {
        action: Some(ActionId(action.into())),
        patient_id: patient.id.clone(),
        id: None,
        key: CreateKey("double-click-key".into()),
        form: amoxicillin("Take 1 twice daily."),
    };

    let first = call_in_thread(&app, click("click-1"));
    thread::sleep(Duration::from_millis(100));
    let second = call_in_thread(&app, click("click-2"));
    let (first, second) = (first.join().unwrap(), second.join().unwrap());

    let id = |outcome: Result<PrescriptionOutcome, CommandError>| saved(outcome.unwrap()).0.id;
    assert_eq!(id(first), id(second));
    let requests = sandbox.link().counters().requests;
    assert_eq!(requests.get(&Operation::PrescriptionDraft), Some(&1));
}

// ---- retries reach the UI ------------------------------------------------------------

#[test]
fn retry_notices_reach_the_notifier_under_the_actions_id() {
    let (sandbox, app) = {
        let sandbox = sandbox();
        let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
        app.sign_in_as(MO);
        (sandbox, app)
    };
    let patient = add_patient(&app, "Retried");
    let events = retry_events(&app);
    let upstream = FaultRates {
        upstream: 1.0,
        ..Default::default()
    };
    set_link(&sandbox, Operation::Get, upstream, None);

    let answer: Result<PatientRecord, _> = app.invoke(args::get_patient {
        action: Some(ActionId("open-patient-1".into())),
        id: patient.id.clone(),
    });

    assert!(
        matches!(answer, Err(CommandError::Server { .. })),
        "{answer:?}"
    );
    let seen: Vec<RetryEvent> = events.try_iter().collect();
    assert!(!seen.is_empty(), "no retry event");
    for (n, event) in seen.iter().enumerate() {
        assert_eq!(event.action.0, "open-patient-1");
        assert_eq!(event.attempt, u32::try_from(n).unwrap() + 2);
        assert_eq!(event.reason, RetryReason::Upstream);
        assert_eq!(event.record, None);
    }
}

#[test]
fn a_signatures_retries_are_told_as_that_drafts() {
    let (sandbox, app) = {
        let sandbox = sandbox();
        let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
        app.sign_in_as(ADA);
        (sandbox, app)
    };
    let patient = add_patient(&app, "Signretry");
    let rx = draft(&app, &patient.id, &amoxicillin("Take 1 twice daily."));
    let events = retry_events(&app);
    let unavailable = FaultRates {
        http_503: 1.0,
        ..Default::default()
    };
    set_link(&sandbox, Operation::PrescriptionSign, unavailable, None);

    let results: Vec<SignResult> = app.invoke_ok(args::sign_prescriptions {
        action: Some(ActionId("sign-1".into())),
        items: vec![SignRequest {
            id: rx.id.clone(),
            content_hash: rx.content_hash.clone(),
        }],
    });

    assert!(
        matches!(results[0], SignResult::Failed { .. }),
        "{results:?}"
    );
    let seen: Vec<RetryEvent> = events.try_iter().collect();
    assert!(!seen.is_empty(), "no retry event");
    assert!(
        seen.iter().all(|e| e.action.0 == "sign-1"
            && e.record.as_deref() == Some(rx.id.as_str())
            && e.reason == RetryReason::Server),
        "{seen:?}"
    );
}

// ---- cancelling ----------------------------------------------------------------------

#[test]
fn cancelling_a_search_stops_it_and_answers_cancelled() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(MO);
    slow(&sandbox, Operation::PatientSync, 5_000);

    let search = call_in_thread(
        &app,
        args::find_patients {
            action: Some(ActionId("search-1".into())),
            query: "Delgado".into(),
        },
    );
    let stopped = cancel_once_running(&app, "search-1");

    assert!(stopped);
    assert!(
        matches!(search.join().unwrap(), Err(CommandError::Cancelled { .. })),
        "the search was not cancelled"
    );
}

#[test]
fn a_search_cancelled_while_its_session_is_renewed_leaves_the_renewed_session_to_the_next_call() {
    // The network rejects the stored access token: the next call renews it.
    let (sandbox, _, app) = restarted_with_stored_session(|s| s["at"] = json!("rejected-token"));

    let (stopped, cancelled, next) = search_cancelled_during_a_slow_renewal(&sandbox, &app);

    assert!(stopped && matches!(cancelled, Err(CommandError::Cancelled { .. })));
    assert_eq!(next.len(), 1, "the next search runs on the renewed session");
}

#[test]
fn a_search_cancelled_while_the_stored_session_is_renewed_at_start_leaves_the_renewed_session_to_the_next_call()
 {
    // The stored access token has expired: the app renews it as it restores
    // the session, on the first call.
    let (sandbox, _, app) = restarted_with_stored_session(|s| s["exp"] = json!(1));

    let (stopped, cancelled, next) = search_cancelled_during_a_slow_renewal(&sandbox, &app);

    assert!(stopped && matches!(cancelled, Err(CommandError::Cancelled { .. })));
    assert_eq!(next.len(), 1, "the next search runs on the renewed session");
}

/// A search whose session the network renews slowly, cancelled while the
/// network has rotated the refresh token and not yet answered (the token
/// endpoint rotates it 300 ms after the request and answers 300 ms later),
/// then a second search on a good link. Answers whether the cancel took,
/// the first search's answer and the second's patients.
fn search_cancelled_during_a_slow_renewal(
    sandbox: &Sandbox,
    app: &TestApp,
) -> (
    bool,
    Result<Vec<rxdesk_lib::ipc::PatientSummary>, CommandError>,
    Vec<rxdesk_lib::ipc::PatientSummary>,
) {
    slow(sandbox, Operation::Token, 600);
    let search = call_in_thread(
        app,
        args::find_patients {
            action: Some(ActionId("search-1".into())),
            query: "Delgado".into(),
        },
    );
    thread::sleep(Duration::from_millis(450));
    let stopped = cancel_once_running(app, "search-1");
    let cancelled = search.join().unwrap();
    clear_link(sandbox);
    let next = app.invoke_ok(args::find_patients {
        action: None,
        query: "Delgado".into(),
    });
    (stopped, cancelled, next)
}

#[test]
fn a_change_under_way_is_not_cancelled_and_runs_to_its_end() {
    let sandbox = sandbox();
    let app = TestApp::start(Options::new(&sandbox, &mock_keyring()));
    app.sign_in_as(MO);
    let patient = add_patient(&app, "Notcancelled");
    slow(&sandbox, Operation::PatientUpdate, 600);
    let edit = ClinicalEdit {
        add_allergies: vec![EntryInput {
            name: Some("Penicillins".into()),
            id: None,
            status: None,
        }],
        ..Default::default()
    };

    let change = call_in_thread(
        &app,
        args::edit_clinical {
            action: Some(ActionId("edit-1".into())),
            id: patient.id.clone(),
            edit,
        },
    );
    thread::sleep(Duration::from_millis(200));
    let stopped: bool = app.invoke_ok(args::cancel_action {
        action: ActionId("edit-1".into()),
    });
    let answer = change.join().unwrap();

    assert!(!stopped);
    let outcome = answer.unwrap();
    let PatientOutcome::Saved { patient, .. } = outcome else {
        panic!("not saved: {outcome:?}");
    };
    assert_eq!(patient.allergies.len(), 1);
}

// ---- a key answered with another patient's record ------------------------------------

/// A Network API in front of the sandbox that, once `by_key_alone` is set,
/// drops the `patient` from every create carrying an `externalId`: a network
/// that answers a known key whatever the rest of the call says (as the
/// sandbox did before it refused a key reused for another patient). The
/// sandbox then answers the record the key names, as a repeat.
struct KeyOnlyNetwork {
    url: url::Url,
    by_key_alone: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl KeyOnlyNetwork {
    fn start(sandbox: &Sandbox) -> Self {
        use axum::body::{Body, to_bytes};
        use axum::extract::{Request, State};
        use axum::response::Response;

        type Shared = (
            url::Url,
            reqwest::Client,
            std::sync::Arc<std::sync::atomic::AtomicBool>,
        );
        async fn forward(
            State((target, http, by_key_alone)): State<Shared>,
            request: Request,
        ) -> Response {
            let (parts, body) = request.into_parts();
            let mut bytes = to_bytes(body, 1 << 20).await.unwrap().to_vec();
            if by_key_alone.load(std::sync::atomic::Ordering::SeqCst)
                && parts.uri.path() == "/graphql"
            {
                let mut call: Value = serde_json::from_slice(&bytes).unwrap();
                for record in ["prescription", "order"] {
                    if let Some(input) = call["variables"][record].as_object_mut()
                        && input.get("externalId").is_some_and(|k| !k.is_null())
                    {
                        input.remove("patient");
                    }
                }
                bytes = serde_json::to_vec(&call).unwrap();
            }
            let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            let mut sent = http.request(parts.method, target.join(path).unwrap());
            for (name, value) in &parts.headers {
                if name != "host" && name != "content-length" {
                    sent = sent.header(name, value);
                }
            }
            let answer = sent.body(bytes).send().await.unwrap();
            let mut response = Response::builder().status(answer.status());
            for (name, value) in answer.headers() {
                if name != "transfer-encoding" && name != "content-length" {
                    response = response.header(name, value);
                }
            }
            response
                .body(Body::from(answer.bytes().await.unwrap()))
                .unwrap()
        }

        install_crypto();
        let by_key_alone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let shared: Shared = (
            sandbox.url().clone(),
            reqwest::Client::builder().no_proxy().build().unwrap(),
            by_key_alone.clone(),
        );
        let listener =
            tauri::async_runtime::block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = url::Url::parse(&format!("http://{}", listener.local_addr().unwrap())).unwrap();
        let routes = axum::Router::new().fallback(forward).with_state(shared);
        tauri::async_runtime::spawn(async move { axum::serve(listener, routes).await });
        Self { url, by_key_alone }
    }

    fn answer_by_key_alone(&self) {
        self.by_key_alone
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The app signed in as `email`, its Network API behind a [`KeyOnlyNetwork`].
fn behind_a_key_only_network(email: &str) -> (Sandbox, KeyOnlyNetwork, TestApp) {
    let sandbox = tauri::async_runtime::block_on(Sandbox::start(Config::in_memory())).unwrap();
    let network = KeyOnlyNetwork::start(&sandbox);
    let app = TestApp::start(Options {
        api_url: Some(network.url.clone()),
        ..Options::new(&sandbox, &mock_keyring())
    });
    app.sign_in_as(email);
    (sandbox, network, app)
}

fn refused_as_another_patients(outcome: Result<impl std::fmt::Debug, CommandError>) {
    match outcome {
        Err(CommandError::Invalid { code, message, .. }) => {
            assert_eq!(code, "KEY_OF_ANOTHER_PATIENT");
            assert!(message.contains("another patient"), "{message}");
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn a_new_draft_whose_key_answers_another_patients_draft_is_refused_and_that_draft_left_alone() {
    let (_sandbox, network, app) = behind_a_key_only_network(MO);
    let first_patient = add_patient(&app, "Keyholder");
    let second_patient = add_patient(&app, "Otherpatient");
    let key = new_key();
    let (kept, _) = saved(
        save_new_draft(
            &app,
            &first_patient.id,
            &key,
            &amoxicillin("Take 1 twice daily."),
        )
        .unwrap(),
    );
    network.answer_by_key_alone();

    let again = save_new_draft(
        &app,
        &second_patient.id,
        &key,
        &amoxicillin("Take 2 at once, then 1 daily."),
    );

    refused_as_another_patients(again);
    let now: PrescriptionView = app.invoke_ok(args::get_prescription {
        action: None,
        id: kept.id.clone(),
    });
    assert_eq!(now.instructions.as_deref(), Some("Take 1 twice daily."));
    assert_eq!(now.patient_id.as_deref(), Some(first_patient.id.as_str()));
}

#[test]
fn a_new_order_whose_key_answers_another_patients_order_is_refused_and_that_order_left_alone() {
    let (_sandbox, network, app) = behind_a_key_only_network(MO);
    let first_patient = add_patient(&app, "Orderkeyholder");
    let second_patient = add_patient(&app, "Orderother");
    let first_rx = draft(&app, &first_patient.id, &amoxicillin("Take 1 twice daily."));
    let second_rx = draft(
        &app,
        &second_patient.id,
        &amoxicillin("Take 1 twice daily."),
    );
    let key = new_key();
    let kept: OrderOutcome = app.invoke_ok(args::draft_order {
        action: None,
        patient_id: first_patient.id.clone(),
        prescription_ids: vec![first_rx.id.clone()],
        key: CreateKey(key.to_owned()),
    });
    let OrderOutcome::Saved { order: kept, .. } = kept else {
        panic!("not saved: {kept:?}");
    };
    network.answer_by_key_alone();

    let again: Result<OrderOutcome, CommandError> = app.invoke(args::draft_order {
        action: None,
        patient_id: second_patient.id.clone(),
        prescription_ids: vec![second_rx.id.clone()],
        key: CreateKey(key.to_owned()),
    });

    refused_as_another_patients(again);
    let now: rxdesk_lib::ipc::OrderView = app.invoke_ok(args::get_order {
        action: None,
        id: kept.id.clone(),
    });
    let on: Vec<&str> = now.prescriptions.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(on, vec![first_rx.id.as_str()], "the order was not edited");
}
