//! `crates/sandbox/schema.graphql` is the Network API the server serves, exactly
//! (the client compiles its documents against it), and it is the real network's
//! API: every type, field, argument, enum value and union member of
//! `network-api.reference.graphql` (the vendor's documented schema) is served
//! with the same type — in the exported file and by introspection of a running
//! sandbox, so a client generated from either equals one generated from the
//! real schema.
//!
//! Regenerate after a schema change with:
//! `UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test integration network_schema`

use std::path::PathBuf;

const HEADER: &str = "\
# The Network API as the sandbox serves it, exported from the server (rxdesk-sandbox).
# Do not edit by hand: a test fails when this file and the server disagree.
# Regenerate: UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test integration network_schema

";

fn file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn exported() -> String {
    format!("{HEADER}{}", rxdesk_sandbox::network::sdl().trim_end()) + "\n"
}

#[test]
fn schema_file_is_the_servers_exported_schema() {
    let expected = exported();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(file("schema.graphql"), &expected).unwrap();
    }
    let on_disk = std::fs::read_to_string(file("schema.graphql")).unwrap();
    assert!(
        on_disk == expected,
        "crates/sandbox/schema.graphql differs from the server's schema; \
         regenerate it with `UPDATE_SCHEMA=1 cargo test -p rxdesk-sandbox --test integration network_schema`"
    );
}

mod against_the_reference {
    use std::collections::BTreeMap;

    use apollo_compiler::schema::ExtendedType;
    use apollo_compiler::{ExecutableDocument, Schema};

    use super::file;

    fn schema(name: &str) -> apollo_compiler::validation::Valid<Schema> {
        let text = std::fs::read_to_string(file(name)).unwrap();
        Schema::parse_and_validate(text, name)
            .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"))
    }

