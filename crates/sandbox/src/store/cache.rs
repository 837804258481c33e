//! The stored documents that Gets have read (patients, prescriptions, orders),
//! kept for the next Get of the same record: a hit spends no SQLite statement,
//! no JSON decoding and, on disk, no read transaction. Only a [`super::Read`]
//! (a Get's one read) uses it; a write's transaction never does, and answers are
//! not kept here (they depend on the clock and the caller), only stored state.
//!
//! Staleness is ruled out by a generation: every use of the writing connection
//! ends by bumping it ([`Bump`], in `Db::call` and `Db::write`, also
//! when the closure failed or panicked), before the write's answer can leave. A
//! read loads the generation before its snapshot begins, keeps what it reads
//! under that generation, and is served an entry only if it was kept under the
//! generation the read loaded. So a Get that starts after a write has answered
//! never sees a document read before that write. It assumes the sandbox is the
//! only writer of its database (true of `--data`: nothing else writes there
//! while it runs).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::records::{OrderDoc, PatientDoc, PrescriptionDoc};

/// Entries a shelf holds before it is emptied to start again: far more than the
/// records a clinic's Gets return to within a few seconds, and a bound on the
/// memory (a few MiB at most) whatever a caller asks for.
pub(super) const CAPACITY: usize = 1024;

/// The generation and the three shelves.
#[derive(Default)]
pub(super) struct Cache {
    /// How many uses of the writing connection have ended.
    written: AtomicU64,
    patients: Shelf<PatientDoc>,
    prescriptions: Shelf<PrescriptionDoc>,
    orders: Shelf<OrderDoc>,
}

impl Cache {
    /// The generation now: loaded by a read before its snapshot begins.
    pub(super) fn generation(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }
}

/// Bumps the generation when dropped — what reads kept before is not served
/// again: held across a use of the writing connection, so that a failing or
/// panicking closure bumps it too.
pub(super) struct Bump<'c>(pub(super) &'c Cache);

impl Drop for Bump<'_> {
    fn drop(&mut self) {
        self.0.written.fetch_add(1, Ordering::SeqCst);
    }
}

/// A kind of document kept in the cache.
pub(super) trait Kept: Sized {
    fn shelf(cache: &Cache) -> &Shelf<Self>;
}

impl Kept for PatientDoc {
    fn shelf(cache: &Cache) -> &Shelf<Self> {
        &cache.patients
    }
}

impl Kept for PrescriptionDoc {
    fn shelf(cache: &Cache) -> &Shelf<Self> {
        &cache.prescriptions
    }
}

impl Kept for OrderDoc {
    fn shelf(cache: &Cache) -> &Shelf<Self> {
        &cache.orders
    }
}

/// One kind's documents by id (ids are unique across organizations; the
/// organization is checked on every hit all the same).
pub(super) struct Shelf<T> {
    entries: Mutex<HashMap<String, Entry<T>, foldhash::fast::RandomState>>,
}

impl<T> Default for Shelf<T> {
    fn default() -> Self {
        Self {
            entries: Mutex::default(),
        }
    }
}

struct Entry<T> {
    generation: u64,
    org: Box<str>,
    doc: Arc<T>,
}

impl<T> Shelf<T> {
    /// The document kept for `id` of `org` under `generation`, if any.
    pub(super) fn get(&self, generation: u64, org: &str, id: &str) -> Option<Arc<T>> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get(id)?;
        (entry.generation == generation && *entry.org == *org).then(|| Arc::clone(&entry.doc))
    }

    /// Keeps `doc` as read under `generation`, unless a later read kept one.
    pub(super) fn put(&self, generation: u64, org: &str, id: &str, doc: Arc<T>) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(id) {
            Some(kept) if kept.generation > generation => return,
            Some(_) => {}
            None if entries.len() >= CAPACITY => entries.clear(),
            None => {}
        }
        entries.insert(
            id.to_owned(),
            Entry {
                generation,
                org: org.into(),
                doc,
            },
        );
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(shelf: &Shelf<u32>, generation: u64, org: &str, id: &str) -> Option<u32> {
        shelf.get(generation, org, id).map(|doc| *doc)
    }

    #[test]
    fn an_entry_is_served_under_the_generation_it_was_read_in() {
        let shelf = Shelf::default();

        shelf.put(3, "org_a", "pat_1", Arc::new(7));

        assert_eq!(kept(&shelf, 3, "org_a", "pat_1"), Some(7));
    }

    #[test]
    fn an_entry_of_an_earlier_generation_is_not_served() {
        let shelf = Shelf::default();

        shelf.put(3, "org_a", "pat_1", Arc::new(7));

        assert_eq!(kept(&shelf, 4, "org_a", "pat_1"), None);
    }

    #[test]
    fn an_entry_is_not_served_to_another_organization() {
        let shelf = Shelf::default();

        shelf.put(3, "org_a", "pat_1", Arc::new(7));

        assert_eq!(kept(&shelf, 3, "org_b", "pat_1"), None);
    }

    #[test]
    fn a_read_of_an_earlier_generation_does_not_replace_a_later_one() {
        let shelf = Shelf::default();
        shelf.put(4, "org_a", "pat_1", Arc::new(8));

        shelf.put(3, "org_a", "pat_1", Arc::new(7));

        assert_eq!(kept(&shelf, 4, "org_a", "pat_1"), Some(8));
    }

    #[test]
    fn a_shelf_holds_a_bounded_number_of_entries() {
        let shelf = Shelf::default();

        for n in 0..3 * CAPACITY {
            shelf.put(1, "org_a", &format!("pat_{n}"), Arc::new(0));
        }

        assert!(shelf.len() <= CAPACITY, "{} entries", shelf.len());
        assert_eq!(
            kept(&shelf, 1, "org_a", &format!("pat_{}", 3 * CAPACITY - 1)),
            Some(0)
        );
    }

    #[test]
    fn a_write_that_panics_still_bumps_the_generation() {
        let cache = Cache::default();

        let panicked = std::panic::catch_unwind(|| {
            let _bump = Bump(&cache);
            panic!("a closure failed mid-way");
        });

        assert!(panicked.is_err());
        assert_eq!(cache.generation(), 1);
    }
}
