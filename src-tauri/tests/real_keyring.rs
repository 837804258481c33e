//! The session store against the real OS keyring — Keychain on macOS, Credential
//! Manager on Windows, Secret Service on Linux — not the mock of the unit tests:
//! a session of several parts is saved, read back whole, replaced by a shorter
//! one, deleted, and no entry of it is left in the keyring.
//!
//! It writes to the keyring of whoever runs it, so it runs only when asked:
//! `RXDESK_REAL_KEYRING=1 cargo test -p rxdesk --test real_keyring`
//! (`.github/workflows/platforms.yml` does so on Windows and macOS). On Linux,
//! in a throwaway session bus with an unlocked gnome-keyring:
//! `dbus-run-session -- bash -c 'echo -n pw | gnome-keyring-daemon --unlock
//! --components=secrets >/dev/null; RXDESK_REAL_KEYRING=1 cargo test -p rxdesk
//! --test real_keyring'`. With the variable set, a keyring that does not answer
//! fails the test: it never falls back to memory and passes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use keyring_core::{CredentialStore, Error as KeyringError};
use rxdesk_lib::session_store::{CHUNK_LEN, SERVICE, SessionStore};

/// Generations and parts probed for leftovers: more than a save makes here.
const PROBED_GENERATIONS: u32 = 4;
const PROBED_PARTS: usize = 16;

fn asked_for() -> bool {
    std::env::var("RXDESK_REAL_KEYRING").is_ok_and(|v| v == "1")
}

/// Entry names as the store documents them: the manifest `<environment>` and
/// the parts `<environment>#<generation>.<index>`.
fn part(environment: &str, generation: u32, index: usize) -> String {
    format!("{environment}#{generation}.{index}")
}

/// What the real keyring holds under `user`, read past `SessionStore`.
fn raw(store: &CredentialStore, user: &str) -> Option<String> {
    match store.build(SERVICE, user, None).unwrap().get_password() {
        Ok(value) => Some(value),
        Err(KeyringError::NoEntry) => None,
        Err(e) => panic!("the keyring failed to read {user}: {e}"),
    }
}

/// Every entry of `environment` still in the keyring.
fn leftovers(store: &CredentialStore, environment: &str) -> Vec<String> {
    let parts = (0..=PROBED_GENERATIONS)
        .flat_map(|g| (0..PROBED_PARTS).map(move |i| part(environment, g, i)));
    std::iter::once(environment.to_owned())
        .chain(parts)
        .filter(|user| raw(store, user).is_some())
        .collect()
}

/// Deletes the test's entries even when an assertion fails half-way.
struct Cleanup<'a> {
    sessions: &'a SessionStore,
    environment: &'a str,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        let _ = self.sessions.delete(self.environment);
    }
}

#[test]
fn a_multi_part_session_round_trips_through_the_real_os_keyring_and_leaves_nothing_behind() {
    if !asked_for() {
        eprintln!("skipped: set RXDESK_REAL_KEYRING=1 to use the real OS keyring");
        return;
    }
    let sessions = SessionStore::platform();
    if let Some(reason) = sessions.memory_reason() {
        panic!("RXDESK_REAL_KEYRING=1 but the OS keyring is not usable: {reason}");
    }
    let default_store: Arc<CredentialStore> =
        keyring_core::get_default_store().expect("the platform store is the default");
    let backing: &CredentialStore = default_store.as_ref();
    // Unique per run, so a real session on this machine is never touched.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let environment = format!("real-keyring-test-{}-{nanos}", std::process::id());
    let _cleanup = Cleanup {
        sessions: &sessions,
        environment: &environment,
    };

    // Four parts: three full chunks and a remainder, non-trivial content.
    let long: String = (0..3 * CHUNK_LEN + 17)
        .map(|i| char::from(b'!' + (i % 90) as u8))
        .collect();
    sessions.save(&environment, &long).unwrap();
    assert_eq!(
        sessions.load(&environment).unwrap().as_deref(),
        Some(long.as_str())
    );
    // The names probed below are the ones the store really writes.
    assert_eq!(raw(backing, &environment).as_deref(), Some("v2:1:4"));
    for i in 0..4 {
        assert!(
            raw(backing, &part(&environment, 1, i)).is_some(),
            "part {i}"
        );
    }

    // A shorter session replaces it, and the longer one's parts go.
    let short = r#"{"token":"t","refresh":"r"}"#;
    sessions.save(&environment, short).unwrap();
    assert_eq!(sessions.load(&environment).unwrap().as_deref(), Some(short));
    for i in 0..4 {
        assert_eq!(raw(backing, &part(&environment, 1, i)), None, "part {i}");
    }

    sessions.delete(&environment).unwrap();
    assert_eq!(sessions.load(&environment).unwrap(), None);
    assert_eq!(leftovers(backing, &environment), Vec::<String>::new());
}
