//! Signing N drafts: the app's `sign_prescriptions` command invoked in the real
//! window through Tauri's IPC (what the Review screen calls), timed in the page
//! from the call to its answer holding the last outcome. The drafts are made
//! by the clinic's backend just before each batch; every one must come back
//! signed. The reference is one signature: the batch of N = 1.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rxdesk_e2e::desktop::Desktop;

/// The app's signing progress event (`EVENT_SIGNING` in
/// `src-tauri/src/ipc/prescriptions.rs`; the bench does not link the app).
const EVENT_SIGNING: &str = "rxdesk://signing";

/// Listens (once per page) to the app's signing progress, one event per
/// answered signature: the time of each answer, from the command's start.
const LISTEN: &str = "const ipc = window.__TAURI_INTERNALS__;\
    if (window.__benchSignListening) return true;\
    window.__benchSignListening = true;\
    return ipc.invoke('plugin:event|listen', { event: arguments[0], target: { kind: 'Any' },\
      handler: ipc.transformCallback(() => { const b = window.__benchSignRun;\
        if (b) b.answers.push(performance.now() - b.t0); }) }).then(() => true);";

const START: &str = "const items = arguments[0]; window.__benchSign = null;\
    const t0 = performance.now(); window.__benchSignRun = { t0, answers: [] };\
    window.__TAURI_INTERNALS__.invoke('sign_prescriptions', { items }).then(\
      r => { window.__benchSign = { ms: performance.now() - t0, kinds: r.map(x => x.kind),\
        answers: window.__benchSignRun.answers }; },\
      e => { window.__benchSign = { error: JSON.stringify(e) }; });\
    return true;";

const RESULT: &str = "return window.__benchSign;";

/// One batch signed through the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The command → its answer holding the last outcome, in ms.
    pub ms: f64,
    /// When each signature's answer reached the page (its progress event), in
    /// ms from the command, earliest first: answers that come in two waves
    /// show the window of signatures in flight as the cause.
    pub answers: Vec<f64>,
}

impl Batch {
    /// The time by which `share` (0–1] of the answers had come.
    pub fn answered_by(&self, share: f64) -> Option<f64> {
        let n = self.answers.len();
        if n == 0 {
            return None;
        }
        let i = ((share * n as f64).ceil() as usize).clamp(1, n) - 1;
        self.answers.get(i).copied()
    }
}

/// Signs `drafts` (`(id, content hash)`) in one command.
pub async fn sign(app: &Desktop, drafts: &[(String, String)]) -> Result<Batch> {
    app.script(LISTEN, vec![EVENT_SIGNING.into()]).await?;
    let items: Vec<serde_json::Value> = drafts
        .iter()
        .map(|(id, hash)| serde_json::json!({ "id": id, "contentHash": hash }))
        .collect();
    app.script(START, vec![serde_json::Value::Array(items)])
        .await?;
    let deadline = Instant::now() + Duration::from_secs(120);
    let answer = loop {
        let answer = app.script(RESULT, vec![]).await?;
        if !answer.is_null() {
            break answer;
        }
        if Instant::now() > deadline {
            bail!("no answer to signing {} drafts", drafts.len());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    if let Some(error) = answer.get("error") {
        bail!("sign_prescriptions failed: {error}");
    }
    let kinds = answer["kinds"].as_array().context("no outcomes")?;
    let signed = kinds.iter().filter(|k| *k == "signed").count();
    if signed != drafts.len() {
        bail!("{signed} of {} drafts signed: {kinds:?}", drafts.len());
    }
    let mut answers: Vec<f64> = answer["answers"]
        .as_array()
        .context("no answer times")?
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    answers.sort_by(f64::total_cmp);
    Ok(Batch {
        ms: answer["ms"].as_f64().context("no time measured")?,
        answers,
    })
}

/// A signature as the app's client sends it (`{ id, signing: { signedHash } }`).
const SIGN: &str = "mutation Sign($prescription: PrescriptionInput!, $metadata: RequestMetadata!) { \
    prescription(prescription: $prescription, metadata: $metadata) { __typename \
    ... on PrescriptionPayload { prescription { id signing { state } } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

/// The network's share of signing `drafts`: the same signatures sent straight
/// from the bench with the prescriber's `token`, as many in flight as the app
/// keeps ([`SIGNING_IN_FLIGHT`]); the time in ms until the last answer. Every
/// one must come back signed.
pub async fn sign_directly(
    http: &reqwest::Client,
    origin: &url::Url,
    token: &str,
    drafts: &[(String, String)],
) -> Result<f64> {
    use futures::StreamExt as _;
    use rxdesk_client::network::SIGNING_IN_FLIGHT;

    let started = Instant::now();
    let answers: Vec<Result<serde_json::Value>> = futures::stream::iter(drafts)
        .map(|(id, hash)| {
            rxdesk_e2e::services::graphql(
                http,
                origin,
                token,
                SIGN,
                serde_json::json!({
                    "prescription": { "id": id, "signing": { "signedHash": hash } },
                    "metadata": crate::network::metadata(),
                }),
            )
        })
        .buffer_unordered(SIGNING_IN_FLIGHT)
        .collect()
        .await;
    let took = started.elapsed().as_secs_f64() * 1000.0;
    for answer in answers {
        let data = answer?;
        if data["prescription"]["prescription"]["signing"]["state"] != "SIGNED" {
            bail!("a signature from the bench was not applied: {data}");
        }
    }
    Ok(took)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_tells_by_when_a_share_of_its_answers_had_come() {
        let batch = Batch {
            ms: 130.0,
            answers: vec![60.0, 61.0, 62.0, 120.0],
        };
        assert_eq!(batch.answered_by(0.5), Some(61.0));
        assert_eq!(batch.answered_by(0.75), Some(62.0));
        assert_eq!(batch.answered_by(1.0), Some(120.0));
        assert_eq!(
            Batch {
                ms: 1.0,
                answers: vec![]
            }
            .answered_by(0.5),
            None
        );
    }
}
