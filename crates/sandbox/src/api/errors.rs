//! Who is calling ([`Caller`], taken with the database from the GraphQL context by
//! [`parts`]), the permissions and refusal codes of the API, and the one error
//! type of the resolvers ([`ApiError`]), which becomes a GraphQL error carrying
//! `extensions.code` (and `requiredPermission` / `field` when known).
//!
//! Mutations do not use [`ApiError`] for refusals: they answer with the
//! `UnauthorizedError` / `ValidationError` members of their result unions
//! (see `types.rs`). [`ApiError`] is for queries and for internal failures.

use async_graphql::{Context, ErrorExtensions as _};

use crate::auth::claims::AccessClaims;
use crate::store::{Db, StoreError};

/// The six permissions of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    ReadPatient,
    WritePatient,
    ReadPrescription,
    WritePrescription,
    ReadOrder,
    WriteOrder,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadPatient => "read:patient",
            Self::WritePatient => "write:patient",
            Self::ReadPrescription => "read:prescription",
            Self::WritePrescription => "write:prescription",
            Self::ReadOrder => "read:order",
            Self::WriteOrder => "write:order",
        }
    }
}

/// The verified token of the request, put in the GraphQL context by the handler.
#[derive(Debug, Clone)]
pub struct Caller {
    pub claims: AccessClaims,
}

impl Caller {
    /// The organization every record read or written belongs to.
    pub fn org(&self) -> &str {
        &self.claims.org_id
    }

    pub fn has(&self, permission: Permission) -> bool {
        self.claims.has(permission.as_str())
    }

    pub fn is_machine(&self) -> bool {
        self.claims.is_machine()
    }

    /// The user id of a user token; `None` for machine tokens.
    pub fn user_id(&self) -> Option<&str> {
        (!self.is_machine()).then_some(self.claims.sub.as_str())
    }
}

/// The caller and the database of a resolver, put in the context by the handler.
pub fn parts<'a>(ctx: &Context<'a>) -> Result<(&'a Caller, Db), ApiError> {
    let caller = ctx
        .data::<Caller>()
        .map_err(|_| ApiError::Internal("no caller in context"))?;
    let db = ctx
        .data::<Db>()
        .map_err(|_| ApiError::Internal("no database in context"))?;
    Ok((caller, db.clone()))
}

/// A refusal for lack of permission: the code, the sentence, the permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub permission: Option<Permission>,
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>, permission: Permission) -> Self {
        Self {
            code,
            message: message.into(),
            permission: Some(permission),
        }
    }

    /// "The caller is not authorized to `action`: the token lacks `permission`".
    pub fn lacking(code: &'static str, action: &str, permission: Permission) -> Self {
        Self::new(
            code,
            format!(
                "The caller is not authorized to {action}: the token lacks {}",
                permission.as_str()
            ),
            permission,
        )
    }
}

/// A rejected input: the code, the sentence, the input path of the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub code: &'static str,
    pub message: String,
    pub field: Option<String>,
}

impl Invalid {
    /// `INVALID_INPUT` on `field`.
    pub fn input(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: codes::INVALID_INPUT,
            message: message.into(),
            field: Some(field.into()),
        }
    }

    /// `NOT_FOUND` on `field` (an id that names nothing in the organization).
    pub fn not_found(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: codes::NOT_FOUND,
            message: message.into(),
            field: Some(field.into()),
        }
    }

    pub fn state(code: &'static str, message: impl Into<String>, field: Option<&str>) -> Self {
        Self {
            code,
            message: message.into(),
            field: field.map(str::to_owned),
        }
    }
}

