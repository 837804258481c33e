//! The errors an operation answers with: `UnauthorizedError` (a permission the
//! token lacks), `UpstreamServiceError` (a service of the network failed), and the
//! `OperationError` interface both implement.

// async-graphql's `#[graphql(field(name = …, ty = …))]` lists repeat `ty =` by design.
#![allow(clippy::duplicated_attributes)]

use async_graphql::{Interface, SimpleObject};

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
