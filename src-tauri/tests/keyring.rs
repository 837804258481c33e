//! A keyring that is not there, locked or refusing: the app starts, says what
//! is wrong (a kind the UI puts in words with what to do), stores the session
//! nowhere else, and signs in for this run only when the user chooses so.
//! The keyrings here are keyring-core's mock store (made to fail) and the
//! memory store the app falls back to when none answers.

use crate::support;

use std::time::Duration;

use rxdesk_lib::ipc::{AppStatus, CommandError, KeyringProblem, SessionStorage};
use rxdesk_lib::session_store::{SESSION_ENTRY, SessionStore};
use support::*;

fn status(app: &TestApp) -> AppStatus {
    app.invoke_ok(args::app_status {})
}

fn memory_only(problem: KeyringProblem, this_run_only: bool) -> impl Fn(&SessionStorage) -> bool {
    move |storage| {
        matches!(storage, SessionStorage::MemoryOnly { problem: p, this_run_only: t, .. }
            if *p == problem && *t == this_run_only)
    }
}

#[test]
fn without_a_keyring_service_the_app_starts_and_says_none_is_running() {
    let sandbox = sandbox();
    let none = SessionStore::memory("no secret service provider or dbus session found");
    let app = TestApp::start(Options::new(&sandbox, &none));

    let status = status(&app);

    assert!(
        memory_only(KeyringProblem::NotRunning, false)(&status.storage),
        "{:?}",
        status.storage
    );
    assert!(status.session.is_none());
}

#[test]
fn without_a_keyring_a_sign_in_not_chosen_for_this_run_only_is_refused_in_words() {
    let sandbox = sandbox();
    let none = SessionStore::memory("no secret service provider or dbus session found");
    let app = TestApp::start(Options::new(&sandbox, &none));

    let refused = app.invoke(args::sign_in {
        this_run_only: None,
    });

    let Err(CommandError::App { message }) = refused else {
        panic!("{refused:?}")
    };
    assert!(
        message.starts_with("no keyring service is running"),
        "{message}"
    );
    assert!(message.contains("sign in for this run only"), "{message}");
}

#[test]
fn without_a_keyring_signing_in_for_this_run_only_works_and_stores_nothing() {
    let sandbox = sandbox();
    let none = SessionStore::memory("no secret service provider or dbus session found");
    let app = TestApp::start(Options::new(&sandbox, &none));

    app.sign_in_for_this_run_as(ADA);

    let status = status(&app);
    assert!(status.session.is_some());
    assert!(
        memory_only(KeyringProblem::NotRunning, true)(&status.storage),
        "{:?}",
        status.storage
    );
    assert_eq!(
        none.load(SESSION_ENTRY).unwrap(),
        None,
        "kept nowhere but the app's memory"
    );
}

#[test]
fn a_keyring_that_refuses_to_store_the_session_is_told_and_the_session_goes_on_for_this_run() {
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
        memory_only(KeyringProblem::Locked, true)(&event.storage),
        "{:?}",
        event.storage
    );
    let status = status(&app);
    assert!(status.session.is_some(), "the session works from memory");
    assert!(memory_only(KeyringProblem::Locked, true)(&status.storage));
}

#[test]
fn a_keyring_refusing_a_write_for_another_reason_is_told_as_refused() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    status(&app);
    fail_next_keyring_call(
        &keyring,
        "session#1.0",
        keyring_core::Error::PlatformFailure("the store is full".into()),
    );

    app.sign_in_as(ADA);

    let event = app
        .session_events
        .recv_timeout(Duration::from_secs(5))
        .unwrap();
    let SessionStorage::MemoryOnly {
        problem, detail, ..
    } = &event.storage
    else {
        panic!("{:?}", event.storage)
    };
    assert_eq!(*problem, KeyringProblem::Refused);
    assert!(detail.contains("the store is full"), "{detail}");
}

#[test]
fn a_stored_session_behind_a_locked_keyring_is_left_in_it_and_the_lock_told() {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    let first = TestApp::start(Options::new(&sandbox, &keyring));
    first.sign_in_as(ADA);
    drop(first);
    // The unlock prompt for the stored session is dismissed at the next start.
    fail_next_keyring_call(
        &keyring,
        SESSION_ENTRY,
        keyring_core::Error::NoStorageAccess("SS error: prompt dismissed".into()),
    );
    let again = TestApp::start(Options::new(&sandbox, &keyring));

    let status = status(&again);

    assert!(status.session.is_none());
    assert!(
        memory_only(KeyringProblem::Locked, false)(&status.storage),
        "{:?}",
        status.storage
    );
    assert!(
        stored_session(&keyring).is_some(),
        "a session the keyring would not give is not removed from it"
    );
}
