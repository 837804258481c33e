//! A whole journey through the commands (add a patient, an allergy, a drug
//! look-up, a draft, signing, an order sent, a search, the work lists) leaves
//! nothing secret in the logs: neither token nor any of the patient's fields
//! (own process: it installs the global subscriber).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};

use rxdesk_lib::ipc::{OrderOutcome, PatientOutcome, PrescriptionOutcome, SignResult};
use serde_json::{Value, json};
use support::*;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_full_journey_logs_neither_tokens_nor_patient_names() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_env_filter("trace,hyper=off,h2=off,reqwest=off,tao=off,wry=off")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let sandbox = sandbox();
    let keyring = mock_keyring();
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    app.sign_in_as(ADA);
    let outcome: PatientOutcome = app.ok(
        "save_patient",
        json!({"id": null, "input": {"firstName": "Zebediah", "lastName": "Quuxworth", "dateOfBirth": "1950-02-03",
                                     "sex": "MALE", "email": "zeb@quux.example", "phone": "+16175550177"}}),
    );
    let PatientOutcome::Saved { patient, .. } = outcome else {
        panic!("not added: {outcome:?}");
    };
    let _: PatientOutcome = app.ok(
        "edit_clinical",
        json!({"id": patient.id, "edit": {"addAllergies": [{"name": "Penicillins", "id": null, "status": null}],
                                          "removeAllergies": [], "noKnownAllergies": false, "addMedications": [],
                                          "removeMedications": [], "addDiagnoses": [], "removeDiagnoses": []}}),
    );
    let drugs: Vec<Value> = app.ok("look_up_drug", json!({"query": "lisinopril"}));
    assert!(!drugs.is_empty());
    let drafted: PrescriptionOutcome = app.ok(
        "save_draft",
        json!({"patientId": patient.id, "id": null, "key": "01JLOGSDRAFT0000000000000A",
               "form": {"templateId": "tmpl_maple_lisinopril_10_daily", "instructions": "Take with water"}}),
    );
    let PrescriptionOutcome::Saved { prescription, .. } = drafted else {
        panic!("no draft: {drafted:?}");
    };
    let signed: Vec<SignResult> = app.ok(
        "sign_prescriptions",
        json!({"items": [{"id": prescription.id, "contentHash": prescription.content_hash}]}),
    );
    assert!(matches!(signed[0], SignResult::Signed { .. }), "{signed:?}");
    let order: OrderOutcome = app.ok(
        "draft_order",
        json!({"patientId": patient.id, "prescriptionIds": [prescription.id], "key": "01JLOGSORDER0000000000000A"}),
    );
    let OrderOutcome::Saved { order, .. } = order else {
        panic!("no order: {order:?}");
    };
    let _: OrderOutcome = app.ok("send_order", json!({"id": order.id}));
    let _: Value = app.ok("find_patients", json!({"query": "Zebediah Quuxworth"}));
    let _: Value = app.ok("work_lists", json!({}));
    let stored: Value = stored_session(&keyring).unwrap();
    let _: rxdesk_lib::ipc::SignOutSummary = app.ok("sign_out", json!({}));

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
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
