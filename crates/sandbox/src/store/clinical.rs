//! Shared pieces of the clinical tables: ids, timestamps, JSON columns, pages;
//! reading one record of an organization by `id` or `externalId` ([`Record`],
//! [`find`], and [`existing`], which makes creates idempotent) or a page of them
//! ([`page_of`]); and the read-only views of the auth tables (users,
//! organizations) the API needs.
//!
//! Everything here runs inside a [`super::Db::call`] closure.

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension as _, Row, params};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::StoreError;

/// A postal address as stored (JSON column) and returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address {
    pub street1: String,
    pub street2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
}

/// Where a list starts and how many items it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Return records created after the one with this `seq`.
    pub after: Option<i64>,
    pub limit: usize,
}

/// One page of records, each with its `seq` (the cursor).
#[derive(Debug, Clone)]
pub struct Paged<T> {
    pub items: Vec<(i64, T)>,
    pub has_next: bool,
}

impl<T> Paged<T> {
    /// Builds a page from `limit + 1` fetched rows.
    pub(crate) fn from_overfetch(mut items: Vec<(i64, T)>, limit: usize) -> Self {
        let has_next = items.len() > limit;
        items.truncate(limit);
        Self { items, has_next }
    }
}

/// Whether a create made a new record or found one with the same `externalId`.
#[derive(Debug, Clone)]
pub enum Created<T> {
    New(T),
    Existing(T),
}

impl<T> Created<T> {
    pub fn into_inner(self) -> T {
        match self {
            Self::New(t) | Self::Existing(t) => t,
        }
    }
}

/// A record of a clinical table: where it is stored and how its row reads.
pub(crate) trait Record: Sized {
    /// The table; its rows have `seq`, `organization_id`, `id` and `external_id`.
    const TABLE: &'static str;
    /// The columns [`Record::from_row`] reads, `seq` first.
    const COLUMNS: &'static str;
    /// The record of a row of [`Record::COLUMNS`], with its `seq`.
    fn from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Self)>;
    /// Adds what lives in other tables (an order's fills); nothing by default.
    fn complete(_conn: &Connection, record: Self) -> Result<Self, StoreError> {
        Ok(record)
    }
}

/// The column [`find`] looks a record up by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Id,
    ExternalId,
}

/// The record of `org` whose `key` column holds `value`.
pub(crate) fn find<T: Record>(
    conn: &Connection,
    org: &str,
    key: Key,
    value: &str,
) -> Result<Option<T>, StoreError> {
    let column = match key {
        Key::Id => "id",
        Key::ExternalId => "external_id",
    };
    let found = conn
        .query_row(
            &format!(
                "SELECT {} FROM {} WHERE organization_id = ?1 AND {column} = ?2",
                T::COLUMNS,
                T::TABLE
            ),
            [org, value],
            T::from_row,
        )
        .optional()?;
    found.map(|(_, r)| T::complete(conn, r)).transpose()
}

/// The record a create returns instead of inserting one: the record of `org`
/// already holding `external_id` (none without an `external_id`). Called inside
/// the create's transaction, so two concurrent creates make one record.
pub(crate) fn existing<T: Record>(
    conn: &Connection,
    org: &str,
    external_id: Option<&str>,
) -> Result<Option<T>, StoreError> {
    match external_id {
        Some(external_id) => find(conn, org, Key::ExternalId, external_id),
        None => Ok(None),
    }
}

/// The record `id` that the caller's open transaction has just written (so it is
/// there; its absence is a store failure).
pub(crate) fn written<T: Record>(conn: &Connection, org: &str, id: &str) -> Result<T, StoreError> {
    find(conn, org, Key::Id, id)?.ok_or(StoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows))
}

/// One page of `org`'s records, oldest first, narrowed by `narrow`: SQL over the
/// parameters `?3` and `?4`, bound to `values` (a `None` value narrows nothing when
/// the SQL says `?3 IS NULL OR …`).
pub(crate) fn page_of<T: Record>(
    conn: &Connection,
    org: &str,
    page: Page,
    narrow: &str,
    values: [&Option<String>; 2],
) -> Result<Paged<T>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {} FROM {}
         WHERE organization_id = ?1 AND (?2 IS NULL OR seq > ?2) AND ({narrow})
         ORDER BY seq LIMIT ?5",
        T::COLUMNS,
        T::TABLE
    ))?;
    let rows = stmt.query_map(
        params![org, page.after, values[0], values[1], page.limit as i64 + 1],
        T::from_row,
    )?;
    let Paged { items, has_next } =
        Paged::from_overfetch(rows.collect::<Result<Vec<_>, _>>()?, page.limit);
    let items = items
        .into_iter()
        .map(|(seq, r)| T::complete(conn, r).map(|r| (seq, r)))
        .collect::<Result<_, _>>()?;
    Ok(Paged { items, has_next })
}

/// A fresh record id: `prefix_` followed by 32 hex digits.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

/// Now, as RFC 3339 UTC with second precision.
pub(crate) fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let now = now.replace_nanosecond(0).unwrap_or(now);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

/// Reads a nullable JSON column.
pub(crate) fn json_opt<T: DeserializeOwned>(
    row: &Row<'_>,
    idx: usize,
) -> rusqlite::Result<Option<T>> {
    let text: Option<String> = row.get(idx)?;
    text.map(|t| {
        serde_json::from_str(&t)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e)))
    })
    .transpose()
}

/// Reads a non-null JSON column.
pub(crate) fn json<T: DeserializeOwned>(row: &Row<'_>, idx: usize) -> rusqlite::Result<T> {
    let text: String = row.get(idx)?;
    serde_json::from_str(&text)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e)))
}

/// Serializes a value for a JSON column.
pub(crate) fn to_json<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Sqlite(rusqlite::Error::ToSqlConversionFailure(Box::new(e))))
}

/// A user as the API shows it (`me`, the signer of a prescription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserProfile {
    pub id: String,
    pub name: String,
    pub email: String,
    pub role: String,
    pub npi: Option<String>,
}

/// Reads one user by id (the `sub` of a user token).
pub fn user_profile(conn: &Connection, user_id: &str) -> Result<Option<UserProfile>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id, name, email, role, npi FROM users WHERE id = ?1",
            [user_id],
            |row| {
                Ok(UserProfile {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    email: row.get(2)?,
                    role: row.get(3)?,
                    npi: row.get(4)?,
                })
            },
        )
        .optional()?)
}

/// The name of an organization, if it exists.
pub fn organization_name(conn: &Connection, org_id: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT name FROM organizations WHERE id = ?1",
            [org_id],
            |row| row.get(0),
        )
        .optional()?)
}
