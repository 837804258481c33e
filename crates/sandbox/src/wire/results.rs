//! What the three upserts answer: the result unions (`PatientResult`,
//! `PrescriptionResult`, `OrderResult`), their payloads with the applied and
//! unapplied changes, and the `ChangeSet` interface every payload implements.
//! The records themselves live in their own files; nothing below uses these.

// async-graphql's `#[graphql(field(name = …, ty = …))]` lists repeat `ty =` by design.
#![allow(clippy::duplicated_attributes)]

use async_graphql::{Interface, SimpleObject, Union};

use super::change::Change;
use super::errors::{UnauthorizedError, UpstreamServiceError};
use super::order::{AmbiguousOrderMatch, Order};
use super::patient::{AmbiguousPatientMatch, PatientRecordResult};
use super::prescription::{AmbiguousPrescriptionMatch, Prescription};

#[derive(Debug, Clone, Union)]
pub enum PatientResult {
    PatientPayload(Box<PatientPayload>),
    AmbiguousPatientMatch(AmbiguousPatientMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
}

#[derive(Debug, Clone, Union)]
pub enum PrescriptionResult {
    PrescriptionPayload(Box<PrescriptionPayload>),
    AmbiguousPrescriptionMatch(AmbiguousPrescriptionMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
}

#[derive(Debug, Clone, Union)]
pub enum OrderResult {
    OrderPayload(Box<OrderPayload>),
    AmbiguousOrderMatch(AmbiguousOrderMatch),
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
}

/// What happened to each input of a call.
#[derive(Debug, Clone, Interface)]
#[graphql(
    field(name = "applied_changes", ty = "&Vec<Change>"),
    field(name = "unapplied_changes", ty = "&Vec<Change>")
)]
pub enum ChangeSet {
    PatientPayload(Box<PatientPayload>),
    PrescriptionPayload(Box<PrescriptionPayload>),
    OrderPayload(Box<OrderPayload>),
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PatientPayload {
    pub patient: Option<PatientRecordResult>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct PrescriptionPayload {
    pub prescription: Option<Prescription>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}

#[derive(Debug, Clone, SimpleObject)]
pub struct OrderPayload {
    pub order: Option<Order>,
    pub applied_changes: Vec<Change>,
    pub unapplied_changes: Vec<Change>,
}
