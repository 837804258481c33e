//! Patient search as you type: from the last keystroke typed into **Search
//! patients by name** (a `keydown` listener in the page) until the answer to
//! the whole text is on screen — the box holds the whole text, its status no
//! longer says "Searching…" and the candidate list shows the patient — and the
//! next frame is painted (`MutationObserver` + `requestAnimationFrame`), all
//! timed with the page's own clock. The UI searches each text at once, so the
//! candidates of a shorter text are often on screen before the last key: they
//! do not count (they stop the clock before it started, and a figure below
//! zero is refused). The reference is one patient Get round trip from the
//! bench to the same sandbox.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rxdesk_e2e::desktop::Desktop;
use url::Url;

use crate::network;

const LABEL: &str = "Search patients by name";

/// Empties the field (an empty query clears the candidates at once).
const EMPTY: &str = "const el = arguments[0]; el.value = ''; \
    el.dispatchEvent(new Event('input', {bubbles: true})); return true;";

const GONE: &str = "return !document.querySelector('[aria-label=\"Candidates\"]');";

/// Hooks the field's keydowns and watches for `expect` among the candidates.
const HOOK: &str = "const [el, expect, query] = arguments;\
    const s = window.__benchSearch = { last: 0, shown: null };\
    if (!el.__benchHooked) { el.__benchHooked = true;\
      el.addEventListener('keydown', () => { window.__benchSearch.last = performance.now(); }, true); }\
    const status = document.getElementById(el.getAttribute('aria-describedby'));\
    const found = () => { const l = document.querySelector('[aria-label=\"Candidates\"]');\
      return s.last > 0 && el.value.trim() === query.trim() && !!status\
        && !status.textContent.includes('Searching') && !!l && l.textContent.includes(expect); };\
    const mo = new MutationObserver(() => { if (found()) { mo.disconnect();\
      requestAnimationFrame(() => { s.shown = performance.now(); }); } });\
    mo.observe(document.body, { subtree: true, childList: true, characterData: true });\
    return true;";

const RESULT: &str =
    "const s = window.__benchSearch; return s && s.shown ? s.shown - s.last : null;";

/// One sample, in ms: type `query` on the Patients screen and wait for `expect`.
pub async fn keystroke_to_candidates(app: &Desktop, query: &str, expect: &str) -> Result<f64> {
    let field = app.field(LABEL).await?;
    let field_json = serde_json::to_value(&field)?;
    app.script(EMPTY, vec![field_json.clone()]).await?;
    wait_script(app, GONE, "the candidates to go").await?;
    app.script(HOOK, vec![field_json, expect.into(), query.into()])
        .await?;
    field.send_keys(query).await.context("typing the search")?;
    let ms = wait_script(app, RESULT, "the candidates to show").await?;
    let ms = ms.as_f64().context("no time measured")?;
    if ms < 0.0 {
        bail!("the candidates were timed {ms:.1} ms before the last keystroke");
    }
    Ok(ms)
}

/// Polls `script` until it answers something else than `null`/`false`.
async fn wait_script(app: &Desktop, script: &str, what: &str) -> Result<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = app.script(script, vec![]).await?;
        if !answer.is_null() && answer != serde_json::Value::Bool(false) {
            return Ok(answer);
        }
        if Instant::now() > deadline {
            bail!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The reference: patient Get round trips (keep-alive, after a warm-up), in ms.
pub async fn get_round_trips(
    origin: &Url,
    token: &str,
    patient_id: &str,
    samples: usize,
) -> Result<Vec<f64>> {
    let http = rxdesk_e2e::http_client();
    let url = origin.join("/graphql")?;
    let body = serde_json::to_vec(&network::get_patient_body(patient_id))?.into();
    let mut out = Vec::with_capacity(samples);
    for i in 0..samples + 3 {
        let sent = Instant::now();
        let answer = crate::api::post_get(&http, &url, token, &body).await?;
        let ms = sent.elapsed().as_secs_f64() * 1000.0;
        if !String::from_utf8_lossy(&answer).contains(patient_id) {
            bail!("the Get did not answer the patient");
        }
        // The first three warm the connection up.
        if i >= 3 {
            out.push(ms);
        }
    }
    Ok(out)
}