    /// Each type as comparable lines: `Type.field(arg: T): T`, enum values,
    /// union members, implemented interfaces.
    fn shape(schema: &Schema) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        for (name, ty) in &schema.types {
            if ty.is_built_in() {
                continue;
            }
            let mut lines = Vec::new();
            let fields = |lines: &mut Vec<String>, fields: Vec<(String, String, Vec<String>)>| {
                for (field, ty, args) in fields {
                    lines.push(format!("{field}({}): {ty}", args.join(", ")));
                }
            };
            let kind = match ty {
                ExtendedType::Scalar(_) => "scalar",
                ExtendedType::Object(o) => {
                    fields(
                        &mut lines,
                        o.fields
                            .iter()
                            .map(|(n, f)| {
                                let args = f
                                    .arguments
                                    .iter()
                                    .map(|a| format!("{}: {}", a.name, a.ty))
                                    .collect();
                                (n.to_string(), f.ty.to_string(), args)
                            })
                            .collect(),
                    );
                    lines.extend(
                        o.implements_interfaces
                            .iter()
                            .map(|i| format!("implements {}", i.name)),
                    );
                    "type"
                }
                ExtendedType::Interface(o) => {
                    fields(
                        &mut lines,
                        o.fields
                            .iter()
                            .map(|(n, f)| (n.to_string(), f.ty.to_string(), Vec::new()))
                            .collect(),
                    );
                    "interface"
                }
                ExtendedType::Union(u) => {
                    lines.extend(u.members.iter().map(|m| format!("member {}", m.name)));
                    "union"
                }
                ExtendedType::Enum(e) => {
                    lines.extend(e.values.keys().map(|v| format!("value {v}")));
                    "enum"
                }
                ExtendedType::InputObject(i) => {
                    fields(
                        &mut lines,
                        i.fields
                            .iter()
                            .map(|(n, f)| (n.to_string(), f.ty.to_string(), Vec::new()))
                            .collect(),
                    );
                    "input"
                }
            };
            lines.sort();
            lines.insert(0, kind.to_owned());
            out.insert(name.to_string(), lines);
        }
        out
    }

    /// How `served` differs from `reference`, type by type (empty: not at all).
    fn differences(
        reference: &BTreeMap<String, Vec<String>>,
        served: &BTreeMap<String, Vec<String>>,
    ) -> Vec<String> {
        let mut differences = Vec::new();
        for (name, lines) in reference {
            match served.get(name) {
                None => differences.push(format!("{name}: missing")),
                Some(ours) if ours != lines => {
                    differences.push(format!("{name}: reference {lines:?}\n   served {ours:?}"));
                }
                Some(_) => {}
            }
        }
        for name in served.keys().filter(|n| !reference.contains_key(*n)) {
            differences.push(format!("{name}: served but not in the reference"));
        }
        differences
    }

    #[test]
    fn the_sandbox_serves_the_real_networks_schema_type_for_type() {
        let reference = shape(&schema("network-api.reference.graphql"));
        let served = shape(&schema("schema.graphql"));
        let differences = differences(&reference, &served);
        assert!(
            differences.is_empty(),
            "schema drift:\n{}",
            differences.join("\n")
        );
    }

    #[tokio::test]
    async fn introspection_serves_every_type_of_the_real_schema() {
        use cynic::QueryBuilder as _;
        use cynic_introspection::IntrospectionQuery;

        use crate::support;

        let sandbox = support::start_demo().await;
        let token =
            support::machine_token(&sandbox, support::MAPLE_BACKEND.0, support::MAPLE_BACKEND.1)
                .await;

        let answer: cynic::GraphQlResponse<IntrospectionQuery> = support::http()
            .post(support::endpoint(&sandbox, "/graphql"))
            .bearer_auth(token)
            .json(&IntrospectionQuery::build(()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        sandbox.shutdown().await;

        assert!(answer.errors.is_none(), "{:?}", answer.errors);
        let sdl = answer.data.unwrap().into_schema().unwrap().to_sdl();
        let introspected = Schema::parse_and_validate(sdl, "introspection")
            .unwrap_or_else(|e| panic!("the introspection answer is not a valid schema: {e}"));
        let differences = differences(
            &shape(&schema("network-api.reference.graphql")),
            &shape(&introspected),
        );
        assert!(
            differences.is_empty(),
            "introspection differs from the real schema:\n{}",
            differences.join("\n")
        );
    }

    /// The call shapes the network's documentation shows, with their full
    /// selection sets: every one validates against both schemas.
    const DOCUMENTS: &[(&str, &str)] = &[
        ("ping", "query Ping { ping }"),
        (
            "patient",
            r#"
            mutation Patient($patient: PatientInput!, $metadata: RequestMetadata!) {
              patient(patient: $patient, metadata: $metadata) {
                __typename
                ... on PatientPayload {
                  patient { ... on Patient { ...PatientFields } ... on UpstreamServiceError { code message retryable } }
                  appliedChanges { ...ChangeFields }
                  unappliedChanges { ...ChangeFields }
                }
                ... on AmbiguousPatientMatch { reason candidates { id firstName lastName dateOfBirth } }
                ... on OperationError { code message }
                ... on UnauthorizedError { requiredPermission }
                ... on UpstreamServiceError { service retryable }
              }
            }
            fragment PatientFields on Patient {
              id
              demographic {
                name { first middle last }
                dateOfBirth sex gender email phone
                address { street1 street2 city state postalCode country }
                benefits { id bin pcn groupId memberId }
                preferredPharmacy { id name address { street1 city state postalCode } fulfillmentType }
              }
              clinical {
                allergies { id name rxNormId }
                medications { id name rxNormId status }
                diagnoses { id name icd10Code }
                notes
              }
            }
            fragment ChangeFields on Change {
              key label status severity category operation reason
              options { displayName reason operation argument value match { matchType confidence }
                ... on GenericChangeOption { matchReasons { type label confidence } }
                ... on PharmacyChangeOption { matchReasons { type label } offers { source isPromoted } } }
              detail {
                __typename
                ... on FieldChangeDetail { previousValue { displayValue } newValue { displayValue ... on QuantityValue { value unit } } }
                ... on EntityResolutionDetail { inputText resolvedEntityId }
                ... on PharmacyResolutionDetail { inputText resolvedEntityId offers { source } }
              }
            }"#,
        ),
        (
            "prescription",
            r#"
            mutation Prescription($prescription: PrescriptionInput!, $metadata: RequestMetadata!) {
              prescription(prescription: $prescription, metadata: $metadata) {
                __typename
                ... on PrescriptionPayload {
                  prescription { ...PrescriptionFields }
                  unappliedChanges { key status severity reason options { displayName argument value } }
                }
                ... on AmbiguousPrescriptionMatch { reason candidates { id instructions dispense { quantity } } }
                ... on OperationError { code message }
              }
            }
            fragment PrescriptionFields on Prescription {
              id status templateId
              patient { id }
              treatment { id name rxNormId ndc upc }
              instructions
              dispense { quantity unit daysSupply refillsAllowed dispenseAsWritten }
              clinical { diagnoses { id name icd10Code } notes }
              screeningAlerts {
                severity type description category
                involvedEntities { id name }
                options { displayName reason operation argument value }
              }
              signing { state contentHash message signedAt }
            }"#,
        ),
        (
            "order",
            r#"
            mutation Order($order: OrderInput!, $metadata: RequestMetadata!) {
              order(order: $order, metadata: $metadata) {
                __typename
                ... on OrderPayload {
                  order { ...OrderFields }
                  unappliedChanges { key status severity reason options { displayName argument value } }
                }
                ... on AmbiguousOrderMatch { reason candidates { id pharmacyId prescriptionIds } }
                ... on OperationError { code message }
              }
            }
            fragment OrderFields on Order {
              id state
              patient { ... on Patient { id } ... on UpstreamServiceError { code message retryable } }
              prescriptions { id status treatment { id name } signing { state } }
              pharmacy { id name address { street1 street2 city state postalCode } fulfillmentType }
              exceptions { id type message createdAt }
            }"#,
        ),
    ];

    #[test]
    fn every_documented_call_shape_validates_against_both_schemas() {
        for name in ["network-api.reference.graphql", "schema.graphql"] {
            let schema = schema(name);
            for (operation, document) in DOCUMENTS {
                if let Err(e) =
                    ExecutableDocument::parse_and_validate(&schema, *document, *operation)
                {
                    panic!("the {operation} document does not validate against {name}:\n{e}");
                }
            }
        }
    }
}
