//! The app's Windows-only code, run on Windows (under Wine by `cargo xtask
//! windows test`): the app's keyring session store (`src-tauri/src/session_store.rs`)
//! against the Credential Manager, through the `keyring` crate's Windows store as
//! the app uses it, and the IT policy file (`src-tauri/src/policy.rs`) under
//! ProgramData with its owner check. Both modules are compiled here from the
//! app's sources, with their own unit tests: a test build of the app itself
//! links Tauri and WebView2 for minutes, and this crate's tests already run
//! under Wine. Empty off Windows.
//!
//! What Wine shows and what only Windows can: Wine's Credential Manager API
//! (`CredWriteW`, `CredReadW`, `CredDeleteW`) keeps credentials in its registry,
//! and the `keyring` store checks Windows' 2,560-byte limit itself, so the
//! split into parts and the write, read and delete are real; Wine's
//! `powershell.exe` is a stub, so the policy's owner check reads no owner and
//! fails closed, and which owners it trusts only a real Windows shows.
//!
//! Writing to the Credential Manager and to ProgramData is done only when
//! asked (`RXDESK_REAL_KEYRING=1`, `RXDESK_WINE=1`), as the xtask does in its
//! private Wine prefix, so a developer's own Windows sessions and policy are
//! never touched.
#![cfg(windows)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The app's modules as they are; what the app uses of them and these tests do
// not is dead code here, and the app's `training` feature is not this crate's.
#[allow(dead_code, unexpected_cfgs)]
#[path = "../../../src-tauri/src/session_store.rs"]
mod session_store;

#[allow(dead_code)]
#[path = "../../../src-tauri/src/policy.rs"]
mod policy;

use std::path::{Path, PathBuf};

use keyring_core::{CredentialStore, Error as KeyringError};
use session_store::{CHUNK_LEN, SERVICE, SessionStore};

fn asked_for(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|v| v == "1")
}

/// What the Credential Manager holds under `user`, read past `SessionStore`.
fn raw(store: &CredentialStore, user: &str) -> Option<String> {
    match store.build(SERVICE, user, None).unwrap().get_password() {
        Ok(value) => Some(value),
        Err(KeyringError::NoEntry) => None,
        Err(e) => panic!("the Credential Manager failed to read {user}: {e}"),
    }
}

/// A name no real session on this machine has.
fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// The platform store the app would use, or `None` (and why, printed) when
/// the test was not asked to write to the Credential Manager.
fn credential_manager() -> Option<(SessionStore, std::sync::Arc<CredentialStore>)> {
    if !asked_for("RXDESK_REAL_KEYRING") {
        eprintln!("skipped: set RXDESK_REAL_KEYRING=1 to use the Credential Manager");
        return None;
    }
    let sessions = SessionStore::platform();
    if let Some(reason) = sessions.memory_reason() {
        panic!("RXDESK_REAL_KEYRING=1 but the Credential Manager is not usable: {reason}");
    }
    let store = keyring_core::get_default_store().expect("the platform store is the default");
    assert!(
        format!("{sessions:?}").contains("Windows"),
        "the app's store on Windows is the Credential Manager: {sessions:?}"
    );
    Some((sessions, store))
}

#[test]
fn a_multi_part_session_is_written_read_and_deleted_in_the_credential_manager() {
    let Some((sessions, backing)) = credential_manager() else {
        return;
    };
    let store: &CredentialStore = backing.as_ref();
    let environment = unique("wine-keyring-test");
    // Three full parts and a remainder, as a long session is stored.
    let long: String = (0..3 * CHUNK_LEN + 17)
        .map(|i| char::from(b'!' + (i % 90) as u8))
        .collect();

    sessions.save(&environment, &long).unwrap();

    assert_eq!(
        sessions.load(&environment).unwrap().as_deref(),
        Some(long.as_str())
    );
    assert_eq!(raw(store, &environment).as_deref(), Some("v2:1:4"));
    for i in 0..4 {
        let part = raw(store, &format!("{environment}#1.{i}")).expect("a part");
        assert!(
            part.len() <= CHUNK_LEN,
            "part {i}: {} characters",
            part.len()
        );
    }

    sessions.delete(&environment).unwrap();

    assert_eq!(sessions.load(&environment).unwrap(), None);
    let left: Vec<String> = std::iter::once(environment.clone())
        .chain((0..4).map(|i| format!("{environment}#1.{i}")))
        .filter(|user| raw(store, user).is_some())
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn one_part_fits_a_credential_where_a_session_twice_as_long_does_not() {
    let Some((_, store)) = credential_manager() else {
        return;
    };
    let entry = store
        .build(SERVICE, &unique("wine-keyring-limit"), None)
        .unwrap();

    // Why the store splits: a credential holds 2,560 bytes, UTF-16.
    let refused = entry.set_password(&"x".repeat(2 * CHUNK_LEN));
    entry.set_password(&"x".repeat(CHUNK_LEN)).unwrap();
    let read = entry.get_password().unwrap();
    entry.delete_credential().unwrap();

    assert!(
        matches!(refused, Err(KeyringError::TooLong(..))),
        "{refused:?}"
    );
    assert_eq!(read.len(), CHUNK_LEN);
}

/// The folder the app's policy lives in, and the file.
fn system_policy() -> (PathBuf, PathBuf) {
    let file = policy::system_path();
    let folder = file.parent().expect("a file in a folder").to_owned();
    (folder, file)
}

#[test]
fn the_it_policy_file_is_read_from_program_data() {
    let program_data =
        known_folders::get_known_folder_path(known_folders::KnownFolder::ProgramData)
            .expect("Windows names its ProgramData folder");

    let (_, file) = system_policy();

    assert_eq!(file, program_data.join("Rx Desk").join("policy.toml"));
    if asked_for("RXDESK_WINE") {
        // A fresh prefix, as a fresh Windows install.
        assert_eq!(file, Path::new(r"C:\ProgramData\Rx Desk\policy.toml"));
    }
}

/// Removes the planted policy and its folder even when an assertion fails.
struct Unplant(PathBuf);

impl Drop for Unplant {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Under Wine the owner check cannot read an owner: Windows answers it through
/// PowerShell's `Get-Acl`, and Wine's `powershell.exe` is a stub that prints
/// nothing (Wine 8.0, exit status 0). What the app must then
/// do is fail closed: a planted `updates = false` neither applies nor is
/// silently dropped — the policy is refused, naming the folder whose owner
/// could not be read. Which owners are trusted (Administrators, SYSTEM,
/// TrustedInstaller, never a user) only a real Windows machine can show.
#[test]
fn under_wine_a_policy_whose_owner_cannot_be_read_fails_closed() {
    if !asked_for("RXDESK_WINE") {
        eprintln!("skipped: writes to ProgramData; run under Wine (RXDESK_WINE=1)");
        return;
    }
    let (folder, file) = system_policy();
    assert!(
        !folder.exists(),
        "{} exists already: this test plants its own",
        folder.display()
    );
    std::fs::create_dir_all(&folder).unwrap();
    let _unplant = Unplant(folder.clone());
    std::fs::write(&file, "updates = false\n").unwrap();

    let refused = policy::read(&file).unwrap_err();

    match &refused {
        policy::PolicyError::OwnerUnknown {
            path,
            owned,
            reason,
        } => {
            assert_eq!(path, &file);
            assert_eq!(owned, &folder, "the folder is checked first");
            assert!(reason.contains("Get-Acl"), "{reason}");
        }
        other => panic!("expected the owner to be unknown, got {other}"),
    }
}
