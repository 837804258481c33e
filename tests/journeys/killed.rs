//! Journeys 10–12: the app killed (SIGKILL, as a hung app is force-quit) in the
//! middle of work, then started again. Each runs on a sandbox of its own
//! (`killed-*-data`, audited for duplicates with the others) whose link it
//! holds at run time through the control endpoint's `PUT /link` — a latency or
//! a "try later" on one operation — so the kill lands at a known point of the
//! call, never by a sleep that hopes to. The run's own link (clean, or the
//! clinic's with its faults) stays as it is around the hold.
//!
//! What the harness sets up as a backend would (patients, drafts, an order) it
//! makes with `externalId`s, so its own retries on a bad link make nothing twice.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use rxdesk_e2e::KEYRING_SERVICE;
use rxdesk_e2e::desktop::{Desktop, Shots};
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA, SAM};
use rxdesk_e2e::services::{Lifetimes, Sandbox};
use serde_json::{Value, json};

use crate::Run;
use crate::steps::{metadata, patient_via_backend, sign_in, start_prescription};

const J10: &str = "10-killed-during-send";

/// The patient of journey 10, added through Harbor Lane's backend.
const SEND_PATIENT: (&str, &str) = ("Wendeline", "Ashgrove-Pruitt");

/// Journey 10. A prescriber sends an order and the app is killed twice while
/// the Send is on its way: first while the network answers "try later" (429,
/// nothing applied), then after the network applied it but before its answer
/// came back. After each restart the order shows what the network holds —
/// not sent, then sent — and the Send tried again after the first kill sends
/// it once (the audit at the end of the run checks no order was sent twice).
pub async fn killed_during_send_the_order_shows_sent_or_not_truly_and_a_retried_send_sends_once(
    run: &mut Run,
) -> Result<()> {
    let sandbox = run
        .world
        .extra_sandbox("killed-send", Lifetimes::default())?;
    let backend = Backend::new(run, &sandbox).await?;
    let patient = patient_via_backend(&sandbox, HARBOR_BACKEND, SEND_PATIENT)
        .await?
        .record(run);
    let (rx, _) = backend
        .draft(&patient, "e2e-killed-send-rx", "Take one tablet daily")
        .await?;
    let order = backend
        .order(&patient, &[&rx], "e2e-killed-send-order")
        .await?;
    let order_link = format!("rxdesk://order/{order}");

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J10, &sandbox).await?;
    sign_in(run, &app, J10, &PIA, Some(HARBOR)).await?;
    open_link(&app, &format!("rxdesk://prescription/{rx}")).await?;
    app.click("Review and sign").await?;
    app.click("Sign 1 prescription").await?;
    app.button("Sign 0 prescriptions").await?;
    open_link(&app, &order_link).await?;
    app.wait_for_text("State: Draft").await?;
    app.shot("the order, signed and ready to send").await?;

    // 1. The network answers every Send "429, try again in 3 s": the app is
    //    still trying when it is killed. Nothing was applied.
    let before = hold(
        &sandbox,
        "order_send",
        json!({ "faults": { "http_429": 1.0 } }),
        Some(3),
    )
    .await?;
    app.click("Send order").await?;
    app.wait_for_text("Still trying (attempt").await?;
    app.shot("sending: the network says try later; the app is killed now")
        .await?;
    let shots = Shots::continuing(app.shots());
    app.kill_app().await?;
    sandbox.set_link(before).await?;
    ensure!(
        backend.order_state(&order).await? == "DRAFT",
        "the network sent the order although every Send was answered 429"
    );

    let mut app = run.world.launch_continuing(J10, &sandbox, shots).await?;
    app.button("Sign out")
        .await
        .context("the session did not come back after the kill")?;
    open_link(&app, &order_link).await?;
    app.wait_for_text("State: Draft").await?;
    app.button("Send order").await?;
    app.shot("after the kill: the order shows not sent, Send offered")
        .await?;

    // 2. Send again; the network applies it, and its answer is held on the
    //    way back (6 s each way) while the app is killed.
    let before = hold(
        &sandbox,
        "order_send",
        json!({ "latency": { "ms": 12_000, "jitter_ms": 0 } }),
        None,
    )
    .await?;
    app.click("Send order").await?;
    backend
        .wait_until("the network to send the order", || async {
            Ok(backend.order_state(&order).await? == "SUBMITTED")
        })
        .await?;
    app.shot("sending: the network has sent it, its answer is on the way; killed now")
        .await?;
    let shots = Shots::continuing(app.shots());
    app.kill_app().await?;
    sandbox.set_link(before).await?;

    let mut app = run.world.launch_continuing(J10, &sandbox, shots).await?;
    app.button("Sign out").await?;
    open_link(&app, &order_link).await?;
    app.wait_for_text("State: Submitted").await?;
    app.button("Cancel order").await?;
    ensure!(
        !app.has("//button[normalize-space()='Send order']").await?,
        "a sent order still offers Send"
    );
    app.shot("after the kill: the order shows sent").await?;
    ensure!(
        backend.order_state(&order).await? == "SUBMITTED",
        "the network does not hold the order as sent"
    );
    app.quit().await
}

