//! Which link-layer [`Operation`] a `/graphql` body is: the first field of the
//! operation it runs, and the call its input is ([`super::call_shape`], the
//! network's one classification), with the variables substituted; a pharmacy
//! search is told apart from the other order Updates here. The server hands
//! [`classify_graphql`] to the link's step, so the link layer, which stands
//! below the network, never imports it. Nothing here looks anything up.

use async_graphql::InputType as _;
use async_graphql::parser::types::{DocumentOperations, OperationDefinition, Selection};

use super::call_shape::{OrderCall, OrderWrite, PatientCall, PrescriptionCall};
use super::types::{
    OrderInput, OrderPharmacyInput, PatientInput, PharmacyReferenceInput, PrescriptionInput,
};
use crate::link::Operation;

/// The operation of a `/graphql` body; [`Operation::Other`] when it is not one
/// GraphQL request running `ping` or one of the three mutations.
pub(crate) fn classify_graphql(body: &[u8]) -> Operation {
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
        PrescriptionCall::LookUp { .. } | PrescriptionCall::LookUpDiagnoses { .. } => {
            Operation::PrescriptionLookup
        }
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
    use crate::link::Operation;

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
}
