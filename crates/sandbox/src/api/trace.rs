//! One `tracing` span per API operation, recording the operation's name and its
//! outcome (`ok` or a refusal/validation code). Nothing else is recorded: no
//! arguments, no record contents, no token.

use std::future::Future;

use tracing::Instrument as _;

use super::errors::ApiError;
use super::types::{OrderResult, PatientResult, PrescriptionResult};

/// The outcome of an operation as it is logged.
pub trait Outcome {
    fn outcome(&self) -> &str;
}

fn union_outcome<'a>(
    unauthorized: Option<&'a super::types::UnauthorizedError>,
    invalid: Option<&'a super::types::ValidationError>,
) -> &'a str {
    match (unauthorized, invalid) {
        (Some(u), _) => &u.code,
        (_, Some(v)) => &v.code,
        _ => "ok",
    }
}

macro_rules! union_outcome {
    ($($t:ident),*) => {$(
        impl Outcome for $t {
            fn outcome(&self) -> &str {
                match self {
                    $t::UnauthorizedError(u) => union_outcome(Some(u), None),
                    $t::ValidationError(v) => union_outcome(None, Some(v)),
                    _ => "ok",
                }
            }
        }
    )*};
}
union_outcome!(PatientResult, PrescriptionResult, OrderResult);

impl<T: Outcome> Outcome for Vec<T> {
    fn outcome(&self) -> &str {
        self.iter()
            .map(Outcome::outcome)
            .find(|o| *o != "ok")
            .unwrap_or("ok")
    }
}

fn error_outcome(e: &ApiError) -> &str {
    match e {
        ApiError::Forbidden(r) => r.code,
        ApiError::Invalid(i) => i.code,
        ApiError::Store(_) | ApiError::Internal(_) => "internal_error",
    }
}

async fn run<T, F>(
    op: &'static str,
    fut: F,
    outcome: impl Fn(&T) -> &str,
) -> async_graphql::Result<T>
where
    F: Future<Output = Result<T, ApiError>>,
{
    let span = tracing::info_span!("api", op, outcome = tracing::field::Empty);
    let result = fut.instrument(span.clone()).await;
    let recorded = match &result {
        Ok(value) => outcome(value),
        Err(e) => error_outcome(e),
    };
    span.record("outcome", recorded);
    tracing::info!(parent: &span, op, outcome = recorded, "operation finished");
    result.map_err(ApiError::into_graphql)
}

/// Runs a query under its span; the outcome is `ok` or the error code.
pub async fn traced<T, F>(op: &'static str, fut: F) -> async_graphql::Result<T>
where
    F: Future<Output = Result<T, ApiError>>,
{
    run(op, fut, |_| "ok").await
}

/// Runs a mutation under its span; the outcome is `ok` or the code of the
/// `UnauthorizedError` / `ValidationError` it answers with.
pub async fn traced_result<T: Outcome, F>(op: &'static str, fut: F) -> async_graphql::Result<T>
where
    F: Future<Output = Result<T, ApiError>>,
{
    run(op, fut, Outcome::outcome).await
}
