//! The simulated clock of what happens after Send: real time plus an offset that
//! the **test clock** moves forward at once (`crate::after_send::TestClock`), kept in SQLite
//! (`sim_clock`) so a restart goes on from where it was. The simulated pharmacy
//! (`crate::fulfillment`) and webhook retries (`crate::webhooks`) run on it, and
//! events and exceptions are stamped with it; the Network API's own timestamps and
//! the `X-Photon-Timestamp` of a webhook request stay on real time.
//!
//! The clock never goes back: an advance is a positive duration.

use rusqlite::{Connection, params};

use crate::store::{Db, StoreError};

/// Milliseconds since the Unix epoch, real time.
pub fn real_now_ms() -> i64 {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX)
}

/// The simulated now, in Unix milliseconds: real time plus the stored offset.
pub fn now_ms(conn: &Connection) -> Result<i64, StoreError> {
    Ok(real_now_ms().saturating_add(offset_ms(conn)?))
}

fn offset_ms(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT offset_ms FROM sim_clock WHERE id = 1")?
        .query_row([], |row| row.get(0))?)
}

/// `ms` as RFC 3339 in UTC with milliseconds: `2026-10-08T01:00:00.000Z`, the
/// form of a webhook's `time`.
pub fn rfc3339_ms(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_default()
}

/// What the test clock says: the simulated now and how far ahead of real time it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockReading {
    /// Unix milliseconds on the simulated clock.
    pub now_ms: i64,
    /// How far the clock has been advanced past real time, in milliseconds.
    pub offset_ms: i64,
}

impl ClockReading {
    /// The simulated now as RFC 3339.
    pub fn now(&self) -> String {
        rfc3339_ms(self.now_ms)
    }
}

/// Reads the clock.
pub(crate) async fn read(db: &Db) -> Result<ClockReading, StoreError> {
    db.call(|conn| {
        let offset_ms = offset_ms(conn)?;
        Ok(ClockReading {
            now_ms: real_now_ms().saturating_add(offset_ms),
            offset_ms,
        })
    })
    .await
}

/// Moves the clock forward (durably) so that it is at least `target_offset_ms`
/// ahead of real time, and answers the new reading. An offset below the current
/// one changes nothing: the clock never goes back.
pub(crate) async fn raise_offset_to(
    db: &Db,
    target_offset_ms: i64,
) -> Result<ClockReading, StoreError> {
    db.call(move |conn| {
        let current = offset_ms(conn)?;
        let offset_ms = current.max(target_offset_ms);
        if offset_ms != current {
            conn.prepare_cached("UPDATE sim_clock SET offset_ms = ?1 WHERE id = 1")?
                .execute(params![offset_ms])?;
        }
        Ok(ClockReading {
            now_ms: real_now_ms().saturating_add(offset_ms),
            offset_ms,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::rfc3339_ms;

    #[test]
    fn times_are_written_in_utc_with_milliseconds() {
        assert_eq!(rfc3339_ms(1_791_421_200_000), "2026-10-08T01:00:00.000Z");
        assert_eq!(rfc3339_ms(1_791_421_200_042), "2026-10-08T01:00:00.042Z");
    }
}
