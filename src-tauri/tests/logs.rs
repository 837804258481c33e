//! A whole journey through the commands (add a patient, an allergy, a drug
//! look-up, a draft, signing, an order sent, a search, the work lists) leaves
//! nothing secret in the logs: neither token nor any of the patient's fields
//! (own process: it installs the global subscriber).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rxdesk_lib::ipc::{
    ClinicalEdit, DraftForm, EntryInput, OrderOutcome, PatientInput, PatientOutcome,
    PrescriptionOutcome, Sex, SignRequest, SignResult,
};
use support::*;

#[test]
fn a_full_journey_logs_neither_tokens_nor_patient_names() {
    let captured = CapturedLogs::default();
    captured.install_global("trace,hyper=off,h2=off,reqwest=off,tao=off,wry=off");

    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    let outcome: PatientOutcome = app.invoke_ok(args::save_patient {
        action: None,
        id: None,
        input: PatientInput {
            first_name: "Zebediah".into(),
            last_name: "Quuxworth".into(),
            date_of_birth: "1950-02-03".into(),
            sex: Some(Sex::Male),
            email: Some("zeb@quux.example".into()),
            phone: Some("+16175550177".into()),
            middle_name: None,
            gender: None,
            address: None,
            notes: None,
        },
    });
    let PatientOutcome::Saved { patient, .. } = outcome else {
        panic!("not added: {outcome:?}");
    };
    let _: PatientOutcome = app.invoke_ok(args::edit_clinical {
        action: None,
        id: patient.id.clone(),
        edit: ClinicalEdit {
            add_allergies: vec![EntryInput {
                name: Some("Penicillins".into()),
                id: None,
                status: None,
            }],
            ..Default::default()
        },
    });
    let drugs = app.invoke_ok(args::look_up_drug {
        action: None,
        query: "lisinopril".into(),
    });
    assert!(!drugs.is_empty());
    let drafted: PrescriptionOutcome = app.invoke_ok(args::save_draft {
        action: None,
        patient_id: patient.id.clone(),
        id: None,
        key: CreateKey("01JLOGSDRAFT0000000000000A".to_owned()),
        form: DraftForm {
            template_id: Some("tmpl_maple_lisinopril_10_daily".into()),
            instructions: Some("Take with water".into()),
            ..Default::default()
        },
    });
    let PrescriptionOutcome::Saved { prescription, .. } = drafted else {
        panic!("no draft: {drafted:?}");
    };
    let signed: Vec<SignResult> = app.invoke_ok(args::sign_prescriptions {
        action: None,
        items: vec![SignRequest {
            id: prescription.id.clone(),
            content_hash: prescription.content_hash.clone(),
        }],
    });
    assert!(matches!(signed[0], SignResult::Signed { .. }), "{signed:?}");
    let order: OrderOutcome = app.invoke_ok(args::draft_order {
        action: None,
        patient_id: patient.id.clone(),
        prescription_ids: vec![prescription.id.clone()],
        key: CreateKey("01JLOGSORDER0000000000000A".to_owned()),
    });
    let OrderOutcome::Saved { order, .. } = order else {
        panic!("no order: {order:?}");
    };
    let _: OrderOutcome = app.invoke_ok(args::send_order {
        action: None,
        id: order.id.clone(),
    });
    app.invoke_ok(args::find_patients {
        action: None,
        query: "Zebediah Quuxworth".into(),
    });
    app.invoke_ok(args::work_lists { action: None });
    let stored: serde_json::Value = stored_session(&keyring).unwrap();
    let _: rxdesk_lib::ipc::SignOutSummary = app.invoke_ok(args::sign_out {});

    let logs = captured.text();
    assert!(logs.contains("signed in"), "the journey was logged");
    for secret in [
        stored["at"].as_str().unwrap(),
        stored["rt"].as_str().unwrap(),
    ] {
        assert!(!logs.contains(secret), "a token reached the logs");
    }
    for private in [
        "Zebediah",
        "Quuxworth",
        "zeb@quux.example",
        "1950-02-03",
        "+16175550177",
        "Take with water",
    ] {
        assert!(!logs.contains(private), "{private} reached the logs");
    }
}
