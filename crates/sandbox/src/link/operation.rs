//! Which operation a request is ([`Operation`]), told from the request alone: the
//! token endpoint by its path, a Network API call by its document (the first
//! field of the operation it runs) and the call its input is, with the
//! variables substituted — classified by the network's own
//! `crate::network::call_shape`, which the permission model matches on too
//! (a pharmacy search is told apart from the other order Updates here). Nothing
//! here looks anything up.

use std::fmt;
use std::str::FromStr;

use async_graphql::InputType as _;
use async_graphql::parser::types::{DocumentOperations, OperationDefinition, Selection};
use serde::{Deserialize, Serialize};

use crate::network::call_shape::{OrderCall, OrderWrite, PatientCall, PrescriptionCall};
use crate::network::types::{
    OrderInput, OrderPharmacyInput, PatientInput, PharmacyReferenceInput, PrescriptionInput,
};

/// One kind of call, as the link layer targets and counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// `POST /oauth/token`, whatever the grant.
    Token,
    /// `query { ping }`.
    Ping,
    /// A Get `{ id }` of a patient, prescription or order.
    Get,
    /// A patient Sync (no `id`): matching, adding, searching.
    PatientSync,
    /// A patient Update (`id` and fields).
    PatientUpdate,
    /// A drug look-up (`treatment` without a patient).
    PrescriptionLookup,
    /// A draft Sync (with a patient, without an `id`).
    PrescriptionDraft,
    /// A prescription Update (`id` and fields).
    PrescriptionUpdate,
    /// A signature (`signing` present).
    PrescriptionSign,
    /// An order Sync (without an `id`).
    OrderDraft,
    /// An order Update (`id` and prescriptions or a pharmacy chosen by id).
    OrderUpdate,
    /// `state: SUBMITTED`.
    OrderSend,
    /// `state: CANCELED`.
    OrderCancel,
    /// `{ id, pharmacy: { pharmacy: { name | near | … } } }` without a pharmacy id.
    PharmacySearch,
    /// Anything else sent to `/graphql` (introspection, a body that does not parse).
    Other,
}

impl Operation {
    /// Every operation, in a fixed order (its index seeds the operation's stream).
    pub const ALL: [Self; 15] = [
        Self::Token,
        Self::Ping,
        Self::Get,
        Self::PatientSync,
        Self::PatientUpdate,
        Self::PrescriptionLookup,
        Self::PrescriptionDraft,
        Self::PrescriptionUpdate,
        Self::PrescriptionSign,
        Self::OrderDraft,
        Self::OrderUpdate,
        Self::OrderSend,
        Self::OrderCancel,
        Self::PharmacySearch,
        Self::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::Ping => "ping",
            Self::Get => "get",
            Self::PatientSync => "patient_sync",
            Self::PatientUpdate => "patient_update",
            Self::PrescriptionLookup => "prescription_lookup",
            Self::PrescriptionDraft => "prescription_draft",
            Self::PrescriptionUpdate => "prescription_update",
            Self::PrescriptionSign => "prescription_sign",
            Self::OrderDraft => "order_draft",
            Self::OrderUpdate => "order_update",
            Self::OrderSend => "order_send",
            Self::OrderCancel => "order_cancel",
            Self::PharmacySearch => "pharmacy_search",
            Self::Other => "other",
        }
    }

    /// The position in [`Operation::ALL`].
    pub fn index(self) -> usize {
        Self::ALL
            .iter()
            .position(|o| *o == self)
            .unwrap_or_default()
    }

    /// Whether the answer can be an `UpstreamServiceError` (the three mutations).
    pub fn is_mutation(self) -> bool {
        !matches!(self, Self::Token | Self::Ping | Self::Other)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Operation {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|o| o.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|o| o.as_str()).collect();
                format!("unknown operation `{text}` ({})", names.join(", "))
            })
    }
}

