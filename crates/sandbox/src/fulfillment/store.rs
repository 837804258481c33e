//! The simulated pharmacy's SQL (`fulfillment_orders`, migration 0007), and the one
//! count it reads from the Network API's tables: how many sent orders hold a
//! prescription (its fills in use). Only reads and writes; the rules live in
//! `steps.rs` and `hooks.rs`.

use rusqlite::{Connection, OptionalExtension as _, params};

use super::stage::Stage;
use crate::store::StoreError;

/// A sent order the simulated pharmacy is working on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    pub order_id: String,
    pub organization: String,
    pub stage: Stage,
    /// When the last step was taken (simulated clock, Unix ms).
    pub since_ms: i64,
}

fn tracked(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, String, i64)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

fn read(raw: (String, String, String, i64)) -> Result<Tracked, StoreError> {
    let (order_id, organization, stage, since_ms) = raw;
    let stage = Stage::parse(&stage)
        .ok_or_else(|| StoreError::Document(format!("unknown fulfillment stage `{stage}`")))?;
    Ok(Tracked {
        order_id,
        organization,
        stage,
        since_ms,
    })
}

/// Starts (or restarts) tracking an order at `stage`.
pub fn track(
    conn: &Connection,
    order_id: &str,
    organization: &str,
    stage: Stage,
    since_ms: i64,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO fulfillment_orders (order_id, organization_id, stage, since_ms)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(order_id) DO UPDATE SET stage = excluded.stage, since_ms = excluded.since_ms",
    )?
    .execute(params![order_id, organization, stage.as_str(), since_ms])?;
    Ok(())
}

pub fn get(conn: &Connection, order_id: &str) -> Result<Option<Tracked>, StoreError> {
    conn.prepare_cached(
        "SELECT order_id, organization_id, stage, since_ms FROM fulfillment_orders
         WHERE order_id = ?1",
    )?
    .query_row(params![order_id], tracked)
    .optional()?
    .map(read)
    .transpose()
}

/// The order whose next step fell due first, if one is due at `now_ms`.
pub fn next_due(
    conn: &Connection,
    step_ms: i64,
    now_ms: i64,
) -> Result<Option<Tracked>, StoreError> {
    conn.prepare_cached(
        "SELECT order_id, organization_id, stage, since_ms FROM fulfillment_orders
         WHERE stage NOT IN ('HALTED', 'COMPLETED', 'CANCELED') AND since_ms <= ?1 - ?2
         ORDER BY since_ms, rowid LIMIT 1",
    )?
    .query_row(params![now_ms, step_ms], tracked)
    .optional()?
    .map(read)
    .transpose()
}

/// When the earliest next step falls due, if any order is in progress.
pub fn next_due_ms(conn: &Connection, step_ms: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT MIN(since_ms) + ?1 FROM fulfillment_orders
             WHERE stage NOT IN ('HALTED', 'COMPLETED', 'CANCELED')",
        )?
        .query_row(params![step_ms], |row| row.get::<_, Option<i64>>(0))?)
}

/// How many sent (`SUBMITTED`) orders hold `prescription_id`: its fills in use.
pub fn fills_in_use(conn: &Connection, prescription_id: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT COUNT(*) FROM network_order_items i JOIN network_orders o ON o.id = i.order_id
             WHERE i.prescription_id = ?1 AND o.state = 'SUBMITTED'",
        )?
        .query_row(params![prescription_id], |row| row.get(0))?)
}
