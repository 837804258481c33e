//! Cursor pagination of the list queries: `first` (default 25, at most 100; more
//! is refused with `INVALID_INPUT`, never silently clamped) and `after` (an opaque
//! cursor taken from `pageInfo.endCursor`).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::errors::{ApiError, Invalid};
use crate::store::clinical::Page;

/// Page size when `first` is not given.
pub const DEFAULT_FIRST: i32 = 25;
/// Largest accepted `first`.
pub const MAX_FIRST: i32 = 100;

const CURSOR_PREFIX: &str = "seq:";

/// The opaque cursor of the record with this `seq`.
pub fn cursor(seq: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{seq}"))
}

fn decode(cursor: &str) -> Option<i64> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.strip_prefix(CURSOR_PREFIX)?.parse().ok()
}

/// Checks `first` alone (lists without cursors: medications, pharmacies).
pub fn limit(first: Option<i32>) -> Result<usize, ApiError> {
    let first = first.unwrap_or(DEFAULT_FIRST);
    if !(0..=MAX_FIRST).contains(&first) {
        return Err(ApiError::Invalid(Invalid::input(
            "first",
            format!("first must be between 0 and {MAX_FIRST}"),
        )));
    }
    // In 0..=100, so the conversion cannot fail.
    Ok(usize::try_from(first).unwrap_or(0))
}

/// Checks `after` and `first` and turns them into a store page.
pub fn page(after: Option<&str>, first: Option<i32>) -> Result<Page, ApiError> {
    let limit = limit(first)?;
    let after = match after {
        None => None,
        Some(c) => Some(decode(c).ok_or_else(|| {
            ApiError::Invalid(Invalid::input(
                "after",
                "after is not a cursor returned by this API",
            ))
        })?),
    };
    Ok(Page { after, limit })
}

/// Complexity of a list field: `first` (default 25, capped at 100 for the
/// estimate) times the cost of one item, plus one.
pub fn complexity(first: Option<i32>, child_complexity: usize) -> usize {
    let n = usize::try_from(first.unwrap_or(DEFAULT_FIRST).clamp(1, MAX_FIRST)).unwrap_or(1);
    n.saturating_mul(child_complexity).saturating_add(1)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn cursors_round_trip() {
        assert_eq!(decode(&cursor(42)), Some(42));
        assert_eq!(decode("bm9wZQ"), None);
        assert_eq!(decode("!!"), None);
    }

    #[test]
    fn first_defaults_to_25_and_stops_at_100() {
        assert_eq!(limit(None).unwrap(), 25);
        assert_eq!(limit(Some(100)).unwrap(), 100);
        assert_eq!(limit(Some(0)).unwrap(), 0);
        assert!(limit(Some(101)).is_err());
        assert!(limit(Some(-1)).is_err());
    }
}
