//! Signing N drafts: the app's `sign_prescriptions` command invoked in the real
//! window through Tauri's IPC (what the Review screen calls), timed in the page
//! from the call to its answer holding the last outcome. The drafts are made
//! by the clinic's backend just before each batch; every one must come back
//! signed. The reference is one signature: the batch of N = 1.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rxdesk_e2e::desktop::Desktop;

const START: &str = "const items = arguments[0]; window.__benchSign = null;\
    const t0 = performance.now();\
    window.__TAURI_INTERNALS__.invoke('sign_prescriptions', { items }).then(\
      r => { window.__benchSign = { ms: performance.now() - t0, kinds: r.map(x => x.kind) }; },\
      e => { window.__benchSign = { error: JSON.stringify(e) }; });\
    return true;";

const RESULT: &str = "return window.__benchSign;";

/// Signs `drafts` (`(id, content hash)`) in one command; the time in ms.
pub async fn sign(app: &Desktop, drafts: &[(String, String)]) -> Result<f64> {
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
    answer["ms"].as_f64().context("no time measured")
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
