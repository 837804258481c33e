//! Who is calling a GraphQL endpoint ([`Caller`], put in the GraphQL context by the
//! handler once the bearer token checked out) and the six [`Permission`]s of the
//! contract that every call is checked against.

use std::sync::Arc;

use crate::auth::claims::AccessClaims;

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

/// The verified token of the request, put in the GraphQL context by the handler
/// (the claims as the token cache holds them: shared, not copied).
#[derive(Debug, Clone)]
pub struct Caller {
    pub claims: Arc<AccessClaims>,
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
