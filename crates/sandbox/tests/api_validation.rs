//! Input rules: each rejected input answers `ValidationError` with its code and the
//! input path of the field, and stores nothing. One named row per rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

/// A rule: its name, how it breaks a valid input, and the expected code and field.
struct Row {
    rule: &'static str,
    breaks: fn(&mut Value),
    code: &'static str,
    field: &'static str,
}

/// Sends each row's broken input and lists the rows answered otherwise.
async fn mismatches(
    sandbox: &Sandbox,
    token: &str,
    doc: &str,
    valid: &Value,
    rows: &[Row],
) -> Vec<String> {
    let mut wrong = Vec::new();
    for row in rows {
        let mut input = valid.clone();
        (row.breaks)(&mut input);
        let result = mutate(sandbox, token, doc, json!({ "input": input })).await;
        if result["__typename"] != "ValidationError"
            || result["code"] != row.code
            || result["field"] != row.field
        {
            wrong.push(format!(
                "{}: expected {} on {}, got {result}",
                row.rule, row.code, row.field
            ));
        }
    }
    wrong
}

const PATIENT_RULES: &[Row] = &[
    Row {
        rule: "first name is required",
        breaks: |i| i["name"]["first"] = json!("  "),
        code: "INVALID_INPUT",
        field: "name.first",
    },
    Row {
        rule: "last name is required",
        breaks: |i| i["name"]["last"] = json!(""),
        code: "INVALID_INPUT",
        field: "name.last",
    },
    Row {
        rule: "birth date must exist",
        breaks: |i| i["dateOfBirth"] = json!("2023-02-30"),
        code: "INVALID_INPUT",
        field: "dateOfBirth",
    },
    Row {
        rule: "birth date is written YYYY-MM-DD",
        breaks: |i| i["dateOfBirth"] = json!("05/17/1980"),
        code: "INVALID_INPUT",
        field: "dateOfBirth",
    },
    Row {
        rule: "birth date is not in the future",
        breaks: |i| i["dateOfBirth"] = json!("2999-01-01"),
        code: "INVALID_INPUT",
        field: "dateOfBirth",
    },
    Row {
        rule: "email is well formed",
        breaks: |i| i["email"] = json!("grace@"),
        code: "INVALID_INPUT",
        field: "email",
    },
    Row {
        rule: "phone is well formed",
        breaks: |i| i["phone"] = json!("555-01"),
        code: "INVALID_INPUT",
        field: "phone",
    },
    Row {
        rule: "address street is required",
        breaks: |i| i["address"]["street1"] = json!(""),
        code: "INVALID_INPUT",
        field: "address.street1",
    },
    Row {
        rule: "address city is required",
        breaks: |i| i["address"]["city"] = json!(" "),
        code: "INVALID_INPUT",
        field: "address.city",
    },
    Row {
        rule: "address state is a US state",
        breaks: |i| i["address"]["state"] = json!("ZZ"),
        code: "INVALID_INPUT",
        field: "address.state",
    },
    Row {
        rule: "address postal code is a ZIP code",
        breaks: |i| i["address"]["postalCode"] = json!("9721"),
        code: "INVALID_INPUT",
        field: "address.postalCode",
    },
    Row {
        rule: "address is in the US",
        breaks: |i| i["address"]["country"] = json!("CA"),
        code: "INVALID_INPUT",
        field: "address.country",
    },
    Row {
        rule: "externalId is not blank",
        breaks: |i| i["externalId"] = json!(" "),
        code: "INVALID_INPUT",
        field: "externalId",
    },
];

#[tokio::test]
async fn each_patient_rule_rejects_its_field_and_stores_nothing() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let wrong = mismatches(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        &patient_input(None),
        PATIENT_RULES,
    )
    .await;

    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let list = gql(
        &sandbox,
        &tokens.machine,
        "{ patients { nodes { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(list.data()["patients"]["nodes"], json!([]));
}

#[tokio::test]
async fn sex_outside_the_enum_is_a_graphql_error() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let mut input = patient_input(None);
    input["sex"] = json!("BANANA");

    let reply = gql(
        &sandbox,
        &tokens.machine,
        &create_patient_doc(),
        json!({ "input": input }),
    )
    .await;

    assert_eq!(reply.status, 200);
    assert!(reply.body["data"].is_null());
    assert_eq!(reply.error_code(), "GRAPHQL_VALIDATION_FAILED");
}

