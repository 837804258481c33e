//! The Network API at `POST /graphql`: the real network's schema (`ping` and the
//! three upserts `patient`, `prescription`, `order`), served by async-graphql.
//!
//! A request goes: bearer token verified and body read (`crate::graphql`) → the
//! mutation's permission checked from the
//! input's shape alone ([`access`]) → the call run in one SQLite transaction
//! ([`Call`]: [`patient`], [`prescription`], [`order`], with [`clinical`] patches,
//! [`screening`] and [`present`]) → a storage fault answered as
//! `UpstreamServiceError`. [`sdl`] is the schema exported to
//! `crates/sandbox/schema.graphql`. The rules are written down in
//! `docs/network-api.md`.

pub mod access;
pub mod changes;
pub mod clinical;
pub mod order;
pub mod patient;
pub mod prescription;
pub mod present;
pub mod screening;
pub mod seed;
mod strict;
pub mod types;
pub mod validate;

use std::sync::{Arc, LazyLock};

use async_graphql::{Context, EmptySubscription, Object, Schema};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use rusqlite::Connection;
use tracing::Instrument as _;

use self::types::{
    ChangeSet, OperationError, OrderInput, OrderResult, PatientInput, PatientResult,
    PrescriptionInput, PrescriptionResult, RequestMetadata, UpstreamServiceError,
};
use crate::catalog::Catalog;
use crate::graphql::{self, Caller};
use crate::state::AppState;
use crate::store::{Db, StoreError};

/// What one call runs with, inside its transaction.
#[derive(Debug)]
pub struct Call<'a> {
    pub conn: &'a Connection,
    pub catalog: &'a Catalog,
    /// The organization of the token: every record read or written is its own.
    pub org: &'a str,
    /// The user id of a user token (`None` for machine tokens).
    pub user: Option<&'a str>,
}

pub type NetworkSchema = Schema<Query, Mutation, EmptySubscription>;

static SCHEMA: LazyLock<NetworkSchema> = LazyLock::new(|| {
    Schema::build(Query, Mutation, EmptySubscription)
        .register_output_type::<ChangeSet>()
        .register_output_type::<OperationError>()
        .register_output_type::<types::CatalogEntityKind>()
        .limit_depth(graphql::MAX_DEPTH)
        .limit_complexity(graphql::MAX_COMPLEXITY)
        .limit_recursive_depth(64)
        .limit_directives(16)
        .finish()
});

/// The schema in GraphQL SDL: what `crates/sandbox/schema.graphql` holds.
pub fn sdl() -> String {
    SCHEMA.sdl()
}

pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/graphql", post(graphql))
}

async fn graphql(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (claims, request) = match graphql::read_request(&state, &headers, body) {
        Ok(parts) => parts,
        Err(response) => return *response,
    };
    if let Some(refusal) = forbidden_text(&request) {
        return graphql::respond(async_graphql::Response::from_errors(vec![refusal]));
    }
    if let Some(problem) = strict::problem(&request.query) {
        let error = async_graphql::ServerError::new(problem, None);
        return graphql::respond(async_graphql::Response::from_errors(vec![error]));
    }
    let request = request
        .data(state.db.clone())
        .data(Arc::clone(&state.catalog))
        .data(Caller { claims });
    graphql::respond(SCHEMA.execute(request).await)
}

#[derive(Debug)]
pub struct Query;

/// A request whose variables or document hold a control or direction-override
/// character, refused whole with the path of the first one (`INVALID_INPUT`).
fn forbidden_text(request: &async_graphql::Request) -> Option<async_graphql::ServerError> {
    use async_graphql::ErrorExtensions as _;
    let variables = serde_json::to_value(&request.variables).unwrap_or_default();
    let found = validate::forbidden_text(&variables, "variables").or_else(|| {
        request
            .query
            .chars()
            .find(|c| validate::is_forbidden_char(*c) && *c != '\r')
            .map(|c| ("the document".to_owned(), c))
    })?;
    let (field, c) = found;
    let message = format!(
        "{field} holds the character U+{:04X}: control and text-direction characters are not allowed in any field",
        u32::from(c)
    );
    let error = async_graphql::Error::new(message).extend_with(|_, ext| {
        ext.set("code", graphql::codes::INVALID_INPUT);
        ext.set("field", field.clone());
    });
    Some(error.into_server_error(async_graphql::Pos::default()))
}