/// Every code the API answers with, in one place.
pub mod codes {
    // Permission refusals (UnauthorizedError in mutations, GraphQL errors in queries).
    pub const PATIENT_READ_UNAUTHORIZED: &str = "PATIENT_READ_UNAUTHORIZED";
    pub const PATIENT_WRITE_UNAUTHORIZED: &str = "PATIENT_WRITE_UNAUTHORIZED";
    pub const PRESCRIPTION_READ_UNAUTHORIZED: &str = "PRESCRIPTION_READ_UNAUTHORIZED";
    pub const PRESCRIPTION_DRAFTING_UNAUTHORIZED: &str = "PRESCRIPTION_DRAFTING_UNAUTHORIZED";
    pub const PRESCRIPTION_SIGNING_UNAUTHORIZED: &str = "PRESCRIPTION_SIGNING_UNAUTHORIZED";
    pub const PRESCRIPTION_CANCELING_UNAUTHORIZED: &str = "PRESCRIPTION_CANCELING_UNAUTHORIZED";
    pub const ORDER_READ_UNAUTHORIZED: &str = "ORDER_READ_UNAUTHORIZED";
    pub const ORDER_DRAFTING_UNAUTHORIZED: &str = "ORDER_DRAFTING_UNAUTHORIZED";
    pub const ORDER_SENDING_UNAUTHORIZED: &str = "ORDER_SENDING_UNAUTHORIZED";
    pub const ORDER_CANCELING_UNAUTHORIZED: &str = "ORDER_CANCELING_UNAUTHORIZED";
    // Validation (ValidationError in mutations; INVALID_INPUT also for query arguments).
    pub const INVALID_INPUT: &str = "INVALID_INPUT";
    pub const NOT_FOUND: &str = "NOT_FOUND";
    pub const PRESCRIPTION_NOT_DRAFT: &str = "PRESCRIPTION_NOT_DRAFT";
    pub const ORDER_NOT_DRAFT: &str = "ORDER_NOT_DRAFT";
    pub const ORDER_HAS_UNSIGNED_PRESCRIPTIONS: &str = "ORDER_HAS_UNSIGNED_PRESCRIPTIONS";
    pub const ORDER_HAS_CANCELED_PRESCRIPTIONS: &str = "ORDER_HAS_CANCELED_PRESCRIPTIONS";
    // Whole-request failures.
    pub const EMPTY_AUTHORIZATION_HEADER: &str = "EMPTY_AUTHORIZATION_HEADER";
    pub const INVALID_AUTHORIZATION_HEADER: &str = "INVALID_AUTHORIZATION_HEADER";
    pub const BAD_REQUEST: &str = "BAD_REQUEST";
    pub const REQUEST_TOO_LARGE: &str = "REQUEST_TOO_LARGE";
    pub const GRAPHQL_VALIDATION_FAILED: &str = "GRAPHQL_VALIDATION_FAILED";
    pub const INTERNAL_SERVER_ERROR: &str = "INTERNAL_SERVER_ERROR";
}

/// Why a query (or a field of a record) could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{}", .0.message)]
    Forbidden(Refusal),
    #[error("{}", .0.message)]
    Invalid(Invalid),
    /// Details are logged, never sent: they may name tables or values.
    #[error("internal error")]
    Store(#[from] StoreError),
    #[error("internal error: {0}")]
    Internal(&'static str),
}

impl ApiError {
    /// The GraphQL error sent to the client. (Not a `From` impl: async-graphql's
    /// blanket `From<Display>` would drop the extensions, so every resolver
    /// converts through here explicitly.)
    pub fn into_graphql(self) -> async_graphql::Error {
        match self {
            ApiError::Forbidden(r) => async_graphql::Error::new(r.message).extend_with(|_, ext| {
                ext.set("code", r.code);
                if let Some(p) = r.permission {
                    ext.set("requiredPermission", p.as_str());
                }
            }),
            ApiError::Invalid(i) => async_graphql::Error::new(i.message).extend_with(|_, ext| {
                ext.set("code", i.code);
                if let Some(f) = i.field {
                    ext.set("field", f);
                }
            }),
            ApiError::Store(e) => {
                tracing::error!(error = %e, "store failure");
                internal()
            }
            ApiError::Internal(what) => {
                tracing::error!(what, "internal failure");
                internal()
            }
        }
    }
}

fn internal() -> async_graphql::Error {
    async_graphql::Error::new("Internal server error")
        .extend_with(|_, ext| ext.set("code", codes::INTERNAL_SERVER_ERROR))
}

/// Refuses a query (or field) unless the caller holds `permission`.
pub fn require_read(caller: &Caller, permission: Permission) -> Result<(), ApiError> {
    if caller.has(permission) {
        return Ok(());
    }
    let (code, what) = match permission {
        Permission::ReadPatient => (codes::PATIENT_READ_UNAUTHORIZED, "read patients"),
        Permission::ReadPrescription => {
            (codes::PRESCRIPTION_READ_UNAUTHORIZED, "read prescriptions")
        }
        Permission::ReadOrder => (codes::ORDER_READ_UNAUTHORIZED, "read orders"),
        // Queries only ever need read: permissions.
        Permission::WritePatient | Permission::WritePrescription | Permission::WriteOrder => {
            ("UNAUTHORIZED", "do this")
        }
    };
    Err(ApiError::Forbidden(Refusal::lacking(
        code, what, permission,
    )))
}
