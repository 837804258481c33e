//! Where a signed-in session is kept between runs: the OS keyring, under one
//! entry ([`SESSION_ENTRY`]: the app keeps at most one session), or — when no
//! keyring service answers — memory only. Never anywhere else: a keyring that
//! is missing, locked or refusing is a [`KeyringTrouble`] the app tells the
//! user about ([`KeyringProblem`]: what is wrong, in a kind they can act on).
//!
//! A serialized session (a JWT, a refresh token, who and which organization)
//! can exceed what one credential holds (Windows' Credential Manager stops at
//! 2,560 bytes), so the text is split into chunks of at most [`CHUNK_LEN`] ASCII
//! characters. Only ASCII is stored (the session is JSON with non-ASCII
//! escaped), so a chunk fits even where the store encodes it as UTF-16.
//!
//! Crash-safe by construction: a keyring writes one entry at a time, so a save
//! writes the new text's chunks under a new generation (`<environment>#<gen>.<i>`)
//! first, then switches the manifest `<environment>` (`v2:<gen>:<count>`) to
//! them in one write, and only then removes the old generation. Stopped at any
//! point, the manifest names a complete generation: the old session or the new.
//!
//! Keyring calls can block (D-Bus); callers on the async runtime run them in
//! `spawn_blocking`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keyring_core::{CredentialStore, Entry, Error as KeyringError};

/// The keyring "service" name of every entry: the app's bundle identifier, so
/// the training build ([`TRAINING_SERVICE`]) never reads or ends a session of
/// the production app ([`PRODUCTION_SERVICE`]) on the same account.
pub const SERVICE: &str = if cfg!(feature = "training") {
    TRAINING_SERVICE
} else {
    PRODUCTION_SERVICE
};
/// The production app's service (`identifier` in `tauri.conf.json`).
pub const PRODUCTION_SERVICE: &str = "dev.rxdesk.desktop";
/// The training build's service (`identifier` in `tauri.training.conf.json`).
pub const TRAINING_SERVICE: &str = "dev.rxdesk.training";

/// The entry of the one stored session (the app's `StoredSession`: its
/// environment, its last use, the session).
pub const SESSION_ENTRY: &str = "session";

/// Characters per credential: 1,200 ASCII characters are 2,400 bytes even as
/// UTF-16, under Windows' 2,560-byte limit.
pub const CHUNK_LEN: usize = 1_200;
/// More chunks than this is not a session.
const MAX_CHUNKS: usize = 16;

/// Why the keyring cannot keep the session, as the user can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyringProblem {
    /// No keyring service answers: no Secret Service on the desktop session's
    /// D-Bus (or no D-Bus session at all), no default store.
    NotRunning,
    /// The keyring is locked and was not unlocked (its unlock prompt was
    /// dismissed), or access to it was not granted.
    Locked,
    /// The keyring answered but refused, for another reason (a failed write,
    /// a full or broken store).
    Refused,
}

impl KeyringProblem {
    /// The problem in a few words ("the keyring is locked").
    pub fn summary(self) -> &'static str {
        match self {
            Self::NotRunning => "no keyring service is running",
            Self::Locked => "the keyring is locked and was not unlocked",
            Self::Refused => "the keyring refused",
        }
    }
}

/// A keyring failure: its kind, and the keyring's own words (`detail`, never
/// a secret: keyring errors name entries by service and user only).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {detail}", problem.summary())]
pub struct KeyringTrouble {
    pub problem: KeyringProblem,
    pub detail: String,
}

impl KeyringTrouble {
    /// Classifies a keyring error. On Linux the Secret Service's own error is
    /// read: locked, or a prompt dismissed, is [`KeyringProblem::Locked`]; no
    /// provider on the bus is [`KeyringProblem::NotRunning`].
    pub fn of(error: &KeyringError) -> Self {
        let problem = match error {
            KeyringError::NoDefaultStore => KeyringProblem::NotRunning,
            KeyringError::NoStorageAccess(inner) => {
                secret_service_problem(inner.as_ref()).unwrap_or(KeyringProblem::Locked)
            }
            KeyringError::PlatformFailure(inner) => {
                secret_service_problem(inner.as_ref()).unwrap_or(KeyringProblem::Refused)
            }
            _ => KeyringProblem::Refused,
        };
        Self {
            problem,
            detail: error.to_string(),
        }
    }
}

