//! Receiving webhooks (`rxdesk_client::webhooks`): a request signed with the
//! subscription's secret (here by `ring`, another HMAC implementation than the
//! client's) is believed and read into its typed event; a tampered body, another
//! secret, a stale or future timestamp, an event older than the window (a replay
//! with a fresh timestamp), an empty secret and missing headers are refused; seen
//! ids kept on disk survive a restart; every documented event type parses; and
//! what the sandbox actually sends verifies.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rxdesk_client::webhooks::{
    Deduplicator, EmptySecret, EventData, FulfillmentState, FulfillmentType, Verifier, WebhookError,
};
use serde_json::{Value, json};

const SECRET: &str = "whsec-clinic-31b9";

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// The hex HMAC-SHA256 of `body` under `secret`, by `ring`.
fn ring_signature(secret: &str, body: &[u8]) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    hex::encode(ring::hmac::sign(&key, body).as_ref())
}

/// An envelope of `kind` around `data`, in the documented shape, that
/// happened now.
fn event(kind: &str, subject: &str, data: Value) -> Vec<u8> {
    event_at(kind, subject, data, time::OffsetDateTime::now_utc())
}

/// An envelope of `kind` around `data` that happened at `happened`.
fn event_at(kind: &str, subject: &str, data: Value, happened: time::OffsetDateTime) -> Vec<u8> {
    let happened = happened
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    json!({
        "id": "01JD3W9K6Q7C3V2Q8F6T4B5N1M",
        "type": kind,
        "specversion": "1.0",
        "datacontenttype": "application/json",
        "time": happened,
        "subject": subject,
        "source": "org:org_maple",
        "data": data
    })
    .to_string()
    .into_bytes()
}

fn verify(body: &[u8]) -> Result<rxdesk_client::webhooks::Event, WebhookError> {
    Verifier::new(SECRET).unwrap().verify_at(
        &ring_signature(SECRET, body),
        &now_ms().to_string(),
        body,
        SystemTime::now(),
    )
}

const PATIENT: &str = r#"{ "id": "pat_01JD3VZ2C4G8R5M7N9P1Q3S5T7", "externalId": null }"#;

fn patient() -> Value {
    serde_json::from_str(PATIENT).unwrap()
}

fn completed() -> Vec<u8> {
    event(
        "photon:order:completed",
        "ord_01JD3W1A2B3C4D5E6F7G8H9J0K",
        json!({ "id": "ord_01JD3W1A2B3C4D5E6F7G8H9J0K", "externalId": "clinic-77", "patient": patient() }),
    )
}

// ------------------------------------------------------------------ refusals

#[test]
fn a_request_signed_with_the_secret_is_believed() {
    let body = completed();

    let event = verify(&body).unwrap();

    assert_eq!(event.id, "01JD3W9K6Q7C3V2Q8F6T4B5N1M");
    assert_eq!(event.kind(), "photon:order:completed");
    assert_eq!(event.subject, "ord_01JD3W1A2B3C4D5E6F7G8H9J0K");
}

#[test]
fn a_tampered_body_is_refused() {
    let body = completed();
    let signature = ring_signature(SECRET, &body);
    let tampered = String::from_utf8(body)
        .unwrap()
        .replace("clinic-77", "clinic-78");

    let refused = Verifier::new(SECRET).unwrap().verify_at(
        &signature,
        &now_ms().to_string(),
        tampered.as_bytes(),
        SystemTime::now(),
    );

    assert_eq!(refused.unwrap_err(), WebhookError::BadSignature);
}

#[test]
fn a_request_signed_with_another_secret_is_refused() {
    let body = completed();

    let refused = Verifier::new(SECRET).unwrap().verify_at(
        &ring_signature("whsec-someone-else", &body),
        &now_ms().to_string(),
        &body,
        SystemTime::now(),
    );

    let error = refused.unwrap_err();
    assert_eq!(error, WebhookError::BadSignature);
    assert_eq!(error.status(), 401);
}

#[test]
fn a_stale_timestamp_is_refused() {
    let body = completed();
    let ten_minutes_ago = now_ms() - 600_000;

    let refused = Verifier::new(SECRET)
        .unwrap()
        .with_tolerance(Duration::from_secs(300))
        .verify_at(
            &ring_signature(SECRET, &body),
            &ten_minutes_ago.to_string(),
            &body,
            SystemTime::now(),
        );

    assert!(
        matches!(
            refused,
            Err(WebhookError::StaleTimestamp {
                in_future: false,
                ..
            })
        ),
        "{refused:?}"
    );
}

