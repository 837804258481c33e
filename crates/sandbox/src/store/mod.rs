//! SQLite storage: the connection, its embedded migrations and the Network API's
//! records ([`records`]).
//!
//! The database is opened once per sandbox (a file under `--data` in WAL mode, or
//! `:memory:`). All access goes through [`Db::call`], which runs a closure on a
//! blocking thread with the one connection locked, or [`Db::read`], which runs a
//! short read on the calling thread when the connection is free (and as
//! [`Db::call`] does when it is not), or [`Db::write`], a Network API call
//! that may write: as [`Db::read`] in memory, as [`Db::call`] on disk. Every
//! closure is therefore a serialized unit, and a closure that opens a
//! transaction makes its state change atomic.
//! The records' SQL lives in [`records`]; the authorization server's own tables
//! are read and written by `auth/db.rs` and `fixture/apply.rs`, through the same
//! [`Db::call`].

pub mod records;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

/// The embedded schema migrations, applied in order at start-up. Never edit one
/// that has shipped: a data directory remembers which it has run; add the next.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_auth.sql")),
        M::up(include_str!("../../migrations/0002_clinical.sql")),
        M::up(include_str!("../../migrations/0003_network.sql")),
        M::up(include_str!("../../migrations/0004_drop_legacy.sql")),
        M::up(include_str!(
            "../../migrations/0005_refresh_family_deadline.sql"
        )),
        M::up(include_str!("../../migrations/0006_network_events.sql")),
        M::up(include_str!("../../migrations/0007_after_send.sql")),
        M::up(include_str!("../../migrations/0008_sign_ins.sql")),
    ])
}

/// Failures of the store. Callers treat them as internal errors: none is caused
/// by a client's input (validation happens before the store is asked).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("database worker stopped unexpectedly")]
    Worker,
    /// The database file could not be created with its permissions.
    #[error("cannot prepare the database file: {0}")]
    File(String),
    /// A stored document that does not read back (never caused by a client).
    #[error("stored document unreadable: {0}")]
    Document(String),
}

/// A handle on the sandbox's database, cheap to clone.
#[derive(Clone)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
    /// `:memory:`: nothing it does waits on a disk.
    in_memory: bool,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").finish_non_exhaustive()
    }
}

impl Db {
    /// Opens (creating if needed) `dir/sandbox.db` in WAL mode and migrates it.
    pub fn open_file(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join("sandbox.db");
        // Created owner-only before SQLite opens it: SQLite gives its -wal and
        // -shm files the database file's permissions.
        private_file(&path).map_err(|e| StoreError::File(format!("{}: {e}", path.display())))?;
        let mut conn = Connection::open(&path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Self::prepare(&mut conn)?;
        Ok(Self::wrap(conn, false))
    }

    /// Opens a fresh in-memory database and migrates it.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        Self::prepare(&mut conn)?;
        Ok(Self::wrap(conn, true))
    }

    fn prepare(conn: &mut Connection) -> Result<(), StoreError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations().to_latest(conn)?;
        Ok(())
    }

    fn wrap(conn: Connection, in_memory: bool) -> Self {
        Self {
            conn: Arc::new(Mutex::new(conn)),
            in_memory,
        }
    }

    /// Runs `f` with exclusive use of the connection on a blocking thread.
    /// For work that may wait on the disk or take long (writes, scans):
    /// the async runtime's threads go on serving meanwhile.
    pub async fn call<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            // A poisoned lock means a closure panicked mid-way; SQLite rolled back
            // any open transaction when its guard dropped, so the connection is
            // still consistent and safe to reuse.
            let mut guard = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&mut guard)
        })
        .await
        .map_err(|_| StoreError::Worker)?
    }
}

impl Db {
    /// Runs `f` with exclusive use of the connection, on the calling thread
    /// when the connection is free, else on a blocking thread as [`Db::call`]
    /// does. For short reads (a Get by id: one indexed row): handing them to a
    /// blocking thread and waking the caller again costs more than the read.
    /// A panic in `f` is [`StoreError::Worker`], as it is in [`Db::call`].
    pub async fn read<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        match self.try_here(f) {
            Ok(answer) => answer,
            Err(f) => self.call(f).await,
        }
    }

    /// One Network API call that may write: as [`Db::read`] when the database
    /// is in memory — a write there waits on no disk, and the hop to a
    /// blocking thread cost a signature more than its write — and as
    /// [`Db::call`] on disk, where a commit may wait for a checkpoint's sync.
    pub async fn write<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        if self.in_memory {
            self.read(f).await
        } else {
            self.call(f).await
        }
    }

    /// `f` run now on this thread if the connection is free; `Err(f)` when
    /// another closure holds it.
    fn try_here<F, R>(&self, f: F) -> Result<Result<R, StoreError>, F>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError>,
    {
        let mut guard = match self.conn.try_lock() {
            Ok(guard) => guard,
            // As in `call`: SQLite rolled back what the panicking closure left open.
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Err(f),
        };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut guard)));
        Ok(ran.unwrap_or(Err(StoreError::Worker)))
    }
}