/// What a Secret Service error behind a keyring error means, if it is one.
#[cfg(target_os = "linux")]
fn secret_service_problem(
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> Option<KeyringProblem> {
    use secret_service::Error as Ss;
    let found = error.downcast_ref::<Ss>()?;
    Some(match found {
        Ss::Locked | Ss::Prompt | Ss::PromptDisconnected => KeyringProblem::Locked,
        Ss::Unavailable => KeyringProblem::NotRunning,
        // A bus without the service: D-Bus names the error by its well-known
        // name in the text zbus gives it (no type of its own to match).
        Ss::Zbus(_) | Ss::ZbusFdo(_)
            if ["ServiceUnknown", "NameHasNoOwner"]
                .iter()
                .any(|name| found.to_string().contains(name)) =>
        {
            KeyringProblem::NotRunning
        }
        _ => KeyringProblem::Refused,
    })
}

#[cfg(not(target_os = "linux"))]
fn secret_service_problem(
    _: &(dyn std::error::Error + Send + Sync + 'static),
) -> Option<KeyringProblem> {
    None
}

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Keyring(KeyringTrouble),
    #[error("the stored session is damaged: {0}")]
    Damaged(String),
    #[error("the session is too large to store ({0} characters)")]
    TooLarge(usize),
}

impl StoreError {
    /// The failure as the keyring's trouble: what a store that cannot hold the
    /// session (damaged, too large) means to the user is a refusal.
    pub fn into_trouble(self) -> KeyringTrouble {
        match self {
            Self::Keyring(trouble) => trouble,
            other => KeyringTrouble {
                problem: KeyringProblem::Refused,
                detail: other.to_string(),
            },
        }
    }
}

/// The keyring, or memory when there is none.
#[derive(Clone)]
pub enum SessionStore {
    Keyring(Arc<CredentialStore>),
    Memory {
        trouble: KeyringTrouble,
        entries: Arc<Mutex<HashMap<String, String>>>,
        /// Tests only: how many more writes succeed before the store "crashes".
        writes_left: Arc<Mutex<Option<usize>>>,
    },
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Keyring(store) => f.debug_tuple("Keyring").field(&store.vendor()).finish(),
            Self::Memory { trouble, .. } => {
                f.debug_struct("Memory").field("trouble", trouble).finish()
            }
        }
    }
}

impl SessionStore {
    /// Memory only, because no keyring service runs (`detail`: what was seen).
    pub fn memory(detail: impl Into<String>) -> Self {
        Self::memory_for(KeyringTrouble {
            problem: KeyringProblem::NotRunning,
            detail: detail.into(),
        })
    }

    /// Memory only, for `trouble`.
    pub fn memory_for(trouble: KeyringTrouble) -> Self {
        Self::Memory {
            trouble,
            entries: Arc::default(),
            writes_left: Arc::default(),
        }
    }

    /// Memory that stops writing (every write fails) after `n` more writes:
    /// a crash mid-save, for tests.
    pub fn crashing_after(&self, n: usize) {
        if let Self::Memory { writes_left, .. } = self {
            *writes_left
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(n);
        }
    }