#[test]
fn a_timestamp_ahead_of_the_clock_beyond_the_tolerance_is_refused() {
    let body = completed();
    let in_ten_minutes = now_ms() + 600_000;

    let refused = Verifier::new(SECRET).unwrap().verify_at(
        &ring_signature(SECRET, &body),
        &in_ten_minutes.to_string(),
        &body,
        SystemTime::now(),
    );

    assert!(
        matches!(
            refused,
            Err(WebhookError::StaleTimestamp {
                in_future: true,
                ..
            })
        ),
        "{refused:?}"
    );
}

#[test]
fn a_timestamp_within_the_tolerance_is_accepted() {
    let body = completed();
    let a_minute_ago = now_ms() - 60_000;

    let accepted = Verifier::new(SECRET)
        .unwrap()
        .with_tolerance(Duration::from_secs(120))
        .verify_at(
            &ring_signature(SECRET, &body),
            &a_minute_ago.to_string(),
            &body,
            SystemTime::now(),
        );

    assert!(accepted.is_ok(), "{accepted:?}");
}

#[test]
fn a_request_without_the_network_s_headers_is_refused() {
    let body = completed();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        "x-photon-signature",
        ring_signature(SECRET, &body).parse().unwrap(),
    );

    let refused = Verifier::new(SECRET).unwrap().verify(&headers, &body);

    assert_eq!(
        refused.unwrap_err(),
        WebhookError::MissingHeader("x-photon-timestamp")
    );
}

#[test]
fn a_signature_that_is_not_hex_is_refused() {
    let body = completed();

    let refused = Verifier::new(SECRET).unwrap().verify_at(
        "not-hex",
        &now_ms().to_string(),
        &body,
        SystemTime::now(),
    );

    assert_eq!(refused.unwrap_err(), WebhookError::MalformedSignature);
}

#[test]
fn a_replayed_capture_with_a_fresh_timestamp_but_an_old_event_time_is_refused() {
    // Captured four days ago; the timestamp header is not signed, so the
    // replay carries a fresh one.
    let four_days_ago = time::OffsetDateTime::now_utc() - time::Duration::days(4);
    let body = event_at(
        "photon:order:completed",
        ORDER,
        order_data(json!({})),
        four_days_ago,
    );

    let refused = Verifier::new(SECRET).unwrap().verify_at(
        &ring_signature(SECRET, &body),
        &now_ms().to_string(),
        &body,
        SystemTime::now(),
    );

    let error = refused.unwrap_err();
    assert!(
        matches!(
            error,
            WebhookError::StaleEvent {
                in_future: false,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.status(), 401);
}

#[test]
fn an_event_retried_a_day_after_it_happened_is_still_believed() {
    let yesterday = time::OffsetDateTime::now_utc() - time::Duration::days(1);
    let body = event_at(
        "photon:order:completed",
        ORDER,
        order_data(json!({})),
        yesterday,
    );

    let accepted = verify(&body);

    assert!(accepted.is_ok(), "{accepted:?}");
}

#[test]
fn a_verifier_refuses_an_empty_secret() {
    assert_eq!(Verifier::new("").unwrap_err(), EmptySecret);
    assert_eq!(Verifier::new("  ").unwrap_err(), EmptySecret);
}

#[test]
fn seen_ids_survive_a_restart_of_the_receivers_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.ids");
    let mut seen = Deduplicator::open(&path, 100).unwrap();
    assert!(seen.first_time("01JD3W9K6Q7C3V2Q8F6T4B5N1M").unwrap());
    drop(seen);

    let mut restarted = Deduplicator::open(&path, 100).unwrap();

    assert!(!restarted.first_time("01JD3W9K6Q7C3V2Q8F6T4B5N1M").unwrap());
    assert!(restarted.first_time("01JD3W9K6Q7C3V2Q8F6T4B5N2N").unwrap());
}

#[test]
fn the_seen_ids_file_stays_bounded_and_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.ids");
    let mut seen = Deduplicator::open(&path, 3).unwrap();
    for n in 0..20 {
        assert!(seen.first_time(&format!("id-{n}")).unwrap());
    }
    let lines = std::fs::read_to_string(&path).unwrap().lines().count();
    assert!(lines <= 6, "{lines} lines for a capacity of 3");
    drop(seen);

    let mut restarted = Deduplicator::open(&path, 3).unwrap();

    assert_eq!(restarted.len(), 3);
    assert!(!restarted.first_time("id-19").unwrap());
    assert!(
        restarted.first_time("id-0").unwrap(),
        "the oldest is forgotten"
    );
}

#[test]
fn a_seen_ids_file_cut_short_mid_write_loses_only_the_cut_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.ids");
    std::fs::write(&path, "01A\n01B\n01C-cut-sho").unwrap();

    let mut seen = Deduplicator::open(&path, 10).unwrap();

    assert!(!seen.first_time("01B").unwrap());
    assert!(seen.first_time("01C").unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "01A\n01B\n01C\n");
}

