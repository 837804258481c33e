//! The Network API's schema: [`Query`] (`ping`) and [`Mutation`] (the upserts
//! `patient`, `prescription`, `order`: the input classified once as its call by
//! `call_shape.rs`, the permission checked from that call by `access.rs`, read or
//! write chosen by it, then a link-layer fault answered if one was chosen, then the
//! call run by `call.rs` in the record's module), built
//! once with the limits of `crate::graphql` — twice in fact: [`SCHEMA`] with all of
//! async-graphql's validation rules, [`CHECKED`] for the requests `strict.rs` has
//! already checked whole. [`sdl`] is what
//! `crates/sandbox/schema.graphql` holds.

use std::sync::LazyLock;

use async_graphql::{Context, EmptySubscription, Object, Schema, SchemaBuilder, ValidationMode};

use super::call::{Work, injected_fault, parts, run, traced_refusal};
use super::call_shape::{OrderCall, PatientCall, PrescriptionCall};
use super::measured::MeasuredOnce;
use super::types::{
    ChangeSet, OperationError, OrderInput, OrderResult, PatientInput, PatientResult,
    PrescriptionInput, PrescriptionResult, RequestMetadata,
};
use super::{access, types};
use crate::graphql;

pub type NetworkSchema = Schema<Query, Mutation, EmptySubscription>;

/// The schema, validating every request with all of async-graphql's rules.
pub(super) static SCHEMA: LazyLock<NetworkSchema> = LazyLock::new(|| {
    build(ValidationMode::Strict)
        .limit_directives(MAX_DIRECTIVES)
        .finish()
});

/// The same schema for requests `strict.rs` has checked whole (the document
/// validated by apollo-compiler, the variables coerced against it): of
/// async-graphql's validation it keeps only what strict validation does not
/// do — the limits (depth, complexity) and its own checks of uploads and
/// fragment cycles — and runs it once per document (`measured.rs`).
///
/// It has no limit of directives per field, which async-graphql checks by
/// walking the document again on every request (some 1.2k instructions of
/// a Get): a document strict validation accepted carries on a field at most
/// one of each directive the schema allows on fields, and the served schema
/// allows fewer than [`MAX_DIRECTIVES`], none of them repeatable (a test
/// below holds it to that), so no request this schema runs is over the limit.
pub(super) static CHECKED: LazyLock<NetworkSchema> =
    LazyLock::new(|| build(ValidationMode::Fast).extension(MeasuredOnce).finish());

/// The most directives a field may carry in a request [`SCHEMA`] runs.
const MAX_DIRECTIVES: usize = 16;

fn build(validation: ValidationMode) -> SchemaBuilder<Query, Mutation, EmptySubscription> {
    Schema::build(Query, Mutation, EmptySubscription)
        .register_output_type::<ChangeSet>()
        .register_output_type::<OperationError>()
        .register_output_type::<types::CatalogEntityKind>()
        .validation_mode(validation)
        .limit_depth(graphql::MAX_DEPTH)
        .limit_complexity(graphql::MAX_COMPLEXITY)
        .limit_recursive_depth(64)
}

/// The schema in GraphQL SDL: what `crates/sandbox/schema.graphql` holds.
pub fn sdl() -> String {
    SCHEMA.sdl()
}

#[derive(Debug)]
pub struct Query;

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
        let patient = PatientCall::from(patient);
        if let Some(refusal) = access::patient(caller, &patient) {
            return Ok(traced_refusal(
                "patient",
                &metadata,
                PatientResult::UnauthorizedError(refusal),
            ));
        }
        if let Some(fault) = injected_fault(ctx, "patient", &metadata) {
            return Ok(PatientResult::UpstreamServiceError(fault));
        }
        let op = ("patient", Work::of(&patient));
        let result = run(db, catalog, caller, op, &metadata, move |call| {
            super::patient::run(call, patient)
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
        let prescription = PrescriptionCall::from(prescription);
        if let Some(refusal) = access::prescription(caller, &prescription) {
            return Ok(traced_refusal(
                "prescription",
                &metadata,
                PrescriptionResult::UnauthorizedError(refusal),
            ));
        }
        if let Some(fault) = injected_fault(ctx, "prescription", &metadata) {
            return Ok(PrescriptionResult::UpstreamServiceError(fault));
        }
        let op = ("prescription", Work::of(&prescription));
        let result = run(db, catalog, caller, op, &metadata, move |call| {
            super::prescription::run(call, prescription)
        })
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
        let order = OrderCall::from(order);
        if let Some(refusal) = access::order(caller, &order) {
            return Ok(traced_refusal(
                "order",
                &metadata,
                OrderResult::UnauthorizedError(refusal),
            ));
        }
        if let Some(fault) = injected_fault(ctx, "order", &metadata) {
            return Ok(OrderResult::UpstreamServiceError(fault));
        }
        let op = ("order", Work::of(&order));
        let result = run(db, catalog, caller, op, &metadata, move |call| {
            super::order::run(call, order)
        })
        .await;
        Ok(result.unwrap_or_else(OrderResult::UpstreamServiceError))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use apollo_compiler::ast::DirectiveLocation;

    use super::*;

    #[test]
    fn strict_validation_keeps_every_field_under_the_directive_limit() {
        let schema = apollo_compiler::Schema::parse_and_validate(sdl(), "schema.graphql").unwrap();

        let on_fields: Vec<_> = schema
            .directive_definitions
            .values()
            .filter(|d| d.locations.contains(&DirectiveLocation::Field))
            .collect();

        assert!(on_fields.iter().all(|d| !d.repeatable), "{on_fields:?}");
        assert!(on_fields.len() < MAX_DIRECTIVES, "{on_fields:?}");
    }
}