const J11: &str = "11-killed-mid-batch";

/// The patients of journey 11 (ten drafts each), added through Harbor Lane's backend.
const BATCH_PATIENTS: [(&str, &str); 5] = [
    ("Ingeborg", "Falkenrath"),
    ("Lazarus", "Quimby-Stroud"),
    ("Marguerite", "Oyelaran"),
    ("Thaddeus", "Villanueva-Brisk"),
    ("Philippa", "Ravensworth"),
];
const DRAFTS_PER_PATIENT: usize = 10;
/// The batch: every draft the Work screen offers at once (it looks at the 50
/// most recent prescriptions, `DRAFTS_LOOKED_AT` in the app's `lists.rs`).
const BATCH: usize = BATCH_PATIENTS.len() * DRAFTS_PER_PATIENT;
/// Each signature's round trip while the batch runs: 7.5 s ± 6.5 s (under the
/// client's 15 s for one attempt), half before the network applies it, half
/// after — so the batch's signatures are applied and answered spread over
/// about 14 s, and the kill finds some answered, some applied with their
/// answer on the way, and some not yet applied (a request whose client is
/// gone is dropped by the server before it is applied).
const SIGN_HOLD: (u32, u32) = (7_500, 6_500);
/// The kill comes once the app has shown this many answers (and the
/// screenshot of its progress is taken).
const ANSWERED_AT_KILL: u64 = 3;

