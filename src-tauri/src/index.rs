//! The local index: the ids of the patients, prescriptions and orders this
//! workstation created or opened, per environment and organization, so the app
//! can list "Recent patients", "Drafts awaiting signature" and "Open orders" on a
//! network that has no list queries. For records it holds ids and times only —
//! never a name, a date of birth or any other patient data; records are fetched
//! live. Beside them, `index/templates.rs` keeps the templates drafted from
//! here with their names and their drug's: catalog data, the same for every
//! patient, never patient data.
//!
//! SQLite in the app's data directory (`index.sqlite`, created `0600`), in WAL
//! mode with `synchronous=NORMAL`: a commit survives a crash of the app, and a
//! power loss may lose the last few (the index is a convenience the app refills
//! as records are opened, so that is the right trade against a disk flush per
//! write). Every write is one transaction: [`Index::touch_many`] writes a batch
//! (e.g. the results of signing many drafts) in one. The handle is cheap to
//! clone, so callers on an async runtime move a batch to a blocking thread
//! (`AppCore::remember_all`); single writes and reads take microseconds and run
//! on the caller's thread.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::ipc::RecordKind;

mod pending;
mod schema;
mod templates;

pub use templates::UsedTemplate;

/// How many rows of each kind a list shows.
pub const LIST_LIMIT: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("the local index cannot be opened: {0}")]
    Open(String),
    #[error("the local index failed: {0}")]
    Sql(rusqlite::Error),
    /// SQLite found the disk full (`SQLITE_FULL`): the write was rolled back,
    /// the index is as it was, and the record itself is at the network.
    #[error(
        "the disk is full: the local index could not note this record (it is saved at the network: nothing was lost); free some space and try again"
    )]
    DiskFull,
    /// The file was written by a newer Rx Desk (its schema version `found`
    /// is beyond this build's `known`, `index/schema.rs`): it is left as it
    /// is, neither read nor changed.
    #[error(
        "the list of records on this computer was saved by a newer version of Rx Desk (format {found}; this version reads up to {known}); it was left as it is. Until the newer version is installed again, recent patients, drafts and orders opened from now on are kept only while Rx Desk is open"
    )]
    Newer { found: usize, known: usize },
}

impl From<rusqlite::Error> for IndexError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DiskFull) => Self::DiskFull,
            _ => Self::Sql(e),
        }
    }
}

/// Whose records: an environment and an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub environment: String,
    pub organization: String,
}

impl Scope {
    fn key(&self) -> (&str, &str) {
        (&self.environment, &self.organization)
    }
}

/// One indexed record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// The patient a prescription or order is for.
    pub patient_id: Option<String>,
}

fn kind_key(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Patient => "patient",
        RecordKind::Prescription => "prescription",
        RecordKind::Order => "order",
    }
}

/// One record to note as created or opened (see [`Index::touch_many`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    pub kind: RecordKind,
    pub id: String,
    /// The patient a prescription or order is for.
    pub patient_id: Option<String>,
}

