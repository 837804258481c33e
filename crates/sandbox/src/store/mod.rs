//! SQLite storage: the connection, its embedded migrations and the Network API's
//! records ([`records`]).
//!
//! The database is opened once per sandbox (a file under `--data` in WAL mode, or
//! `:memory:`). All access goes through [`Db::call`], which runs a closure on a
//! blocking thread with the one writing connection locked, or [`Db::read`], a
//! Get's short read on the calling thread through a [`Read`] ([`read`]), which
//! takes a connection only if the documents it asks for are not in the
//! [`cache`] — in memory the one connection (a read there waits on no disk,
//! and waiting for the lock costs less than a hop to another thread and back),
//! on disk one of a few read-only connections, which WAL lets read while the
//! writer writes — or [`Db::write`], a Network API call that may write: on the
//! calling thread in memory, as [`Db::call`] on disk. Every closure given the
//! writing connection is a serialized unit, and a closure that opens a
//! transaction makes its state change atomic; when it ends, the cache's
//! generation moves on, so no Get afterwards is served what was read before.
//! The records' SQL lives in [`records`]; the authorization server's own tables
//! are read and written by `auth/db.rs` and `fixture/apply.rs`, through the same
//! [`Db::call`].

mod cache;
mod read;
pub mod records;
mod writer;

pub use read::{Documents, Read};

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use cache::{Bump, Cache};
use writer::Writer;

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
    /// The thread that writes could not be started.
    #[error("cannot start the database's writing thread: {0}")]
    Thread(std::io::Error),
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
    /// The connection that writes (and, in memory, the only one).
    conn: Arc<Mutex<Connection>>,
    /// On disk, read-only connections for [`Db::read`]; none in memory (each
    /// `:memory:` connection is a database of its own).
    readers: Arc<Readers>,
    /// `:memory:`: nothing it does waits on a disk.
    in_memory: bool,
    /// The documents Gets have read, and the generation that retires them.
    cache: Arc<Cache>,
    /// The queue to the thread that runs [`Db::call`]s and, on disk,
    /// [`Db::write`]s (`writer.rs`).
    writer: Arc<Writer>,
}

/// The read-only connections and where the next read starts looking for a free one.
struct Readers {
    connections: Vec<Mutex<Connection>>,
    next: AtomicUsize,
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
        // Opened after the migrations: they read the schema as it now is.
        let readers = (0..READERS)
            .map(|_| {
                let reader = Connection::open_with_flags(
                    &path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                reader.busy_timeout(std::time::Duration::from_secs(5))?;
                Ok(Mutex::new(reader))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Self::wrap(conn, readers, false)
    }

    /// Opens a fresh in-memory database and migrates it.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        Self::prepare(&mut conn)?;
        Self::wrap(conn, Vec::new(), true)
    }

    fn prepare(conn: &mut Connection) -> Result<(), StoreError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations().to_latest(conn)?;
        Ok(())
    }

    fn wrap(
        conn: Connection,
        readers: Vec<Mutex<Connection>>,
        in_memory: bool,
    ) -> Result<Self, StoreError> {
        let conn = Arc::new(Mutex::new(conn));
        let cache = Arc::<Cache>::default();
        let writer = Writer::start(Arc::clone(&conn), Arc::clone(&cache))?;
        Ok(Self {
            conn,
            readers: Arc::new(Readers {
                connections: readers,
                next: AtomicUsize::new(0),
            }),
            in_memory,
            cache,
            writer: Arc::new(writer),
        })
    }

    /// Runs `f` with exclusive use of the connection on the writing thread
    /// (`writer.rs`), alone: `f` manages its own transaction, if any. For
    /// work that may wait on the disk or take long (the authorization
    /// server's writes, scans): the async runtime's threads go on serving
    /// meanwhile. The cache's generation moves on before the answer leaves;
    /// a panic in `f` is [`StoreError::Worker`].
    pub async fn call<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        self.writer.alone(f).await
    }
}

/// Read-only connections of an on-disk database: two request threads reading
/// at once (the runtime has one per core on the machines the sandbox runs on)
/// rarely find both busy.
const READERS: usize = 4;

