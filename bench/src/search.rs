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
//!
//! Where a sample's time goes ([`Sample`]): the page's calls of the app's
//! `find_patients` command are timed too (the IPC's `fetch` wrapped once), so
//! a sample splits into the wait before the whole text's search was sent, that
//! search's round trip through the app, and the paint after its answer.

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

/// Hooks the field's keydowns and watches for `expect` among the candidates;
/// wraps `fetch` (once) to time every `find_patients` call: Tauri's IPC
/// posts each command to `ipc://localhost/<command>` with the page's `fetch`
/// (its `invoke` itself cannot be wrapped: Tauri defines it read-only).
const HOOK: &str = "const [el, expect, query] = arguments;\
    const s = window.__benchSearch = { last: 0, shown: null, calls: [] };\
    if (!window.__benchFetchWrapped) { window.__benchFetchWrapped = true; const f = window.fetch.bind(window);\
      window.fetch = (input, init) => { const p = f(input, init); const b = window.__benchSearch;\
        const url = String((input && input.url) || input);\
        if (b && url.endsWith('/find_patients')) { let q = null;\
          try { q = JSON.parse(init.body).query; } catch (e) { q = null; }\
          const c = { query: q, sent: performance.now(), answered: null }; b.calls.push(c);\
          const done = () => { c.answered = performance.now(); }; p.then(done, done); }\
        return p; }; }\
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

/// The sample once painted: its time, and the last call for the whole text.
const RESULT: &str = "const s = window.__benchSearch; if (!s || !s.shown) return null;\
    const whole = s.calls.filter(c => c.query === arguments[0]).pop();\
    return { ms: s.shown - s.last, sent: whole ? whole.sent - s.last : null,\
      answered: whole && whole.answered ? whole.answered - s.last : null,\
      shown: s.shown - s.last, calls: s.calls.length };";

/// One sample of search as you type, in ms from the last keystroke.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Until the candidates for the whole text were painted: the figure.
    pub ms: f64,
    /// Until the search for the whole text was sent (the wait behind an older
    /// search, when one was out).
    pub sent: f64,
    /// Until that search's answer reached the page.
    pub answered: f64,
    /// How many searches the page sent while the text was typed.
    pub calls: u64,
}

impl Sample {
    /// The search's own round trip through the app (IPC, client, link, sandbox).
    pub fn round_trip(&self) -> f64 {
        self.answered - self.sent
    }

    /// From the answer to the painted frame.
    pub fn paint(&self) -> f64 {
        self.ms - self.answered
    }
}

/// One sample: type `query` on the Patients screen and wait for `expect`.
pub async fn keystroke_to_candidates(app: &Desktop, query: &str, expect: &str) -> Result<Sample> {
    let field = app.field(LABEL).await?;
    let field_json = serde_json::to_value(&field)?;
    app.script(EMPTY, vec![field_json.clone()]).await?;
    wait_script(app, GONE, "the candidates to go").await?;
    app.script(HOOK, vec![field_json, expect.into(), query.into()])
        .await?;
    field.send_keys(query).await.context("typing the search")?;
    let answer = wait_script_with(app, RESULT, vec![query.trim().into()], "the candidates").await?;
    let number = |key: &str| {
        answer[key]
            .as_f64()
            .with_context(|| format!("no {key} time measured: {answer}"))
    };
    let sample = Sample {
        ms: number("ms")?,
        sent: number("sent")?,
        answered: number("answered")?,
        calls: answer["calls"].as_u64().context("no searches counted")?,
    };
    if sample.ms < 0.0 {
        bail!(
            "the candidates were timed {:.1} ms before the last keystroke",
            sample.ms
        );
    }
    Ok(sample)
}

/// Polls `script` until it answers something else than `null`/`false`.
async fn wait_script(app: &Desktop, script: &str, what: &str) -> Result<serde_json::Value> {
    wait_script_with(app, script, vec![], what).await
}

/// [`wait_script`] with arguments.
async fn wait_script_with(
    app: &Desktop,
    script: &str,
    args: Vec<serde_json::Value>,
    what: &str,
) -> Result<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = app.script(script, args.clone()).await?;
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
