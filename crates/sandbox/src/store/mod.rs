//! SQLite storage: the connection, its embedded migrations and the tables'
//! access functions, one file per group of tables.
//!
//! The database is opened once per sandbox (a file under `--data` in WAL mode, or
//! `:memory:`). All access goes through [`Db::call`], which runs a closure on a
//! blocking thread with the one connection locked: every closure is therefore a
//! serialized unit, and a closure that opens a transaction makes its state change
//! atomic. The clinical tables' SQL lives here, one file per table group; the
//! authorization server's own tables are read and written by `auth/db.rs` and
//! `fixture/apply.rs`, through the same [`Db::call`].

pub mod catalog;
pub mod clinical;
pub mod orders;
pub mod patients;
pub mod prescriptions;
pub mod records;

use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

/// The embedded schema migrations, applied in order at start-up.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_auth.sql")),
        M::up(include_str!("../../migrations/0002_clinical.sql")),
        M::up(include_str!("../../migrations/0003_network.sql")),
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
        Ok(Self::wrap(conn))
    }

    /// Opens a fresh in-memory database and migrates it.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        Self::prepare(&mut conn)?;
        Ok(Self::wrap(conn))
    }

    fn prepare(conn: &mut Connection) -> Result<(), StoreError> {
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations().to_latest(conn)?;
        Ok(())
    }

    fn wrap(conn: Connection) -> Self {
        Self {
            conn: Arc::new(Mutex::new(conn)),
        }
    }

    /// Runs `f` with exclusive use of the connection on a blocking thread.
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
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }
}
