//! Request bodies with each operation's document text rendered once per
//! process. cynic renders a document from its selection on every `build`;
//! in a batch of signatures that rendering (formatting the selection through
//! `core::fmt`) was 44 % of the app's CPU during the batch (perf, the bench's
//! signing figure). The text depends on the operation's type only, never on
//! its variables, so the first body of each operation keeps it and the next
//! ones reuse it. The body is byte for byte what cynic's `Operation` writes.
//!
//! The text is kept as JSON already (a string literal, escaped once): writing
//! it into each body afresh (serde_json escaping a signature's document byte
//! by byte, and the body's buffer growing around it) was 5.6 % of the app's
//! samples in a batch of signatures, 1.1 % after (perf of the window's
//! signing figure).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use serde::Serialize;
use serde_json::value::RawValue;

/// One operation to send: how cynic builds it, and its variables.
pub(crate) struct Request<Q, V> {
    build: fn(V) -> cynic::Operation<Q, V>,
    variables: V,
}

/// `build` (an operation's `::build`) with `variables`.
pub(crate) fn request<Q, V>(build: fn(V) -> cynic::Operation<Q, V>, variables: V) -> Request<Q, V> {
    Request { build, variables }
}

/// A document's text (as a JSON string) and operation name, as cynic
/// rendered them.
struct Rendered {
    query: Box<RawValue>,
    operation_name: Option<String>,
}

static RENDERED: LazyLock<RwLock<HashMap<TypeId, Arc<Rendered>>>> = LazyLock::new(Default::default);

/// The body cynic's `Operation` serializes to.
#[derive(Serialize)]
struct Body<'a, V> {
    query: &'a RawValue,
    variables: &'a V,
    #[serde(rename = "operationName", skip_serializing_if = "Option::is_none")]
    operation_name: Option<&'a str>,
}

impl<Q: 'static, V: Serialize> Request<Q, V> {
    /// The JSON body of this request.
    pub(crate) fn body(self) -> Result<Vec<u8>, serde_json::Error> {
        let key = TypeId::of::<Q>();
        // A poisoned lock only means a writer panicked mid-insert of a
        // complete value: the map is still whole.
        let known = RENDERED
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(rendered) = known {
            // The document plus room for the variables: one allocation.
            let mut body = Vec::with_capacity(rendered.query.get().len() + 512);
            serde_json::to_writer(
                &mut body,
                &Body {
                    query: &rendered.query,
                    variables: &self.variables,
                    operation_name: rendered.operation_name.as_deref(),
                },
            )?;
            return Ok(body);
        }
        let operation = (self.build)(self.variables);
        let rendered = Rendered {
            query: serde_json::value::to_raw_value(operation.query.as_str())?,
            operation_name: operation.operation_name.as_deref().map(str::to_owned),
        };
        RENDERED
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, Arc::new(rendered));
        serde_json::to_vec(&operation)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use cynic::MutationBuilder as _;

    use super::*;
    use crate::network::documents::{
        PatientArguments, PatientInput, PrescriptionArguments, PrescriptionInput, RequestMetadata,
        RequestSource, SignPrescription, SyncPatient,
    };

    fn metadata() -> RequestMetadata {
        RequestMetadata {
            source: RequestSource::DirectApi,
            client: Some("tests".to_owned()),
            source_version: None,
            request_id: Some("req_1".to_owned()),
        }
    }

    fn prescription(id: &str) -> PrescriptionArguments {
        PrescriptionArguments {
            prescription: PrescriptionInput {
                id: Some(cynic::Id::new(id)),
                ..Default::default()
            },
            metadata: metadata(),
        }
    }

    #[test]
    fn every_body_is_the_one_cynic_writes_for_its_variables() {
        let (first, second) = (prescription("rx_1"), prescription("rx_2"));

        let bodies = [
            request(SignPrescription::build, first.clone())
                .body()
                .unwrap(),
            request(SignPrescription::build, second.clone())
                .body()
                .unwrap(),
        ];

        assert_eq!(
            bodies,
            [
                serde_json::to_vec(&SignPrescription::build(first)).unwrap(),
                serde_json::to_vec(&SignPrescription::build(second)).unwrap(),
            ]
        );
    }

    #[test]
    fn each_operation_keeps_its_own_document() {
        let patient = PatientArguments {
            patient: PatientInput::default(),
            metadata: metadata(),
        };
        request(SignPrescription::build, prescription("rx_1"))
            .body()
            .unwrap();

        let body = request(SyncPatient::build, patient.clone()).body().unwrap();

        assert_eq!(
            body,
            serde_json::to_vec(&SyncPatient::build(patient)).unwrap()
        );
    }
}
