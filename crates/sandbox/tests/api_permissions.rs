//! The contract's permission table, cell by cell: {prescriber, medical operations,
//! machine, a custom role} × every operation of the API → the record, or the
//! refusal with its code and the permission it names. Then the rules around it:
//! the permission check comes before any lookup, and a refusal repeats itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api_support;
mod support;

use api_support::*;
use rxdesk_sandbox::Sandbox;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Actor {
    Prescriber,
    MedicalOps,
    Machine,
    /// Custom role `front_desk`: read:patient, write:patient, read:order.
    FrontDesk,
}

const ACTORS: [Actor; 4] = [
    Actor::Prescriber,
    Actor::MedicalOps,
    Actor::Machine,
    Actor::FrontDesk,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ping,
    Me,
    Patients,
    Patient,
    Prescriptions,
    Prescription,
    Orders,
    Order,
    Medications,
    Pharmacies,
    CreatePatient,
    UpdatePatient,
    CreatePrescription,
    SignPrescription,
    SignPrescriptions,
    CancelDraftPrescription,
    CancelSignedPrescription,
    CreateOrder,
    SendOrder,
    CancelDraftOrder,
    CancelSentOrder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The query answers, or the mutation returns this record type.
    Ok,
    /// Refused with this code, naming this permission.
    Refused(&'static str, &'static str),
}

use Expect::{Ok as Y, Refused as N};

const READ_RX: Expect = N("PRESCRIPTION_READ_UNAUTHORIZED", "read:prescription");
const SIGN: Expect = N("PRESCRIPTION_SIGNING_UNAUTHORIZED", "write:prescription");

/// One row per operation: expectations for prescriber, medical ops, machine, front desk.
const TABLE: &[(Op, [Expect; 4])] = &[
    (Op::Ping, [Y, Y, Y, Y]),
    (Op::Me, [Y, Y, Y, Y]),
    (Op::Patients, [Y, Y, Y, Y]),
    (Op::Patient, [Y, Y, Y, Y]),
    (Op::Prescriptions, [Y, Y, Y, READ_RX]),
    (Op::Prescription, [Y, Y, Y, READ_RX]),
    (Op::Orders, [Y, Y, Y, Y]),
    (Op::Order, [Y, Y, Y, Y]),
    (Op::Medications, [Y, Y, Y, READ_RX]),
    (Op::Pharmacies, [Y, Y, Y, Y]),
    (Op::CreatePatient, [Y, Y, Y, Y]),
    (Op::UpdatePatient, [Y, Y, Y, Y]),
    (
        Op::CreatePrescription,
        [
            Y,
            Y,
            Y,
            N("PRESCRIPTION_DRAFTING_UNAUTHORIZED", "read:prescription"),
        ],
    ),
    (Op::SignPrescription, [Y, SIGN, SIGN, SIGN]),
    (Op::SignPrescriptions, [Y, SIGN, SIGN, SIGN]),
    (
        Op::CancelDraftPrescription,
        [
            Y,
            Y,
            Y,
            N("PRESCRIPTION_CANCELING_UNAUTHORIZED", "read:prescription"),
        ],
    ),
    (
        Op::CancelSignedPrescription,
        [
            Y,
            N("PRESCRIPTION_CANCELING_UNAUTHORIZED", "write:prescription"),
            N("PRESCRIPTION_CANCELING_UNAUTHORIZED", "write:prescription"),
            N("PRESCRIPTION_CANCELING_UNAUTHORIZED", "read:prescription"),
        ],
    ),
    (Op::CreateOrder, [Y, Y, Y, Y]),
    (
        Op::SendOrder,
        [Y, Y, Y, N("ORDER_SENDING_UNAUTHORIZED", "write:order")],
    ),
    (Op::CancelDraftOrder, [Y, Y, Y, Y]),
    (
        Op::CancelSentOrder,
        [Y, Y, Y, N("ORDER_CANCELING_UNAUTHORIZED", "write:order")],
    ),
];

struct Tokens {
    prescriber: String,
    medical_ops: String,
    machine: String,
    front_desk: String,
}