#[test]
fn a_signed_body_that_is_not_an_event_is_a_400() {
    let body = br#"{"hello":"world"}"#;

    let refused = verify(body).unwrap_err();

    assert!(
        matches!(refused, WebhookError::MalformedEvent(_)),
        "{refused:?}"
    );
    assert_eq!(refused.status(), 400);
}

// ------------------------------------------------------------------ each type

const ORDER: &str = "ord_01JD3W1A2B3C4D5E6F7G8H9J0K";
const RX: &str = "rx_01JD3VX8Y6W4V2T0R8P6N4M2K0";

fn order_data(extra: Value) -> Value {
    let mut data = json!({ "id": ORDER, "externalId": "clinic-77", "patient": patient() });
    data.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    data
}

fn pharmacy() -> Value {
    json!({
        "id": "phr_01JD3W0000PHARMACY000000001",
        "name": "Harbor Drug Downtown",
        "phone": "+16175550142",
        "address": { "street1": "100 Atlantic Avenue", "street2": null, "city": "Boston", "state": "MA", "postalCode": "02110" }
    })
}

#[test]
fn order_created_parses_with_its_fills() {
    let body = event(
        "photon:order:created",
        ORDER,
        order_data(json!({
            "pharmacyId": null,
            "fills": [{ "id": "fil_01JD3W2B", "prescription": { "id": RX, "externalId": "rx-9" } }]
        })),
    );

    let EventData::OrderCreated(created) = verify(&body).unwrap().data else {
        panic!("not order:created");
    };

    assert_eq!(created.pharmacy_id, None);
    assert_eq!(created.fills[0].prescription.id, RX);
    assert_eq!(
        created.fills[0].prescription.external_id.as_deref(),
        Some("rx-9")
    );
    assert_eq!(created.external_id.as_deref(), Some("clinic-77"));
}

#[test]
fn order_placed_and_rerouted_parse_with_the_pharmacy() {
    for kind in ["photon:order:placed", "photon:order:rerouted"] {
        let body = event(kind, ORDER, order_data(json!({ "pharmacy": pharmacy() })));

        let data = verify(&body).unwrap().data;

        let at = match data {
            EventData::OrderPlaced(at) | EventData::OrderRerouted(at) => at,
            other => panic!("{kind}: {other:?}"),
        };
        assert_eq!(at.pharmacy.name, "Harbor Drug Downtown");
        assert_eq!(
            at.pharmacy.address.unwrap().postal_code.as_deref(),
            Some("02110")
        );
    }
}

#[test]
fn order_fulfillment_parses_with_its_state_and_tracking() {
    let body = event(
        "photon:order:fulfillment",
        ORDER,
        order_data(json!({
            "fulfillment": { "type": "MAIL_ORDER", "state": "SHIPPED", "carrier": "USPS", "trackingNumber": "9400111202555842761013" }
        })),
    );

    let EventData::OrderFulfillment(step) = verify(&body).unwrap().data else {
        panic!("not order:fulfillment");
    };

    assert_eq!(step.fulfillment.kind, FulfillmentType::MailOrder);
    assert_eq!(step.fulfillment.state, FulfillmentState::Shipped);
    assert_eq!(step.fulfillment.carrier.as_deref(), Some("USPS"));
    assert!(step.fulfillment.tracking_number.is_some());
}

#[test]
fn order_error_parses_with_its_reason() {
    let body = event(
        "photon:order:error",
        ORDER,
        order_data(json!({ "reason": "The pharmacy cannot reach the patient's insurer" })),
    );

    let EventData::OrderError(error) = verify(&body).unwrap().data else {
        panic!("not order:error");
    };

    assert_eq!(
        error.reason,
        "The pharmacy cannot reach the patient's insurer"
    );
}

#[test]
fn order_completed_and_canceled_parse() {
    for kind in ["photon:order:completed", "photon:order:canceled"] {
        let body = event(kind, ORDER, order_data(json!({})));

        let data = verify(&body).unwrap().data;

        let record = match data {
            EventData::OrderCompleted(r) | EventData::OrderCanceled(r) => r,
            other => panic!("{kind}: {other:?}"),
        };
        assert_eq!(record.id, ORDER);
        assert_eq!(record.patient.id, "pat_01JD3VZ2C4G8R5M7N9P1Q3S5T7");
    }
}

