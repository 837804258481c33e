//! Steps several journeys share, written as a user would say them: sign in
//! through the browser, open a patient, draft a prescription; plus the
//! harness's own bookkeeping (tokens seen in the keyring, patients made through
//! a backend's machine token).

use anyhow::{Context, Result, ensure};
use rxdesk_e2e::desktop::Desktop;
use rxdesk_e2e::services::Sandbox;
use rxdesk_e2e::tokens::stored_sessions;
use rxdesk_e2e::{KEYRING_SERVICE, User};

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

/// Creates a patient through a backend's machine token (client credentials).
pub async fn patient_via_backend(
    sandbox: &Sandbox,
    (client_id, secret): (&str, &str),
    (first, last): (&str, &str),
) -> Result<MadePatient> {
    let token = sandbox.machine_token(client_id, secret).await?;
    let data = sandbox
        .graphql(
            &token,
            "mutation($input: CreatePatientInput!) { createPatient(input: $input) { \
             __typename ... on Patient { id } ... on ValidationError { message } ... on UnauthorizedError { message } } }",
            serde_json::json!({ "input": {
                "externalId": format!("e2e-{first}-{last}"),
                "name": { "first": first, "last": last },
                "dateOfBirth": "1971-09-30",
                "sex": "MALE",
            }}),
        )
        .await?;
    let result = &data["createPatient"];
    ensure!(
        result["__typename"] == "Patient",
        "createPatient refused: {result}"
    );
    Ok(MadePatient {
        id: result["id"].as_str().unwrap_or_default().to_owned(),
        name: patients::full((first, last)),
        token: (format!("machine token of {client_id}"), token),
    })
}

/// From anywhere in the workspace: the Patients tab, search, open `name`.
pub async fn open_patient(app: &Desktop, name: &str) -> Result<()> {
    app.click("Patients").await?;
    app.fill("Search patients by name", name).await?;
    app.click(name).await?;
    app.wait_for_text("Prescriptions").await?;
    app.button("Draft prescription").await?;
    Ok(())
}

/// Opens **Draft prescription**, searches `medication` and picks the first
/// match; returns the medication's name as the app shows it.
pub async fn start_prescription(app: &Desktop, medication: &str) -> Result<String> {
    app.click("Draft prescription").await?;
    app.fill("Medication", medication).await?;
    let first = app.button_in("Medications found").await?;
    let name = first.text().await?.trim().to_owned();
    first.click().await?;
    app.wait_for_text(&format!("Chosen: {name}")).await?;
    Ok(name)
}

/// Fills the rest of an opened prescription form and saves it as a draft.
pub async fn finish_prescription(
    app: &Desktop,
    medication: &str,
    instructions: &str,
) -> Result<()> {
    app.fill("Instructions", instructions).await?;
    app.click("Save draft").await?;
    app.wait_until_gone("Save draft").await?;
    app.wait_for_text(medication).await?;
    Ok(())
}