impl Tokens {
    fn of(&self, actor: Actor) -> &str {
        match actor {
            Actor::Prescriber => &self.prescriber,
            Actor::MedicalOps => &self.medical_ops,
            Actor::Machine => &self.machine,
            Actor::FrontDesk => &self.front_desk,
        }
    }
}

/// Fresh records for one cell, made by the prescriber (who may do everything).
struct Records {
    patient: String,
    draft: String,
    signed: String,
    draft_order: String,
    sent_order: String,
}

async fn records(sandbox: &Sandbox, admin: &str) -> Records {
    let patient = new_patient(sandbox, admin).await;
    let draft = new_draft(sandbox, admin, &patient).await;
    let signed = new_draft(sandbox, admin, &patient).await;
    sign(sandbox, admin, &signed).await;
    let draft_order = new_order(sandbox, admin, &patient, &[&signed]).await;
    let sent_order = new_order(sandbox, admin, &patient, &[&signed]).await;
    send(sandbox, admin, &sent_order).await;
    Records {
        patient,
        draft,
        signed,
        draft_order,
        sent_order,
    }
}

/// The document, its variables, and the record type a success returns (None for queries).
fn request(op: Op, r: &Records) -> (String, Value, Option<&'static str>) {
    let q = |s: &str| (s.to_owned(), json!({}), None);
    match op {
        Op::Ping => q("{ ping }"),
        Op::Me => q("{ me { kind id } }"),
        Op::Patients => q("{ patients { nodes { id } } }"),
        Op::Patient => (
            "query($id: ID!) { patient(id: $id) { id } }".into(),
            json!({ "id": r.patient }),
            None,
        ),
        Op::Prescriptions => q("{ prescriptions { nodes { id } } }"),
        Op::Prescription => (
            "query($id: ID!) { prescription(id: $id) { id } }".into(),
            json!({ "id": r.draft }),
            None,
        ),
        Op::Orders => q("{ orders { nodes { id } } }"),
        Op::Order => (
            "query($id: ID!) { order(id: $id) { id } }".into(),
            json!({ "id": r.draft_order }),
            None,
        ),
        Op::Medications => q("{ medications(filter: { name: \"amox\" }) { id } }"),
        Op::Pharmacies => q("{ pharmacies(name: \"maple\") { id } }"),
        Op::CreatePatient => (
            create_patient_doc(),
            json!({ "input": patient_input(None) }),
            Some("Patient"),
        ),
        Op::UpdatePatient => (
            update_patient_doc(),
            json!({ "id": r.patient, "input": { "phone": "503-555-0100" } }),
            Some("Patient"),
        ),
        Op::CreatePrescription => (
            create_prescription_doc(),
            json!({ "input": prescription_input(&r.patient, None) }),
            Some("Prescription"),
        ),
        Op::SignPrescription => (
            sign_prescription_doc(),
            json!({ "id": r.draft }),
            Some("Prescription"),
        ),
        Op::SignPrescriptions => (
            sign_prescriptions_doc(),
            json!({ "ids": [r.draft] }),
            Some("Prescription"),
        ),
        Op::CancelDraftPrescription => (
            cancel_prescription_doc(),
            json!({ "id": r.draft }),
            Some("Prescription"),
        ),
        Op::CancelSignedPrescription => (
            cancel_prescription_doc(),
            json!({ "id": r.signed }),
            Some("Prescription"),
        ),
        Op::CreateOrder => (
            create_order_doc(),
            json!({ "input": order_input(&r.patient, &[&r.signed], None) }),
            Some("Order"),
        ),
        Op::SendOrder => (
            send_order_doc(),
            json!({ "id": r.draft_order }),
            Some("Order"),
        ),
        Op::CancelDraftOrder => (
            cancel_order_doc(),
            json!({ "id": r.draft_order }),
            Some("Order"),
        ),
        Op::CancelSentOrder => (
            cancel_order_doc(),
            json!({ "id": r.sent_order }),
            Some("Order"),
        ),
    }
}

