//! A clinic's day, the prescription part: staff draft a prescription with a
//! diagnosis found by the network's look-up, a note to the pharmacy and
//! dispense-as-written; a prescriber reviews all of it (and what the content
//! hash covers) and signs; then prescribes the signed prescription again —
//! same drug, sig, dispense and diagnosis, screened afresh, opened for review,
//! never signed by itself — and signs the renewal.
//!
//! Each step is a function of its own over an open app, so the whole "clinic's
//! day" journey can compose them with the patient page's steps.

use anyhow::{Result, ensure};
use rxdesk_e2e::desktop::Desktop;

use crate::steps::start_prescription;

/// What staff put on the prescription beyond drug, sig and dispense.
#[derive(Debug, Clone, Copy)]
pub struct Whole<'a> {
    /// Typed into **Diagnosis**; the first option the network offers is taken.
    pub diagnosis_query: &'a str,
    /// The option's words ("J02.9 Acute pharyngitis, unspecified").
    pub diagnosis: &'a str,
    /// The note to the pharmacy (`None`: the prescription has none — a
    /// renewal does not carry the note, which was about that fill).
    pub note: Option<&'a str>,
    pub instructions: &'a str,
}

pub const SORE_THROAT: Whole<'static> = Whole {
    diagnosis_query: "pharyngitis",
    diagnosis: "J02.9 Acute pharyngitis, unspecified",
    note: Some("Blister packs, please."),
    instructions: "Take one capsule three times daily for ten days",
};

/// [`SORE_THROAT`] prescribed again: the same but for the note.
pub const SORE_THROAT_AGAIN: Whole<'static> = Whole {
    note: None,
    ..SORE_THROAT
};

/// On an opened draft form: looks `query` up under **Diagnosis**, takes the
/// first option the network offers, and waits for it among those to add.
/// Returns the option's words.
pub async fn add_diagnosis(app: &Desktop, query: &str) -> Result<String> {
    app.fill("Diagnosis", query).await?;
    let words = app.choose_first_in("Diagnoses found").await?;
    app.wait_for_text_at(
        "//*[@aria-label='Diagnoses to add']",
        "the diagnoses to add",
        &words,
    )
    .await?;
    Ok(words)
}

/// From a patient's page: drafts `drug` with `whole`'s diagnosis, note to the
/// pharmacy and dispense-as-written, saves it and waits for the network's
/// screening. Screenshots the form filled in and the saved draft. Returns the
/// drug's name as the app shows it.
pub async fn draft_the_whole_prescription(
    app: &mut Desktop,
    drug: &str,
    whole: Whole<'_>,
) -> Result<String> {
    let name = start_prescription(app, drug).await?;
    let diagnosis = add_diagnosis(app, whole.diagnosis_query).await?;
    ensure!(
        diagnosis == whole.diagnosis,
        "the look-up offered {diagnosis:?} first, not {:?}",
        whole.diagnosis
    );
    app.fill("Dispense as written", "Yes — no substitution")
        .await?;
    if let Some(note) = whole.note {
        app.fill("Note to the pharmacy", note).await?;
    }
    app.fill("Instructions", whole.instructions).await?;
    app.fill("Quantity", "30").await?;
    app.fill("Unit", "capsule").await?;
    app.fill("Days supply", "10").await?;
    app.shot("draft form with a diagnosis, a note and dispense as written")
        .await?;
    app.click("Save draft").await?;
    app.wait_for_text("Screening: READY").await?;
    the_whole_prescription_shows(app, whole).await?;
    app.shot("the whole draft saved").await?;
    Ok(name)
}

/// The summary on screen names the diagnosis, the note and dispense-as-written.
async fn the_whole_prescription_shows(app: &Desktop, whole: Whole<'_>) -> Result<()> {
    app.wait_for_text(whole.diagnosis).await?;
    if let Some(note) = whole.note {
        app.wait_for_text(note).await?;
    }
    app.wait_for_text("Yes — no substitution").await?;
    Ok(())
}

/// Opens `link` (a prescription's) through **Open link or id**.
pub async fn open_link(app: &Desktop, link: &str) -> Result<()> {
    app.click("Open link or id").await?;
    app.fill("Link or id", link).await?;
    app.click("Open").await?;
    Ok(())
}

/// On a draft's page: **Review and sign**; checks that review shows all of the
/// prescription and says which parts the content hash covers.
pub async fn review_the_whole_prescription(
    app: &mut Desktop,
    whole: Whole<'_>,
    step: &str,
) -> Result<()> {
    app.click("Review and sign").await?;
    app.wait_for_text("What your signature quotes is the network's content hash")
        .await?;
    app.wait_for_text(whole.instructions).await?;
    the_whole_prescription_shows(app, whole).await?;
    let text = app.text().await?;
    ensure!(
        text.contains("in the content hash") && text.contains("not in the content hash"),
        "review does not say what the content hash covers"
    );
    app.shot(step).await?;
    Ok(())
}

/// On review: signs the one prescription shown and waits for the network's answer.
pub async fn sign_the_reviewed_prescription(app: &mut Desktop, step: &str) -> Result<()> {
    app.click("Sign 1 prescription").await?;
    app.wait_for_text("Signed").await?;
    let text = app.text().await?;
    ensure!(
        !text.contains("Not signed:"),
        "the network refused the signature"
    );
    app.shot(step).await?;
    Ok(())
}

/// On a signed prescription's page: **Prescribe again**; waits for the new
/// draft (a draft: it offers **Review and sign**, and nothing is signed) with
/// the same diagnosis, screened afresh.
pub async fn prescribe_again(app: &mut Desktop, whole: Whole<'_>) -> Result<()> {
    app.click("Prescribe again").await?;
    app.button("Review and sign").await?;
    app.wait_for_text("Screening:").await?;
    app.wait_for_text(whole.diagnosis).await?;
    app.wait_for_text("Not signed").await?;
    app.shot("prescribed again: a new draft, not signed")
        .await?;
    Ok(())
}
