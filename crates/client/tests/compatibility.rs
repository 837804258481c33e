//! The compatibility check's own validator says what apollo-compiler (a full
//! GraphQL validator, the one the sandbox runs) says: on the real network's
//! schema, on the sandbox's, and on broken variants of them — a field or type
//! removed, an argument's type changed, a required argument added, a union
//! member dropped, fields that can no longer merge — and on harmless changes.
//!
//! Each schema reaches the check as it does from a network: apollo-compiler
//! answers the client's introspection query from the SDL (as the sandbox's
//! `network/introspection.rs` does), and the check reads that answer.

use crate::support;

use apollo_compiler::Schema;
use apollo_compiler::executable::ExecutableDocument;
use apollo_compiler::response::JsonMap;
use cynic::QueryBuilder as _;
use cynic_introspection::IntrospectionQuery;
use rxdesk_client::network::compat::{self, Compatibility};

use support::{client_for, machine_network, maple_backend, sandbox};

fn sandbox_sdl() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sandbox/schema.graphql"
    ))
    .unwrap()
}

fn reference_sdl() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sandbox/network-api.reference.graphql"
    ))
    .unwrap()
}

fn apollo_schema(sdl: &str) -> apollo_compiler::validation::Valid<Schema> {
    Schema::parse_and_validate(sdl, "network.graphql")
        .unwrap_or_else(|e| panic!("the variant is not a valid schema: {}", e.errors))
}

/// What a network serving `sdl` answers to the client's introspection query.
fn introspected(sdl: &str) -> cynic_introspection::Schema {
    let schema = apollo_schema(sdl);
    let query = IntrospectionQuery::build(()).query;
    let document =
        ExecutableDocument::parse_and_validate(&schema, &query, "introspection.graphql").unwrap();
    let operation = document.operations.get(None).unwrap();
    let variables =
        apollo_compiler::request::coerce_variable_values(&schema, operation, &JsonMap::new())
            .unwrap();
    let answer = apollo_compiler::introspection::partial_execute(
        &schema,
        &schema.implementers_map(),
        &document,
        operation,
        &variables,
    )
    .unwrap();
    assert!(answer.errors.is_empty(), "{:?}", answer.errors);
    let data = serde_json::to_value(answer.data.unwrap()).unwrap();
    serde_json::from_value::<IntrospectionQuery>(data)
        .unwrap()
        .into_schema()
        .unwrap()
}

/// The check on a network serving `sdl`.
fn check(sdl: &str) -> Compatibility {
    compat::check_against(&introspected(sdl))
}

/// Per operation, whether apollo-compiler validates its document against `sdl`.
fn apollo_verdicts(sdl: &str) -> Vec<(String, bool)> {
    let schema = apollo_schema(sdl);
    compat::documents()
        .into_iter()
        .map(|(operation, query)| {
            let valid = ExecutableDocument::parse_and_validate(&schema, query, operation).is_ok();
            (operation.to_owned(), valid)
        })
        .collect()
}

fn verdicts(check: &Compatibility) -> Vec<(String, bool)> {
    check
        .operations
        .iter()
        .map(|o| (o.operation.clone(), o.problem.is_none()))
        .collect()
}

/// `sdl` with each `(from, to)` replaced once; `from` must be there.
fn variant(sdl: &str, edits: &[(&str, &str)]) -> String {
    let mut changed = sdl.to_owned();
    for (from, to) in edits {
        assert!(
            changed.contains(from),
            "the schema no longer holds {from:?}: update this variant"
        );
        changed = changed.replacen(from, to, 1);
    }
    changed
}