#[tokio::test]
async fn an_update_checks_the_fields_it_changes() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let cases = [
        (json!({ "dateOfBirth": "2999-12-31" }), "dateOfBirth"),
        (json!({ "email": "not an email" }), "email"),
        (json!({ "phone": "12" }), "phone"),
        (
            json!({ "name": { "first": "", "last": "Hopper" } }),
            "name.first",
        ),
        (
            json!({ "address": { "street1": "1 A St", "city": "X", "state": "OR", "postalCode": "ABCDE" } }),
            "address.postalCode",
        ),
    ];

    for (input, field) in cases {
        let result = mutate(
            &sandbox,
            &tokens.machine,
            &update_patient_doc(),
            json!({ "id": patient, "input": input }),
        )
        .await;
        assert_eq!(
            (result["code"].as_str(), result["field"].as_str()),
            (Some("INVALID_INPUT"), Some(field)),
            "{result}"
        );
    }
}

#[tokio::test]
async fn an_update_of_an_unknown_patient_is_not_found() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let result = mutate(
        &sandbox,
        &tokens.machine,
        &update_patient_doc(),
        json!({ "id": "pat_nope", "input": {} }),
    )
    .await;

    assert_eq!(
        (result["code"].as_str(), result["field"].as_str()),
        (Some("NOT_FOUND"), Some("id"))
    );
}

#[tokio::test]
async fn an_update_changes_only_the_fields_given_and_null_clears_optional_ones() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;

    mutate(
        &sandbox,
        &tokens.machine,
        &update_patient_doc(),
        json!({ "id": patient, "input": { "email": null, "phone": "503-555-0123" } }),
    )
    .await;

    let reply = gql(
        &sandbox,
        &tokens.machine,
        "query($id: ID!) { patient(id: $id) { name { full } dateOfBirth email phone address { city } } }",
        json!({ "id": patient }),
    )
    .await;
    assert_eq!(
        reply.data()["patient"],
        json!({ "name": { "full": "Grace B. Hopper" }, "dateOfBirth": "1980-05-17", "email": null,
                "phone": "503-555-0123", "address": { "city": "Portland" } })
    );
}

const PRESCRIPTION_RULES: &[Row] = &[
    Row {
        rule: "quantity is greater than zero",
        breaks: |i| i["dispenseQuantity"] = json!(0),
        code: "INVALID_INPUT",
        field: "dispenseQuantity",
    },
    Row {
        rule: "quantity is not negative",
        breaks: |i| i["dispenseQuantity"] = json!(-5),
        code: "INVALID_INPUT",
        field: "dispenseQuantity",
    },
    Row {
        rule: "dispense unit is required",
        breaks: |i| i["dispenseUnit"] = json!(""),
        code: "INVALID_INPUT",
        field: "dispenseUnit",
    },
    Row {
        rule: "fills allowed is at least one (0 refills)",
        breaks: |i| i["fillsAllowed"] = json!(0),
        code: "INVALID_INPUT",
        field: "fillsAllowed",
    },
    Row {
        rule: "fills allowed is at most twelve (11 refills)",
        breaks: |i| i["fillsAllowed"] = json!(13),
        code: "INVALID_INPUT",
        field: "fillsAllowed",
    },
    Row {
        rule: "days supply is at least one",
        breaks: |i| i["daysSupply"] = json!(0),
        code: "INVALID_INPUT",
        field: "daysSupply",
    },
    Row {
        rule: "days supply is at most 365",
        breaks: |i| i["daysSupply"] = json!(366),
        code: "INVALID_INPUT",
        field: "daysSupply",
    },
    Row {
        rule: "instructions are required",
        breaks: |i| i["instructions"] = json!("   "),
        code: "INVALID_INPUT",
        field: "instructions",
    },
    Row {
        rule: "effective date is a real date",
        breaks: |i| i["effectiveDate"] = json!("2025-13-01"),
        code: "INVALID_INPUT",
        field: "effectiveDate",
    },
    Row {
        rule: "treatment is in the catalog",
        breaks: |i| i["treatmentId"] = json!("med_unobtainium"),
        code: "NOT_FOUND",
        field: "treatmentId",
    },
    Row {
        rule: "patient exists in the organization",
        breaks: |i| i["patientId"] = json!("pat_nope"),
        code: "NOT_FOUND",
        field: "patientId",
    },
];

