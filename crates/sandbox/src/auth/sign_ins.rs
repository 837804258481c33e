//! How a sign-in ends, and how every request learns that it did.
//!
//! A sign-in (one authorization code exchanged, see migration 0007) has an id,
//! the `sid` claim of its access and ID tokens and the id of its refresh-token
//! family. [`end`] ends it in the database (the family revoked, `ended_at` set)
//! and in [`EndedSignIns`], the in-memory set of ended sign-ins that
//! `bearer.rs` consults on every request: a lookup in a hash set under a read
//! lock, so the check costs nothing next to verifying a signature and holds
//! whether or not the token's verification was cached.
//!
//! The set is loaded from the database at start and written by [`end`] inside
//! the same database closure as the database change, before it commits: from the
//! moment a revocation or sign-out is answered, the sign-in's access tokens are
//! refused. (Should the transaction fail after that, the sign-in is refused here
//! until a restart though not ended in the database: the safe side.) Entries are
//! dropped once no token of theirs can be valid (`forget_after`).
//!
//! The SQL lives in `db.rs`; the endpoints that end sign-ins in `token.rs`
//! (revocation, replays) and `end_session.rs` (RP-initiated logout).

use std::collections::HashMap;
use std::sync::RwLock;

use rusqlite::Connection;

use super::common::now;
use super::db;
use crate::store::{Db, StoreError};

/// The sign-ins that ended while some token of theirs may still be valid.
#[derive(Debug, Default)]
pub struct EndedSignIns {
    /// sid → `forget_after` (Unix seconds).
    ended: RwLock<HashMap<String, i64>>,
}

impl EndedSignIns {
    /// The ended sign-ins recorded in `db`.
    pub async fn load(db: &Db) -> Result<Self, StoreError> {
        let at = now();
        let rows = db
            .call(move |conn| Ok(db::ended_sign_ins(conn, at)?))
            .await?;
        Ok(Self {
            ended: RwLock::new(rows.into_iter().collect()),
        })
    }

    /// True when sign-in `sid` has ended: its tokens are refused.
    pub fn contains(&self, sid: &str) -> bool {
        self.ended
            .read()
            // A writer that panicked left a map that is still whole.
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(sid)
    }

    fn insert(&self, sid: &str, forget_after: i64, at: i64) {
        let mut ended = self
            .ended
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        ended.retain(|_, forget| *forget > at);
        ended.insert(sid.to_owned(), forget_after);
    }
}

/// Ends sign-in `sid`: its refresh tokens are revoked and its access tokens
/// refused from now on. Ending an ended sign-in changes nothing.
pub(super) fn end(
    conn: &Connection,
    ended: &EndedSignIns,
    sid: &str,
    at: i64,
) -> rusqlite::Result<()> {
    if let Some(forget_after) = db::end_sign_in(conn, sid, at)? {
        ended.insert(sid, forget_after, at);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_sign_in_is_known_until_it_can_be_forgotten() {
        let ended = EndedSignIns::default();

        ended.insert("old", 100, 50);
        ended.insert("new", 300, 200);

        assert!(ended.contains("new"));
        assert!(!ended.contains("old"), "pruned once past forget_after");
        assert!(!ended.contains("other"));
    }
}
