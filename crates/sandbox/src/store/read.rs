//! [`Read`]: one short read of the store (a Get), given to the closure of
//! [`Db::read`]. It takes a connection only at its first statement — in memory
//! the one connection, on disk a free read-only one, in a read transaction so
//! that its statements see one state — and a Get whose documents are all in the
//! [`cache`](super::cache) takes none. [`Documents`] is what a Network API
//! call reads through: a `Read`, or a write's transaction, which reads straight
//! from its connection and never from the cache. What a read may keep and when
//! it is served again is the cache's business; the SQL is `records`'.

use std::cell::{Cell, OnceCell};
use std::sync::{Arc, MutexGuard};

use rusqlite::Connection;

use super::cache::Kept;
use super::records::{self, OrderDoc, PatientDoc, PrescriptionDoc};
use super::{Db, StoreError};

/// One read: its generation (loaded when it began) and, from its first
/// statement on, its connection. Not shared between threads.
pub struct Read<'d> {
    db: &'d Db,
    generation: u64,
    held: OnceCell<MutexGuard<'d, Connection>>,
    /// On disk: the read transaction begun at the first statement is open.
    open: Cell<bool>,
}

impl std::fmt::Debug for Read<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Read")
            .field("generation", &self.generation)
            .field("connected", &self.held.get().is_some())
            .finish_non_exhaustive()
    }
}

impl<'d> Read<'d> {
    pub(super) fn new(db: &'d Db) -> Self {
        Self {
            db,
            generation: db.cache.generation(),
            held: OnceCell::new(),
            open: Cell::new(false),
        }
    }

    fn kept<T: Kept>(
        &self,
        org: &str,
        id: &str,
        load: fn(&Connection, &str, &str) -> Result<Option<T>, StoreError>,
    ) -> Result<Option<Arc<T>>, StoreError> {
        let shelf = T::shelf(&self.db.cache);
        if let Some(doc) = shelf.get(self.generation, org, id) {
            return Ok(Some(doc));
        }
        let Some(doc) = load(self.conn()?, org, id)? else {
            return Ok(None);
        };
        let doc = Arc::new(doc);
        shelf.put(self.generation, org, id, Arc::clone(&doc));
        Ok(Some(doc))
    }

    /// Ends the read: commits its transaction, if it began one.
    pub(super) fn finish(self) -> Result<(), StoreError> {
        if let Some(conn) = self.held.get()
            && self.open.get()
        {
            conn.prepare_cached("COMMIT")?.execute([])?;
            self.open.set(false);
        }
        Ok(())
    }

    /// Whether the read has taken a connection (tests).
    #[cfg(test)]
    pub(super) fn connected(&self) -> bool {
        self.held.get().is_some()
    }
}

/// What a Network API call reads the store through: a Get's [`Read`], or a
/// write's transaction (its [`Connection`]). A trait object lets a caller
/// hold either without naming a `Read`'s lifetime (it is invariant in it).
pub trait Documents {
    /// The read's connection, taken (and on disk its transaction begun) at the
    /// first call. It must not be written with: on disk it refuses.
    fn conn(&self) -> Result<&Connection, StoreError>;
    /// Patient `id` of `org`, from the cache or the store.
    fn patient(&self, org: &str, id: &str) -> Result<Option<Arc<PatientDoc>>, StoreError>;
    /// Prescription `id` of `org`, from the cache or the store.
    fn prescription(&self, org: &str, id: &str)
    -> Result<Option<Arc<PrescriptionDoc>>, StoreError>;
    /// Order `id` of `org`, from the cache or the store.
    fn order(&self, org: &str, id: &str) -> Result<Option<Arc<OrderDoc>>, StoreError>;
}

impl Documents for Read<'_> {
    fn conn(&self) -> Result<&Connection, StoreError> {
        if let Some(held) = self.held.get() {
            return Ok(held);
        }
        let guard = self.db.connection_to_read();
        if !self.db.in_memory {
            guard.prepare_cached("BEGIN")?.execute([])?;
            self.open.set(true);
        }
        // `held` was empty above and nothing between set it: a `Read` is
        // used by one thread and `connection_to_read` does not call back.
        Ok(self.held.get_or_init(|| guard))
    }

    fn patient(&self, org: &str, id: &str) -> Result<Option<Arc<PatientDoc>>, StoreError> {
        self.kept(org, id, records::patient)
    }

    fn prescription(
        &self,
        org: &str,
        id: &str,
    ) -> Result<Option<Arc<PrescriptionDoc>>, StoreError> {
        self.kept(org, id, records::prescription)
    }

    fn order(&self, org: &str, id: &str) -> Result<Option<Arc<OrderDoc>>, StoreError> {
        self.kept(org, id, records::order)
    }
}