/// The operation of a `/graphql` body; [`Operation::Other`] when it is not one
/// GraphQL request running `ping` or one of the three mutations.
pub fn classify_graphql(body: &[u8]) -> Operation {
    let Ok(request) = serde_json::from_slice::<async_graphql::Request>(body) else {
        return Operation::Other;
    };
    let Ok(document) = async_graphql::parser::parse_query(&request.query) else {
        return Operation::Other;
    };
    let Some(operation) = chosen_operation(&document.operations, request.operation_name.as_deref())
    else {
        return Operation::Other;
    };
    let Some(field) = operation
        .selection_set
        .node
        .items
        .iter()
        .find_map(|item| match &item.node {
            Selection::Field(field) if field.node.name.node.as_str() != "__typename" => {
                Some(&field.node)
            }
            _ => None,
        })
    else {
        return Operation::Other;
    };
    let name = field.name.node.as_str();
    if name == "ping" {
        return Operation::Ping;
    }
    let Some(argument) = field.get_argument(name) else {
        return Operation::Other;
    };
    let input = argument
        .node
        .clone()
        .into_const_with(|variable| request.variables.get(&variable).cloned().ok_or(()));
    let Ok(input) = input else {
        return Operation::Other;
    };
    // An input that is not the field's input type is answered by the network
    // as invalid, whatever its shape: it is no call of the three.
    match name {
        "patient" => PatientInput::parse(Some(input))
            .map_or(Operation::Other, |input| patient(&PatientCall::from(input))),
        "prescription" => PrescriptionInput::parse(Some(input)).map_or(Operation::Other, |input| {
            prescription(&PrescriptionCall::from(input))
        }),
        "order" => OrderInput::parse(Some(input))
            .map_or(Operation::Other, |input| order(&OrderCall::from(input))),
        _ => Operation::Other,
    }
}

fn chosen_operation<'a>(
    operations: &'a DocumentOperations,
    name: Option<&str>,
) -> Option<&'a OperationDefinition> {
    match (operations, name) {
        (DocumentOperations::Single(op), _) => Some(&op.node),
        (DocumentOperations::Multiple(ops), Some(name)) => ops
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, op)| &op.node),
        // A named operation alone in its document runs without `operationName`.
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => {
            ops.values().next().map(|op| &op.node)
        }
        (DocumentOperations::Multiple(_), None) => None,
    }
}

fn patient(call: &PatientCall) -> Operation {
    match call {
        PatientCall::Get { .. } => Operation::Get,
        PatientCall::Sync(_) => Operation::PatientSync,
        PatientCall::Update { .. } => Operation::PatientUpdate,
    }
}

fn prescription(call: &PrescriptionCall) -> Operation {
    match call {
        PrescriptionCall::Get { .. } => Operation::Get,
        PrescriptionCall::LookUp { .. } => Operation::PrescriptionLookup,
        PrescriptionCall::Draft { .. } => Operation::PrescriptionDraft,
        PrescriptionCall::Update { .. } => Operation::PrescriptionUpdate,
        PrescriptionCall::Sign { .. } => Operation::PrescriptionSign,
    }
}

