//! Every whole-request refusal of the Network API mapped to its [`ClientError`]
//! variant, each made once. (A machine connection that never signs is in
//! `network.rs`; retries on a bad link in `bad_link.rs`.)

use crate::support;

use rxdesk_client::network::documents::*;
use rxdesk_client::network::{Network, Outcome};
use rxdesk_client::{ClientError, IdempotencyKey, Secret};
use support::*;

fn new_patient(first: &str) -> PatientInput {
    PatientInput {
        demographic: Some(PatientDemographicInput {
            name: Some(HumanNameInput {
                first: Some(first.into()),
                last: Some("Testpatient".into()),
                ..Default::default()
            }),
            date_of_birth: Some(Date("1971-04-02".into())),
            sex: Some(Sex::Female),
            phone: Some("+16175550123".into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn add_patient(network: &Network) -> String {
    match network.sync_patient(new_patient("Rosalind")).await.unwrap() {
        Outcome::Record {
            record: Some(p), ..
        } => p.id.into_inner(),
        other => panic!("not added: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn medical_operations_are_refused_signing_with_code_message_and_permission_once() {
    let sandbox = sandbox().await;
    let proxy = Proxy::start(sandbox.url()).await;
    let staff = machine_network(&client_for(sandbox.url()), maple_backend());
    let patient = add_patient(&staff).await;
    let draft = staff
        .draft_prescription(azithromycin_draft(&patient), &IdempotencyKey::new())
        .await
        .unwrap()
        .into_record()
        .unwrap();
    let session = sign_in(&client_for(sandbox.url()), MO, None).await;
    let medical_ops = proxy
        .client()
        .network_with_token(session.access_token().clone());
    let before = proxy.count("/graphql");

    let refused = medical_ops
        .sign_prescription(draft.id.inner(), &draft.signing.content_hash)
        .await
        .unwrap_err();

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
    assert_eq!(
        proxy.count("/graphql") - before,
        1,
        "a refusal is not retried"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_token_is_signed_out() {
    let sandbox = sandbox().await;

    let e = client_for(sandbox.url())
        .network_with_token(Secret::new(""))
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
    let network = client_for(sandbox.url()).network_with_token(Secret::new("eyJ.forged.token"));

    let e = network.ping().await.unwrap_err();

    assert!(
        matches!(&e, ClientError::SignedOut { code, .. } if code == "INVALID_AUTHORIZATION_HEADER"),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direction_override_in_an_input_is_invalid_naming_the_field_not_the_value() {
    let sandbox = sandbox().await;
    let network = machine_network(&client_for(sandbox.url()), maple_backend());

    let e = network
        .sync_patient(new_patient("Rosa\u{202E}lind"))
        .await
        .unwrap_err();

    assert!(
        matches!(&e, ClientError::Invalid { code, field: Some(f), .. }
            if code == "INVALID_INPUT" && f.contains("demographic.name.first")),
        "{e:?}"
    );
    assert!(!e.to_string().contains("Rosa"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_organizations_patient_reads_as_an_unknown_id() {
    let sandbox = sandbox().await;
    let client = client_for(sandbox.url());
    let patient = add_patient(&machine_network(&client, maple_backend())).await;

    let got = machine_network(&client, birch_backend())
        .get_patient(&patient)
        .await
        .unwrap();

    assert!(got.record().is_none(), "{got:?}");
    assert!(
        got.unapplied()
            .iter()
            .any(|c| c.key == "id" && c.status == ChangeStatus::Rejected),
        "{got:?}"
    );
}