/// The index (see the module doc). Clones share one connection.
#[derive(Debug, Clone)]
pub struct Index {
    conn: Arc<Mutex<Connection>>,
    /// Why this index is in memory when a file was asked for (see
    /// [`Index::open_or_in_memory`]): told to the user.
    problem: Option<Arc<str>>,
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS entries (
    environment TEXT NOT NULL,
    organization TEXT NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    patient_id TEXT,
    touched INTEGER NOT NULL,
    PRIMARY KEY (environment, organization, kind, id)
)";

impl Index {
    /// Opens (or creates) the index file at `path`, owner-only.
    pub fn open(path: &Path) -> Result<Self, IndexError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| IndexError::Open(e.to_string()))?;
        }
        create_private(path).map_err(|e| IndexError::Open(e.to_string()))?;
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // No disk flush per commit (WAL makes that safe against a crash of the app).
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Self::with(conn)
    }

    /// An index that lives only as long as the app (tests, or when the data
    /// directory cannot be written).
    pub fn in_memory() -> Result<Self, IndexError> {
        Self::with(Connection::open_in_memory()?)
    }

    /// The index file at `path`, or — when it cannot be used (written by a
    /// newer Rx Desk, unreadable, in an unwritable directory) — an index in
    /// memory for this run, which says why in [`Index::problem`]. The file
    /// is left as it is. Fails only when not even memory will do.
    pub fn open_or_in_memory(path: &Path) -> Result<Self, IndexError> {
        match Self::open(path) {
            Ok(index) => Ok(index),
            Err(e) => {
                tracing::warn!(error = %e, "the local index is kept in memory only");
                let mut index = Self::in_memory()?;
                let problem = match e {
                    IndexError::Newer { .. } => e.to_string(),
                    other => format!(
                        "{other}. Recent patients, drafts and orders opened from now on are kept only while Rx Desk is open"
                    ),
                };
                index.problem = Some(problem.into());
                Ok(index)
            }
        }
    }

    /// Why the lists are kept in memory only, when a file was asked for and
    /// could not be used; `None` when all is well.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    fn with(mut conn: Connection) -> Result<Self, IndexError> {
        schema::migrate(&mut conn)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            problem: None,
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent: keep going.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records that `id` was created or opened now.
    pub fn touch(
        &self,
        scope: &Scope,
        kind: RecordKind,
        id: &str,
        patient_id: Option<&str>,
    ) -> Result<(), IndexError> {
        self.touch_many(
            scope,
            &[Touch {
                kind,
                id: id.to_owned(),
                patient_id: patient_id.map(str::to_owned),
            }],
        )
    }

    /// Records that `touches` were created or opened now, in their order (the
    /// last is the newest), in one transaction: all are written or none.
    pub fn touch_many(&self, scope: &Scope, touches: &[Touch]) -> Result<(), IndexError> {
        if touches.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let mut next: i64 = tx.query_row(
            "SELECT COALESCE(MAX(touched), 0) + 1 FROM entries",
            [],
            |r| r.get(0),
        )?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT INTO entries (environment, organization, kind, id, patient_id, touched)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (environment, organization, kind, id)
                 DO UPDATE SET touched = excluded.touched,
                     patient_id = COALESCE(excluded.patient_id, entries.patient_id)",
            )?;
            for touch in touches {
                upsert.execute(params![
                    scope.environment,
                    scope.organization,
                    kind_key(touch.kind),
                    touch.id,
                    touch.patient_id,
                    next
                ])?;
                next += 1;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The most recently touched records of `kind`, newest first.
    pub fn recent(
        &self,
        scope: &Scope,
        kind: RecordKind,
        limit: usize,
    ) -> Result<Vec<Entry>, IndexError> {
        let conn = self.conn();
        let mut statement = conn.prepare_cached(
            "SELECT id, patient_id FROM entries
             WHERE environment = ?1 AND organization = ?2 AND kind = ?3
             ORDER BY touched DESC LIMIT ?4",
        )?;
        let rows = statement.query_map(
            params![
                scope.environment,
                scope.organization,
                kind_key(kind),
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
            |r| {
                Ok(Entry {
                    id: r.get(0)?,
                    patient_id: r.get(1)?,
                })
            },
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The records of `kind` for one patient, newest first.
    pub fn for_patient(
        &self,
        scope: &Scope,
        kind: RecordKind,
        patient_id: &str,
    ) -> Result<Vec<String>, IndexError> {
        let conn = self.conn();
        let mut statement = conn.prepare_cached(
            "SELECT id FROM entries
             WHERE environment = ?1 AND organization = ?2 AND kind = ?3 AND patient_id = ?4
             ORDER BY touched DESC",
        )?;
        let rows = statement.query_map(
            params![
                scope.environment,
                scope.organization,
                kind_key(kind),
                patient_id
            ],
            |r| r.get(0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The patient a prescription or order was indexed for.
    pub fn patient_of(
        &self,
        scope: &Scope,
        kind: RecordKind,
        id: &str,
    ) -> Result<Option<String>, IndexError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT patient_id FROM entries
                 WHERE environment = ?1 AND organization = ?2 AND kind = ?3 AND id = ?4",
                params![scope.environment, scope.organization, kind_key(kind), id],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Records that `template` was drafted from now (`index/templates.rs`).
    pub fn remember_template(
        &self,
        scope: &Scope,
        template: &UsedTemplate,
    ) -> Result<(), IndexError> {
        Ok(templates::remember(&self.conn(), scope.key(), template)?)
    }

    /// The templates drafted from here whose name, drug or id holds `query`,
    /// most recently used first.
    pub fn templates(
        &self,
        scope: &Scope,
        query: &str,
        limit: usize,
    ) -> Result<Vec<UsedTemplate>, IndexError> {
        Ok(templates::find(&self.conn(), scope.key(), query, limit)?)
    }

    /// Drops a template the network no longer knows in this organization.
    pub fn forget_template(&self, scope: &Scope, id: &str) -> Result<(), IndexError> {
        Ok(templates::forget(&self.conn(), scope.key(), id)?)
    }

    /// The key to send a new draft of `drug` (a drug or template id) for
    /// `patient_id` under: the one kept from an earlier attempt that was never
    /// answered (the app died, or gave up), or else `offered`, kept until
    /// [`Index::settle_draft_key`] (`index/pending.rs`). `now`: Unix seconds.
    pub fn draft_key(
        &self,
        scope: &Scope,
        patient_id: &str,
        drug: &str,
        offered: &str,
        now: i64,
    ) -> Result<String, IndexError> {
        Ok(pending::key_for(
            &mut self.conn(),
            scope.key(),
            patient_id,
            drug,
            offered,
            now,
        )?)
    }

    /// The network answered the new draft sent under `key`.
    pub fn settle_draft_key(&self, scope: &Scope, key: &str) -> Result<(), IndexError> {
        Ok(pending::settle(&self.conn(), scope.key(), key)?)
    }

    /// Drops an id the network no longer answers for.
    pub fn forget(&self, scope: &Scope, kind: RecordKind, id: &str) -> Result<(), IndexError> {
        self.conn().execute(
            "DELETE FROM entries
             WHERE environment = ?1 AND organization = ?2 AND kind = ?3 AND id = ?4",
            params![scope.environment, scope.organization, kind_key(kind), id],
        )?;
        Ok(())
    }
}

/// Creates `path` readable and writable by its owner only (before SQLite opens
/// it, so its `-wal` and `-shm` files inherit the mode).
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path).map(drop)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn scope(org: &str) -> Scope {
        Scope {
            environment: "sandbox".into(),
            organization: org.into(),
        }
    }

    #[test]
    fn a_full_disk_is_told_in_words_and_the_records_noted_before_are_kept() {
        let disk = match crate::small_disk::SmallDisk::mount("512k") {
            Ok(disk) => disk,
            Err(why) => {
                eprintln!("skipped: no small tmpfs here ({why})");
                return;
            }
        };
        let index = Index::open(&disk.dir.path().join("index.sqlite")).unwrap();
        let s = scope("org_a");
        index
            .touch(&s, RecordKind::Patient, "pat_kept", None)
            .unwrap();
        disk.fill();

        let refused = (0..2_000)
            .find_map(|n| {
                let id = format!("pat_{n:0>200}");
                index.touch(&s, RecordKind::Patient, &id, None).err()
            })
            .expect("a full disk refuses a write at last");

        assert!(matches!(refused, IndexError::DiskFull), "{refused:?}");
        assert!(
            refused.to_string().starts_with("the disk is full: ")
                && refused.to_string().contains("nothing was lost"),
            "{refused}"
        );
        let kept: Vec<_> = index
            .recent(&s, RecordKind::Patient, LIST_LIMIT)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert!(kept.contains(&"pat_kept".to_owned()), "{kept:?}");
    }

    #[test]
    fn recent_lists_newest_first_and_touching_again_moves_a_record_up() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");
        index.touch(&s, RecordKind::Patient, "pat_1", None).unwrap();
        index.touch(&s, RecordKind::Patient, "pat_2", None).unwrap();
        index.touch(&s, RecordKind::Patient, "pat_1", None).unwrap();
        let ids: Vec<_> = index
            .recent(&s, RecordKind::Patient, 10)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, ["pat_1", "pat_2"]);
    }

    #[test]
    fn another_organization_sees_none_of_the_records() {
        let index = Index::in_memory().unwrap();
        index
            .touch(&scope("org_a"), RecordKind::Order, "ord_1", Some("pat_1"))
            .unwrap();
        assert!(
            index
                .recent(&scope("org_b"), RecordKind::Order, 10)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_forgotten_record_is_gone_and_patient_records_are_found_by_patient() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");
        index
            .touch(&s, RecordKind::Prescription, "rx_1", Some("pat_1"))
            .unwrap();
        index
            .touch(&s, RecordKind::Prescription, "rx_2", Some("pat_2"))
            .unwrap();
        assert_eq!(
            index
                .for_patient(&s, RecordKind::Prescription, "pat_1")
                .unwrap(),
            ["rx_1"]
        );
        index.forget(&s, RecordKind::Prescription, "rx_1").unwrap();
        assert!(
            index
                .for_patient(&s, RecordKind::Prescription, "pat_1")
                .unwrap()
                .is_empty()
        );
    }

    fn touches(n: usize) -> Vec<Touch> {
        (0..n)
            .map(|i| Touch {
                kind: RecordKind::Prescription,
                id: format!("rx_{i}"),
                patient_id: Some(format!("pat_{i}")),
            })
            .collect()
    }

    #[test]
    fn a_batch_of_index_writes_is_one_transaction() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let index = Index::open(&dir.path().join("index.sqlite")).unwrap();
        let commits = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&commits);
        index.conn().commit_hook(Some(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            false // let the commit go ahead
        }));

        index.touch_many(&scope("org_a"), &touches(100)).unwrap();

        assert_eq!(commits.load(Ordering::SeqCst), 1);
        let listed = index
            .recent(&scope("org_a"), RecordKind::Prescription, 200)
            .unwrap();
        assert_eq!(listed.len(), 100);
    }

    #[test]
    fn a_batch_is_listed_newest_last_touched_first() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");
        index
            .touch(&s, RecordKind::Prescription, "rx_9", None)
            .unwrap();

        index.touch_many(&s, &touches(3)).unwrap();

        let ids: Vec<_> = index
            .recent(&s, RecordKind::Prescription, 10)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, ["rx_2", "rx_1", "rx_0", "rx_9"]);
    }

    #[test]
    fn a_new_drafts_key_is_kept_until_answered_and_offered_again_for_that_patient_and_drug() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");

        let first = index
            .draft_key(&s, "pat_1", "drug:med_1", "key-1", 1_000)
            .unwrap();
        let again = index
            .draft_key(&s, "pat_1", "drug:med_1", "key-2", 1_010)
            .unwrap();
        let other_drug = index
            .draft_key(&s, "pat_1", "drug:med_2", "key-3", 1_010)
            .unwrap();
        let other_patient = index
            .draft_key(&s, "pat_2", "drug:med_1", "key-4", 1_010)
            .unwrap();
        let other_org = index
            .draft_key(&scope("org_b"), "pat_1", "drug:med_1", "key-5", 1_010)
            .unwrap();

        assert_eq!(first, "key-1");
        assert_eq!(
            again, "key-1",
            "the unanswered attempt's key is offered again"
        );
        assert_eq!(
            (
                other_drug.as_str(),
                other_patient.as_str(),
                other_org.as_str()
            ),
            ("key-3", "key-4", "key-5")
        );
    }

    #[test]
    fn an_answered_drafts_key_is_not_offered_again() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");
        let key = index
            .draft_key(&s, "pat_1", "drug:med_1", "key-1", 1_000)
            .unwrap();

        index.settle_draft_key(&s, &key).unwrap();

        assert_eq!(
            index
                .draft_key(&s, "pat_1", "drug:med_1", "key-2", 1_010)
                .unwrap(),
            "key-2"
        );
    }

    #[test]
    fn a_kept_drafts_key_is_forgotten_after_a_day() {
        let index = Index::in_memory().unwrap();
        let s = scope("org_a");
        index
            .draft_key(&s, "pat_1", "drug:med_1", "key-1", 1_000)
            .unwrap();

        let later = 1_000 + pending::MAX_AGE_SECS + 1;

        assert_eq!(
            index
                .draft_key(&s, "pat_1", "drug:med_1", "key-2", later)
                .unwrap(),
            "key-2"
        );
    }

    #[test]
    fn the_index_file_commits_without_a_disk_flush_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::open(&dir.path().join("index.sqlite")).unwrap();

        let synchronous: i64 = index
            .conn()
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();

        assert_eq!(synchronous, 1, "NORMAL");
    }

    #[cfg(unix)]
    #[test]
    fn the_index_file_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let index = Index::open(&path).unwrap();
        index
            .touch(&scope("o"), RecordKind::Patient, "pat_1", None)
            .unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    /// The tables exactly as release 0.1.0 created them (`git show
    /// e412496:src-tauri/src/index.rs`), with no schema version.
    const RELEASE_0_1_0: &str = "
        CREATE TABLE IF NOT EXISTS entries (
            environment TEXT NOT NULL,
            organization TEXT NOT NULL,
            kind TEXT NOT NULL,
            id TEXT NOT NULL,
            patient_id TEXT,
            touched INTEGER NOT NULL,
            PRIMARY KEY (environment, organization, kind, id)
        );
        CREATE TABLE IF NOT EXISTS templates (
            environment TEXT NOT NULL,
            organization TEXT NOT NULL,
            id TEXT NOT NULL,
            name TEXT,
            drug_name TEXT NOT NULL,
            used INTEGER NOT NULL,
            PRIMARY KEY (environment, organization, id)
        );
        INSERT INTO entries VALUES ('sandbox', 'org_a', 'patient', 'pat_old', NULL, 1);
        INSERT INTO entries VALUES ('sandbox', 'org_a', 'prescription', 'rx_old', 'pat_old', 2);
        INSERT INTO templates VALUES ('sandbox', 'org_a', 'tmpl_old', 'Old favourite', 'Lisinopril 10 mg tablet', 1);
    ";

    fn user_version(path: &Path) -> i64 {
        Connection::open(path)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn an_index_saved_by_release_0_1_0_is_migrated_and_keeps_its_records_and_templates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        Connection::open(&path)
            .unwrap()
            .execute_batch(RELEASE_0_1_0)
            .unwrap();
        let s = scope("org_a");

        let index = Index::open(&path).unwrap();

        let patients = index.recent(&s, RecordKind::Patient, LIST_LIMIT).unwrap();
        assert_eq!(
            patients.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["pat_old"]
        );
        assert_eq!(
            index
                .for_patient(&s, RecordKind::Prescription, "pat_old")
                .unwrap(),
            ["rx_old"]
        );
        let templates = index.templates(&s, "favourite", 10).unwrap();
        assert_eq!(templates.len(), 1, "{templates:?}");
        // The table 0.2.0 added is there and works.
        assert_eq!(
            index
                .draft_key(&s, "pat_old", "drug:med_1", "key-1", 1_000)
                .unwrap(),
            "key-1"
        );
        drop(index);
        assert_eq!(user_version(&path), i64::try_from(schema::LATEST).unwrap());
    }

    #[test]
    fn an_index_saved_by_a_newer_version_is_refused_in_words_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let index = Index::open(&path).unwrap();
        index
            .touch(&scope("org_a"), RecordKind::Patient, "pat_kept", None)
            .unwrap();
        let newer = i64::try_from(schema::LATEST + 1).unwrap();
        index
            .conn()
            .pragma_update(None, "user_version", newer)
            .unwrap();
        drop(index);

        let refused = Index::open(&path).unwrap_err();

        assert!(
            matches!(refused, IndexError::Newer { found, known } if found == schema::LATEST + 1 && known == schema::LATEST),
            "{refused:?}"
        );
        assert!(
            refused.to_string().contains("newer version of Rx Desk"),
            "{refused}"
        );
        assert_eq!(user_version(&path), newer, "the file's version was changed");
        let kept: String = Connection::open(&path)
            .unwrap()
            .query_row("SELECT id FROM entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, "pat_kept");
    }

    #[test]
    fn an_index_file_of_a_newer_version_leaves_an_index_in_memory_that_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.sqlite");
        let newer = i64::try_from(schema::LATEST + 1).unwrap();
        drop(Index::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", newer)
            .unwrap();

        let index = Index::open_or_in_memory(&path).unwrap();
        index
            .touch(&scope("org_a"), RecordKind::Patient, "pat_new", None)
            .unwrap();

        let problem = index.problem().expect("the reason is told");
        assert!(problem.contains("newer version of Rx Desk"), "{problem}");
        assert!(problem.contains("only while Rx Desk is open"), "{problem}");
        assert_eq!(user_version(&path), newer, "the file's version was changed");
        let in_file: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(in_file, 0, "this run's records went to the newer file");
    }

    #[test]
    fn an_index_file_in_use_has_no_problem_to_tell() {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::open_or_in_memory(&dir.path().join("index.sqlite")).unwrap();
        assert_eq!(index.problem(), None);
    }
}