fn order(call: &OrderCall) -> Operation {
    match call {
        OrderCall::Get { .. } => Operation::Get,
        OrderCall::Draft(_) => Operation::OrderDraft,
        OrderCall::Send(_) => Operation::OrderSend,
        OrderCall::Cancel(_) => Operation::OrderCancel,
        // A pharmacy search: the order's id and a pharmacy reference without
        // an id, nothing else.
        OrderCall::Update(OrderWrite {
            id: Some(_),
            external_id: None,
            patient: None,
            prescriptions: None,
            pharmacy:
                Some(OrderPharmacyInput {
                    pharmacy: Some(PharmacyReferenceInput { id: None, .. }),
                    ..
                }),
            state: None,
        }) => Operation::PharmacySearch,
        OrderCall::Update(_) => Operation::OrderUpdate,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn body(query: &str, variables: Value) -> Vec<u8> {
        json!({ "query": query, "variables": variables })
            .to_string()
            .into_bytes()
    }

    fn with_variable(field: &str, input: Value) -> Operation {
        let query = format!(
            "mutation M($input: {ty}Input!, $metadata: RequestMetadata!) {{ {field}({field}: $input, metadata: $metadata) {{ __typename }} }}",
            ty = match field {
                "patient" => "Patient",
                "prescription" => "Prescription",
                _ => "Order",
            }
        );
        classify_graphql(&body(
            &query,
            json!({ "input": input, "metadata": { "source": "DIRECT_API" } }),
        ))
    }

    #[test]
    fn ping_and_unparsable_bodies_are_told_apart() {
        assert_eq!(
            classify_graphql(&body("{ ping }", json!({}))),
            Operation::Ping
        );
        assert_eq!(
            classify_graphql(&body("query { __typename ping }", json!({}))),
            Operation::Ping
        );
        assert_eq!(classify_graphql(b"not json"), Operation::Other);
        assert_eq!(
            classify_graphql(&body("{ __schema { types { name } } }", json!({}))),
            Operation::Other
        );
        assert_eq!(
            classify_graphql(&body("mutation {", json!({}))),
            Operation::Other
        );
    }

    #[test]
    fn patient_shapes() {
        assert_eq!(
            with_variable("patient", json!({ "id": "pat_1" })),
            Operation::Get
        );
        assert_eq!(
            with_variable("patient", json!({ "id": "pat_1", "demographic": null })),
            Operation::Get
        );
        assert_eq!(
            with_variable(
                "patient",
                json!({ "id": "pat_1", "clinical": { "notes": "x" } })
            ),
            Operation::PatientUpdate
        );
        assert_eq!(
            with_variable(
                "patient",
                json!({ "demographic": { "name": { "first": "A" } } })
            ),
            Operation::PatientSync
        );
    }

    #[test]
    fn prescription_shapes() {
        assert_eq!(
            with_variable("prescription", json!({ "id": "rx_1" })),
            Operation::Get
        );
        assert_eq!(
            with_variable(
                "prescription",
                json!({ "id": "rx_1", "signing": { "signedHash": "h" } })
            ),
            Operation::PrescriptionSign
        );
        assert_eq!(
            with_variable("prescription", json!({ "id": "rx_1", "instructions": "x" })),
            Operation::PrescriptionUpdate
        );
        assert_eq!(
            with_variable("prescription", json!({ "treatment": { "name": "ibu" } })),
            Operation::PrescriptionLookup
        );
        assert_eq!(
            with_variable(
                "prescription",
                json!({ "patient": { "id": "pat_1" }, "treatment": { "id": "med_1" }, "externalId": "k" })
            ),
            Operation::PrescriptionDraft
        );
        assert_eq!(
            with_variable(
                "prescription",
                json!({ "patient": { "id": "pat_1" }, "templateId": "t" })
            ),
            Operation::PrescriptionDraft
        );
    }

    #[test]
    fn order_shapes() {
        assert_eq!(
            with_variable("order", json!({ "id": "ord_1" })),
            Operation::Get
        );
        assert_eq!(
            with_variable("order", json!({ "id": "ord_1", "state": "SUBMITTED" })),
            Operation::OrderSend
        );
        assert_eq!(
            with_variable("order", json!({ "id": "ord_1", "state": "CANCELED" })),
            Operation::OrderCancel
        );
        assert_eq!(
            with_variable("order", json!({ "patient": { "id": "pat_1" } })),
            Operation::OrderDraft
        );
        assert_eq!(
            with_variable(
                "order",
                json!({ "id": "ord_1", "prescriptions": { "add": [{ "id": "rx_1" }] } })
            ),
            Operation::OrderUpdate
        );
        assert_eq!(
            with_variable(
                "order",
                json!({ "id": "ord_1", "pharmacy": { "pharmacy": { "name": "harbor" } } })
            ),
            Operation::PharmacySearch
        );
        assert_eq!(
            with_variable(
                "order",
                json!({ "id": "ord_1", "pharmacy": { "pharmacy": { "id": "phr_1" } } })
            ),
            Operation::OrderUpdate
        );
        assert_eq!(
            with_variable(
                "order",
                json!({ "id": "ord_1", "pharmacy": { "none": true } })
            ),
            Operation::OrderUpdate
        );
    }

    #[test]
    fn an_input_that_is_not_its_input_type_is_no_call() {
        assert_eq!(
            with_variable("prescription", json!({ "id": "rx_1", "instructions": 7 })),
            Operation::Other
        );
        assert_eq!(with_variable("order", json!("ord_1")), Operation::Other);
    }

    #[test]
    fn a_note_with_an_id_is_an_update_not_a_get() {
        assert_eq!(
            with_variable(
                "prescription",
                json!({ "id": "rx_1", "clinical": { "notes": "to the pharmacist" } })
            ),
            Operation::PrescriptionUpdate
        );
    }

    #[test]
    fn inline_arguments_and_named_operations_are_read_too() {
        let query = r#"
query Health { ping }
mutation Send($id: ID!) {
  order(order: { id: $id, state: SUBMITTED }, metadata: { source: DIRECT_API }) { __typename }
}"#;
        let request =
            json!({ "query": query, "variables": { "id": "ord_1" }, "operationName": "Send" });
        assert_eq!(
            classify_graphql(request.to_string().as_bytes()),
            Operation::OrderSend
        );
        let unnamed = json!({ "query": query });
        assert_eq!(
            classify_graphql(unnamed.to_string().as_bytes()),
            Operation::Other
        );
    }

    #[test]
    fn names_read_back() {
        for op in Operation::ALL {
            assert_eq!(op.as_str().parse::<Operation>(), Ok(op));
            assert_eq!(
                serde_json::to_value(op).unwrap_or_default(),
                json!(op.as_str())
            );
        }
    }
}
