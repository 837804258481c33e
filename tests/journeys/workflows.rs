//! Journeys 1–3: the clinic's work across roles. Staff (medical operations)
//! prepare a patient, two drafts and an order and meet the network's refusals;
//! a prescriber in two organizations signs; staff send the order.

use anyhow::{Result, ensure};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::fixture::{HARBOR, PIA, SAM, WILLOW_BACKEND};

use crate::Run;
use crate::steps::{
    finish_prescription, open_patient, patient_via_backend, patients, sign_in, start_prescription,
};

const J1: &str = "01-staff-prepares";
const J2: &str = "02-prescriber-signs";
const J3: &str = "03-staff-sends";

/// Journey 1.
pub async fn staff_prepare_a_patient_two_drafts_and_an_order_and_the_network_refuses_signing_and_sending(
    run: &mut Run,
) -> Result<()> {
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J1, &run.world.sandbox).await?;
    app.wait_for_text("Sign in to Rx Desk").await?;
    app.shot("sign-in screen").await?;

    sign_in(run, &app, J1, &SAM, None).await?;
    app.wait_for_text(HARBOR).await?;
    app.shot("signed in as medical operations").await?;

    // A new patient, with an email the network rejects first.
    let (first, last) = patients::HARBOR;
    run.patient_names.push(patients::full(patients::HARBOR));
    app.click("New patient").await?;
    app.fill("First name", first).await?;
    app.fill("Last name", last).await?;
    app.fill("Date of birth", "1984-03-12").await?;
    app.fill("Sex", "Female").await?;
    app.fill("Email", "marisol.at.example").await?;
    app.click("Create patient").await?;
    app.wait_for_text("not a valid email address").await?;
    app.shot("patient form shows the network's validation error")
        .await?;
    app.fill("Email", "marisol@example.net").await?;
    app.click("Create patient").await?;
    app.wait_for_text(&patients::full(patients::HARBOR)).await?;
    app.button("Draft prescription").await?;
    app.shot("patient created").await?;

    // Two drafts.
    let first_med = start_prescription(&app, "Lisin").await?;
    app.shot("drafting a prescription").await?;
    finish_prescription(&app, &first_med, "Take one tablet by mouth every morning").await?;
    let second_med = start_prescription(&app, "Metf").await?;
    finish_prescription(&app, &second_med, "Take one tablet twice daily with meals").await?;
    app.shot("two drafts").await?;

    // An order of both; Send says why it cannot go yet.
    app.click("Draft order").await?;
    for checkbox in app
        .all("//fieldset[legend[normalize-space()='Prescriptions on this order']]//input[@type='checkbox']")
        .await?
    {
        checkbox.click().await?;
    }
    app.click("Save order draft").await?;
    app.wait_for_text("Send — 2 prescriptions await a prescriber's signature")
        .await?;
    app.shot("order drafted, send blocked with the reason")
        .await?;

    // Sign: marked as needing write:prescription, and the network refuses.
    app.click("Signing queue").await?;
    app.wait_for_text("Signing needs write:prescription — prescribers only")
        .await?;
    app.check("Select all drafts").await?;
    app.click("Sign selected (2)").await?;
    app.wait_for_text("Sign 2 prescriptions?").await?;
    app.click("Sign these").await?;
    app.wait_for_text("PRESCRIPTION_SIGNING_UNAUTHORIZED")
        .await?;
    ensure!(
        app.text().await?.contains("write:prescription"),
        "the refusal does not name write:prescription"
    );
    app.shot("signing refused by the network").await?;

    // Send anyway: the network's own refusal.
    open_patient(&app, &patients::full(patients::HARBOR)).await?;
    app.click("Send — 2 prescriptions await").await?;
    app.wait_for_text("ORDER_HAS_UNSIGNED_PRESCRIPTIONS")
        .await?;
    app.shot("sending refused by the network").await?;
    app.quit().await
}

/// Journey 2.
pub async fn a_prescriber_in_two_organizations_chooses_one_sees_only_its_patients_and_signs_both_drafts(
    run: &mut Run,
) -> Result<()> {
    // A patient of the other organization, who must stay out of sight.
    let made = patient_via_backend(&run.world.sandbox, WILLOW_BACKEND, patients::WILLOW).await?;
    made.record(run);

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J2, &run.world.sandbox).await?;
    sign_in(run, &app, J2, &PIA, Some(HARBOR)).await?;
    app.wait_for_text(HARBOR).await?;
    app.wait_for_text(&patients::full(patients::HARBOR)).await?;
    ensure!(
        !app.text().await?.contains(patients::WILLOW.1),
        "a Willow Creek patient shows while signed in to Harbor Lane"
    );
    app.shot("harbor lane patients only").await?;

    app.click("Signing queue").await?;
    app.check("Select all drafts").await?;
    app.click("Sign selected (2)").await?;
    app.wait_for_text("Sign 2 prescriptions?").await?;
    let confirmation = app.text().await?;
    ensure!(
        confirmation.contains(&patients::full(patients::HARBOR))
            && confirmation.contains("Lisinopril")
            && confirmation.contains("Metformin"),
        "the confirmation does not name the patient and both medications"
    );
    app.shot("confirmation names patient and medications")
        .await?;
    app.click("Sign these").await?;
    app.wait_for_text("No drafts waiting for a signature.")
        .await?;
    ensure!(
        !app.text().await?.contains("Not signed"),
        "a prescription was not signed"
    );
    app.shot("both signed").await?;
    app.quit().await
}

/// Journey 3.
pub async fn staff_send_the_signed_order_and_it_shows_as_sent(run: &mut Run) -> Result<()> {
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J3, &run.world.sandbox).await?;
    sign_in(run, &app, J3, &SAM, None).await?;
    open_patient(&app, &patients::full(patients::HARBOR)).await?;
    app.wait_for_text("Draft order").await?;
    ensure!(
        !app.text().await?.contains("await a prescriber's signature"),
        "Send still says prescriptions await a signature"
    );
    app.click("Send").await?;
    app.wait_for_text("Sent").await?;
    app.wait_until_gone("await a prescriber's signature")
        .await?;
    app.shot("order sent").await?;
    app.quit().await
}
