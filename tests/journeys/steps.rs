//! Steps several journeys share, written as a user would say them: sign in
//! through the browser, open a patient, draft a prescription; plus the
//! harness's own bookkeeping (tokens seen in the keyring, patients made through
//! a backend's machine token).

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::desktop::Desktop;
use rxdesk_e2e::services::{SYNC_PATIENT, Sandbox};
use rxdesk_e2e::tokens::stored_sessions;
use rxdesk_e2e::{KEYRING_SERVICE, User};

pub use rxdesk_e2e::flows::open_patient;

use crate::Run;

/// Patients of the run; their names are searched for in every log at the end.
pub mod patients {
    /// Created by staff in Harbor Lane through the app (journey 1).
    pub const HARBOR: (&str, &str) = ("Marisol", "Quennell-Ashby");
    /// Created in Willow Creek through Willow's backend (journey 2).
    pub const WILLOW: (&str, &str) = ("Teodor", "Vanstrom");
    /// Created in the short-lived sandbox through Harbor's backend (journey 6).
    pub const EXPIRY: (&str, &str) = ("Ottilie", "Brandvold");

    pub fn full((first, last): (&str, &str)) -> String {
        format!("{first} {last}")
    }
}

/// Clicks **Sign in with your browser** with the browser program told to sign
/// in as `user` (choosing `organization` when asked), and waits until the app
/// shows the user signed in. Remembers the tokens the keyring then holds.
pub async fn sign_in(
    run: &mut Run,
    app: &Desktop,
    journey: &str,
    user: &User,
    organization: Option<&str>,
) -> Result<()> {
    run.world.plan_sign_in(journey, user, organization)?;
    app.click("Sign in with your browser").await?;
    app.button("Sign out").await.with_context(|| {
        format!(
            "not signed in as {}; see {}",
            user.email,
            run.world.browser_log().display()
        )
    })?;
    app.wait_for_text(user.name).await?;
    remember_stored_tokens(run, &format!("{journey}: signed in as {}", user.email))?;
    Ok(())
}

/// Adds every token the keyring holds now to the run's list.
pub fn remember_stored_tokens(run: &mut Run, when: &str) -> Result<usize> {
    let sessions = stored_sessions(&run.world.keyring, KEYRING_SERVICE)?;
    let mut n = 0;
    for session in &sessions {
        for token in session.tokens() {
            run.saw_token(when, &token);
            n += 1;
        }
    }
    Ok(n)
}

/// A patient made through a backend, and the machine token used.
#[derive(Debug)]
pub struct MadePatient {
    pub id: String,
    pub name: String,
    token: (String, String),
}

impl MadePatient {
    /// Remembers the patient's name and the machine token for the log check.
    pub fn record(self, run: &mut Run) -> String {
        run.saw_token(&self.token.0, &self.token.1);
        run.patient_names.push(self.name);
        self.id
    }
}

/// The Network API's request metadata, as a backend sends it.
pub fn metadata() -> serde_json::Value {
    serde_json::json!({ "source": "DIRECT_API", "client": "rxdesk-e2e" })
}

/// Adds a patient through a backend's machine token (client credentials):
/// a Sync with the four fields that add someone new.
pub async fn patient_via_backend(
    sandbox: &Sandbox,
    (client_id, secret): (&str, &str),
    (first, last): (&str, &str),
) -> Result<MadePatient> {
    let token = sandbox.machine_token(client_id, secret).await?;
    let data = sandbox
        .graphql(
            &token,
            SYNC_PATIENT,
            serde_json::json!({
                "patient": { "demographic": {
                    "name": { "first": first, "last": last },
                    "dateOfBirth": "1971-09-30",
                    "sex": "MALE",
                    "phone": "+16175550177",
                }},
                "metadata": metadata(),
            }),
        )
        .await?;
    let result = &data["patient"];
    let id = result["patient"]["id"].as_str().unwrap_or_default();
    ensure!(!id.is_empty(), "the patient was not added: {result}");
    Ok(MadePatient {
        id: id.to_owned(),
        name: patients::full((first, last)),
        token: (format!("machine token of {client_id}"), token),
    })
}

/// Changes a draft's instructions through a backend, behind the app's back.
pub async fn change_draft_via_backend(
    sandbox: &Sandbox,
    (client_id, secret): (&str, &str),
    prescription_id: &str,
    instructions: &str,
) -> Result<String> {
    let token = sandbox.machine_token(client_id, secret).await?;
    let data = sandbox
        .graphql(
            &token,
            "mutation Update($prescription: PrescriptionInput!, $metadata: RequestMetadata!) { \
             prescription(prescription: $prescription, metadata: $metadata) { __typename \
             ... on PrescriptionPayload { prescription { id instructions } unappliedChanges { key reason } } \
             ... on UnauthorizedError { code message } } }",
            serde_json::json!({
                "prescription": { "id": prescription_id, "instructions": instructions },
                "metadata": metadata(),
            }),
        )
        .await?;
    let result = &data["prescription"];
    ensure!(
        result["prescription"]["instructions"] == instructions,
        "the draft was not changed: {result}"
    );
    Ok(token)
}

/// Opens **Draft prescription**, looks `drug` up and picks the first option;
/// returns the drug's name as the app shows it.
pub async fn start_prescription(app: &Desktop, drug: &str) -> Result<String> {
    app.click("Draft prescription").await?;
    app.fill("Drug", drug).await?;
    let name = app.choose_first_in("Drugs found").await?;
    app.wait_for_text(&format!("Chosen: {name}")).await?;
    Ok(name)
}

/// Fills the rest of an opened prescription form and saves it as a draft;
/// waits for the network's screening answer.
pub async fn finish_prescription(app: &Desktop, instructions: &str) -> Result<()> {
    app.fill("Instructions", instructions).await?;
    app.fill("Quantity", "30").await?;
    app.fill("Unit", "tablet").await?;
    app.fill("Days supply", "30").await?;
    app.click("Save draft").await?;
    app.wait_for_text("Screening:").await?;
    Ok(())
}

/// Copies the record's link the way staff do, and returns what was copied.
pub async fn copy_link(app: &Desktop) -> Result<String> {
    app.click("Copy link for the prescriber").await?;
    let link = app.value_of("Link").await?;
    ensure!(link.starts_with("rxdesk://"), "no link shown: {link:?}");
    Ok(link)
}