/// Journey 11. A prescriber signs a batch of 50 drafts (every draft the Work
/// screen offers) and the app is killed half-way. After the restart Work
/// lists exactly the drafts the network holds unsigned — the ones it signed
/// are gone from the list, none shows as signing — and signing the rest
/// finishes the batch: all 50 signed at the network, none twice (the run's
/// audit).
///
/// The 50 drafts are made by the clinic's backend and opened through the
/// app's own `get_prescription` command (what **Open link or id** calls for
/// each), 50 at once from the page: opening them one by one through the
/// screen would take the journey's whole time.
pub async fn killed_mid_batch_every_draft_shows_its_network_state_and_signing_the_rest_finishes_it(
    run: &mut Run,
) -> Result<()> {
    let sandbox = run
        .world
        .extra_sandbox("killed-batch", Lifetimes::default())?;
    let backend = Backend::new(run, &sandbox).await?;
    let mut drafts = Vec::with_capacity(BATCH);
    for (p, name) in BATCH_PATIENTS.iter().enumerate() {
        let patient = patient_via_backend(&sandbox, HARBOR_BACKEND, *name)
            .await?
            .record(run);
        for d in 0..DRAFTS_PER_PATIENT {
            let n = p * DRAFTS_PER_PATIENT + d + 1;
            let (id, _) = backend
                .draft(
                    &patient,
                    &format!("e2e-killed-batch-{n}"),
                    &format!("Take 2 tablets on day 1, then 1 daily (card {n})"),
                )
                .await?;
            drafts.push(id);
        }
    }

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J11, &sandbox).await?;
    sign_in(run, &app, J11, &PIA, Some(HARBOR)).await?;
    let opened = app
        .script_async(
            "const [ids] = arguments; const done = arguments[arguments.length - 1];\
             Promise.all(ids.map(id => window.__TAURI_INTERNALS__.invoke('get_prescription', { action: null, id })))\
             .then(r => done(r.length), e => done('failed: ' + JSON.stringify(e)));",
            vec![json!(drafts)],
        )
        .await?;
    ensure!(opened == json!(BATCH), "opening the drafts: {opened}");
    app.click("Work").await?;
    app.wait_for_text("Drafts awaiting signature").await?;
    app.check("Select all drafts").await?;
    app.click(&format!("Review and sign selected ({BATCH})"))
        .await?;
    app.button(&format!("Sign {BATCH} prescriptions")).await?;

    let before = hold(
        &sandbox,
        "prescription_sign",
        json!({ "latency": { "ms": SIGN_HOLD.0, "jitter_ms": SIGN_HOLD.1 } }),
        None,
    )
    .await?;
    app.click(&format!("Sign {BATCH} prescriptions")).await?;
    backend
        .wait_until("the app to show answers to the batch", || async {
            let done = app
                .script(
                    "return document.getElementById('sign-progress')?.value ?? 0;",
                    vec![],
                )
                .await?;
            Ok(done.as_u64().unwrap_or(0) >= ANSWERED_AT_KILL)
        })
        .await?;
    app.script(
        "document.getElementById('sign-progress')?.scrollIntoView({ block: 'center' });",
        vec![],
    )
    .await?;
    app.shot("signing the batch of 50; the app is killed now")
        .await?;
    let shots = Shots::continuing(app.shots());
    app.kill_app().await?;
    // A signature the network had not applied by the kill is applied within
    // the first half of its hold, or never: wait that out, then read the truth.
    tokio::time::sleep(Duration::from_millis(
        u64::from(SIGN_HOLD.0 + SIGN_HOLD.1) / 2 + 500,
    ))
    .await;
    sandbox.set_link(before).await?;
    let mut signed = Vec::new();
    for id in &drafts {
        if backend.signing_state(id).await? == "SIGNED" {
            signed.push(id.clone());
        }
    }
    println!(
        "  killed with {} of {BATCH} signed at the network",
        signed.len()
    );
    ensure!(
        !signed.is_empty() && signed.len() < BATCH,
        "the kill did not land mid-batch: {} of {BATCH} signed",
        signed.len()
    );

    let mut app = run.world.launch_continuing(J11, &sandbox, shots).await?;
    app.button("Sign out").await?;
    app.click("Work").await?;
    app.wait_for_text("Drafts awaiting signature").await?;
    let left = BATCH - signed.len();
    app.wait_for_text("Select Azithromycin").await?;
    for id in &drafts {
        let listed = app.has(&format!("//input[@id='work-draft-{id}']")).await?;
        ensure!(
            listed != signed.contains(id),
            "after the restart Work {} draft {id}, which the network holds {}",
            if listed { "lists" } else { "does not list" },
            if signed.contains(id) {
                "signed"
            } else {
                "unsigned"
            }
        );
    }
    let text = app.text().await?;
    let signing = text.match_indices("Signing ").any(|(at, word)| {
        text[at + word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    });
    ensure!(
        !signing,
        "the restarted app still shows a batch being signed"
    );
    app.shot("after the kill: Work lists the drafts the network holds unsigned, and only those")
        .await?;

    app.check("Select all drafts").await?;
    app.click(&format!("Review and sign selected ({left})"))
        .await?;
    let rounds = sign_until_all_signed(&app, left).await?;
    println!("  the rest of the batch signed in {rounds} round(s)");
    app.button("Sign 0 prescriptions").await?;
    app.shot("the rest of the batch signed").await?;
    for id in &drafts {
        ensure!(
            backend.signing_state(id).await? == "SIGNED",
            "draft {id} is not signed at the network after the batch was finished"
        );
    }
    app.click("Work").await?;
    app.wait_for_text("No drafts waiting for a signature")
        .await?;
    app.quit().await
}

