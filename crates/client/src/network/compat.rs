//! The compatibility check: does a network speak what this client sends? The
//! network's schema is fetched by introspection (no record is touched) and every
//! document of the client is validated against it by the rules of the GraphQL
//! specification that depend on a schema ([`validate`]), answering per
//! operation "works" or what would fail, in words.
//!
//! The validator is this module's own ([`document`] parses, [`validate`]
//! checks) rather than apollo-compiler, which the app would carry for this one
//! check (about half a MiB of its binary): `tests/compatibility.rs` holds its
//! verdicts to apollo-compiler's on the real network's schema and on broken
//! variants of it (fields, arguments, types, enum values, union members
//! removed or changed).

mod document;
mod validate;

use cynic::{MutationBuilder as _, QueryBuilder as _};
use cynic_introspection::{IntrospectionQuery, Schema};

use super::calls::Network;
use super::documents::*;
use crate::error::ClientError;
use crate::retry::{CallKind, Repeat};

/// The verdict on one operation of the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationCheck {
    /// The operation's name (`SyncPatient`, `SignPrescription`, …).
    pub operation: String,
    /// `None` when the network accepts it; else the validator's words.
    pub problem: Option<String>,
}

/// The verdicts on every operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compatibility {
    pub operations: Vec<OperationCheck>,
}

impl Compatibility {
    /// True when every operation works.
    pub fn works(&self) -> bool {
        self.operations.iter().all(|o| o.problem.is_none())
    }

    /// The operations that would fail.
    pub fn failing(&self) -> impl Iterator<Item = &OperationCheck> {
        self.operations.iter().filter(|o| o.problem.is_some())
    }
}

fn metadata() -> RequestMetadata {
    RequestMetadata {
        source: RequestSource::DirectApi,
        client: None,
        source_version: None,
        request_id: None,
    }
}

/// Every document the client sends, by operation name.
pub fn documents() -> Vec<(&'static str, String)> {
    let patient = || PatientArguments {
        patient: PatientInput::default(),
        metadata: metadata(),
    };
    let prescription = || PrescriptionArguments {
        prescription: PrescriptionInput::default(),
        metadata: metadata(),
    };
    let order = || OrderArguments {
        order: OrderInput::default(),
        metadata: metadata(),
    };
    vec![
        ("Ping", Ping::build(()).query),
        ("GetPatient", GetPatient::build(patient()).query),
        ("FindPatients", FindPatients::build(patient()).query),
        ("SyncPatient", SyncPatient::build(patient()).query),
        ("UpdatePatient", UpdatePatient::build(patient()).query),
        (
            "FindPreferredPharmacy",
            FindPreferredPharmacy::build(patient()).query,
        ),
        ("LookUpDrug", LookUpDrug::build(prescription()).query),
        (
            "LookUpDiagnosis",
            LookUpDiagnosis::build(prescription()).query,
        ),
        (
            "DraftPrescription",
            DraftPrescription::build(prescription()).query,
        ),
        (
            "UpdatePrescription",
            UpdatePrescription::build(prescription()).query,
        ),
        (
            "SignPrescription",
            SignPrescription::build(prescription()).query,
        ),
        (
            "GetPrescription",
            GetPrescription::build(prescription()).query,
        ),
        ("GetOrder", GetOrder::build(order()).query),
        ("DraftOrder", DraftOrder::build(order()).query),
        ("UpdateOrder", UpdateOrder::build(order()).query),
        ("SendOrder", SendOrder::build(order()).query),
        ("CancelOrder", CancelOrder::build(order()).query),
        ("FindPharmacies", FindPharmacies::build(order()).query),
    ]
}

/// Validates every document against an introspected `schema`.
pub fn check_against(schema: &Schema) -> Compatibility {
    let index = validate::SchemaIndex::new(schema);
    let operations = documents()
        .into_iter()
        .map(|(operation, query)| {
            let problem = match document::parse(&query) {
                Err(e) => Some(format!("the document does not parse: {e}")),
                Ok(parsed) => {
                    let errors = validate::validate(&index, &parsed);
                    (!errors.is_empty()).then(|| errors.join("; "))
                }
            };
            OperationCheck {
                operation: operation.to_owned(),
                problem,
            }
        })
        .collect();
    Compatibility { operations }
}

impl Network {
    /// Introspects the network's schema and validates every document of this
    /// client against it. Touches no record.
    pub async fn check_compatibility(&self) -> Result<Compatibility, ClientError> {
        let schema = self.introspect().await?;
        Ok(check_against(&schema))
    }

    /// The network's schema, by introspection (`Schema::to_sdl` writes it out).
    pub async fn introspect(&self) -> Result<Schema, ClientError> {
        let operation = IntrospectionQuery::build(());
        let body = serde_json::to_vec(&operation)
            .map_err(|_| ClientError::protocol("cannot encode the introspection query"))?;
        self.transport()
            .send::<IntrospectionQuery, Schema>(
                "introspect",
                CallKind::Read,
                Repeat::Safe,
                body,
                |data| {
                    data.into_schema().map_err(|e| {
                        ClientError::protocol(format!(
                            "the network's introspection answer is not a schema: {e}"
                        ))
                    })
                },
            )
            .await
    }
}