#[tokio::test]
async fn each_prescription_rule_rejects_its_field_and_stores_nothing() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;

    let valid = prescription_input(&patient, None);
    let wrong = mismatches(
        &sandbox,
        &tokens.machine,
        &create_prescription_doc(),
        &valid,
        PRESCRIPTION_RULES,
    )
    .await;

    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let list = gql(
        &sandbox,
        &tokens.machine,
        "{ prescriptions { nodes { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(list.data()["prescriptions"]["nodes"], json!([]));
}

#[tokio::test]
async fn the_bounds_of_fills_and_days_supply_are_accepted() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;

    for (fills, days) in [(1, 1), (12, 365)] {
        let mut input = prescription_input(&patient, None);
        input["fillsAllowed"] = json!(fills);
        input["daysSupply"] = json!(days);
        let result = mutate(
            &sandbox,
            &tokens.machine,
            &create_prescription_doc(),
            json!({ "input": input }),
        )
        .await;
        assert_eq!(result["__typename"], "Prescription", "{result}");
    }
}

#[tokio::test]
async fn each_order_rule_rejects_its_field_and_stores_nothing() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let t = &tokens.machine;
    let patient = new_patient(&sandbox, t).await;
    let other_patient = new_patient(&sandbox, t).await;
    let rx = new_draft(&sandbox, t, &patient).await;
    let others_rx = new_draft(&sandbox, t, &other_patient).await;
    let canceled_rx = new_draft(&sandbox, t, &patient).await;
    mutate(
        &sandbox,
        t,
        &cancel_prescription_doc(),
        json!({ "id": canceled_rx }),
    )
    .await;
    let cases: [(&str, Value, &str, &str); 7] = [
        (
            "an order has at least one fill",
            order_input(&patient, &[], None),
            "INVALID_INPUT",
            "fills",
        ),
        (
            "a prescription appears once",
            order_input(&patient, &[&rx, &rx], None),
            "INVALID_INPUT",
            "fills[1].prescriptionId",
        ),
        (
            "every prescription is the patient's",
            order_input(&patient, &[&rx, &others_rx], None),
            "INVALID_INPUT",
            "fills[1].prescriptionId",
        ),
        (
            "no prescription is canceled",
            order_input(&patient, &[&canceled_rx], None),
            "INVALID_INPUT",
            "fills[0].prescriptionId",
        ),
        (
            "the pharmacy is known",
            order_input(&patient, &[&rx], Some("phr_nowhere")),
            "NOT_FOUND",
            "pharmacyId",
        ),
        (
            "the patient exists",
            order_input("pat_nope", &[&rx], None),
            "NOT_FOUND",
            "patientId",
        ),
        (
            "a delivery address is a US address",
            {
                let mut i = order_input(&patient, &[&rx], None);
                i["address"] = json!({ "street1": "1 A St", "city": "X", "state": "QQ", "postalCode": "97214" });
                i
            },
            "INVALID_INPUT",
            "address.state",
        ),
    ];

    for (rule, input, code, field) in cases {
        let result = mutate(&sandbox, t, &create_order_doc(), json!({ "input": input })).await;
        assert_eq!(
            (result["code"].as_str(), result["field"].as_str()),
            (Some(code), Some(field)),
            "{rule}: {result}"
        );
    }
    let list = gql(&sandbox, t, "{ orders { nodes { id } } }", json!({})).await;
    assert_eq!(list.data()["orders"]["nodes"], json!([]));
}

#[tokio::test]
async fn signing_an_unknown_prescription_is_not_found() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let result = mutate(
        &sandbox,
        &tokens.prescriber,
        &sign_prescription_doc(),
        json!({ "id": "rx_nope" }),
    )
    .await;

    assert_eq!(
        (result["code"].as_str(), result["field"].as_str()),
        (Some("NOT_FOUND"), Some("id"))
    );
}

#[tokio::test]
async fn sending_an_unknown_order_is_not_found() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;

    let result = mutate(
        &sandbox,
        &tokens.machine,
        &send_order_doc(),
        json!({ "id": "ord_nope" }),
    )
    .await;

    assert_eq!(
        (result["code"].as_str(), result["field"].as_str()),
        (Some("NOT_FOUND"), Some("id"))
    );
}