#[Object]
impl Query {
    /// Health check: touches no records; answers "pong" to any valid token.
    async fn ping(&self) -> Option<String> {
        Some("pong".to_owned())
    }
}

#[derive(Debug)]
pub struct Mutation;

#[Object]
impl Mutation {
    /// Get `{ id }`, Sync (matching) or Update `{ id, … }` a patient.
    async fn patient(
        &self,
        ctx: &Context<'_>,
        patient: PatientInput,
        metadata: RequestMetadata,
    ) -> async_graphql::Result<PatientResult> {
        let (caller, db, catalog) = parts(ctx)?;
        if let Some(refusal) = access::patient(caller, &patient) {
            return Ok(traced_refusal(
                "patient",
                &metadata,
                PatientResult::UnauthorizedError(refusal),
            ));
        }
        let result = run(db, catalog, caller, "patient", &metadata, move |call| {
            self::patient::run(call, patient)
        })
        .await;
        Ok(result.unwrap_or_else(PatientResult::UpstreamServiceError))
    }

    /// Get, look up a drug, draft, Update or Sign a prescription.
    async fn prescription(
        &self,
        ctx: &Context<'_>,
        prescription: PrescriptionInput,
        metadata: RequestMetadata,
    ) -> async_graphql::Result<PrescriptionResult> {
        let (caller, db, catalog) = parts(ctx)?;
        if let Some(refusal) = access::prescription(caller, &prescription) {
            return Ok(traced_refusal(
                "prescription",
                &metadata,
                PrescriptionResult::UnauthorizedError(refusal),
            ));
        }
        let result = run(
            db,
            catalog,
            caller,
            "prescription",
            &metadata,
            move |call| self::prescription::run(call, prescription),
        )
        .await;
        Ok(result.unwrap_or_else(PrescriptionResult::UpstreamServiceError))
    }

    /// Get, Sync, Update, Send or Cancel an order.
    async fn order(
        &self,
        ctx: &Context<'_>,
        order: OrderInput,
        metadata: RequestMetadata,
    ) -> async_graphql::Result<OrderResult> {
        let (caller, db, catalog) = parts(ctx)?;
        if let Some(refusal) = access::order(caller, &order) {
            return Ok(traced_refusal(
                "order",
                &metadata,
                OrderResult::UnauthorizedError(refusal),
            ));
        }
        let result = run(db, catalog, caller, "order", &metadata, move |call| {
            self::order::run(call, order)
        })
        .await;
        Ok(result.unwrap_or_else(OrderResult::UpstreamServiceError))
    }
}

fn parts<'a>(ctx: &Context<'a>) -> async_graphql::Result<(&'a Caller, Db, Arc<Catalog>)> {
    let caller = ctx.data::<Caller>()?;
    let db = ctx.data::<Db>()?.clone();
    let catalog = Arc::clone(ctx.data::<Arc<Catalog>>()?);
    Ok((caller, db, catalog))
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

fn traced_refusal<T>(op: &'static str, metadata: &RequestMetadata, refusal: T) -> T {
    let span = span(op, metadata);
    span.record("outcome", "unauthorized");
    tracing::info!(parent: &span, op, outcome = "unauthorized", "operation refused");
    refusal
}

/// Runs `f` in one transaction on the store, under the operation's span.
async fn run<R, F>(
    db: Db,
    catalog: Arc<Catalog>,
    caller: &Caller,
    op: &'static str,
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
    let result = db
        .call(move |conn| {
            let tx = conn.transaction()?;
            let call = Call {
                conn: &tx,
                catalog: &catalog,
                org: &org,
                user: user.as_deref(),
            };
            let answer = f(&call)?;
            tx.commit()?;
            Ok(answer)
        })
        .instrument(span.clone())
        .await;
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
