//! Gets are served documents that earlier Gets read (the store's record cache);
//! on an on-disk sandbox, where the reads take their own connections, a Get
//! after any write — an update, a signature, a send, the simulated pharmacy's
//! step on the clock — shows what that write did.

use crate::after_send_support;
use crate::network_support;
use crate::support;

use after_send_support::advance;
use network_support::*;
use rxdesk_sandbox::{Config, FixtureSource, Sandbox, Storage};
use serde_json::json;

const LAKESIDE: &str = "phr_lakeside";

/// An on-disk sandbox on `network.toml` (the directory dropped with the first value).
async fn on_disk() -> (tempfile::TempDir, Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = support::start_with(Config {
        fixture: FixtureSource::File(fixture_path()),
        storage: Storage::Data(dir.path().to_owned()),
        ..Config::in_memory()
    })
    .await;
    (dir, sandbox)
}

/// Ada's token and a draft order of a signed prescription for a new patient.
async fn drafted_order(sb: &Sandbox) -> (String, String) {
    let ada = prescriber(sb).await;
    let patient = add_patient(sb, &ada, "Iris", "Okonkwo", "1975-03-02").await;
    let rx = signed(sb, &ada, &patient, METFORMIN).await;
    let order = draft_order(sb, &ada, &patient, &[&rx]).await;
    (ada, order)
}

fn allergies(patient: &serde_json::Value) -> usize {
    patient["clinical"]["allergies"]
        .as_array()
        .map_or(0, Vec::len)
}

#[tokio::test]
async fn a_get_after_an_update_shows_the_update() {
    let (_dir, sb) = on_disk().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", "1980-05-17").await;
    let before = get_patient(&sb, &ada, &patient).await;

    update_clinical(
        &sb,
        &ada,
        &patient,
        json!({ "allergies": { "add": [{ "id": ALG_PENICILLIN }] } }),
    )
    .await;
    let after = get_patient(&sb, &ada, &patient).await;

    assert_eq!(allergies(patient_of(&before)), 0, "{before:#}");
    assert_eq!(allergies(patient_of(&after)), 1, "{after:#}");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_get_after_signing_shows_the_prescription_signed() {
    let (_dir, sb) = on_disk().await;
    let ada = prescriber(&sb).await;
    let patient = add_patient(&sb, &ada, "Grace", "Hopper", "1980-05-17").await;
    let (rx, hash) = draft(&sb, &ada, &patient, METFORMIN).await;
    let before = get_prescription(&sb, &ada, &rx).await;

    sign_ok(&sb, &ada, &rx, &hash).await;
    let after = get_prescription(&sb, &ada, &rx).await;

    assert_ne!(prescription_of(&before)["signing"]["state"], "SIGNED");
    assert_eq!(
        prescription_of(&after)["signing"]["state"],
        "SIGNED",
        "{after:#}"
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn a_get_after_send_shows_the_order_sent() {
    let (_dir, sb) = on_disk().await;
    let (ada, order) = drafted_order(&sb).await;
    let before = get_order(&sb, &ada, &order).await;

    send_ok(&sb, &ada, &order).await;
    let after = get_order(&sb, &ada, &order).await;

    assert_eq!(order_of(&before)["state"], "DRAFT");
    assert_eq!(order_of(&after)["state"], "SUBMITTED", "{after:#}");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_get_after_the_pharmacys_step_shows_the_step() {
    let (_dir, sb) = on_disk().await;
    let (ada, order) = drafted_order(&sb).await;
    let at_lakeside = json!({ "id": order, "pharmacy": { "pharmacy": { "id": LAKESIDE } } });
    network_support::order(&sb, &ada, at_lakeside).await;
    send_ok(&sb, &ada, &order).await;
    let before = get_order(&sb, &ada, &order).await;

    // Lakeside is closed (the fixture's rule): the step reroutes the order.
    advance(&sb, 2).await;
    let after = get_order(&sb, &ada, &order).await;

    assert_eq!(order_of(&before)["pharmacy"]["id"], LAKESIDE, "{before:#}");
    assert_eq!(
        order_of(&after)["pharmacy"]["id"],
        HARBOR_DOWNTOWN,
        "{after:#}"
    );
    sb.shutdown().await;
}