    /// A memory store's write budget (see [`SessionStore::crashing_after`]).
    fn spend_write(&self) -> Result<(), StoreError> {
        let Self::Memory { writes_left, .. } = self else {
            return Ok(());
        };
        let mut left = writes_left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match left.as_mut() {
            Some(0) => Err(StoreError::Keyring(KeyringTrouble {
                problem: KeyringProblem::Refused,
                detail: "the store stopped (simulated crash)".into(),
            })),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// The platform's keyring if it answers, memory otherwise. Blocking.
    pub fn platform() -> Self {
        match platform_store() {
            Ok(store) => Self::probe(store),
            Err(e) => Self::memory(e.to_string()),
        }
    }

    /// `store` if a read succeeds (or finds nothing), memory otherwise. Blocking.
    pub fn probe(store: Arc<CredentialStore>) -> Self {
        let answer = store
            .build(SERVICE, "probe", None)
            .and_then(|entry| entry.get_password());
        match answer {
            Ok(_) | Err(KeyringError::NoEntry) => Self::Keyring(store),
            Err(e) => Self::memory_for(KeyringTrouble::of(&e)),
        }
    }

    /// `None` when the keyring is in use, else why the session is memory-only.
    pub fn memory_reason(&self) -> Option<&KeyringTrouble> {
        match self {
            Self::Keyring(_) => None,
            Self::Memory { trouble, .. } => Some(trouble),
        }
    }

    /// Stores `text` (ASCII) for `environment`, replacing what was there:
    /// pieces first, then the manifest, then the old pieces. Blocking.
    pub fn save(&self, environment: &str, text: &str) -> Result<(), StoreError> {
        if !text.is_ascii() {
            return Err(StoreError::Damaged("not ASCII".into()));
        }
        let chunks: Vec<&str> = text
            .as_bytes()
            .chunks(CHUNK_LEN)
            // Cannot fail: `text` is ASCII, so every byte boundary is a char boundary.
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect();
        if chunks.len() > MAX_CHUNKS {
            return Err(StoreError::TooLarge(text.len()));
        }
        let old = self.manifest(environment).ok().flatten();
        let generation = old.map_or(1, |m| m.generation.wrapping_add(1).max(1));
        let count = chunks.len().max(1);
        for i in 0..count {
            let chunk = chunks.get(i).copied().unwrap_or_default();
            self.put(&piece_user(environment, generation, i), chunk)?;
        }
        // The switch: one write.
        self.put(environment, &format!("v2:{generation}:{count}"))?;
        if let Some(old) = old {
            // Leftovers are harmless (nothing names them) and swept by the next
            // delete; a failure here does not undo the save.
            if let Err(e) = self.remove_generation(environment, old) {
                tracing::debug!(error = %e, "an older session's parts are left for later");
            }
        }
        Ok(())
    }

    /// The text stored for `environment`, if any. Blocking.
    pub fn load(&self, environment: &str) -> Result<Option<String>, StoreError> {
        let Some(manifest) = self.manifest(environment)? else {
            return Ok(None);
        };
        let mut text = String::new();
        for i in 0..manifest.count {
            let part = self
                .get(&piece_user(environment, manifest.generation, i))?
                .ok_or_else(|| {
                    StoreError::Damaged(format!("part {i} of {} is missing", manifest.count))
                })?;
            text.push_str(&part);
        }
        Ok(Some(text))
    }

    /// Removes every entry of `environment`: the manifest first (so a crash
    /// leaves no session), then its parts, and what a crash may have left: the
    /// next or previous generation's, or the first format's (`<environment>#1` …).
    /// Blocking.
    pub fn delete(&self, environment: &str) -> Result<(), StoreError> {
        let manifest = self.manifest(environment);
        self.remove(environment)?;
        match manifest {
            Ok(Some(current)) => {
                self.remove_generation(environment, current)?;
                // A save cut short before its switch, or after it.
                let next = current.generation.wrapping_add(1);
                self.sweep(|i| piece_user(environment, next, i), 0)?;
                let previous = current.generation.wrapping_sub(1);
                self.sweep(|i| piece_user(environment, previous, i), 0)
            }
            Ok(None) => Ok(()),
            Err(_) => self.sweep(|i| format!("{environment}#{i}"), 1),
        }
    }

    /// Removes the parts `name(first)`, `name(first + 1)` … up to the first
    /// missing one: parts are written first to last and removed last to first,
    /// so what a crash leaves is always such a run.
    fn sweep(&self, name: impl Fn(usize) -> String, first: usize) -> Result<(), StoreError> {
        for i in first..MAX_CHUNKS {
            let user = name(i);
            if self.get(&user)?.is_none() {
                break;
            }
            self.remove(&user)?;
        }
        Ok(())
    }

    fn manifest(&self, environment: &str) -> Result<Option<Manifest>, StoreError> {
        match self.get(environment)? {
            None => Ok(None),
            Some(text) => parse_manifest(&text).map(Some),
        }
    }

    /// Removes a generation's parts, last first (see [`SessionStore::sweep`]).
    fn remove_generation(&self, environment: &str, m: Manifest) -> Result<(), StoreError> {
        for i in (0..m.count).rev() {
            self.remove(&piece_user(environment, m.generation, i))?;
        }
        Ok(())
    }

    fn entry(store: &CredentialStore, user: &str) -> Result<Entry, StoreError> {
        store.build(SERVICE, user, None).map_err(keyring_error)
    }

    fn put(&self, user: &str, value: &str) -> Result<(), StoreError> {
        match self {
            Self::Keyring(store) => Self::entry(store.as_ref(), user)?
                .set_password(value)
                .map_err(keyring_error),
            Self::Memory { entries, .. } => {
                self.spend_write()?;
                lock(entries).insert(user.to_owned(), value.to_owned());
                Ok(())
            }
        }
    }

    fn get(&self, user: &str) -> Result<Option<String>, StoreError> {
        match self {
            Self::Keyring(store) => match Self::entry(store.as_ref(), user)?.get_password() {
                Ok(v) => Ok(Some(v)),
                Err(KeyringError::NoEntry) => Ok(None),
                Err(e) => Err(keyring_error(e)),
            },
            Self::Memory { entries, .. } => Ok(lock(entries).get(user).cloned()),
        }
    }

    fn remove(&self, user: &str) -> Result<(), StoreError> {
        match self {
            Self::Keyring(store) => match Self::entry(store.as_ref(), user)?.delete_credential() {
                Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
                Err(e) => Err(keyring_error(e)),
            },
            Self::Memory { entries, .. } => {
                if lock(entries).contains_key(user) {
                    self.spend_write()?;
                }
                lock(entries).remove(user);
                Ok(())
            }
        }
    }
}

fn keyring_error(e: KeyringError) -> StoreError {
    StoreError::Keyring(KeyringTrouble::of(&e))
}

fn lock(
    entries: &Mutex<HashMap<String, String>>,
) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
    // A poisoned map still holds valid strings: keep using it.
    entries
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Which generation of parts holds the session, and how many there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Manifest {
    generation: u32,
    count: usize,
}

fn piece_user(environment: &str, generation: u32, index: usize) -> String {
    format!("{environment}#{generation}.{index}")
}

fn parse_manifest(text: &str) -> Result<Manifest, StoreError> {
    let rest = text
        .strip_prefix("v2:")
        .ok_or_else(|| StoreError::Damaged("unknown format".into()))?;
    let (generation, count) = rest
        .split_once(':')
        .ok_or_else(|| StoreError::Damaged("no part count".into()))?;
    let generation: u32 = generation
        .parse()
        .map_err(|_| StoreError::Damaged("bad generation".into()))?;
    let count: usize = count
        .parse()
        .map_err(|_| StoreError::Damaged("bad part count".into()))?;
    if count == 0 || count > MAX_CHUNKS {
        return Err(StoreError::Damaged("bad part count".into()));
    }
    Ok(Manifest { generation, count })
}

/// The platform's store — Keychain, Windows Credential Manager or Secret
/// Service — as `keyring` 4 chooses and installs it (once per process) as
/// keyring-core's default.
fn platform_store() -> Result<Arc<CredentialStore>, KeyringError> {
    if let Err(e) = keyring::Entry::store_status() {
        return Err(KeyringError::NoStorageAccess(e.to_string().into()));
    }
    keyring_core::get_default_store().ok_or(KeyringError::NoDefaultStore)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn mock_backing() -> Arc<CredentialStore> {
        keyring_core::mock::Store::new().unwrap()
    }

    fn mock() -> SessionStore {
        SessionStore::probe(mock_backing())
    }

    #[test]
    fn a_mock_keyring_is_used_as_a_keyring() {
        assert!(mock().memory_reason().is_none());
    }

    #[test]
    fn a_long_session_is_split_into_entries_within_the_windows_limit_and_read_back() {
        let store = mock();
        let text: String = (0..5_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        store.save("sandbox", &text).unwrap();

        assert_eq!(
            store.load("sandbox").unwrap().as_deref(),
            Some(text.as_str())
        );
        for i in 0..5 {
            let value = store.get(&piece_user("sandbox", 1, i)).unwrap().unwrap();
            assert!(
                value.len() * 2 <= 2_560,
                "entry {i} is {} bytes",
                value.len()
            );
        }
    }

    #[test]
    fn a_shorter_session_removes_the_parts_left_over_from_a_longer_one() {
        let store = mock();
        store.save("env", &"x".repeat(3_000)).unwrap();
        store.save("env", "short").unwrap();

        assert_eq!(store.load("env").unwrap().as_deref(), Some("short"));
        for i in 0..3 {
            assert_eq!(store.get(&piece_user("env", 1, i)).unwrap(), None);
        }
    }

    #[test]
    fn delete_removes_every_part_and_environments_stay_apart() {
        let store = mock();
        store.save("a", &"y".repeat(2_500)).unwrap();
        store.save("b", "other").unwrap();
        store.delete("a").unwrap();

        assert_eq!(store.load("a").unwrap(), None);
        assert_eq!(store.get(&piece_user("a", 1, 1)).unwrap(), None);
        assert_eq!(store.load("b").unwrap().as_deref(), Some("other"));
    }

    /// A mock keyring whose probe read fails with `error`.
    fn failing_probe(error: KeyringError) -> SessionStore {
        let backing = mock_backing();
        let entry = backing.build(SERVICE, "probe", None).unwrap();
        let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().unwrap();
        cred.set_error(error);
        SessionStore::probe(backing)
    }

    #[test]
    fn a_keyring_that_fails_to_answer_means_memory_only_with_the_reason() {
        let store = failing_probe(KeyringError::NoStorageAccess(Box::new(
            std::io::Error::other("no access"),
        )));

        let reason = store.memory_reason().unwrap();
        assert!(reason.detail.contains("no access"), "{reason}");
        store.save("env", "kept in memory").unwrap();
        assert_eq!(
            store.load("env").unwrap().as_deref(),
            Some("kept in memory")
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_locked_keyring_whose_prompt_was_dismissed_is_told_as_locked() {
        let store = failing_probe(KeyringError::NoStorageAccess(Box::new(
            secret_service::Error::Prompt,
        )));

        let trouble = store.memory_reason().unwrap();

        assert_eq!(trouble.problem, KeyringProblem::Locked);
        assert!(
            trouble
                .to_string()
                .starts_with("the keyring is locked and was not unlocked"),
            "{trouble}"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn no_secret_service_provider_is_told_as_not_running() {
        let store = failing_probe(KeyringError::PlatformFailure(Box::new(
            secret_service::Error::Unavailable,
        )));

        assert_eq!(
            store.memory_reason().unwrap().problem,
            KeyringProblem::NotRunning
        );
    }

    #[test]
    fn a_platform_failure_of_another_kind_is_told_as_refused() {
        let store = failing_probe(KeyringError::PlatformFailure(Box::new(
            std::io::Error::other("disk full"),
        )));

        assert_eq!(
            store.memory_reason().unwrap().problem,
            KeyringProblem::Refused
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_refused_write_names_its_kind() {
        let backing = mock_backing();
        let store = SessionStore::probe(backing.clone());
        let entry = backing.build(SERVICE, "env#1.0", None).unwrap();
        let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().unwrap();
        cred.set_error(KeyringError::NoStorageAccess(Box::new(
            secret_service::Error::Locked,
        )));

        let refused = store.save("env", "text").unwrap_err();

        assert!(
            matches!(&refused, StoreError::Keyring(t) if t.problem == KeyringProblem::Locked),
            "{refused:?}"
        );
    }

    #[test]
    fn a_damaged_entry_is_reported_not_guessed() {
        let store = mock();
        store.put("env", "garbage").unwrap();
        assert!(matches!(store.load("env"), Err(StoreError::Damaged(_))));
        store.delete("env").unwrap();
        assert_eq!(store.load("env").unwrap(), None);
    }

    #[test]
    fn a_crash_between_keyring_writes_leaves_a_readable_session() {
        let old = "o".repeat(3_000);
        let new = "n".repeat(2_000);
        // Every point a save can stop at: before each of its writes.
        for writes in 0..8 {
            let store = SessionStore::memory("test");
            store.save("env", &old).unwrap();
            store.crashing_after(writes);

            let _ = store.save("env", &new);

            let read = store.load("env").unwrap();
            assert!(
                read.as_deref() == Some(old.as_str()) || read.as_deref() == Some(new.as_str()),
                "after {writes} writes the session reads {:?}",
                read.map(|r| r.len())
            );
        }
    }

    #[test]
    fn a_crash_while_deleting_leaves_the_session_whole_or_gone() {
        for writes in 0..6 {
            let store = SessionStore::memory("test");
            store.save("env", &"o".repeat(3_000)).unwrap();
            store.crashing_after(writes);

            let _ = store.delete("env");

            match store.load("env") {
                Ok(None) => {}
                Ok(Some(text)) => assert_eq!(text.len(), 3_000),
                Err(e) => panic!("after {writes} writes: {e}"),
            }
        }
    }

    #[test]
    fn a_session_of_the_first_format_is_reported_and_deleted_whole() {
        let store = mock();
        store.put("env", "v1:2:abc").unwrap();
        store.put("env#1", "def").unwrap();

        assert!(matches!(store.load("env"), Err(StoreError::Damaged(_))));
        store.delete("env").unwrap();

        assert_eq!(store.get("env").unwrap(), None);
        assert_eq!(store.get("env#1").unwrap(), None);
    }

    #[test]
    fn deleting_after_a_crash_mid_save_leaves_no_entry_behind() {
        // Every point a save can stop at, then a sign-out's delete.
        for writes in 0..8 {
            let store = SessionStore::memory("test");
            store.save("env", &"o".repeat(3_000)).unwrap();
            store.crashing_after(writes);
            let _ = store.save("env", &"n".repeat(2_000));
            store.crashing_after(usize::MAX);

            store.delete("env").unwrap();

            let SessionStore::Memory { entries, .. } = &store else {
                unreachable!("a memory store")
            };
            let left: Vec<String> = lock(entries).keys().cloned().collect();
            assert!(left.is_empty(), "after {writes} writes: {left:?} left");
        }
    }
}