impl Db {
    /// Runs a short read (a Get by id: a few indexed rows) on the calling
    /// thread: handing it to a blocking thread and waking the caller again
    /// costs more than the read. `f` is given a [`Read`], which takes a
    /// connection at its first statement — in memory the one connection,
    /// waiting for it (a closure holds it for a call's few statements; no disk
    /// is waited on); on disk a free read-only connection, or waiting for one,
    /// and a write in progress does not hold it up (WAL) — and serves the
    /// documents the [`cache`] kept from earlier Gets without one. `f` must not
    /// write: on disk its connection refuses writes. A panic in `f` is
    /// [`StoreError::Worker`], as it is in [`Db::call`].
    ///
    /// Its statements read one state of the database: in memory the lock
    /// alone makes them one (every writer waits for it), so no `BEGIN` and
    /// `COMMIT` are spent on them (3 % of a Network API Get's CPU); on disk
    /// they run in one read transaction, as a commit may land between them.
    pub async fn read<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&Read<'_>) -> Result<R, StoreError>,
    {
        let read = Read::new(self);
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&read)));
        let answer = ran.unwrap_or(Err(StoreError::Worker))?;
        read.finish()?;
        Ok(answer)
    }

    /// The connection a [`Read`] reads with: the one connection in memory; on
    /// disk a free read-only one, else the next one's turn.
    fn connection_to_read(&self) -> MutexGuard<'_, Connection> {
        let connections = &self.readers.connections;
        if connections.is_empty() {
            // As in `call`: SQLite rolled back what a panicking closure left open.
            return self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        }
        let start = self.readers.next.fetch_add(1, Ordering::Relaxed);
        (0..connections.len())
            .map(|i| &connections[(start + i) % connections.len()])
            .find_map(|reader| match reader.try_lock() {
                Ok(guard) => Some(guard),
                Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            })
            .unwrap_or_else(|| {
                connections[start % connections.len()]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
            })
    }

    /// One Network API call that may write, atomically: its changes are
    /// committed if `f` returns `Ok` and rolled back if it fails or panics
    /// ([`StoreError::Worker`]), and its answer leaves after the commit.
    /// On the calling thread in its own transaction when the database is in
    /// memory (as [`Db::read`] there: a write waits on no disk, and the hop
    /// to another thread cost a signature more than its write); on disk on
    /// the writing thread, in a savepoint of a group commit with the writes
    /// queued beside it (`writer.rs`), as a commit may wait for the disk.
    /// `f` must not begin or end a transaction of its own.
    pub async fn write<F, R>(&self, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&Connection) -> Result<R, StoreError> + Send + 'static,
        R: Send + 'static,
    {
        if self.in_memory {
            let _bump = Bump(&self.cache);
            Self::run_here(&self.conn, |conn| {
                let tx = Tx::begin(conn)?;
                let answer = f(&tx)?;
                tx.commit()?;
                Ok(answer)
            })
        } else {
            self.writer.atomic(f).await
        }
    }

    /// `f` run on this thread with `conn` locked, waiting for it if needed.
    fn run_here<F, R>(conn: &Mutex<Connection>, f: F) -> Result<R, StoreError>
    where
        F: FnOnce(&Connection) -> Result<R, StoreError>,
    {
        // A poisoned lock means a closure panicked mid-way; SQLite rolled back
        // any open transaction when its guard dropped (`Tx`'s drop, here),
        // so the connection is still consistent and safe to reuse.
        let guard = conn.lock().unwrap_or_else(PoisonError::into_inner);
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&guard)));
        ran.unwrap_or(Err(StoreError::Worker))
    }
}

