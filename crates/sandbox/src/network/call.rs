//! What one Network API call runs with and how it runs: [`Given`] (what the
//! endpoint gives a request's resolvers), [`Call`] (the
//! connection, the catalog, the caller's organization and user), [`run`] (a
//! write in one SQLite transaction, a Get as one read of the store, under one
//! span — a Get's on the request's own thread when the connection is free, any
//! other call's too in memory, on a blocking thread on disk ([`Work`]) — a
//! storage fault answered as `UpstreamServiceError`), [`traced_refusal`] (a
//! permission refusal logged under the same span), [`injected_fault`] (the link
//! layer's `UpstreamServiceError`, answered without touching the store). The
//! resolvers in `schema.rs` use it; the record modules take a [`Call`].

use std::sync::Arc;

use async_graphql::Context;
use rusqlite::Connection;
use tracing::Instrument as _;

use super::call_shape::Reads;
use super::types::{RequestMetadata, UpstreamServiceError};
use crate::catalog::Catalog;
use crate::graphql::Caller;
use crate::link::UpstreamFault;
use crate::store::records::{OrderDoc, PatientDoc, PrescriptionDoc};
use crate::store::{Db, Documents, StoreError};

/// What the endpoint gives a request's resolvers, as one datum of the
/// request: async-graphql keeps each datum boxed in a map made per request,
/// and four of them cost every Get a box each and one more growth of the map
/// (callgrind: some 0.9k instructions of a Get's 254k).
#[derive(Debug)]
pub(crate) struct Given {
    pub caller: Caller,
    pub db: Db,
    pub catalog: Arc<Catalog>,
    /// The `UpstreamServiceError` the link layer chose for this request.
    pub fault: Option<UpstreamFault>,
}

/// What one call runs with: inside its transaction, or its one read.
pub struct Call<'a> {
    /// The write's transaction, or the Get's read (which may be served from
    /// the store's cache).
    store: &'a dyn Documents,
    pub catalog: &'a Catalog,
    /// The organization of the token: every record read or written is its own.
    pub org: &'a str,
    /// The user id of a user token (`None` for machine tokens).
    pub user: Option<&'a str>,
}

impl<'a> Call<'a> {
    /// A call inside the write transaction open on `conn`.
    pub fn in_transaction(
        conn: &'a Connection,
        catalog: &'a Catalog,
        org: &'a str,
        user: Option<&'a str>,
    ) -> Self {
        Self {
            store: conn,
            catalog,
            org,
            user,
        }
    }

    /// The call's connection (a Get's is taken at this first use).
    pub fn conn(&self) -> Result<&Connection, StoreError> {
        self.store.conn()
    }

    /// Patient `id` of the caller's organization.
    pub fn patient(&self, id: &str) -> Result<Option<Arc<PatientDoc>>, StoreError> {
        self.store.patient(self.org, id)
    }

    /// Prescription `id` of the caller's organization.
    pub fn prescription(&self, id: &str) -> Result<Option<Arc<PrescriptionDoc>>, StoreError> {
        self.store.prescription(self.org, id)
    }

    /// Order `id` of the caller's organization.
    pub fn order(&self, id: &str) -> Result<Option<Arc<OrderDoc>>, StoreError> {
        self.store.order(self.org, id)
    }
}

impl std::fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("org", &self.org)
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

pub(super) fn parts<'a>(
    ctx: &Context<'a>,
) -> async_graphql::Result<(&'a Caller, Db, Arc<Catalog>)> {
    let given = ctx.data::<Given>()?;
    Ok((&given.caller, given.db.clone(), Arc::clone(&given.catalog)))
}

fn span(op: &'static str, metadata: &RequestMetadata) -> tracing::Span {
    tracing::info_span!(
        "network",
        op,
        source = ?metadata.source,
        client = metadata.client.as_deref().unwrap_or("-"),
        request_id = metadata.request_id.as_deref().unwrap_or("-"),
        outcome = tracing::field::Empty,
    )
}

pub(super) fn traced_refusal<T>(op: &'static str, metadata: &RequestMetadata, refusal: T) -> T {
    let span = span(op, metadata);
    span.record("outcome", "unauthorized");
    tracing::info!(parent: &span, op, outcome = "unauthorized", "operation refused");
    refusal
}