const J12: &str = "12-killed-while-saving-a-draft";

/// The patient of journey 12, added through Harbor Lane's backend.
const DRAFT_PATIENT: (&str, &str) = ("Casimir", "Etheridge-Nkemelu");
/// A new draft's round trip while the app is killed: 6 s before the network
/// applies it, 6 s after (the client's one attempt may take 15 s).
const DRAFT_HOLD_MS: u32 = 12_000;
/// The kill comes this long after the draft reached the sandbox: after the
/// network applied it (at half the hold), before its answer is back.
const DRAFT_KILL_AFTER: Duration = Duration::from_millis(DRAFT_HOLD_MS as u64 / 2 + 3_000);

/// Journey 12. Staff save a new draft and the app is killed after the network
/// saved it but before its answer came back: the form, and the key the UI
/// made for it, die with the app. After the restart the patient's page does
/// not know the draft (nothing answered its id); staff draft the same drug
/// again, and the app sends it under the key it kept on disk for that
/// patient and drug until an answer came (`index/pending.rs`): the network
/// answers the draft it saved, the screen says no second draft was made, and
/// the patient has one draft (the run's audit checks the network).
pub async fn killed_while_a_new_draft_is_saved_the_next_save_continues_it_without_a_second_draft(
    run: &mut Run,
) -> Result<()> {
    let sandbox = run
        .world
        .extra_sandbox("killed-draft", Lifetimes::default())?;
    let patient = patient_via_backend(&sandbox, HARBOR_BACKEND, DRAFT_PATIENT)
        .await?
        .record(run);
    let patient_link = format!("rxdesk://patient/{patient}");
    let instructions = "Take one tablet by mouth every morning";

    run.world.keyring.clear(KEYRING_SERVICE)?;
    let mut app = run.world.launch(J12, &sandbox).await?;
    sign_in(run, &app, J12, &SAM, None).await?;
    open_link(&app, &patient_link).await?;
    app.wait_for_text("No prescriptions from this workstation yet")
        .await?;
    start_prescription(&app, "Lisinopril 10").await?;
    fill_prescription(&app, instructions).await?;

    // The network applies the draft 6 s after it arrives, and answers 6 s
    // later; no other fault meets it meanwhile, whatever the run's link.
    let before = hold(
        &sandbox,
        "prescription_draft",
        json!({
            "latency": { "ms": DRAFT_HOLD_MS, "jitter_ms": 0 },
            "faults": {},
        }),
        None,
    )
    .await?;
    app.click("Save draft").await?;
    let arrived = Instant::now();
    Backend::new(run, &sandbox)
        .await?
        .wait_until("the new draft to reach the sandbox", || async {
            let status = sandbox.link_status().await?;
            Ok(status["counters"]["requests"]["prescription_draft"]
                .as_u64()
                .unwrap_or(0)
                >= 1)
        })
        .await?;
    app.shot("saving the new draft; the app is killed now")
        .await?;
    tokio::time::sleep(DRAFT_KILL_AFTER.saturating_sub(arrived.elapsed())).await;
    let shots = Shots::continuing(app.shots());
    app.kill_app().await?;
    sandbox.set_link(before).await?;

    let mut app = run.world.launch_continuing(J12, &sandbox, shots).await?;
    app.button("Sign out").await?;
    open_link(&app, &patient_link).await?;
    app.wait_for_text("No prescriptions from this workstation yet")
        .await?;
    app.shot("after the kill: the workstation never heard of the draft")
        .await?;
    start_prescription(&app, "Lisinopril 10").await?;
    fill_prescription(&app, instructions).await?;
    app.click("Save draft").await?;
    app.wait_for_text("Screening:").await?;
    app.wait_for_text("No second draft was made")
        .await
        .context("the save after the restart did not find the draft saved before the kill")?;
    app.shot("drafted again: the draft saved before the kill, continued")
        .await?;
    open_link(&app, &patient_link).await?;
    app.wait_for_text("Open Lisinopril").await?;
    let rows = app.all("//li[contains(@class, 'rx-row')]").await?;
    ensure!(
        rows.len() == 1,
        "the patient has {} prescriptions from this workstation, not one",
        rows.len()
    );
    app.quit().await
}