/// A transaction whose `BEGIN` and `COMMIT` statements are prepared once per
/// connection (rusqlite's `Transaction` parses them again on every call,
/// a few percent of a Network API Get). Rolled back when dropped without
/// [`Tx::commit`] — an error's early return or a panic.
#[derive(Debug)]
pub struct Tx<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> Tx<'c> {
    pub fn begin(conn: &'c Connection) -> Result<Self, StoreError> {
        conn.prepare_cached("BEGIN")?.execute([])?;
        Ok(Self { conn, open: true })
    }

    /// Commits; on failure the transaction is rolled back (on drop).
    pub fn commit(mut self) -> Result<(), StoreError> {
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.open = false;
        Ok(())
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to tell anyone if it fails: the connection is then
            // outside any transaction already.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
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
            .read(|read| {
                let one: i64 = read.conn()?.query_row("SELECT 1", [], |r| r.get(0))?;
                Ok((std::thread::current().id(), one))
            })
            .await
            .unwrap();

        assert_eq!(ran_on, caller);
        assert_eq!(one, 1);
    }

    /// Holds `db`'s writing connection on the writing thread until the
    /// returned sender sends (or drops); returns once it is held.
    pub(super) async fn hold_writer(
        db: &Db,
    ) -> (
        std::sync::mpsc::Sender<()>,
        tokio::task::JoinHandle<Result<(), StoreError>>,
    ) {
        let held = std::sync::Arc::new(std::sync::Barrier::new(2));
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = {
            let (db, held) = (db.clone(), std::sync::Arc::clone(&held));
            tokio::spawn(async move {
                db.call(move |_| {
                    held.wait();
                    let _ = released.recv();
                    Ok(())
                })
                .await
            })
        };
        tokio::task::spawn_blocking(move || held.wait())
            .await
            .unwrap();
        (release, holder)
    }

    #[tokio::test]
    async fn a_read_in_memory_waits_for_the_connection_on_its_own_thread() {
        let db = Db::open_in_memory().unwrap();
        let (release, holder) = hold_writer(&db).await;
        let caller = std::thread::current().id();
        // Released from another thread: the read blocks this one meanwhile.
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            release.send(()).unwrap();
        });

        let ran_on = db
            .read(|read| {
                read.conn()?;
                Ok(std::thread::current().id())
            })
            .await;

        assert_eq!(ran_on.unwrap(), caller);
        releaser.join().unwrap();
        holder.await.unwrap().unwrap();
    }

    /// An on-disk database (in a directory dropped with the first value),
    /// after `setup` ran on its writing connection.
    pub(super) async fn on_disk_after(
        setup: impl FnOnce(&mut Connection) -> Result<(), StoreError> + Send + 'static,
    ) -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_file(dir.path()).unwrap();
        db.call(setup).await.unwrap();
        (dir, db)
    }

    /// An on-disk database holding table `t` with one row, `n = 7`.
    async fn on_disk_with_one_row() -> (tempfile::TempDir, Db) {
        on_disk_after(|conn| {
            Ok(conn.execute_batch("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (7)")?)
        })
        .await
    }

    #[tokio::test]
    async fn a_read_on_disk_is_not_held_up_by_a_write_in_progress() {
        let (_dir, db) = on_disk_with_one_row().await;
        let (release, holder) = hold_writer(&db).await;
        let caller = std::thread::current().id();

        let (ran_on, n) = db
            .read(|read| {
                let n: i64 = read
                    .conn()?
                    .query_row("SELECT n FROM t", [], |r| r.get(0))?;
                Ok((std::thread::current().id(), n))
            })
            .await
            .unwrap();

        assert_eq!((ran_on, n), (caller, 7));
        release.send(()).unwrap();
        holder.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_read_on_disk_sees_one_state_while_a_write_commits_between_its_statements() {
        let (dir, db) = on_disk_with_one_row().await;
        let path = dir.path().join("sandbox.db");
        let count = |conn: &Connection| -> Result<i64, StoreError> {
            Ok(conn.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))?)
        };

        let (before, after) = db
            .read(move |read| {
                let conn = read.conn()?;
                let before = count(conn)?;
                // Another connection commits a row between the two statements.
                std::thread::spawn(move || {
                    let writer = Connection::open(path).unwrap();
                    writer.execute("INSERT INTO t VALUES (8)", []).unwrap();
                })
                .join()
                .unwrap();
                Ok((before, count(conn)?))
            })
            .await
            .unwrap();

        assert_eq!((before, after), (1, 1));
        assert_eq!(db.read(move |read| count(read.conn()?)).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_read_in_memory_spends_no_transaction_of_its_own() {
        let db = Db::open_in_memory().unwrap();

        let outside_any_transaction = db.read(|read| Ok(read.conn()?.is_autocommit())).await;

        assert!(outside_any_transaction.unwrap());
    }

    #[tokio::test]
    async fn a_read_on_disk_waits_for_a_reader_when_all_are_busy() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_file(dir.path()).unwrap();
        let held: Vec<_> = db
            .readers
            .connections
            .iter()
            .map(|reader| reader.lock().unwrap())
            .collect();
        let reading = {
            let db = db.clone();
            std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap()
                    .block_on(db.read(|read| {
                        Ok(read
                            .conn()?
                            .query_row("SELECT 3", [], |r| r.get::<_, i64>(0))?)
                    }))
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!reading.is_finished(), "read while every reader was held");

        drop(held);

        assert_eq!(reading.join().unwrap().unwrap(), 3);
    }

    #[tokio::test]
    async fn a_read_on_disk_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_file(dir.path()).unwrap();

        let wrote = db
            .read(|read| {
                Ok(read
                    .conn()?
                    .execute_batch("CREATE TABLE sneaked (n INTEGER)")?)
            })
            .await;

        assert!(matches!(wrote, Err(StoreError::Sqlite(_))), "{wrote:?}");
    }

    #[tokio::test]
    async fn a_write_runs_on_the_calling_thread_in_memory_and_on_the_writing_thread_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let (memory, disk) = (
            Db::open_in_memory().unwrap(),
            Db::open_file(dir.path()).unwrap(),
        );
        let caller = std::thread::current().id();
        let write = |conn: &Connection| {
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
            .read(|read| Ok(read.conn()?.query_row("SELECT 2", [], |r| r.get(0))?))
            .await
            .unwrap();

        assert!(matches!(panicked, Err(StoreError::Worker)), "{panicked:?}");
        assert_eq!(after, 2);
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_committed_tx_keeps_its_writes() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER)").unwrap();

        let tx = Tx::begin(&conn).unwrap();
        tx.execute("INSERT INTO t VALUES (1)", []).unwrap();
        tx.commit().unwrap();

        assert_eq!(count(&conn), 1);
        assert!(conn.is_autocommit());
    }

    #[test]
    fn a_tx_dropped_uncommitted_is_rolled_back_and_the_next_one_begins() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER)").unwrap();

        {
            let tx = Tx::begin(&conn).unwrap();
            tx.execute("INSERT INTO t VALUES (1)", []).unwrap();
        }
        let again = Tx::begin(&conn).unwrap();

        assert_eq!(count(&again), 0);
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