/// The `UpstreamServiceError` the link layer chose for this request, if it
/// did: answered before the store is touched, so nothing is saved.
pub(super) fn injected_fault(
    ctx: &Context<'_>,
    op: &'static str,
    metadata: &RequestMetadata,
) -> Option<UpstreamServiceError> {
    let fault = ctx.data_opt::<Given>()?.fault.as_ref()?;
    fault.honour();
    let span = span(op, metadata);
    span.record("outcome", "link_upstream");
    tracing::info!(parent: &span, op, outcome = "link_upstream", "operation failed by the link layer");
    Some(UpstreamServiceError {
        code: "UPSTREAM_UNAVAILABLE".to_owned(),
        message: "A service of the network did not answer: nothing was saved; try again shortly"
            .to_owned(),
        service: "network".to_owned(),
        retryable: true,
    })
}

/// How a call uses the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Work {
    /// A Get by id: one short read, run where the request is when the
    /// connection is free (`Db::read`).
    Read,
    /// Anything that may write (`Db::write`): where the request is when the
    /// database is in memory and the connection is free, else on a blocking
    /// thread.
    Write,
}

impl Work {
    /// `Read` for a Get (`call_shape::Reads`), else `Write`.
    pub(super) fn of(call: &impl Reads) -> Self {
        if call.only_reads() {
            Self::Read
        } else {
            Self::Write
        }
    }
}

/// Runs `f` on the store, under the operation's span: a write in one
/// transaction, a Get as one read (`Db::read`).
pub(super) async fn run<R, F>(
    db: Db,
    catalog: Arc<Catalog>,
    caller: &Caller,
    (op, work): (&'static str, Work),
    metadata: &RequestMetadata,
    f: F,
) -> Result<R, UpstreamServiceError>
where
    F: FnOnce(&Call<'_>) -> Result<R, StoreError> + Send + 'static,
    R: Send + 'static,
{
    let org = caller.org().to_owned();
    let user = caller.user_id().map(str::to_owned);
    let span = span(op, metadata);
    let call = move |store: &dyn Documents| {
        f(&Call {
            store,
            catalog: &catalog,
            org: &org,
            user: user.as_deref(),
        })
    };
    let result = match work {
        // `Db::read` makes the Get's statements one read on its own.
        Work::Read => db.read(|read| call(read)).instrument(span.clone()).await,
        // `Db::write` makes the call one atomic write.
        Work::Write => {
            db.write(move |conn: &Connection| call(conn))
                .instrument(span.clone())
                .await
        }
    };
    let outcome = match &result {
        Ok(_) => "ok",
        Err(e) => storage_fault_label(e),
    };
    span.record("outcome", outcome);
    tracing::info!(parent: &span, op, outcome, "operation finished");
    result.map_err(|e| upstream(&e))
}

fn storage_fault_label(e: &StoreError) -> &'static str {
    match e {
        StoreError::Sqlite(_) => "storage_sqlite",
        StoreError::Migration(_) => "storage_migration",
        StoreError::Worker => "storage_worker",
        StoreError::Document(_) => "storage_document",
        StoreError::File(_) => "storage_file",
        StoreError::Thread(_) => "storage_thread",
    }
}

/// A storage fault as the network reports one. Busy, locked and full are worth
/// retrying; anything else is not.
fn upstream(e: &StoreError) -> UpstreamServiceError {
    use rusqlite::ErrorCode;
    let code = match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
        _ => None,
    };
    let retryable = matches!(
        code,
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked | ErrorCode::DiskFull)
    ) || matches!(e, StoreError::Worker);
    tracing::error!(fault = storage_fault_label(e), ?code, "storage fault");
    UpstreamServiceError {
        code: if retryable {
            "STORAGE_UNAVAILABLE"
        } else {
            "STORAGE_FAILED"
        }
        .to_owned(),
        message: if retryable {
            "The network's storage is busy or full: nothing was saved; try again shortly".to_owned()
        } else {
            "The network's storage failed: nothing was saved".to_owned()
        },
        service: "storage".to_owned(),
        retryable,
    }
}
