//! The index's schema, versioned: numbered migrations applied in order when
//! the index is opened (`rusqlite_migration`, which counts them in SQLite's
//! `PRAGMA user_version`). What each table holds is in its own file; this one
//! only says in which order the tables came, and refuses a file from a newer
//! Rx Desk.
//!
//! Release 0.1.0 (`xtask/previous-release.toml`) created its two tables with
//! `CREATE TABLE IF NOT EXISTS` and wrote no version (0): migrations 1 and 2
//! are those tables, written so that they take such a file over unchanged;
//! each later migration adds what a later release added. Never edit one that
//! has shipped: a file remembers how many it has run; add the next.
//!
//! A file whose version is beyond the last migration here was written by a
//! newer Rx Desk (installed back over it): it is refused — not migrated, not
//! changed — with [`IndexError::Newer`], and the app keeps its lists in memory
//! for that run and says so.

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations, SchemaVersion};

use super::{IndexError, pending, templates};

/// The migrations, oldest first; the index's version is how many have run.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        // 1 and 2 — release 0.1.0: the records, the templates drafted from here.
        M::up(super::SCHEMA),
        M::up(templates::SCHEMA),
        // 3 — 0.2.0: new drafts sent and not yet answered (`index/pending.rs`).
        M::up(pending::SCHEMA),
    ])
}

/// The version this build writes: the number of migrations.
pub(super) const LATEST: usize = 3;

/// Brings the index on `conn` to [`LATEST`], in one transaction; refuses a
/// file of a newer version, leaving it untouched.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), IndexError> {
    let migrations = migrations();
    if let SchemaVersion::Outside(found) = migrations.current_version(conn)? {
        return Err(IndexError::Newer {
            found: found.get(),
            known: LATEST,
        });
    }
    migrations.to_latest(conn)?;
    Ok(())
}

impl From<rusqlite_migration::Error> for IndexError {
    fn from(e: rusqlite_migration::Error) -> Self {
        match e {
            rusqlite_migration::Error::RusqliteError { err, .. } => Self::from(err),
            other => Self::Open(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_migrations_and_latest_agree() {
        migrations().validate().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let version: usize = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, LATEST);
    }
}
