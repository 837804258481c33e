//! New drafts sent and not yet answered: the key a new prescription draft was
//! sent under, kept per patient and drug (or template) from just before the
//! call until an answer comes back. When the app dies in between — killed,
//! crashed, the machine off — the form and its key in the UI are gone, and
//! the network may have saved the draft; the next new draft of that drug for
//! that patient is sent under the kept key instead of a fresh one, so the
//! network answers the draft it saved (continued with what the form says now)
//! instead of making a second. Ids and a random key only: no name, no
//! instructions, nothing typed. An entry older than [`MAX_AGE_SECS`] is
//! forgotten (the user has moved on; a key is never kept for good). This file
//! is the table's SQL, on the connection `index.rs` holds; `Index` calls it.

use rusqlite::{Connection, OptionalExtension as _, params};

/// Created with the index (a table of its own: the records' table is untouched).
pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS pending_drafts (
    environment TEXT NOT NULL,
    organization TEXT NOT NULL,
    patient_id TEXT NOT NULL,
    drug TEXT NOT NULL,
    key TEXT NOT NULL,
    made INTEGER NOT NULL,
    PRIMARY KEY (environment, organization, patient_id, drug)
)";

/// How long a kept key is offered again: a working day.
pub const MAX_AGE_SECS: i64 = 24 * 60 * 60;

/// The key to send a new draft of `drug` for `patient_id` under: the one kept
/// from an unanswered earlier attempt, or else `offered`, kept from now on.
/// One transaction: two saves at once agree on one key.
pub(super) fn key_for(
    conn: &mut Connection,
    (environment, organization): (&str, &str),
    patient_id: &str,
    drug: &str,
    offered: &str,
    now: i64,
) -> rusqlite::Result<String> {
    let tx = conn.transaction()?;
    tx.execute(
        "DELETE FROM pending_drafts WHERE made < ?1",
        params![now - MAX_AGE_SECS],
    )?;
    let kept: Option<String> = tx
        .query_row(
            "SELECT key FROM pending_drafts
             WHERE environment = ?1 AND organization = ?2 AND patient_id = ?3 AND drug = ?4",
            params![environment, organization, patient_id, drug],
            |r| r.get(0),
        )
        .optional()?;
    let key = match kept {
        Some(key) => key,
        None => {
            tx.execute(
                "INSERT INTO pending_drafts (environment, organization, patient_id, drug, key, made)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![environment, organization, patient_id, drug, offered, now],
            )?;
            offered.to_owned()
        }
    };
    tx.commit()?;
    Ok(key)
}

/// The network answered the draft sent under `key`: nothing is pending any more.
pub(super) fn settle(
    conn: &Connection,
    (environment, organization): (&str, &str),
    key: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM pending_drafts WHERE environment = ?1 AND organization = ?2 AND key = ?3",
        params![environment, organization, key],
    )?;
    Ok(())
}