/// On the Review screen with `total` drafts to sign: clicks **Sign N
/// prescriptions** and, as a user does, again for the ones whose every
/// attempt failed (on the bad link a third of the signatures lose their
/// answer, and a signature may meet that five times running: the screen says
/// "Not signed" and offers it again; a signature sent again is the same
/// signature). Answers the rounds it took; fails after three.
async fn sign_until_all_signed(app: &Desktop, total: usize) -> Result<usize> {
    const COUNTS: &str = "return [document.getElementById('sign-progress') !== null, \
        document.querySelectorAll('[data-testid=sign-result].result-signed').length];";
    let mut left = total;
    for round in 1..=3 {
        let word = if left == 1 {
            "prescription"
        } else {
            "prescriptions"
        };
        app.click(&format!("Sign {left} {word}")).await?;
        // The progress bar shows while the round runs (a short round may be
        // over before it is looked at).
        let shown_by = Instant::now() + Duration::from_secs(2);
        while Instant::now() < shown_by && app.script(COUNTS, vec![]).await?[0] != json!(true) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let over_by = Instant::now() + Duration::from_secs(90);
        let signed = loop {
            let counts = app.script(COUNTS, vec![]).await?;
            if counts[0] == json!(false) {
                break usize::try_from(counts[1].as_u64().unwrap_or(0)).unwrap_or(0);
            }
            ensure!(
                Instant::now() < over_by,
                "signing {left} drafts did not end in 90 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        if signed == total {
            return Ok(round);
        }
        left = total - signed;
    }
    bail!("{left} of {total} drafts still not signed after three rounds")
}

/// Fills an opened prescription form (the drug chosen) without saving it.
async fn fill_prescription(app: &Desktop, instructions: &str) -> Result<()> {
    app.fill("Instructions", instructions).await?;
    app.fill("Quantity", "30").await?;
    app.fill("Unit", "tablet").await?;
    app.fill("Days supply", "30").await
}

/// Opens `link` through **Open link or id**.
async fn open_link(app: &Desktop, link: &str) -> Result<()> {
    app.click("Open link or id").await?;
    app.fill("Link or id", link).await?;
    app.click("Open").await
}

/// Sets `own` (e.g. `{"latency": …}` or `{"faults": …}`) on `op` in the
/// sandbox's link settings, keeping every other setting (the run's bad link
/// included), and `Retry-After` when given. Answers the settings before, for
/// `set_link` to put back.
async fn hold(sandbox: &Sandbox, op: &str, own: Value, retry_after: Option<u32>) -> Result<Value> {
    let before = sandbox.link_status().await?["settings"].clone();
    ensure!(
        before.is_object(),
        "no link settings from the sandbox: {before}"
    );
    let mut settings = before.clone();
    if !settings["operations"].is_object() {
        settings["operations"] = json!({});
    }
    if !settings["operations"][op].is_object() {
        settings["operations"][op] = json!({});
    }
    for (key, value) in own.as_object().into_iter().flatten() {
        settings["operations"][op][key] = value.clone();
    }
    if let Some(seconds) = retry_after {
        settings["retry_after_secs"] = seconds.into();
    }
    sandbox.set_link(settings).await?;
    Ok(before)
}

/// Harbor Lane's backend on a journey's sandbox: what a clinic's own system
/// makes and reads through the Network API with its machine token.
struct Backend<'a> {
    sandbox: &'a Sandbox,
    token: String,
}

