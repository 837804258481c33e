//! A document's limits measured once: [`MeasuredOnce`], the async-graphql
//! extension of `schema::CHECKED`, answers the validation step of a request
//! strict validation covered whole from its document's cache entry
//! (`strict.rs`) once that document has been measured.
//!
//! For such a request async-graphql's validation (`ValidationMode::Fast`) only
//! measures the document: its depth and complexity against the limits, its
//! fragments for cycles, its uploads. None of that depends on the variables
//! (no field of the schema declares a complexity of its own, so each costs 1)
//! and all of it was the same for the previous request with the same document
//! text: some 22k of the server's 290k instructions per Network API Get went
//! to measuring it again (callgrind). A document over a limit is not remembered: each
//! request with it is measured, and refused, in async-graphql's own words.
//!
//! An extension is async-graphql's only way into its validation step; it also
//! sends every field through the extension's resolve chain (two lookups and a
//! boxed future per field), which costs less than the visit it saves (see
//! `bench/examples/api_calls.rs` for counting it).

use std::sync::{Arc, OnceLock};

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextValidation};
use async_graphql::{ServerError, ValidationResult};

/// The measurement of one document with one operation, shared by every
/// request that sends its text; put in a request's data for [`MeasuredOnce`].
#[derive(Debug, Clone, Default)]
pub struct Measurement(Arc<OnceLock<ValidationResult>>);

impl Measurement {
    /// What the first request within the limits measured, if one has run.
    pub fn known(&self) -> Option<ValidationResult> {
        self.0.get().copied()
    }

    fn remember(&self, measured: ValidationResult) {
        // Two first requests racing measure the same document the same way.
        let _ = self.0.set(measured);
    }
}

/// The extension (see the module doc); the schema makes one per request.
#[derive(Debug, Clone, Copy, Default)]
pub struct MeasuredOnce;

impl ExtensionFactory for MeasuredOnce {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(MeasuredOnce)
    }
}

#[async_trait::async_trait]
impl Extension for MeasuredOnce {
    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        let Some(measurement) = ctx.data_opt::<Measurement>() else {
            return next.run(ctx).await;
        };
        if let Some(known) = measurement.known() {
            return Ok(known);
        }
        let measured = next.run(ctx).await?;
        measurement.remember(measured);
        Ok(measured)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use async_graphql::{EmptyMutation, EmptySubscription, Object, Request, Schema, SimpleObject};

    use super::*;

    #[derive(SimpleObject)]
    struct Inner {
        leaf: i32,
    }

    #[derive(SimpleObject)]
    struct Outer {
        inner: Inner,
    }

    struct Query;

    #[Object]
    impl Query {
        async fn outer(&self) -> Outer {
            Outer {
                inner: Inner { leaf: 1 },
            }
        }
    }

    /// A schema with a depth limit of 2, which `{ outer { inner { leaf } } }`
    /// exceeds and `{ outer { __typename } }` does not.
    fn schema() -> Schema<Query, EmptyMutation, EmptySubscription> {
        Schema::build(Query, EmptyMutation, EmptySubscription)
            .limit_depth(2)
            .extension(MeasuredOnce)
            .finish()
    }

    const SHALLOW: &str = "{ outer { __typename } }";
    const DEEP: &str = "{ outer { inner { leaf } } }";

    async fn run(query: &str, measurement: &Measurement) -> async_graphql::Response {
        schema()
            .execute(Request::new(query).data(measurement.clone()))
            .await
    }

    #[tokio::test]
    async fn a_document_within_the_limits_is_remembered_after_its_first_request() {
        let measurement = Measurement::default();

        let answer = run(SHALLOW, &measurement).await;

        assert!(answer.errors.is_empty(), "{:?}", answer.errors);
        assert_eq!(measurement.known().map(|m| m.depth), Some(1));
    }

    #[tokio::test]
    async fn a_remembered_measurement_answers_the_validation_step() {
        let measurement = Measurement::default();
        run(SHALLOW, &measurement).await;

        // Given another document under the same entry, the validation step is
        // not run again: its depth is never measured, so never refused.
        let answer = run(DEEP, &measurement).await;

        assert!(answer.errors.is_empty(), "{:?}", answer.errors);
    }

    #[tokio::test]
    async fn a_document_over_a_limit_is_refused_every_time_and_not_remembered() {
        let measurement = Measurement::default();

        let first = run(DEEP, &measurement).await;
        let second = run(DEEP, &measurement).await;

        for answer in [first, second] {
            assert_eq!(answer.errors.len(), 1);
            assert!(answer.errors[0].message.contains("nested too deep"));
        }
        assert!(measurement.known().is_none());
    }

    #[tokio::test]
    async fn a_request_without_a_measurement_is_measured_as_usual() {
        let answer = schema().execute(Request::new(DEEP)).await;

        assert!(answer.errors[0].message.contains("nested too deep"));
    }
}