/// Creates `path` empty and owner-only (`0600` on Unix) unless it exists, and
/// tightens an existing one.
fn private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        options.mode(0o600);
        options.open(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    options.open(path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn a_read_runs_on_the_calling_thread_when_the_connection_is_free() {
        let db = Db::open_in_memory().unwrap();
        let caller = std::thread::current().id();

        let (ran_on, one) = db
            .read(|conn| {
                let one: i64 = conn.query_row("SELECT 1", [], |r| r.get(0))?;
                Ok((std::thread::current().id(), one))
            })
            .await
            .unwrap();

        assert_eq!(ran_on, caller);
        assert_eq!(one, 1);
    }

    #[tokio::test]
    async fn a_read_waits_on_a_blocking_thread_while_another_closure_holds_the_connection() {
        let db = Db::open_in_memory().unwrap();
        let (held, release) = (
            std::sync::Arc::new(std::sync::Barrier::new(2)),
            std::sync::mpsc::channel::<()>(),
        );
        let (release_tx, release_rx) = release;
        let holder = {
            let (db, held) = (db.clone(), std::sync::Arc::clone(&held));
            tokio::spawn(async move {
                db.call(move |_| {
                    held.wait();
                    let _ = release_rx.recv();
                    Ok(())
                })
                .await
            })
        };
        tokio::task::spawn_blocking(move || held.wait())
            .await
            .unwrap();
        let caller = std::thread::current().id();

        let read = db.read(|_| Ok(std::thread::current().id()));
        let released = async {
            release_tx.send(()).unwrap();
        };
        let (ran_on, ()) = tokio::join!(read, released);

        assert_ne!(ran_on.unwrap(), caller);
        holder.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_write_runs_on_the_calling_thread_in_memory_and_on_a_blocking_thread_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let (memory, disk) = (
            Db::open_in_memory().unwrap(),
            Db::open_file(dir.path()).unwrap(),
        );
        let caller = std::thread::current().id();
        let write = |conn: &mut Connection| {
            conn.execute_batch("CREATE TABLE written (n INTEGER); INSERT INTO written VALUES (1)")?;
            Ok(std::thread::current().id())
        };

        let in_memory = memory.write(write).await.unwrap();
        let on_disk = disk.write(write).await.unwrap();

        assert_eq!(in_memory, caller);
        assert_ne!(on_disk, caller);
    }

    #[tokio::test]
    async fn a_read_that_panics_is_a_worker_error_and_the_connection_still_serves() {
        let db = Db::open_in_memory().unwrap();

        let panicked = db
            .read(|_| -> Result<(), StoreError> { panic!("boom") })
            .await;
        let after: i64 = db
            .read(|conn| Ok(conn.query_row("SELECT 2", [], |r| r.get(0))?))
            .await
            .unwrap();

        assert!(matches!(panicked, Err(StoreError::Worker)), "{panicked:?}");
        assert_eq!(after, 2);
    }

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }

    fn tables(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_database_with_legacy_records_upgrades_and_keeps_the_network_records() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 3).unwrap();
        conn.execute_batch(
            "INSERT INTO medications VALUES ('med_a', 'A', '1 mg', 'tablet', NULL, 0);
             INSERT INTO pharmacies VALUES ('phr_a', 'P', NULL, '1 St', NULL, 'C', 'OR', '97214', 0);
             INSERT INTO patients (id, organization_id, first_name, last_name, date_of_birth, sex, created_at)
                 VALUES ('pat_a', 'org_maple', 'F', 'L', '1980-01-01', 'FEMALE', 'now');
             INSERT INTO prescriptions (id, organization_id, patient_id, state, treatment,
                     dispense_as_written, dispense_quantity, dispense_unit, fills_allowed,
                     days_supply, instructions, created_at)
                 VALUES ('rx_a', 'org_maple', 'pat_a', 'DRAFT', '{}', 0, 1, 'tablet', 0, 1, 'i', 'now');
             INSERT INTO orders (id, organization_id, patient_id, state, created_at)
                 VALUES ('ord_a', 'org_maple', 'pat_a', 'DRAFT', 'now');
             INSERT INTO fills (id, order_id, prescription_id, state) VALUES ('fil_a', 'ord_a', 'rx_a', 'NEW');
             INSERT INTO network_patients (id, organization_id, doc) VALUES ('pat_n', 'org_maple', '{}');",
        )
        .unwrap();

        migrations().to_latest(&mut conn).unwrap();

        let tables = tables(&conn);
        for legacy in [
            "medications",
            "pharmacies",
            "patients",
            "prescriptions",
            "orders",
            "fills",
        ] {
            assert!(
                !tables.iter().any(|t| t == legacy),
                "{legacy} is still there"
            );
        }
        let kept: String = conn
            .query_row("SELECT id FROM network_patients", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, "pat_n");
    }
}