/// Checks one cell; `Err` describes the mismatch.
fn check(reply: &Reply, record_type: Option<&str>, expect: Expect) -> Result<(), String> {
    let body = &reply.body;
    if reply.status != 200 {
        return Err(format!("HTTP {}: {body}", reply.status));
    }
    match record_type {
        None => match expect {
            Expect::Ok if body.get("errors").is_none() && !body["data"].is_null() => Ok(()),
            Expect::Refused(code, permission)
                if body["errors"][0]["extensions"]["code"] == code
                    && body["errors"][0]["extensions"]["requiredPermission"] == permission =>
            {
                Ok(())
            }
            _ => Err(format!("expected {expect:?}, got {body}")),
        },
        Some(typename) => {
            let data = body["data"]
                .as_object()
                .ok_or_else(|| format!("no data: {body}"))?;
            let result = data.values().next().unwrap();
            // signPrescriptions answers a list: one result per id.
            let result = result.as_array().map_or(result, |list| &list[0]);
            match expect {
                Expect::Ok if result["__typename"] == typename => Ok(()),
                Expect::Refused(code, permission)
                    if result["__typename"] == "UnauthorizedError"
                        && result["code"] == code
                        && result["requiredPermission"] == permission =>
                {
                    Ok(())
                }
                _ => Err(format!("expected {expect:?}, got {result}")),
            }
        }
    }
}

#[tokio::test]
async fn every_cell_of_the_permission_table_answers_as_the_contract_says() {
    let sandbox = start_custom().await;
    let (id, secret) = support::MAPLE_BACKEND;
    let pw = support::DEMO_PASSWORD;
    let tokens = Tokens {
        prescriber: support::user_token(&sandbox, support::ADA, pw, Some(support::MAPLE)).await,
        medical_ops: support::user_token(&sandbox, support::MO, pw, None).await,
        machine: support::machine_token(&sandbox, id, secret).await,
        front_desk: support::user_token(&sandbox, FRAN, pw, None).await,
    };

    let mut mismatches = Vec::new();
    for (op, expectations) in TABLE {
        for (actor, expect) in ACTORS.iter().zip(expectations) {
            let r = records(&sandbox, &tokens.prescriber).await;
            let (document, variables, record_type) = request(*op, &r);
            let reply = gql(&sandbox, tokens.of(*actor), &document, variables).await;
            if let Err(why) = check(&reply, record_type, *expect) {
                mismatches.push(format!("{op:?} as {actor:?}: {why}"));
            }
        }
    }

    assert!(
        mismatches.is_empty(),
        "cells that differ from the table:\n{}",
        mismatches.join("\n")
    );
}

#[tokio::test]
async fn a_machine_token_signing_is_refused_with_the_contracts_error() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;

    let result = mutate(
        &sandbox,
        &tokens.machine,
        &sign_prescription_doc(),
        json!({ "id": draft }),
    )
    .await;

    assert_eq!(result["__typename"], "UnauthorizedError");
    assert_eq!(result["code"], "PRESCRIPTION_SIGNING_UNAUTHORIZED");
    assert_eq!(result["requiredPermission"], "write:prescription");
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("not authorized to sign prescriptions")
    );
}

#[tokio::test]
async fn a_machine_token_signing_twice_gets_the_same_answer() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;
    let sign = |t: String| {
        let sandbox = &sandbox;
        let draft = draft.clone();
        async move {
            mutate(
                sandbox,
                &t,
                &sign_prescription_doc(),
                json!({ "id": draft }),
            )
            .await
        }
    };

    let first = sign(tokens.machine.clone()).await;
    let second = sign(tokens.machine.clone()).await;

    assert_eq!(first["code"], "PRESCRIPTION_SIGNING_UNAUTHORIZED");
    assert_eq!(first, second);
}

#[tokio::test]
async fn a_refused_signing_leaves_the_draft_a_draft() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;

    mutate(
        &sandbox,
        &tokens.medical_ops,
        &sign_prescription_doc(),
        json!({ "id": draft }),
    )
    .await;

    let reply = gql(
        &sandbox,
        &tokens.machine,
        "query($id: ID!) { prescription(id: $id) { state prescriber { id } writtenAt } }",
        json!({ "id": draft }),
    )
    .await;
    assert_eq!(
        reply.data()["prescription"],
        json!({ "state": "DRAFT", "prescriber": null, "writtenAt": null })
    );
}

