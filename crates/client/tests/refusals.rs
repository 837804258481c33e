//! Every refusal shape of the network mapped to its [`ClientError`] variant, and
//! the retry policy: a refused call is made once; reads and creates carrying an
//! `externalId` are retried after server trouble, other writes are not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rxdesk_client::types::{
    NewOrder, NewPatient, NewPatientName, NewPrescription, PageRequest, Patient, PatientFilter,
    Prescription, Sex,
};
use rxdesk_client::{Api, ClientError, Secret};
use support::*;

fn new_patient(external_id: Option<&str>) -> NewPatient {
    NewPatient {
        external_id: external_id.map(str::to_owned),
        name: NewPatientName {
            first: "Rosalind".into(),
            middle: None,
            last: "Testpatient".into(),
        },
        date_of_birth: "1971-04-02".into(),
        sex: Sex::Female,
        gender: None,
        email: None,
        phone: None,
        address: None,
    }
}

async fn draft(api: &Api) -> (Patient, Prescription) {
    let patient = api.create_patient(&new_patient(None)).await.unwrap();
    let medication = api
        .medications("Lisinopril", Some(1))
        .await
        .unwrap()
        .remove(0);
    let prescription = api
        .create_prescription(&NewPrescription {
            external_id: None,
            patient_id: patient.id.clone(),
            treatment_id: medication.id,
            dispense_as_written: None,
            dispense_quantity: 30.0,
            dispense_unit: "tablet".into(),
            fills_allowed: 1,
            days_supply: 30,
            instructions: "1 tablet by mouth daily".into(),
            notes: None,
            effective_date: None,
        })
        .await
        .unwrap();
    (patient, prescription)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn machine_token_cannot_sign_and_the_refused_call_is_made_once() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = proxy.client().machine_api(maple_backend());
    let (_, prescription) = draft(&api).await;
    let before = proxy.count("/legacy/graphql");

    let refused = api.sign_prescription(&prescription.id).await.unwrap_err();

    let ClientError::Refused {
        code,
        message,
        required_permission,
    } = refused
    else {
        panic!("expected Refused, got {refused:?}");
    };
    assert_eq!(code, "PRESCRIPTION_SIGNING_UNAUTHORIZED");
    assert_eq!(required_permission.as_deref(), Some("write:prescription"));
    assert!(message.contains("sign"), "{message}");
    assert_eq!(proxy.count("/legacy/graphql") - before, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn medical_operations_cannot_sign() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let (_, prescription) = draft(&client.machine_api(maple_backend())).await;
    let session = sign_in(&client, MO, None).await;

    let refused = client
        .api(&session)
        .sign_prescription(&prescription.id)
        .await
        .unwrap_err();

    assert!(
        matches!(&refused, ClientError::Refused { code, required_permission: Some(p), .. }
            if code == "PRESCRIPTION_SIGNING_UNAUTHORIZED" && p == "write:prescription"),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_signed_out() {
    let sandbox = sandbox().await;

    let e = client_for(sandbox.url())
        .anonymous_api()
        .ping()
        .await
        .unwrap_err();

    assert!(
        matches!(&e, ClientError::SignedOut { code, .. } if code == "EMPTY_AUTHORIZATION_HEADER"),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_token_is_signed_out() {
    let sandbox = sandbox().await;
    let api = client_for(sandbox.url()).api_with_token(Secret::new("eyJ.forged.token"));

    let e = api.me().await.unwrap_err();

    assert!(
        matches!(&e, ClientError::SignedOut { code, .. } if code == "INVALID_AUTHORIZATION_HEADER"),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_input_names_the_field() {
    let sandbox = sandbox().await;
    let api = client_for(sandbox.url()).machine_api(maple_backend());
    let patient = NewPatient {
        date_of_birth: "not-a-date".into(),
        ..new_patient(None)
    };

    let e = api.create_patient(&patient).await.unwrap_err();

    assert!(
        matches!(&e, ClientError::Invalid { field: Some(f), .. } if f.contains("dateOfBirth")),
        "{e:?}"
    );
    assert!(!e.to_string().contains("Rosalind"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sending_an_order_with_unsigned_prescriptions_is_invalid() {
    let sandbox = sandbox().await;
    let api = client_for(sandbox.url()).machine_api(maple_backend());
    let (patient, prescription) = draft(&api).await;
    let order = api
        .create_order(&NewOrder {
            patient_id: patient.id,
            prescription_ids: vec![prescription.id],
            ..NewOrder::default()
        })
        .await
        .unwrap();

    let e = api.send_order(&order.id).await.unwrap_err();

    assert!(
        matches!(&e, ClientError::Invalid { code, .. } if code == "ORDER_HAS_UNSIGNED_PRESCRIPTIONS"),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_id_is_not_found() {
    let sandbox = sandbox().await;
    let api = client_for(sandbox.url()).machine_api(maple_backend());

    let read = api.patient("pat_does_not_exist").await.unwrap_err();
    let write = api.send_order("ord_does_not_exist").await.unwrap_err();

    assert!(matches!(read, ClientError::NotFound { .. }), "{read:?}");
    assert!(matches!(write, ClientError::NotFound { .. }), "{write:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_organizations_record_is_not_found() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let patient = client
        .machine_api(maple_backend())
        .create_patient(&new_patient(None))
        .await
        .unwrap();

    let e = client
        .machine_api(birch_backend())
        .patient(&patient.id)
        .await
        .unwrap_err();

    assert!(matches!(e, ClientError::NotFound { .. }), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_is_retried_after_server_trouble() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = proxy.client().machine_api(maple_backend());
    api.ping().await.unwrap();
    proxy.fail_next_graphql(2);
    let before = proxy.count("/legacy/graphql");

    let page = api
        .patients(&PatientFilter::default(), &PageRequest::default())
        .await;

    assert!(page.is_ok(), "{page:?}");
    assert_eq!(proxy.count("/legacy/graphql") - before, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_without_external_id_is_not_retried() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = proxy.client().machine_api(maple_backend());
    api.ping().await.unwrap();
    proxy.fail_next_graphql(1);
    let before = proxy.count("/legacy/graphql");

    let e = api.create_patient(&new_patient(None)).await.unwrap_err();

    assert!(
        matches!(
            e,
            ClientError::Server {
                status: Some(503),
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(proxy.count("/legacy/graphql") - before, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_with_external_id_is_retried_and_creates_once() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let api = proxy.client().machine_api(maple_backend());
    api.ping().await.unwrap();
    proxy.fail_next_graphql(1);
    let before = proxy.count("/legacy/graphql");

    let created = api.create_patient(&new_patient(Some("ext-retry-1"))).await;

    assert!(created.is_ok(), "{created:?}");
    assert_eq!(proxy.count("/legacy/graphql") - before, 2);
    let again = api
        .create_patient(&new_patient(Some("ext-retry-1")))
        .await
        .unwrap();
    assert_eq!(again.id, created.unwrap().id);
}