#[test]
fn prescription_created_parses_with_its_documented_fields() {
    let body = event(
        "photon:prescription:created",
        RX,
        json!({
            "id": RX,
            "externalId": "rx-9",
            "treatmentId": "med_lisinopril_10_tab",
            "prescriberId": "usr_5d2e8c1a9b7f3e60",
            "instructions": "Take 1 tablet by mouth once daily",
            "notes": "",
            "dispenseQuantity": 90,
            "dispenseUnit": "Tablet",
            "dispenseAsWritten": false,
            "fillsAllowed": 2,
            "refillsAllowed": 1,
            "daysSupply": 90,
            "effectiveDate": "2026-11-24",
            "expirationDate": "2027-11-24",
            "patient": patient()
        }),
    );

    let EventData::PrescriptionCreated(created) = verify(&body).unwrap().data else {
        panic!("not prescription:created");
    };

    assert_eq!(created.treatment_id, "med_lisinopril_10_tab");
    assert_eq!(created.fills_allowed, Some(2));
    assert_eq!(created.refills_allowed, Some(1));
    assert_eq!(created.dispense_quantity, Some(90.0));
    assert_eq!(created.expiration_date.as_deref(), Some("2027-11-24"));
    let shown = format!("{created:?}");
    assert!(
        !shown.contains("Take 1 tablet"),
        "the sig is not printed: {shown}"
    );
}

#[test]
fn prescription_depleted_active_and_canceled_parse() {
    for kind in [
        "photon:prescription:depleted",
        "photon:prescription:active",
        "photon:prescription:canceled",
    ] {
        let body = event(
            kind,
            RX,
            json!({ "id": RX, "externalId": null, "patient": patient() }),
        );

        let event = verify(&body).unwrap();

        assert_eq!(event.kind(), kind);
        let record = match event.data {
            EventData::PrescriptionDepleted(r)
            | EventData::PrescriptionActive(r)
            | EventData::PrescriptionCanceled(r) => r,
            other => panic!("{kind}: {other:?}"),
        };
        assert_eq!(record.id, RX);
    }
}

#[test]
fn a_type_this_version_does_not_know_is_kept_whole() {
    let body = event(
        "photon:order:teleported",
        ORDER,
        json!({ "id": ORDER, "where": "the moon" }),
    );

    let data = verify(&body).unwrap().data;

    assert_eq!(
        data,
        EventData::Other {
            kind: "photon:order:teleported".to_owned(),
            data: json!({ "id": ORDER, "where": "the moon" }),
        }
    );
}

// ------------------------------------------------------------------ the sandbox's own

#[tokio::test]
async fn what_the_sandbox_sends_verifies_and_parses() {
    use axum::body::Bytes;
    use axum::http::HeaderMap;

    type Seen = Arc<Mutex<Vec<Result<String, WebhookError>>>>;
    let seen: Seen = Arc::default();
    let verifier = Verifier::new(SECRET).unwrap();
    let app = axum::Router::new().route(
        "/webhooks",
        axum::routing::post({
            let seen = Arc::clone(&seen);
            move |headers: HeaderMap, body: Bytes| async move {
                let verified = verifier
                    .verify(&headers, &body)
                    .map(|e| e.kind().to_owned());
                seen.lock().unwrap().push(verified);
                axum::http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/webhooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let sandbox = rxdesk_sandbox::Sandbox::start(rxdesk_sandbox::Config {
        after_send: rxdesk_sandbox::AfterSendFlags {
            webhooks: vec![("org_maple".to_owned(), url)],
            webhook_secret: Some(rxdesk_sandbox::webhooks::WebhookSecret::new(SECRET)),
            ..Default::default()
        },
        ..rxdesk_sandbox::Config::in_memory()
    })
    .await
    .unwrap();

    sign_a_prescription(&sandbox).await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.lock().unwrap().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "no webhook arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first = seen.lock().unwrap()[0].clone();
    assert_eq!(first, Ok("photon:prescription:created".to_owned()));
}

/// Ada (a prescriber at Maple) signs a fresh draft, through the client's own
/// Network API calls.
async fn sign_a_prescription(sandbox: &rxdesk_sandbox::Sandbox) {
    use rxdesk_client::IdempotencyKey;
    use rxdesk_client::network::documents::*;
    let client = support::client_for(sandbox.url());
    let session = support::sign_in(&client, support::ADA, Some(support::MAPLE)).await;
    let network = client.network(&session);
    let patient = network
        .sync_patient(PatientInput {
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some("Wren".into()),
                    last: Some("Alvarez".into()),
                    ..Default::default()
                }),
                date_of_birth: Some(Date("1979-05-05".into())),
                sex: Some(Sex::Female),
                phone: Some("+16175550111".into()),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_record()
        .expect("a patient");
    let draft = network
        .draft_prescription(
            support::azithromycin_draft(patient.id.inner()),
            &IdempotencyKey::new(),
        )
        .await
        .unwrap()
        .into_record()
        .expect("a draft");
    network
        .sign_prescription(draft.id.inner(), &draft.signing.content_hash)
        .await
        .unwrap();
}