const DRAFT: &str = "mutation Draft($prescription: PrescriptionInput!, $metadata: RequestMetadata!) { \
    prescription(prescription: $prescription, metadata: $metadata) { __typename \
    ... on PrescriptionPayload { prescription { id signing { state contentHash } } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

const ORDER: &str = "mutation Order($order: OrderInput!, $metadata: RequestMetadata!) { \
    order(order: $order, metadata: $metadata) { __typename \
    ... on OrderPayload { order { id state } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

impl<'a> Backend<'a> {
    /// With a machine token, remembered for the run's log check.
    async fn new(run: &mut Run, sandbox: &'a Sandbox) -> Result<Self> {
        let token = sandbox
            .machine_token(HARBOR_BACKEND.0, HARBOR_BACKEND.1)
            .await?;
        run.saw_token("killed-mid-work: Harbor Lane's backend", &token);
        Ok(Self { sandbox, token })
    }

    /// A signable draft (azithromycin, clean for a patient with no
    /// allergies) under `external_id`; answers `(id, content hash)`.
    async fn draft(
        &self,
        patient_id: &str,
        external_id: &str,
        instructions: &str,
    ) -> Result<(String, String)> {
        let data = self
            .sandbox
            .graphql(
                &self.token,
                DRAFT,
                json!({
                    "prescription": {
                        "externalId": external_id,
                        "patient": { "id": patient_id },
                        "treatment": { "id": "med_azithromycin_250_tab" },
                        "instructions": instructions,
                        "dispense": { "quantity": 6, "unit": "tablet", "daysSupply": 5 },
                    },
                    "metadata": metadata(),
                }),
            )
            .await?;
        let p = &data["prescription"]["prescription"];
        match (p["id"].as_str(), p["signing"]["contentHash"].as_str()) {
            (Some(id), Some(hash)) => Ok((id.to_owned(), hash.to_owned())),
            _ => bail!("no draft: {}", data["prescription"]["unappliedChanges"]),
        }
    }

    /// A draft order of `prescriptions` under `external_id`; answers its id.
    async fn order(
        &self,
        patient_id: &str,
        prescriptions: &[&str],
        external_id: &str,
    ) -> Result<String> {
        let add: Vec<Value> = prescriptions.iter().map(|id| json!({ "id": id })).collect();
        let data = self
            .sandbox
            .graphql(
                &self.token,
                ORDER,
                json!({
                    "order": {
                        "externalId": external_id,
                        "patient": { "id": patient_id },
                        "prescriptions": { "add": add },
                    },
                    "metadata": metadata(),
                }),
            )
            .await?;
        data["order"]["order"]["id"]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("no order: {}", data["order"]["unappliedChanges"]))
    }

    /// The order's state as the network holds it (`DRAFT`, `SUBMITTED`, …).
    async fn order_state(&self, id: &str) -> Result<String> {
        let data = self
            .sandbox
            .graphql(
                &self.token,
                ORDER,
                json!({ "order": { "id": id }, "metadata": metadata() }),
            )
            .await?;
        data["order"]["order"]["state"]
            .as_str()
            .map(str::to_owned)
            .context("the network answered no order state")
    }

    /// The prescription's signing state as the network holds it (`SIGNED`, …).
    async fn signing_state(&self, id: &str) -> Result<String> {
        let data = self
            .sandbox
            .graphql(
                &self.token,
                DRAFT,
                json!({ "prescription": { "id": id }, "metadata": metadata() }),
            )
            .await?;
        data["prescription"]["prescription"]["signing"]["state"]
            .as_str()
            .map(str::to_owned)
            .context("the network answered no signing state")
    }

    /// Polls `done` every 50 ms until it holds (30 s at most).
    async fn wait_until<F, Fut>(&self, what: &str, mut done: F) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done().await? {
            ensure!(Instant::now() < deadline, "waited 30 s for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }
}