/// A write's transaction reads straight from its connection: it must see its
/// own writes, and what it reads is not committed yet, so it is not kept.
impl Documents for Connection {
    fn conn(&self) -> Result<&Connection, StoreError> {
        Ok(self)
    }

    fn patient(&self, org: &str, id: &str) -> Result<Option<Arc<PatientDoc>>, StoreError> {
        Ok(records::patient(self, org, id)?.map(Arc::new))
    }

    fn prescription(
        &self,
        org: &str,
        id: &str,
    ) -> Result<Option<Arc<PrescriptionDoc>>, StoreError> {
        Ok(records::prescription(self, org, id)?.map(Arc::new))
    }

    fn order(&self, org: &str, id: &str) -> Result<Option<Arc<OrderDoc>>, StoreError> {
        Ok(records::order(self, org, id)?.map(Arc::new))
    }
}

impl Drop for Read<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.held.get()
            && self.open.get()
        {
            // An error's early return or a panic: nothing to tell anyone if the
            // rollback fails, the connection is then outside any transaction.
            let _ = conn.execute_batch("ROLLBACK");
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::tests::on_disk_after;
    use super::*;

    fn patient(first: &str) -> PatientDoc {
        PatientDoc {
            id: "pat_1".to_owned(),
            organization_id: "org_a".to_owned(),
            first: Some(first.to_owned()),
            ..PatientDoc::default()
        }
    }

    /// The first name of patient `pat_1` of `org_a`, as a Get reads it, and
    /// whether the read took a connection.
    async fn get(db: &Db) -> (Option<String>, bool) {
        db.read(|read| {
            let first = read
                .patient("org_a", "pat_1")?
                .and_then(|p| p.first.clone());
            Ok((first, read.connected()))
        })
        .await
        .unwrap()
    }

    /// An on-disk database holding patient `pat_1` of `org_a`, named Ada.
    async fn on_disk_with_ada() -> (tempfile::TempDir, Db) {
        on_disk_after(|conn| records::save_patient(conn, &patient("Ada"))).await
    }

    #[tokio::test]
    async fn a_second_get_of_a_record_takes_no_connection() {
        let (_dir, db) = on_disk_with_ada().await;

        let first = get(&db).await;
        let second = get(&db).await;

        assert_eq!(first, (Some("Ada".to_owned()), true));
        assert_eq!(second, (Some("Ada".to_owned()), false));
    }

    #[tokio::test]
    async fn a_get_after_a_write_on_disk_sees_the_write() {
        let (_dir, db) = on_disk_with_ada().await;
        get(&db).await;

        db.write(|conn| records::save_patient(conn, &patient("Grace")))
            .await
            .unwrap();

        assert_eq!(get(&db).await, (Some("Grace".to_owned()), true));
    }

    #[tokio::test]
    async fn a_get_after_a_write_in_memory_sees_the_write() {
        let db = Db::open_in_memory().unwrap();
        db.write(|conn| records::save_patient(conn, &patient("Ada")))
            .await
            .unwrap();
        get(&db).await;

        db.write(|conn| records::save_patient(conn, &patient("Grace")))
            .await
            .unwrap();

        assert_eq!(get(&db).await.0.as_deref(), Some("Grace"));
    }

    #[tokio::test]
    async fn a_get_after_a_write_that_failed_reads_the_store_again() {
        let (_dir, db) = on_disk_with_ada().await;
        get(&db).await;

        // Saves, then fails before its own transaction could roll it back:
        // what it wrote stays, and a Get must not be served what was kept.
        let failed = db
            .call(|conn| {
                records::save_patient(conn, &patient("Grace"))?;
                Err::<(), _>(StoreError::Worker)
            })
            .await;

        assert!(failed.is_err());
        assert_eq!(get(&db).await, (Some("Grace".to_owned()), true));
    }

    #[tokio::test]
    async fn a_get_of_another_organizations_id_finds_nothing_even_when_kept() {
        let (_dir, db) = on_disk_with_ada().await;
        get(&db).await;

        let other = db
            .read(|read| Ok(read.patient("org_b", "pat_1")?.is_some()))
            .await;

        assert!(!other.unwrap());
    }
}
