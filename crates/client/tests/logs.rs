//! What the client logs during a whole journey (sign-in, patient, prescription,
//! signing, order, sending, renewal, sign-out, machine calls): one span per
//! operation with its outcome and duration — and never a token or a patient field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rxdesk_client::types::{
    NewOrder, NewPatient, NewPatientName, NewPrescription, PatientFilter, Sex,
};
use support::*;

// Current-thread runtime: the capture is this thread's default subscriber, and
// every task of the journey runs here.
#[tokio::test]
async fn a_full_journey_logs_neither_tokens_nor_patient_data() {
    let logs = LogCapture::default();
    let _guard = logs.install();
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());

    let session = sign_in(&client, ADA, Some(MAPLE)).await;
    let api = client.api(&session);
    let patient = api
        .create_patient(&NewPatient {
            external_id: Some("journey-1".into()),
            name: NewPatientName {
                first: "Zebediah".into(),
                middle: None,
                last: "Quincetree".into(),
            },
            date_of_birth: "1966-07-19".into(),
            sex: Sex::Male,
            gender: None,
            email: Some("zq@example.org".into()),
            phone: Some("503-555-0199".into()),
            address: None,
        })
        .await
        .unwrap();
    let medication = api
        .medications("Amoxicillin", Some(5))
        .await
        .unwrap()
        .remove(0);
    let prescription = api
        .create_prescription(&NewPrescription {
            external_id: None,
            patient_id: patient.id.clone(),
            treatment_id: medication.id,
            dispense_as_written: Some(false),
            dispense_quantity: 21.0,
            dispense_unit: "capsule".into(),
            fills_allowed: 1,
            days_supply: 7,
            instructions: "Take one capsule three times daily".into(),
            notes: None,
            effective_date: None,
        })
        .await
        .unwrap();
    api.sign_prescription(&prescription.id).await.unwrap();
    let order = api
        .create_order(&NewOrder {
            patient_id: patient.id.clone(),
            prescription_ids: vec![prescription.id.clone()],
            ..NewOrder::default()
        })
        .await
        .unwrap();
    api.send_order(&order.id).await.unwrap();
    api.all_patients(&PatientFilter::default()).await.unwrap();
    api.patient(&patient.id).await.unwrap();
    let _ = api.patient("pat_missing").await;
    let renewed = client.renew(&session).await.unwrap();
    let machine = client.machine_api(maple_backend());
    machine.me().await.unwrap();
    let machine_token = client
        .machine_tokens(maple_backend())
        .token()
        .await
        .unwrap();
    let stored: serde_json::Value = serde_json::to_value(&renewed).unwrap();
    let refresh_token = stored["rt"].as_str().unwrap().to_owned();
    client.sign_out(renewed.clone()).await;

    let text = logs.text();
    assert!(text.contains("createPatient"), "{text}");
    assert!(text.contains("outcome"), "{text}");
    assert!(text.contains("duration_ms"), "{text}");
    assert!(
        text.contains("not_found"),
        "the failed read is logged with its outcome: {text}"
    );
    for secret in [
        session.access_token().expose(),
        renewed.access_token().expose(),
        machine_token.expose(),
        refresh_token.as_str(),
        "maple-backend-secret",
    ] {
        assert!(!text.contains(secret), "a token or secret reached the logs");
    }
    for patient_field in [
        "Zebediah",
        "Quincetree",
        "1966-07-19",
        "zq@example.org",
        "503-555-0199",
    ] {
        assert!(
            !text.contains(patient_field),
            "{patient_field} reached the logs"
        );
    }
}

#[tokio::test]
async fn network_api_calls_log_neither_tokens_nor_patient_data() {
    use rxdesk_client::network::Outcome;
    use rxdesk_client::network::documents::*;

    let logs = LogCapture::default();
    let _guard = logs.install();
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let session = sign_in(&client, ADA, Some(MAPLE)).await;
    let network = client.network(&session);

    let patient = network
        .sync_patient(PatientInput {
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some("Zebediah".into()),
                    last: Some("Quincetree".into()),
                    ..Default::default()
                }),
                date_of_birth: Some(Date("1966-07-19".into())),
                sex: Some(Sex::Male),
                phone: Some("+15035550177".into()),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let Outcome::Record {
        record: Some(patient),
        ..
    } = patient
    else {
        panic!("not added")
    };
    let draft = network
        .draft_prescription(PrescriptionInput {
            patient: Some(PatientReferenceInput {
                id: Some(patient.id.clone()),
            }),
            treatment: Some(TreatmentReferenceInput {
                id: Some(cynic::Id::new("med_azithromycin_250_tab")),
                ..Default::default()
            }),
            instructions: Some("Swallow with moonlit water".into()),
            dispense: Some(DispenseInput {
                quantity: Some(6.0),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_record()
        .unwrap();
    network
        .sign_prescription(draft.id.inner(), &draft.signing.content_hash)
        .await
        .unwrap();
    let text = logs.text();

    assert!(
        text.contains("op=\"sync_patient\"") && text.contains("op=\"sign_prescription\""),
        "{text}"
    );
    for secret in [
        session.access_token().expose(),
        "Zebediah",
        "Quincetree",
        "1966-07-19",
        "5035550177",
        "moonlit",
    ] {
        assert!(!text.contains(secret), "`{secret}` is in the logs");
    }
}
