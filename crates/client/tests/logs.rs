//! What the client logs during a whole journey on the Network API (sign-in with
//! its UserInfo request, patient, prescription, signing, order, sending, a
//! refusal, renewal, sign-out, machine calls): one span per operation with its
//! outcome and duration — and never a token or a patient field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rxdesk_client::IdempotencyKey;
use rxdesk_client::network::Outcome;
use rxdesk_client::network::documents::*;
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
    let network = client.network(&session);
    let added = network
        .sync_patient(PatientInput {
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some("Zebediah".into()),
                    last: Some("Quincetree".into()),
                    ..Default::default()
                }),
                date_of_birth: Some(Date("1966-07-19".into())),
                sex: Some(Sex::Male),
                email: Some("zq@example.org".into()),
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
    } = added
    else {
        panic!("not added")
    };
    let draft = network
        .draft_prescription(
            PrescriptionInput {
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
                    unit: Some("tablet".into()),
                    days_supply: Some(5),
                    ..Default::default()
                }),
                ..Default::default()
            },
            &IdempotencyKey::new(),
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();
    let machine = machine_network(&client, maple_backend());
    let refused = machine
        .sign_prescription(draft.id.inner(), &draft.signing.content_hash)
        .await;
    network
        .sign_prescription(draft.id.inner(), &draft.signing.content_hash)
        .await
        .unwrap();
    let order = network
        .draft_order(
            patient.id.inner(),
            &[draft.id.inner().to_owned()],
            &IdempotencyKey::new(),
        )
        .await
        .unwrap()
        .into_record()
        .unwrap();
    machine.send_order(order.id.inner()).await.unwrap();
    network.get_patient(patient.id.inner()).await.unwrap();
    let renewed = client.renew(&session).await.unwrap();
    let machine_token = client
        .machine_tokens(maple_backend())
        .token()
        .await
        .unwrap();
    let stored: serde_json::Value = serde_json::to_value(&renewed).unwrap();
    let refresh_token = stored["rt"].as_str().unwrap().to_owned();
    client.sign_out(renewed.clone()).await;

    let text = logs.text();
    assert!(refused.is_err(), "{refused:?}");
    assert!(
        text.contains("op=\"sync_patient\"") && text.contains("op=\"sign_prescription\""),
        "{text}"
    );
    assert!(text.contains("rxdesk.sign_in"), "{text}");
    assert!(text.contains("duration_ms"), "{text}");
    assert!(
        text.contains("outcome=\"refused\""),
        "the refused signing is logged with its outcome: {text}"
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
        "5035550177",
        "moonlit",
    ] {
        assert!(
            !text.contains(patient_field),
            "{patient_field} reached the logs"
        );
    }
}
