//! A clinic's day, whole, on one patient: staff add them with an address,
//! insurance and a preferred pharmacy (`clinic_day`'s steps) and draft the
//! whole prescription — a diagnosis by look-up, a note to the pharmacy,
//! dispense as written (`clinic_day_rx`'s steps); the prescriber reviews all of
//! it, signs, prescribes it again and signs the renewal; staff send the first
//! order with the patient's choice — placed at their preferred pharmacy — and
//! the second to a pharmacy that answers with an order error: Work flags it
//! ("Needs attention"), **Change pharmacy** from that row sends it to another
//! pharmacy, and it is placed there.

use anyhow::{Context, Result};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::desktop::Desktop;
use rxdesk_e2e::fixture::{HARBOR, PIA, SAM};

use crate::Run;
use crate::clinic_day::{
    BIN, MEMBER_ID, MIDDLE_NAME, PATIENT, PHARMACY, add_insurance, add_patient_with_address,
    choose_preferred_pharmacy, page_shows_the_whole_record,
};
use crate::clinic_day_rx::{
    SORE_THROAT, SORE_THROAT_AGAIN, draft_the_whole_prescription, open_link, prescribe_again,
    review_the_whole_prescription, sign_the_reviewed_prescription,
};
use crate::steps::{copy_link, open_patient, patients, sign_in};

const STAFF: &str = "10-clinic-day-staff";
const PRESCRIBER: &str = "11-clinic-day-prescriber";
const ORDERS: &str = "12-clinic-day-orders";

/// One pharmacy step in `tests/fixtures/e2e.toml` (`step_seconds`).
const STEP_SECONDS: u64 = 3600;
/// The pharmacy whose orders hit an order error (`[[fulfillment.errors]]` in
/// `tests/fixtures/e2e.toml`).
const FAILING_PHARMACY: &str = "Corner Pharmacy South End";

/// The journey (`cargo xtask e2e clinics_day`).
pub async fn a_clinics_day_staff_add_a_patient_and_draft_the_whole_prescription_the_prescriber_signs_it_and_its_renewal_and_staff_send_both_orders_changing_the_pharmacy_of_the_one_that_fails(
    run: &mut Run,
) -> Result<()> {
    let name = patients::full(PATIENT);
    // As the app names them once it knows their middle name.
    let named = format!("{} {MIDDLE_NAME} {}", PATIENT.0, PATIENT.1);
    run.patient_names.push(name.clone());
    run.patient_names.push(named.clone());

    // Staff: the patient, whole, then the whole prescription from their page.
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(STAFF, &run.world.sandbox).await?;
    sign_in(run, &app, STAFF, &SAM, None).await?;
    app.wait_for_text(HARBOR).await?;
    add_patient_with_address(&mut app, PATIENT).await?;
    add_insurance(&mut app, BIN, MEMBER_ID).await?;
    choose_preferred_pharmacy(&mut app, "Harbor Drug", "02116", PHARMACY).await?;
    page_shows_the_whole_record(&mut app, &name).await?;
    let drug = draft_the_whole_prescription(&mut app, "Amoxicillin 500", SORE_THROAT).await?;
    let link = copy_link(&app).await?;
    app.quit().await?;

    // The prescriber: reviews all of it, signs; prescribes it again, signs the renewal.
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(PRESCRIBER, &run.world.sandbox).await?;
    sign_in(run, &app, PRESCRIBER, &PIA, Some(HARBOR)).await?;
    app.wait_for_text(HARBOR).await?;
    open_link(&app, &link).await?;
    review_the_whole_prescription(&mut app, SORE_THROAT, "review shows the whole prescription")
        .await?;
    sign_the_reviewed_prescription(&mut app, "the whole prescription signed").await?;
    open_link(&app, &link).await?;
    prescribe_again(&mut app, SORE_THROAT_AGAIN).await?;
    review_the_whole_prescription(&mut app, SORE_THROAT_AGAIN, "review of the renewal").await?;
    sign_the_reviewed_prescription(&mut app, "the renewal signed").await?;
    app.quit().await?;

    // Staff: the first order with the patient's choice, placed at their
    // preferred pharmacy; the second at a pharmacy that fails, changed from Work.
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(ORDERS, &run.world.sandbox).await?;
    sign_in(run, &app, ORDERS, &SAM, None).await?;
    app.wait_for_text(HARBOR).await?;

    let first = draft_order(&app, &name, &drug).await?;
    send(&mut app, "first order sent: the patient chooses").await?;
    run.world.sandbox.advance_clock(STEP_SECONDS + 60).await?;
    open_link(&app, &first).await?;
    app.wait_for_text(PHARMACY)
        .await
        .context("the order was not placed at the patient's preferred pharmacy")?;
    app.shot("first order placed at the preferred pharmacy")
        .await?;

    draft_order(&app, &name, &drug).await?;
    find_pharmacy(&app, "Corner Pharmacy", "02116").await?;
    app.click(&format!("Choose {FAILING_PHARMACY}")).await?;
    app.wait_for_text(&format!("{FAILING_PHARMACY},")).await?;
    send(&mut app, "second order sent to a pharmacy that fails").await?;
    // Placed at that pharmacy, then its order error.
    run.world
        .sandbox
        .advance_clock(2 * STEP_SECONDS + 60)
        .await?;
    app.click("Work").await?;
    app.wait_for_text(&format!(
        "Needs attention: order error (at {FAILING_PHARMACY})"
    ))
    .await?;
    app.shot("work: the order error needs attention").await?;
    app.click(&format!("Change pharmacy for {named}")).await?;
    find_pharmacy(&app, "Harbor Drug", "02116").await?;
    app.shot("change pharmacy: the search on a sent order")
        .await?;
    app.click(&format!("Choose {PHARMACY}")).await?;
    app.wait_for_text(&format!("{PHARMACY},")).await?;
    app.wait_until_idle().await?;
    app.shot("the pharmacy changed after Send").await?;
    run.world.sandbox.advance_clock(STEP_SECONDS + 60).await?;
    app.click("Work").await?;
    // The network cleared the error with the change: nothing needs attention.
    app.wait_until_gone("Needs attention: order error").await?;
    app.wait_for_text(&format!(
        "Order for {named} — Submitted, 1 prescription, {PHARMACY}"
    ))
    .await?;
    app.shot("work: the order no longer needs attention")
        .await?;
    app.quit().await
}

/// From the workspace: the patient's page → **Draft order** with the first
/// unsent prescription (the original and the renewal read the same) → saved.
/// Returns the order's link.
async fn draft_order(app: &Desktop, name: &str, drug: &str) -> Result<String> {
    open_patient(app, name).await?;
    app.click("Draft order").await?;
    app.wait_for_text("Prescriptions on this order").await?;
    app.check(&format!("{drug} — {}", SORE_THROAT.instructions))
        .await?;
    app.click("Save order draft").await?;
    app.wait_for_text("The patient chooses the pharmacy")
        .await?;
    copy_link(app).await
}

/// On an order's page: the pharmacy search by `name` near `near`.
async fn find_pharmacy(app: &Desktop, name: &str, near: &str) -> Result<()> {
    app.fill("Pharmacy name", name).await?;
    app.fill("Near", near).await?;
    app.click("Find pharmacies").await?;
    app.wait_for_text("miles away").await?;
    Ok(())
}

/// On a draft order's page: **Send order**, until the network says it is sent.
async fn send(app: &mut Desktop, step: &str) -> Result<()> {
    app.wait_until_idle().await?;
    app.click("Send order").await?;
    app.wait_for_any(&["SUBMITTED", "Submitted"]).await?;
    app.shot(step).await?;
    Ok(())
}
