//! A whole journey through the commands leaves nothing secret in the logs:
//! neither token nor the patient's name (own process: it installs the global
//! subscriber).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};

use rxdesk_lib::ipc::{Patient, Prescription};
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
    let patient: Patient = app.ok(
        "create_patient",
        json!({"input": {"firstName": "Zebediah", "lastName": "Quuxworth", "dateOfBirth": "1950-02-03",
                          "sex": "MALE", "email": "zeb@quux.example", "phone": null}}),
    );
    let meds: Vec<Value> = app.ok("search_medications", json!({"query": "am"}));
    let draft: Prescription = app.ok(
        "create_prescription",
        json!({"input": {"patientId": patient.id, "medicationId": meds[0]["id"], "dispenseQuantity": 10.0,
                          "dispenseUnit": "tablet", "refills": 0, "daysSupply": 10,
                          "instructions": "Take with water", "notes": null, "effectiveDate": null}}),
    );
    let _: Value = app.ok("sign_prescriptions", json!({"ids": [draft.id]}));
    let _: Value = app.ok(
        "search_patients",
        json!({"query": "Quuxworth", "after": null}),
    );
    let stored: Value = serde_json::from_str(&keyring.load(ENV_ID).unwrap().unwrap()).unwrap();
    let () = app.ok("sign_out", json!({}));

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("signed in"), "the journey was logged");
    for secret in [
        stored["at"].as_str().unwrap(),
        stored["rt"].as_str().unwrap(),
    ] {
        assert!(!logs.contains(secret), "a token reached the logs");
    }
    for private in ["Zebediah", "Quuxworth", "zeb@quux.example", "1950-02-03"] {
        assert!(!logs.contains(private), "{private} reached the logs");
    }
}
