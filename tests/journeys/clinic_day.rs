//! A clinic's day, the patient's part (steps of `a_clinics_day`): staff add a patient with an address
//! (the network refuses it without its country, beside the field), insurance
//! (refused without a member id, beside the field, then added) and a preferred
//! pharmacy chosen through the orders' pharmacy search; the page, opened again,
//! shows all of it as the network keeps it. Each step is a function of its own,
//! composed with the prescription's into the whole day.

use anyhow::{Result, bail};
use rxdesk_e2e::desktop::Desktop;

use crate::steps::open_patient;

/// The patient of the clinic's day.
pub const PATIENT: (&str, &str) = ("Liesel", "Farrow-Dunmore");
/// Their middle name: the app names them with it ("Liesel Ann Farrow-Dunmore").
pub const MIDDLE_NAME: &str = "Ann";
/// Their address, as typed and as the page shows it.
const STREET: &str = "12 Elm Street";
const SHOWN_ADDRESS: &str = "12 Elm Street, Boston, MA 02110, US";
/// Their insurance card.
pub const BIN: &str = "610014";
pub const MEMBER_ID: &str = "ZX4410023";
/// The pharmacy they prefer, the nearest Harbor Drug to 02116.
pub const PHARMACY: &str = "Harbor Drug Back Bay";

/// How many times a step the client never repeats by itself (adding a card:
/// the network does not match cards) is tried again from the screen's
/// "Try again" on a bad link.
const TRIES: usize = 4;

/// From the workspace: Patients → Add patient, with an address. Sent first
/// without its country (the network's refusal shows beside Country and the
/// form keeps what was typed), then with it; ends on the new patient's page.
pub async fn add_patient_with_address(
    app: &mut Desktop,
    (first, last): (&str, &str),
) -> Result<()> {
    app.click("Patients").await?;
    app.click("Add patient").await?;
    app.fill("First name", first).await?;
    app.fill("Middle name", MIDDLE_NAME).await?;
    app.fill("Last name", last).await?;
    app.fill("Date of birth", "1979-09-23").await?;
    app.fill("Sex", "Female").await?;
    app.fill("Gender", "woman").await?;
    app.fill("Phone", "+16175550172").await?;
    app.fill("Street", STREET).await?;
    app.fill("City", "Boston").await?;
    app.fill("State", "MA").await?;
    app.fill("Postal code", "02110").await?;
    // The form starts with the US as the country: erased key by key, as a
    // user would (WebDriver's clear fires no input event).
    app.press("Country", "\u{E010}\u{E003}\u{E003}\u{E003}")
        .await?;
    if !app.value_of("Country").await?.is_empty() {
        bail!("the country was not erased");
    }
    app.fill("Notes", "Prefers a call before noon").await?;
    app.click("Add patient").await?;
    app.wait_for_text("An address needs its country").await?;
    app.shot("the network wants the address's country").await?;
    if app.value_of("Street").await? != STREET {
        bail!("the form lost the street typed");
    }
    app.fill("Country", "US").await?;
    app.click("Add patient").await?;
    app.wait_for_text("No insurance on file").await?;
    app.wait_for_text(SHOWN_ADDRESS).await?;
    app.shot("a new patient with an address and notes").await?;
    Ok(())
}

/// On the patient's page: Add insurance, sent first without its member id
/// (refused beside Member id, the BIN kept), then with it.
pub async fn add_insurance(app: &mut Desktop, bin: &str, member_id: &str) -> Result<()> {
    app.click("Add insurance").await?;
    app.fill("BIN", bin).await?;
    submit_card(app).await?;
    app.wait_for_text("needs its memberId").await?;
    app.shot("insurance refused without a member id").await?;
    if app.value_of("BIN").await? != bin {
        bail!("the insurance form lost the BIN typed");
    }
    app.fill("Member id", member_id).await?;
    submit_card(app).await?;
    let on_file = format!("member {member_id}");
    for _ in 0..TRIES {
        // On a bad link the answer may be lost: the screen offers "Try again",
        // which reads the record before adding the card again.
        if app.wait_for_any(&[&on_file, "Try again"]).await? == on_file {
            app.shot("insurance on file").await?;
            return Ok(());
        }
        app.click("Try again").await?;
    }
    bail!("the card was not on file after {TRIES} tries")
}

/// The insurance form's submit button (the section's own opener reads the same
/// until the form opens).
async fn submit_card(app: &Desktop) -> Result<()> {
    app.click_at(
        "//form[@aria-labelledby='insurance-form-title']//button[@type='submit']",
        "the insurance form's submit button",
    )
    .await
}

/// On the patient's page: the orders' pharmacy search for the preferred
/// pharmacy, by `name` near `near`, and `pharmacy` chosen from the options.
pub async fn choose_preferred_pharmacy(
    app: &mut Desktop,
    name: &str,
    near: &str,
    pharmacy: &str,
) -> Result<()> {
    app.click("Choose a preferred pharmacy").await?;
    app.fill("Pharmacy name", name).await?;
    app.fill("Near", near).await?;
    app.click("Find pharmacies").await?;
    app.wait_for_text("miles away").await?;
    app.script(
        "document.querySelector('[aria-label=\"Pharmacies found\"]').scrollIntoView()",
        vec![],
    )
    .await?;
    app.shot("preferred pharmacy: the search's options").await?;
    app.click(&format!("Choose {pharmacy}")).await?;
    app.wait_for_text("Change preferred pharmacy").await?;
    Ok(())
}

/// The patient's page opened afresh (read from the network): the address,
/// insurance and preferred pharmacy are there.
pub async fn page_shows_the_whole_record(app: &mut Desktop, name: &str) -> Result<()> {
    open_patient(app, name).await?;
    let card = format!("member {MEMBER_ID}");
    for text in [SHOWN_ADDRESS, &card, PHARMACY, "Prefers a call before noon"] {
        app.wait_for_text(text).await?;
    }
    app.shot("the patient page with address and notes").await?;
    app.script(
        "document.querySelector('[aria-label=\"Insurance\"]').scrollIntoView()",
        vec![],
    )
    .await?;
    app.shot("the patient page with insurance and preferred pharmacy")
        .await?;
    Ok(())
}
