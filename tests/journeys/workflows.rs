//! Journeys 1–2: the clinic's work across roles on the network's real API.
//! Staff (medical operations) add a patient with an allergy, draft two
//! prescriptions (screening blocks one), build an order, copy its link and are
//! refused signing; a prescriber opens the link in a second launch of the app,
//! reviews and signs (again, after a change behind their back). Staff send the
//! order in the after-Send journey (`after_send.rs`).

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA, SAM, WILLOW_BACKEND};

use crate::Run;
use crate::steps::{
    change_draft_via_backend, copy_link, finish_prescription, open_patient, patient_via_backend,
    patients, sign_in, start_prescription,
};

const J1: &str = "01-staff-prepare";
const J2: &str = "02-prescriber-signs";

/// Journey 1.
pub async fn staff_add_a_patient_with_an_allergy_draft_two_prescriptions_one_blocked_build_an_order_and_are_refused_signing(
    run: &mut Run,
) -> Result<()> {
    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J1, &run.world.sandbox).await?;
    app.wait_for_text("Sign in to Rx Desk").await?;
    app.shot("sign-in screen").await?;
    sign_in(run, &app, J1, &SAM, None).await?;
    app.wait_for_text(HARBOR).await?;
    app.shot("signed in as medical operations").await?;

    // A new patient; the network names the bad email in place.
    let (first, last) = patients::HARBOR;
    let name = patients::full(patients::HARBOR);
    run.patient_names.push(name.clone());
    app.click("Patients").await?;
    app.click("Add patient").await?;
    app.fill("First name", first).await?;
    app.fill("Last name", last).await?;
    app.fill("Date of birth", "1984-03-12").await?;
    app.fill("Sex", "Female").await?;
    app.fill("Email", "marisol.at.example").await?;
    app.fill("Phone", "+16175550161").await?;
    app.click("Add patient").await?;
    app.wait_for_text("Not an email address").await?;
    app.shot("the network names the bad email").await?;
    ensure!(
        app.value_of("First name").await? == first,
        "the form lost what was typed"
    );
    app.fill("Email", "marisol@example.net").await?;
    app.click("Add patient").await?;
    app.wait_for_text("No allergies recorded").await?;
    app.wait_for_text(&name).await?;

    // The allergy first: the prescriber must see it before drafting.
    app.fill("New allergy", "Penicillins").await?;
    app.click("Add allergy").await?;
    app.wait_until_gone("No allergies recorded").await?;
    app.button("Remove Penicillins").await?;
    app.shot("patient with a penicillin allergy").await?;

    // Amoxicillin: blocked by the allergy, shown; lisinopril: ready.
    start_prescription(&app, "Amoxicillin 500").await?;
    finish_prescription(&app, "Take one capsule three times daily for ten days").await?;
    app.wait_for_text("BLOCKED").await?;
    ensure!(
        app.text().await?.contains("Penicillin"),
        "the screening alert does not name the allergy"
    );
    app.shot("amoxicillin blocked by the allergy").await?;
    open_patient(&app, &name).await?;
    let lisinopril = start_prescription(&app, "Lisinopril 10").await?;
    finish_prescription(&app, "Take one tablet by mouth every morning").await?;
    app.wait_for_text("READY").await?;
    run.draft_link = Some(copy_link(&app).await?);
    app.shot("lisinopril ready, link copied").await?;

    // The order: the ready draft on it.
    open_patient(&app, &name).await?;
    app.click("Draft order").await?;
    app.wait_for_text("Prescriptions on this order").await?;
    app.check(&format!(
        "{lisinopril} — Take one tablet by mouth every morning"
    ))
    .await?;
    app.click("Save order draft").await?;
    app.wait_for_text("The patient chooses the pharmacy")
        .await?;
    run.order_link = Some(copy_link(&app).await?);
    app.click("Send order").await?;
    app.wait_for_text("is not signed yet").await?;
    app.shot("order drafted; sending waits for a signature")
        .await?;

    // Signing: the blocked draft cannot be chosen; the network refuses staff.
    app.click("Work").await?;
    app.wait_for_text("Drafts awaiting signature").await?;
    app.wait_for_text("Blocked by screening:").await?;
    app.check(&format!("Select {lisinopril} for {name}"))
        .await?;
    app.click("Review and sign selected (1)").await?;
    app.wait_for_text("Review and sign").await?;
    app.click("Sign 1 prescription").await?;
    app.wait_for_text("PRESCRIPTION_SIGNING_UNAUTHORIZED")
        .await?;
    ensure!(
        app.text().await?.contains("write:prescription"),
        "the refusal does not name write:prescription"
    );
    app.shot("signing refused by the network").await?;
    app.quit().await
}

/// Journey 2.
pub async fn a_prescriber_opens_the_link_in_a_second_launch_reviews_and_signs_again_after_a_change(
    run: &mut Run,
) -> Result<()> {
    let order_link = run
        .order_link
        .clone()
        .context("journey 1 left no order link")?;
    let draft_link = run
        .draft_link
        .clone()
        .context("journey 1 left no draft link")?;
    let draft_id = draft_link.rsplit('/').next().unwrap_or_default().to_owned();
    let name = patients::full(patients::HARBOR);
    // A patient of the other organization, for a link that must not open.
    let willow = patient_via_backend(&run.world.sandbox, WILLOW_BACKEND, patients::WILLOW).await?;
    let willow_link = format!("rxdesk://patient/{}", willow.id);
    willow.record(run);

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J2, &run.world.sandbox).await?;
    sign_in(run, &app, J2, &PIA, Some(HARBOR)).await?;
    app.wait_for_text(HARBOR).await?;

    // The OS opens the link: a second launch hands it over and exits.
    run.world
        .launch_with_link(&run.world.sandbox, &order_link)
        .await?;
    app.wait_for_text(&name).await?;
    app.wait_for_text("The patient chooses the pharmacy")
        .await?;
    app.shot("order opened from the link").await?;

    // Review the draft; it changes behind the prescriber's back before signing.
    app.click("Open link or id").await?;
    app.fill("Link or id", &draft_link).await?;
    app.click("Open").await?;
    app.click("Review and sign").await?;
    app.wait_for_text("Take one tablet by mouth every morning")
        .await?;
    app.shot("review of the draft").await?;
    let changed = "Take one tablet by mouth every evening";
    let token =
        change_draft_via_backend(&run.world.sandbox, HARBOR_BACKEND, &draft_id, changed).await?;
    run.saw_token("journey 2: harbor backend", &token);
    app.click("Sign 1 prescription").await?;
    app.wait_for_text("This prescription changed since you opened it")
        .await?;
    app.wait_for_text(changed).await?;
    app.shot("invalidated: the new content shown").await?;
    app.click("Review again").await?;
    app.click("Sign 1 prescription").await?;
    app.wait_for_text("Signed").await?;
    app.shot("signed after a second review").await?;

    // A link to another organization's patient says so plainly.
    app.click("Open link or id").await?;
    app.fill("Link or id", &willow_link).await?;
    app.click("Open").await?;
    app.wait_for_text(&format!("This record is not in {HARBOR}"))
        .await?;
    ensure!(
        !app.text().await?.contains(patients::WILLOW.1),
        "a Willow Creek patient shows while signed in to Harbor Lane"
    );
    app.shot("another organization's record").await?;
    app.quit().await
}