#[tokio::test]
async fn the_permission_check_comes_before_the_lookup_so_unknown_ids_are_refused_the_same() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let draft = new_draft(&sandbox, &tokens.machine, &patient).await;

    let existing = mutate(
        &sandbox,
        &tokens.machine,
        &sign_prescription_doc(),
        json!({ "id": draft }),
    )
    .await;
    let unknown = mutate(
        &sandbox,
        &tokens.machine,
        &sign_prescription_doc(),
        json!({ "id": "rx_nope" }),
    )
    .await;

    assert_eq!(existing, unknown);
    assert_eq!(unknown["code"], "PRESCRIPTION_SIGNING_UNAUTHORIZED");
}

#[tokio::test]
async fn a_batch_signing_by_a_machine_refuses_every_id() {
    let sandbox = support::start_demo().await;
    let tokens = MapleTokens::get(&sandbox).await;
    let patient = new_patient(&sandbox, &tokens.machine).await;
    let a = new_draft(&sandbox, &tokens.machine, &patient).await;
    let b = new_draft(&sandbox, &tokens.machine, &patient).await;

    let results = mutate(
        &sandbox,
        &tokens.machine,
        &sign_prescriptions_doc(),
        json!({ "ids": [a, b] }),
    )
    .await;

    let results = results.as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|r| r["code"] == "PRESCRIPTION_SIGNING_UNAUTHORIZED")
    );
}

#[tokio::test]
async fn a_nested_patient_needs_read_patient_even_inside_a_readable_prescription() {
    let sandbox = start_custom().await;
    let pw = support::DEMO_PASSWORD;
    let admin = support::user_token(&sandbox, support::ADA, pw, Some(support::MAPLE)).await;
    let rx_viewer = support::user_token(&sandbox, RITA, pw, None).await;
    let patient = new_patient(&sandbox, &admin).await;
    let draft = new_draft(&sandbox, &admin, &patient).await;

    let reply = gql(
        &sandbox,
        &rx_viewer,
        "query($id: ID!) { prescription(id: $id) { id patient { name { full } } } }",
        json!({ "id": draft }),
    )
    .await;

    assert_eq!(reply.status, 200);
    assert!(
        reply.body["data"]["prescription"]["patient"].is_null(),
        "patient leaked: {}",
        reply.body
    );
    assert_eq!(reply.error_code(), "PATIENT_READ_UNAUTHORIZED");
    assert_eq!(
        reply.error()["extensions"]["requiredPermission"],
        "read:patient"
    );
}

#[tokio::test]
async fn a_query_without_its_read_permission_names_the_permission() {
    let sandbox = start_custom().await;
    let rx_viewer = support::user_token(&sandbox, RITA, support::DEMO_PASSWORD, None).await;

    let reply = gql(
        &sandbox,
        &rx_viewer,
        "{ orders { nodes { id } } }",
        json!({}),
    )
    .await;

    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["data"], serde_json::Value::Null);
    assert_eq!(reply.error_code(), "ORDER_READ_UNAUTHORIZED");
    assert_eq!(
        reply.error()["extensions"]["requiredPermission"],
        "read:order"
    );
    assert!(
        reply.error()["message"]
            .as_str()
            .unwrap()
            .contains("not authorized to read orders")
    );
}

#[tokio::test]
async fn a_patient_write_refusal_names_write_patient() {
    let sandbox = start_custom().await;
    let rx_viewer = support::user_token(&sandbox, RITA, support::DEMO_PASSWORD, None).await;

    let result = mutate(
        &sandbox,
        &rx_viewer,
        &create_patient_doc(),
        json!({ "input": patient_input(None) }),
    )
    .await;

    assert_eq!(result["__typename"], "UnauthorizedError");
    assert_eq!(result["code"], "PATIENT_WRITE_UNAUTHORIZED");
    assert_eq!(result["requiredPermission"], "write:patient");
}