/// A variant of the sandbox's schema: its name, edits, and whether some
/// operation must fail on it (a variant that breaks nothing proves less).
struct Variant {
    name: &'static str,
    edits: &'static [(&'static str, &'static str)],
    breaks: bool,
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "a field removed",
        edits: &[("\tcontentHash: String!\n", "")],
        breaks: true,
    },
    Variant {
        name: "a field renamed",
        edits: &[("contentHash: String!", "hash: String!")],
        breaks: true,
    },
    Variant {
        name: "an argument's type changed to another input type",
        edits: &[(
            "order(order: OrderInput!, metadata: RequestMetadata!)",
            "order(order: OrderInput!, metadata: PatientInput!)",
        )],
        breaks: true,
    },
    Variant {
        name: "an argument's type changed to a list",
        edits: &[(
            "patient(patient: PatientInput!,",
            "patient(patient: [PatientInput!]!,",
        )],
        breaks: true,
    },
    Variant {
        name: "an argument made optional (a required variable still fits)",
        edits: &[(
            "prescription(prescription: PrescriptionInput!,",
            "prescription(prescription: PrescriptionInput,",
        )],
        breaks: false,
    },
    Variant {
        name: "an argument removed",
        edits: &[(
            "order(order: OrderInput!, metadata: RequestMetadata!)",
            "order(order: OrderInput!)",
        )],
        breaks: true,
    },
    Variant {
        name: "a required argument added",
        edits: &[(
            "order(order: OrderInput!, metadata: RequestMetadata!)",
            "order(order: OrderInput!, metadata: RequestMetadata!, reason: String!)",
        )],
        breaks: true,
    },
    Variant {
        name: "an optional argument added",
        edits: &[(
            "order(order: OrderInput!, metadata: RequestMetadata!)",
            "order(order: OrderInput!, metadata: RequestMetadata!, reason: String)",
        )],
        breaks: false,
    },
    Variant {
        name: "a required argument added, with a default",
        edits: &[(
            "order(order: OrderInput!, metadata: RequestMetadata!)",
            "order(order: OrderInput!, metadata: RequestMetadata!, dryRun: Boolean! = false)",
        )],
        breaks: false,
    },
    Variant {
        name: "a type removed (and from its union)",
        edits: &[
            (
                "union PrescriptionResult = PrescriptionPayload | AmbiguousPrescriptionMatch |",
                "union PrescriptionResult = PrescriptionPayload |",
            ),
            (
                "type AmbiguousPrescriptionMatch {\n\tcandidates: [PrescriptionCandidate!]!\n\treason: String!\n}\n",
                "",
            ),
        ],
        breaks: true,
    },
    Variant {
        name: "a union member dropped, its type kept",
        edits: &[(
            "union OrderResult = OrderPayload | AmbiguousOrderMatch |",
            "union OrderResult = OrderPayload |",
        )],
        breaks: true,
    },
    Variant {
        name: "an input type renamed",
        edits: &[
            ("input OrderInput {", "input OrderWrite {"),
            ("order(order: OrderInput!,", "order(order: OrderWrite!,"),
        ],
        breaks: true,
    },
    Variant {
        name: "an object field turned into a scalar",
        edits: &[(
            "\tinstructions: String\n\tdispense: Dispense\n",
            "\tinstructions: String\n\tdispense: String\n",
        )],
        breaks: true,
    },
    Variant {
        name: "a scalar field turned into an object",
        edits: &[(
            "\tinstructions: String\n\tdispense: Dispense\n",
            "\tinstructions: Dispense\n\tdispense: Dispense\n",
        )],
        breaks: true,
    },
    Variant {
        name: "a field dropped from an interface, kept on its types",
        edits: &[(
            "interface ChangeOption {\n\tdisplayName: String!\n",
            "interface ChangeOption {\n",
        )],
        breaks: true,
    },
    Variant {
        name: "two union members' fields of one name no longer the same scalar",
        edits: &[(
            "type PharmacyResolutionDetail {\n\tinputText: String\n",
            "type PharmacyResolutionDetail {\n\tinputText: Int\n",
        )],
        breaks: true,
    },
    Variant {
        name: "two union members' fields of one name no longer the same nullability",
        edits: &[(
            "type EntityResolutionDetail {\n\tinputText: String\n\tresolvedEntityId: ID\n",
            "type EntityResolutionDetail {\n\tinputText: String\n\tresolvedEntityId: ID!\n",
        )],
        breaks: true,
    },
    Variant {
        name: "a leaf's scalar changed where nothing else selects its name",
        edits: &[("\tretryable: Boolean!\n", "\tretryable: String!\n")],
        breaks: false,
    },
    Variant {
        name: "the mutation root removed",
        edits: &[
            ("\tmutation: Mutation\n", ""),
            ("type Mutation {", "type Unreachable {"),
        ],
        breaks: true,
    },
    Variant {
        name: "the query root renamed",
        edits: &[
            ("type Query {", "type Root {"),
            ("\tquery: Query\n", "\tquery: Root\n"),
        ],
        breaks: false,
    },
    Variant {
        name: "an enum value removed (the documents send enums in variables)",
        edits: &[("\tMCP_CONNECTOR\n", "")],
        breaks: false,
    },
    Variant {
        name: "an unused type removed",
        edits: &[(
            "\"\"\"\nDocumented by the network without saying where it is used; part of the schema.\n\"\"\"\nenum CatalogEntityKind {\n\tMEDICATION\n\tMEDICAL_EQUIPMENT\n\tCOMPOUND\n\tSUBSTANCE\n}\n",
            "",
        )],
        breaks: false,
    },
    Variant {
        name: "a field deprecated",
        edits: &[(
            "\tcontentHash: String!\n",
            "\tcontentHash: String! @deprecated(reason: \"use hash\")\n",
        )],
        breaks: false,
    },
    Variant {
        name: "a field and a union member added",
        edits: &[
            (
                "\tcontentHash: String!\n",
                "\tcontentHash: String!\n\tsignedBy: String\n",
            ),
            (
                "union OrderResult = OrderPayload |",
                "union OrderResult = PatientPayload | OrderPayload |",
            ),
        ],
        breaks: false,
    },
];

