//! The Network API's GraphQL types, named and shaped exactly as the real network's
//! schema (`network-api.reference.graphql`): scalars, request metadata, the result
//! unions and errors here; changes, patients, prescriptions and orders in their own
//! files. Only shapes live here (owned data, built by the resolvers); no rules.

// async-graphql's `#[graphql(field(name = …, ty = …))]` lists repeat `ty =` by design.
#![allow(clippy::duplicated_attributes)]

mod change;
mod order;
mod patient;
mod prescription;

use async_graphql::{
    Enum, InputObject, InputValueError, InputValueResult, Interface, Scalar, ScalarType,
    SimpleObject, Union, Value,
};

pub use change::*;
pub use order::*;
pub use patient::*;
pub use prescription::*;

/// `Date`: a calendar date, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date(pub time::Date);

const DATE_FORMAT: &[time::format_description::FormatItem<'static>] =
    time::macros::format_description!("[year]-[month]-[day]");

impl Date {
    pub fn parse(text: &str) -> Option<Self> {
        time::Date::parse(text, DATE_FORMAT).ok().map(Self)
    }

    pub fn to_iso(&self) -> String {
        // A `time::Date` always formats with this description (year in range).
        self.0.format(DATE_FORMAT).unwrap_or_default()
    }
}

#[Scalar(name = "Date")]
impl ScalarType for Date {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => Date::parse(s)
                .ok_or_else(|| InputValueError::custom("a Date is written YYYY-MM-DD")),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.to_iso())
    }
}

/// `DateTime`: an instant, RFC 3339 in UTC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTime(pub String);

#[Scalar(name = "DateTime")]
impl ScalarType for DateTime {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s)
                if time::OffsetDateTime::parse(
                    s,
                    &time::format_description::well_known::Rfc3339,
                )
                .is_ok() =>
            {
                Ok(Self(s.clone()))
            }
            _ => Err(InputValueError::custom("a DateTime is RFC 3339")),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.clone())
    }
}

/// Who sent a request, for the network's records (and the sandbox's logs).
#[derive(Debug, Clone, InputObject)]
pub struct RequestMetadata {
    pub source: RequestSource,
    pub client: Option<String>,
    pub source_version: Option<String>,
    /// A tracing id, not an idempotency key.
    pub request_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum RequestSource {
    DirectApi,
    WebApp,
    EmbeddableComponent,
    McpConnector,
    LlmAgent,
}

/// An error of an operation: a code and a sentence.
#[derive(Debug, Clone, Interface)]
#[graphql(
    field(name = "code", ty = "&String"),
    field(name = "message", ty = "&String")
)]
pub enum OperationError {
    UnauthorizedError(UnauthorizedError),
    UpstreamServiceError(UpstreamServiceError),
}

/// The token lacks a permission: the same answer every time it is asked again.
#[derive(Debug, Clone, PartialEq, Eq, SimpleObject, serde::Serialize)]
pub struct UnauthorizedError {
    pub code: String,
    pub message: String,
    pub required_permission: Option<String>,
}

/// A service of the network failed; `retryable` says whether asking again may help.
#[derive(Debug, Clone, PartialEq, Eq, SimpleObject)]
pub struct UpstreamServiceError {
    pub code: String,
    pub message: String,
    pub service: String,
    pub retryable: bool,
}

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

/// A patient as read back after a call, or why it could not be read.
#[derive(Debug, Clone, Union)]
pub enum PatientRecordResult {
    Patient(Box<Patient>),
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
