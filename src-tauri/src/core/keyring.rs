//! Where the session is kept, as the UI is told it ([`SessionStorage`]): the
//! keyring, or — when the keyring is missing, locked or refuses — memory for
//! this run only, once the user chose that. The session is never stored
//! anywhere else. Keyring calls themselves are in `session`; the store and the
//! classification of keyring errors in [`crate::session_store`].

use std::sync::atomic::Ordering;

use super::AppCore;
use crate::ipc::{CommandError, KeyringProblem, SessionStorage};
use crate::session_store::{self, KeyringTrouble};

fn problem(p: session_store::KeyringProblem) -> KeyringProblem {
    match p {
        session_store::KeyringProblem::NotRunning => KeyringProblem::NotRunning,
        session_store::KeyringProblem::Locked => KeyringProblem::Locked,
        session_store::KeyringProblem::Refused => KeyringProblem::Refused,
    }
}

impl AppCore {
    /// The keyring's trouble, if it cannot keep the session: none answered at
    /// start, or it refused a read or write since.
    fn keyring_trouble(&self) -> Option<KeyringTrouble> {
        if let Some(trouble) = self.store.memory_reason() {
            return Some(trouble.clone());
        }
        self.keyring_failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Whether the user chose to sign in for this run only (memory).
    pub(super) fn this_run_only(&self) -> bool {
        self.this_run_only.load(Ordering::SeqCst)
    }

    pub(super) fn storage(&self) -> SessionStorage {
        match self.keyring_trouble() {
            None => SessionStorage::Keyring,
            Some(trouble) => SessionStorage::MemoryOnly {
                problem: problem(trouble.problem),
                detail: trouble.detail,
                this_run_only: self.this_run_only(),
            },
        }
    }

    /// The keyring's last answer: `None` when it stored or read the session.
    /// A refused write after a sign-in keeps that session for this run: the
    /// user signed in, and it is stored nowhere else.
    pub(super) fn keyring_failed(&self, trouble: Option<KeyringTrouble>, signed_in: bool) {
        if trouble.is_some() && signed_in {
            self.this_run_only.store(true, Ordering::SeqCst);
        }
        *self
            .keyring_failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = trouble;
    }

    /// The user chose to sign in for this run only: the session is kept in
    /// memory and the keyring is not asked again until the app restarts.
    pub fn keep_session_in_memory(&self) {
        self.this_run_only.store(true, Ordering::SeqCst);
    }

    /// A sign-in may start: the keyring can keep its session, or the user
    /// chose this run only. Otherwise the UI offers that choice; this refuses
    /// a sign-in that did not make it.
    pub(super) fn keyring_allows_sign_in(&self) -> Result<(), CommandError> {
        match self.keyring_trouble() {
            Some(trouble) if !self.this_run_only() => Err(CommandError::app(format!(
                "{trouble}. Rx Desk keeps sessions only in the keyring: fix it and restart \
                 Rx Desk, or choose to sign in for this run only"
            ))),
            _ => Ok(()),
        }
    }
}