#[test]
fn every_document_validates_against_the_real_networks_documented_schema() {
    let sdl = reference_sdl();

    let check = check(&sdl);

    assert!(check.works(), "{:?}", check.failing().collect::<Vec<_>>());
    assert_eq!(verdicts(&check), apollo_verdicts(&sdl));
}

#[test]
fn every_document_validates_against_the_sandboxs_schema_as_apollo_says() {
    let sdl = sandbox_sdl();

    let check = check(&sdl);

    assert!(check.works(), "{:?}", check.failing().collect::<Vec<_>>());
    assert_eq!(check.operations.len(), compat::documents().len());
    assert_eq!(verdicts(&check), apollo_verdicts(&sdl));
}

#[test]
fn the_check_gives_apollos_verdicts_on_broken_and_harmless_variants_of_the_schema() {
    let original = sandbox_sdl();
    for v in VARIANTS {
        let sdl = variant(&original, v.edits);
        if let Err(e) = Schema::parse_and_validate(&sdl, "network.graphql") {
            panic!("{}: not a valid schema: {}", v.name, e.errors);
        }

        let check = check(&sdl);

        let expected = apollo_verdicts(&sdl);
        assert_eq!(
            verdicts(&check),
            expected,
            "{}: {:?}",
            v.name,
            check.failing().collect::<Vec<_>>()
        );
        assert_eq!(
            expected.iter().any(|(_, valid)| !valid),
            v.breaks,
            "{}: apollo's verdicts {expected:?}",
            v.name
        );
    }
}

#[test]
fn the_same_variants_of_the_real_networks_schema_get_apollos_verdicts() {
    let original = reference_sdl();
    let mut tried = 0;
    for v in VARIANTS {
        // The reference is written by hand: only the edits that apply to it.
        if !v.edits.iter().all(|(from, _)| original.contains(from)) {
            continue;
        }
        tried += 1;
        let sdl = variant(&original, v.edits);

        let check = check(&sdl);

        assert_eq!(verdicts(&check), apollo_verdicts(&sdl), "{}", v.name);
    }
    assert!(
        tried > 3,
        "only {tried} variants apply to the reference schema"
    );
}

#[test]
fn a_network_with_a_renamed_field_fails_the_operations_that_use_it_in_words() {
    let sdl = sandbox_sdl().replace("contentHash: String!", "hash: String!");

    let check = check(&sdl);

    let failing: Vec<_> = check.failing().map(|o| o.operation.as_str()).collect();
    assert!(
        failing.contains(&"SignPrescription") && failing.contains(&"GetOrder"),
        "{failing:?}"
    );
    assert!(
        !failing.contains(&"Ping") && !failing.contains(&"GetPatient"),
        "{failing:?}"
    );
    let problem = check.failing().next().unwrap().problem.clone().unwrap();
    assert!(
        problem.contains("`PrescriptionSigningDetails` does not have a field `contentHash`"),
        "{problem}"
    );
}

#[tokio::test]
async fn the_sandbox_passes_the_compatibility_check_over_introspection() {
    let sandbox = sandbox().await;
    let network = machine_network(&client_for(sandbox.url()), maple_backend());

    let check = network.check_compatibility().await.unwrap();

    assert!(check.works(), "{:?}", check.failing().collect::<Vec<_>>());
    assert_eq!(check.operations.len(), 18);
}
