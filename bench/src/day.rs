//! A compressed day at the workstation (`--only day`): the real app, signed
//! in as a prescriber on a clinic's link (the sandbox's link layer: 60 ± 20 ms
//! round trip, no fault), works through a day in a few minutes — record opens
//! through **Open link or id**, new drafts, signatures in batches, orders sent
//! and some changed after Send, and locks with a fresh sign-in — spread evenly
//! over as many "hours" as there are locks ([`Day`] in the plan says how
//! many of each).
//!
//! Measured in that one run:
//! - the app's **vitals** (PSS, threads, open file descriptors of the app and
//!   its WebKit processes) after the first hour (the warm-up) and at the end
//!   of the day, each read after the app has idled a few seconds: the end
//!   against the warm-up (targets: memory ≤ 1.1×, threads and descriptors
//!   flat);
//! - the **errors**: every action that failed or answered other than it
//!   should, and every `ERROR` line of the app's logs (target: none);
//! - the **workflow** new patient → draft → sign → send, the app's own
//!   commands one after the other as its screens call them, against the least
//!   number of round trips the Network API needs for it ([`MIN_WORKFLOW`]) times
//!   the link's round trip, a patient Get measured in the same run (target:
//!   ≤ 1.5×); beside it, the requests the app sent for it (the link's counters).
//!
//! The user's part drives the app's own window: opens click through its
//! screens (a script in the page does the clicking and waits for the page, so
//! a thousand opens fit the time), drafts, signatures and orders go through
//! its IPC commands (`window.__TAURI_INTERNALS__.invoke`, what its screens
//! call), locks click its **Lock** button and sign in again through the
//! browser. The idle lock itself takes at least a minute of no input
//! (`RXDESK_IDLE_LOCK_MINUTES` is whole minutes), too long for twenty in a
//! bounded run: **Lock** ends the session the same way (`lock_session`). The
//! patients the day works on are set up by the clinic's backend beforehand;
//! that is not measured.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rxdesk_e2e::desktop::Desktop;
use rxdesk_e2e::fixture::{HARBOR, HARBOR_BACKEND, PIA};
use rxdesk_e2e::link::BadLink;
use rxdesk_e2e::services::{self, Lifetimes, Sandbox};
use rxdesk_e2e::{APP_IDENTIFIER, KEYRING_SERVICE, World, flows};
use serde_json::{Value, json};

use crate::gui::letters;
use crate::memory;
use crate::network;
use crate::plan::Plan;
use crate::report::Figure;
use crate::search;
use crate::stats::{Summary, Target};

/// The seed of the clinic link's jitter: the same delays in every run.
const DAY_SEED: u64 = 48;
/// Patients set up by the backend at once before the day starts.
const SETUP_IN_FLIGHT: usize = 16;
/// The pharmacy a sent order is moved to ("changed after Send").
const OTHER_PHARMACY: &str = "phr_harbor_drug_back_bay";
/// Readings of the vitals after the warm-up and at the end, a second apart.
const READINGS: usize = 5;
/// The drug every draft of the day is for (screens clean without allergies).
const DRUG: &str = "med_azithromycin_250_tab";

/// The figure keys of the day, in table order.
pub const KEYS: [&str; 6] = [
    "day_workflow",
    "day_memory",
    "day_anon_memory",
    "day_threads",
    "day_descriptors",
    "day_errors",
];

/// The least the Network API needs for new patient → draft → sign → send, as
/// the link layer names the operations: the patient Sync that adds them; the
/// Draft (its screening comes in the answer); the Sign; the order Sync that
/// makes the patient's draft order with the prescription (the patient
/// chooses the pharmacy, so none is sent); the Send. One round trip each.
pub const MIN_WORKFLOW: [&str; 5] = [
    "patient_sync",
    "prescription_draft",
    "prescription_sign",
    "order_draft",
    "order_send",
];

/// How much of a day a run works through.
#[derive(Debug, Clone)]
pub struct Day {
    /// Records opened through **Open link or id**.
    pub opens: usize,
    /// New drafts (besides the workflow's).
    pub drafts: usize,
    /// Drafts signed, `batch` at a time (of the drafts above).
    pub signatures: usize,
    pub batch: usize,
    /// Orders sent (of the signed prescriptions), and of them changed after Send.
    pub orders: usize,
    pub changed_after_send: usize,
    /// Locks, each followed by a fresh sign-in: one ends each hour.
    pub locks: usize,
    /// Timed new patient → draft → sign → send runs (their own drafts,
    /// signatures and orders).
    pub workflows: usize,
    /// How long the app idles before its vitals are read.
    pub settle: Duration,
}

impl Day {
    /// What the issue asks of a day (about five minutes on the clinic link).
    pub fn full() -> Self {
        Self {
            opens: 1000,
            drafts: 300,
            signatures: 200,
            batch: 20,
            orders: 50,
            changed_after_send: 10,
            locks: 20,
            workflows: 10,
            settle: Duration::from_secs(12),
        }
    }

    /// About a twentieth: two hours, so that there is a warm-up and an end.
    pub fn quick() -> Self {
        Self {
            opens: 50,
            drafts: 15,
            signatures: 10,
            batch: 5,
            orders: 3,
            changed_after_send: 1,
            locks: 2,
            workflows: 2,
            settle: Duration::from_secs(3),
        }
    }

    /// The hours of the day: one per lock, at least one.
    pub fn hours(&self) -> usize {
        self.locks.max(1)
    }
}

/// Hour `hour`'s part of `total` spread evenly over `hours`: the parts add
/// up to `total` and differ by one at most.
pub fn share(total: usize, hours: usize, hour: usize) -> usize {
    if hours == 0 {
        return 0;
    }
    total * (hour + 1) / hours - total * hour / hours
}

/// What the app sent beyond [`MIN_WORKFLOW`], from the link's counters of one
/// workflow (`sent`, per operation; the token endpoint is not a round trip of
/// the workflow and is left out): "1 get", …; empty when nothing more.
pub fn beyond_minimum(sent: &BTreeMap<String, u64>) -> Vec<String> {
    let mut least: BTreeMap<&str, u64> = BTreeMap::new();
    for op in MIN_WORKFLOW {
        *least.entry(op).or_default() += 1;
    }
    sent.iter()
        .filter(|(op, _)| op.as_str() != "token")
        .filter_map(|(op, n)| {
            let more = n.saturating_sub(least.get(op.as_str()).copied().unwrap_or(0));
            (more > 0).then(|| format!("{more} {op}"))
        })
        .collect()
}

/// The counters' growth from `before` to `after`, per operation.
pub fn counted_since(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    after
        .iter()
        .filter_map(|(op, n)| {
            let d = n.saturating_sub(before.get(op).copied().unwrap_or(0));
            (d > 0).then(|| (op.clone(), d))
        })
        .collect()
}

/// "2 get, 1 patient_sync" (or "none").
fn words(counts: &BTreeMap<String, u64>) -> String {
    let all: Vec<String> = counts
        .iter()
        .filter(|(op, _)| op.as_str() != "token")
        .map(|(op, n)| format!("{n} {op}"))
        .collect();
    if all.is_empty() {
        "none".into()
    } else {
        all.join(", ")
    }
}

/// The `Threads:` line of a `/proc/<pid>/status`.
pub fn threads_in_status(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Lines of an app log at the `ERROR` level (tracing's plain format: the
/// level stands alone after the time).
pub fn error_lines(log: &str) -> usize {
    log.lines()
        .filter(|l| l.split_whitespace().take(3).any(|w| w == "ERROR"))
        .count()
}

/// PSS (KiB) by mapping in an `/proc/<pid>/smaps`: each mapping's path, or
/// its kind in brackets (`[heap]`, `[anon]` for a mapping without a name).
pub fn pss_by_mapping(smaps: &str) -> BTreeMap<String, u64> {
    let mut by = BTreeMap::new();
    let mut current = String::new();
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            continue;
        };
        if !first.ends_with(':') {
            // A mapping's header: address, perms, offset, device, inode, path.
            let path: Vec<&str> = words.skip(4).collect();
            current = if path.is_empty() {
                "[anon]".to_owned()
            } else {
                path.join(" ")
            };
        } else if first == "Pss:" {
            let kib: u64 = words.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            *by.entry(current.clone()).or_default() += kib;
        }
    }
    by
}

/// The mappings that grew most from `before` to `after` (KiB each): "[anon]
/// +20.1 MiB, libfoo.so +1.2 MiB", the `n` largest growths above 0.5 MiB.
pub fn grown_mappings(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
    n: usize,
) -> String {
    let mut grown: Vec<(&str, f64)> = after
        .iter()
        .map(|(name, kib)| {
            let was = before.get(name).copied().unwrap_or(0);
            (name.as_str(), (*kib as f64 - was as f64) / 1024.0)
        })
        .filter(|(_, mib)| *mib > 0.5)
        .collect();
    grown.sort_by(|a, b| b.1.total_cmp(&a.1));
    let short = |path: &str| path.rsplit('/').next().unwrap_or(path).to_owned();
    let words: Vec<String> = grown
        .iter()
        .take(n)
        .map(|(name, mib)| format!("{} +{mib:.1} MiB", short(name)))
        .collect();
    if words.is_empty() {
        "no mapping grew by more than 0.5 MiB".into()
    } else {
        words.join(", ")
    }
}

/// One process of a reading.
#[derive(Debug, Clone, Default)]
pub struct Process {
    pub name: String,
    pub pss_mib: f64,
    pub anon_mib: f64,
    pub threads: u64,
    pub descriptors: u64,
    /// PSS by mapping (KiB), and threads by name, when asked for
    /// ([`Vitals::read`]'s `mappings`).
    pub mappings: BTreeMap<String, u64>,
    pub thread_names: BTreeMap<String, u64>,
}

/// One reading of the app's vitals: the app's process and its WebKit
/// processes (not the browser a sign-in starts).
#[derive(Debug, Clone, Default)]
pub struct Vitals {
    pub pss_mib: f64,
    /// The anonymous part of the PSS: the heaps, private to the app (what a
    /// leak grows; shared library pages move with other processes that map them).
    pub anon_mib: f64,
    pub threads: u64,
    pub descriptors: u64,
    /// Largest first.
    pub processes: Vec<Process>,
}

impl Vitals {
    /// The running app's (`exe`); with each process's PSS by mapping when
    /// `mappings` (a longer read).
    pub fn read(exe: &Path, mappings: bool) -> Result<Self> {
        let root = match memory::pids_of(exe).as_slice() {
            [pid] => *pid,
            other => bail!("{} processes of {}: {other:?}", other.len(), exe.display()),
        };
        let mut vitals = Self::default();
        for pid in memory::with_descendants(root) {
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .unwrap_or_default()
                .trim()
                .to_owned();
            if pid != root && !name.starts_with("WebKit") {
                continue;
            }
            // A process may end between the listing and the reads.
            let (Ok(rollup), Ok(status), Ok(fds)) = (
                std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")),
                std::fs::read_to_string(format!("/proc/{pid}/status")),
                std::fs::read_dir(format!("/proc/{pid}/fd")),
            ) else {
                continue;
            };
            let process = Process {
                name,
                pss_mib: memory::pss_kib(&rollup).unwrap_or(0) as f64 / 1024.0,
                anon_mib: memory::rollup_kib(&rollup, "Pss_Anon:").unwrap_or(0) as f64 / 1024.0,
                threads: threads_in_status(&status).unwrap_or(0),
                descriptors: fds.count() as u64,
                mappings: if mappings {
                    std::fs::read_to_string(format!("/proc/{pid}/smaps"))
                        .map(|s| pss_by_mapping(&s))
                        .unwrap_or_default()
                } else {
                    BTreeMap::new()
                },
                thread_names: if mappings {
                    thread_names(pid)
                } else {
                    BTreeMap::new()
                },
            };
            vitals.pss_mib += process.pss_mib;
            vitals.anon_mib += process.anon_mib;
            vitals.threads += process.threads;
            vitals.descriptors += process.descriptors;
            vitals.processes.push(process);
        }
        vitals
            .processes
            .sort_by(|a, b| b.pss_mib.total_cmp(&a.pss_mib));
        Ok(vitals)
    }

    /// "rxdesk 80.1 MiB (anon 30.2), 30 threads, 40 descriptors; WebKitWebProces …".
    pub fn breakdown(&self) -> String {
        self.processes
            .iter()
            .map(|p| {
                format!(
                    "{} {:.1} MiB (anon {:.1}), {} threads, {} descriptors",
                    p.name, p.pss_mib, p.anon_mib, p.threads, p.descriptors
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Per process of `self`, what grew since `before`, by mapping, and the
    /// threads that came or went (by name).
    pub fn growth_since(&self, before: &Vitals) -> String {
        self.processes
            .iter()
            .filter_map(|p| {
                let was = before.processes.iter().find(|b| b.name == p.name)?;
                let came = counted_since(&was.thread_names, &p.thread_names);
                let went = counted_since(&p.thread_names, &was.thread_names);
                let threads = match (came.is_empty(), went.is_empty()) {
                    (true, true) => String::new(),
                    _ => format!("; threads come: {}, gone: {}", words(&came), words(&went)),
                };
                Some(format!(
                    "{} {:+.1} MiB ({}{threads})",
                    p.name,
                    p.pss_mib - was.pss_mib,
                    grown_mappings(&was.mappings, &p.mappings, 3)
                ))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// A process's threads by name (`/proc/<pid>/task/*/comm`).
fn thread_names(pid: u32) -> BTreeMap<String, u64> {
    let mut names = BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if let Ok(name) = std::fs::read_to_string(task.path().join("comm")) {
            *names.entry(name.trim().to_owned()).or_default() += 1;
        }
    }
    names
}

/// `n` readings of the app's vitals a second apart (the last with its
/// mappings and thread names): a figure's runs.
async fn readings(exe: &Path, n: usize) -> Result<Vec<Vitals>> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        out.push(Vitals::read(exe, i + 1 == n)?);
    }
    Ok(out)
}

/// Starts an async job in the page: `body` is the body of an async function
/// of `args`; its value (or its error) is polled for until `timeout`.
async fn job(app: &Desktop, body: &str, args: Value, timeout: Duration) -> Result<Value> {
    let script = format!(
        "window.__benchDay = null;\
         (async (args) => {{ {body} }})(arguments[0]).then(\
           v => {{ window.__benchDay = {{ ok: v === undefined ? null : v }}; }},\
           e => {{ window.__benchDay = {{ error: String((e && e.message) || JSON.stringify(e)) }}; }});\
         return true;"
    );
    app.script(&script, vec![args]).await?;
    let deadline = Instant::now() + timeout;
    loop {
        let answer = app.script("return window.__benchDay;", vec![]).await?;
        if !answer.is_null() {
            if let Some(error) = answer.get("error") {
                bail!("a step of the day failed in the page: {error}");
            }
            return Ok(answer["ok"].clone());
        }
        if Instant::now() > deadline {
            bail!("a step of the day had no answer in {timeout:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What every job's body starts with: the app's IPC, and waiting for the page.
const PRELUDE: &str = "const invoke = (cmd, a) => window.__TAURI_INTERNALS__.invoke(cmd, a);\
    const until = (cond, ms) => new Promise((resolve, reject) => {\
      const t0 = performance.now();\
      const tick = () => { let v = null; try { v = cond(); } catch (_) { v = null; }\
        if (v) resolve(v); else if (performance.now() - t0 > ms) reject(new Error('timed out'));\
        else setTimeout(tick, 2); };\
      tick(); });\
    const errors = [];\
    const failed = (what, e) => errors.push(what + ': ' + ((e && e.message) || JSON.stringify(e)));\
    const form = { templateId: null, drugId: args.drug, instructions: 'Take 2 tablets on day 1, then 1 daily',\
      quantity: 6, unit: 'tablet', daysSupply: 5, refills: null, dispenseAsWritten: null, notes: null,\
      addDiagnoses: [], removeDiagnoses: [] };";

/// Opens each `[id, full name]` through **Open link or id**: the tab, the id
/// typed, **Open**, until the page shows the patient and their work.
const OPENS: &str = "const ms = [];\
    for (const [id, name] of args.patients) {\
      try {\
        const tab = [...document.querySelectorAll('nav[aria-label=\"Main\"] button')]\
          .find(b => b.textContent.trim() === 'Open link or id');\
        if (!tab) throw new Error('no Open link or id tab');\
        tab.click();\
        const field = await until(() => document.getElementById('open-link-text'), 10000);\
        field.value = id; field.dispatchEvent(new Event('input', { bubbles: true }));\
        const t0 = performance.now();\
        field.closest('form').querySelector('button[type=\"submit\"]').click();\
        const shown = await until(() => {\
          if (document.querySelector('[data-testid=\"record-error\"]')) return 'error';\
          const h = document.getElementById('patient-title');\
          const work = document.body.textContent.includes('No orders from this workstation yet.')\
            || [...document.querySelectorAll('button.link')].some(b => b.textContent.startsWith('Order —'));\
          return h && h.textContent.trim() === name && work ? 'shown' : null; }, 30000);\
        if (shown !== 'shown') throw new Error('the page showed an error');\
        ms.push(performance.now() - t0);\
      } catch (e) { failed('open', e); }\
    }\
    return { ms, errors };";

/// A new draft for each patient id, one after the other: `[id, hash]` each.
const DRAFTS: &str = "const drafts = [];\
    for (const patientId of args.patients) {\
      try {\
        const d = await invoke('save_draft', { action: null, patientId, id: null, key: crypto.randomUUID(), form });\
        if (d.kind !== 'saved' || d.prescription.status !== 'READY') throw new Error('not a clean draft: ' + d.kind);\
        drafts.push([patientId, d.prescription.id, d.prescription.contentHash]);\
      } catch (e) { failed('draft', e); }\
    }\
    return { drafts, errors };";

/// Signs `[[patient, id, hash], …]` in batches of `args.batch` (what Review does).
const SIGNS: &str = "const signed = [];\
    for (let i = 0; i < args.drafts.length; i += args.batch) {\
      const batch = args.drafts.slice(i, i + args.batch);\
      try {\
        const r = await invoke('sign_prescriptions', { action: null,\
          items: batch.map(([, id, contentHash]) => ({ id, contentHash })) });\
        r.forEach((x, j) => { if (x.kind === 'signed') signed.push([batch[j][0], batch[j][1]]);\
          else failed('signature', new Error(x.kind)); });\
      } catch (e) { failed('signing', e); }\
    }\
    return { signed, errors };";

/// An order for each `[patient, prescription]`, sent; the first
/// `args.change` of them then moved to another pharmacy.
const ORDERS: &str = "let sent = 0, changed = 0;\
    for (const [k, [patientId, rx]] of args.signed.entries()) {\
      try {\
        const o = await invoke('draft_order', { action: null, patientId, prescriptionIds: [rx], key: crypto.randomUUID() });\
        if (o.kind !== 'saved') throw new Error('order not saved');\
        const s = await invoke('send_order', { action: null, id: o.order.id });\
        if (s.kind !== 'saved' || s.order.state !== 'SUBMITTED') throw new Error('order not sent');\
        sent += 1;\
        if (k < args.change) {\
          const c = await invoke('choose_pharmacy', { action: null, orderId: o.order.id, pharmacyId: args.pharmacy });\
          if (c.kind !== 'saved' || !c.order.pharmacy || c.order.pharmacy.id !== args.pharmacy) throw new Error('pharmacy not changed');\
          changed += 1;\
        }\
      } catch (e) { failed('order', e); }\
    }\
    return { sent, changed, errors };";

/// New patient → draft → sign → send, the app's commands one after the
/// other; the time from the first call to the last answer, in ms.
const WORKFLOW: &str = "const t0 = performance.now();\
    const p = await invoke('save_patient', { action: null, id: null, input: args.patient });\
    if (p.kind !== 'saved') throw new Error('the patient was not added: ' + p.kind);\
    const patientId = p.patient.id;\
    const d = await invoke('save_draft', { action: null, patientId, id: null, key: crypto.randomUUID(), form });\
    if (d.kind !== 'saved') throw new Error('the draft was not saved');\
    const s = await invoke('sign_prescriptions', { action: null,\
      items: [{ id: d.prescription.id, contentHash: d.prescription.contentHash }] });\
    if (s[0].kind !== 'signed') throw new Error('not signed: ' + s[0].kind);\
    const o = await invoke('draft_order', { action: null, patientId, prescriptionIds: [d.prescription.id], key: crypto.randomUUID() });\
    if (o.kind !== 'saved') throw new Error('the order was not saved');\
    const sent = await invoke('send_order', { action: null, id: o.order.id });\
    if (sent.kind !== 'saved' || sent.order.state !== 'SUBMITTED') throw new Error('the order was not sent');\
    return performance.now() - t0;";

/// What the day did, counted as it went.
#[derive(Debug, Default)]
struct Tally {
    opens: usize,
    open_ms: Vec<f64>,
    drafts: usize,
    signed: usize,
    sent: usize,
    changed: usize,
    locks: usize,
    workflow_ms: Vec<f64>,
    /// The first few failures, in words (no patient data: ids and kinds only).
    errors: Vec<String>,
    error_count: usize,
}

impl Tally {
    fn failures(&mut self, answer: &Value) {
        for e in answer["errors"].as_array().into_iter().flatten() {
            self.error_count += 1;
            if self.errors.len() < 5 {
                self.errors.push(e.as_str().unwrap_or_default().to_owned());
            }
        }
    }
}

/// The day's figures, on a clinic-link sandbox of its own.
pub async fn figures(plan: &Plan, world: &World) -> Result<Vec<Figure>> {
    crate::profile::Recording::check()?;
    let day = &plan.day;
    let link = BadLink::latency_only("clinic", DAY_SEED);
    let sandbox = world.extra_sandbox_on("day", Lifetimes::default(), Some(&link))?;
    let origin = sandbox.url.clone();
    let http = rxdesk_e2e::http_client();
    let token = services::machine_token(&http, &origin, HARBOR_BACKEND).await?;

    // The patients of the day, added by the clinic's backend (not measured):
    // one per draft, so each draft screens clean.
    eprintln!("==> a day: {} patients set up by the backend", day.drafts);
    let patients = add_patients(&http, &origin, &token, day.drafts).await?;

    let app = world.launch("day", &sandbox).await?;
    if !flows::is_signed_in(&app, &PIA).await? {
        flows::sign_in(world, &app, "day", &PIA, Some(HARBOR)).await?;
    }
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut next = Cursor::default();
    let mut warm = None;
    let mut workflow_sent = None;
    let mut hourly = Vec::new();
    let hours = day.hours();
    for hour in 0..hours {
        eprintln!("==> a day: hour {} of {hours}", hour + 1);
        opens(
            &app,
            &patients,
            share(day.opens, hours, hour),
            &mut next,
            &mut tally,
        )
        .await?;
        let drafts = drafts(
            &app,
            &patients,
            share(day.drafts, hours, hour),
            &mut next,
            &mut tally,
        )
        .await?;
        next.signable.extend(drafts);
        let signing: Vec<Value> = take(&mut next.signable, share(day.signatures, hours, hour));
        let signed = sign(&app, signing, day.batch, &mut tally).await?;
        next.orderable.extend(signed);
        let ordering = take(&mut next.orderable, share(day.orders, hours, hour));
        let change = share(day.changed_after_send, hours, hour);
        orders(&app, ordering, change, &mut tally).await?;
        for _ in 0..share(day.workflows, hours, hour) {
            let before = requests(&sandbox).await?;
            // The workflow alone, when profiled by hand (`profile::CONTROL`).
            let recording = crate::profile::Recording::start()?;
            let ms = workflow(&app, tally.workflow_ms.len()).await;
            drop(recording);
            match ms {
                Ok(ms) => tally.workflow_ms.push(ms),
                Err(e) => {
                    tally.error_count += 1;
                    tally.errors.push(format!("workflow: {e:#}"));
                }
            }
            let sent = counted_since(&before, &requests(&sandbox).await?);
            workflow_sent.get_or_insert(sent);
        }
        lock_and_sign_in(world, &app, &mut tally).await?;
        // The trend, read at once (not settled): a plateau or a slope.
        let now = Vitals::read(&world.layout.app, false)?;
        hourly.push(Hourly {
            pss_mib: now.pss_mib,
            anon_mib: now.anon_mib,
            threads: now.threads,
            descriptors: now.descriptors,
        });
        if hour == 0 {
            tokio::time::sleep(day.settle).await;
            warm = Some((
                readings(&world.layout.app, READINGS).await?,
                page(&app).await?,
            ));
        }
    }
    tokio::time::sleep(day.settle).await;
    let end = (
        readings(&world.layout.app, READINGS).await?,
        page(&app).await?,
    );
    let took = started.elapsed();
    let all_requests = requests(&sandbox).await?;
    // The prescriber's own token (a machine token never signs), from the
    // session the app stored, for the network's share of the workflow.
    let prescriber = rxdesk_e2e::tokens::stored_sessions(&world.keyring, KEYRING_SERVICE)?
        .iter()
        .find_map(rxdesk_e2e::tokens::StoredSession::access_token)
        .context("the app stored no session to work with")?;
    app.quit().await?;
    memory::wait_gone(&world.layout.app, Duration::from_secs(20)).await?;
    let logged_errors = app_log_errors(world);

    let round_trip_patient = patients.first().context("no patient set up")?;
    let round_trips = search::get_round_trips(&origin, &token, &round_trip_patient.0, 15).await?;
    let mut network_share = Vec::new();
    for n in 0..day.workflows.max(1) {
        network_share.push(workflow_directly(&http, &origin, &prescriber, n).await?);
    }
    let (warm, warm_page) = warm.context("no readings after the warm-up")?;
    let (end, end_page) = end;
    rows(
        plan,
        &Measured {
            tally,
            warm,
            end,
            took,
            round_trips,
            workflow_sent: workflow_sent.unwrap_or_default(),
            all_requests,
            logged_errors,
            hourly,
            pages: (warm_page, end_page),
            network_share,
        },
    )
}

/// Where the day is in its lists of work.
#[derive(Debug, Default)]
struct Cursor {
    opened: usize,
    drafted: usize,
    /// `[patient, id, hash]` drafts not yet signed.
    signable: Vec<Value>,
    /// `[patient, prescription]` signed, not yet on an order.
    orderable: Vec<Value>,
}

fn take(list: &mut Vec<Value>, n: usize) -> Vec<Value> {
    list.drain(..n.min(list.len())).collect()
}

async fn add_patients(
    http: &reqwest::Client,
    origin: &url::Url,
    token: &str,
    n: usize,
) -> Result<Vec<(String, String)>> {
    use futures::StreamExt as _;
    let added: Vec<Result<(String, String)>> = futures::stream::iter(0..n.max(1))
        .map(|i| async move {
            let last = format!("Dayworker{}", letters(i));
            let id = network::add_patient(http, origin, token, ("Dana", &last)).await?;
            Ok((id, format!("Dana {last}")))
        })
        .buffered(SETUP_IN_FLIGHT)
        .collect()
        .await;
    added.into_iter().collect()
}

async fn opens(
    app: &Desktop,
    patients: &[(String, String)],
    n: usize,
    next: &mut Cursor,
    tally: &mut Tally,
) -> Result<()> {
    let list: Vec<Value> = (0..n)
        .map(|k| {
            let (id, name) = &patients[(next.opened + k) % patients.len()];
            json!([id, name])
        })
        .collect();
    next.opened += n;
    let body = format!("{PRELUDE}{OPENS}");
    let timeout = Duration::from_secs(30 + 30 * n as u64);
    let answer = job(
        app,
        &body,
        json!({ "patients": list, "drug": DRUG }),
        timeout,
    )
    .await?;
    let ms: Vec<f64> = answer["ms"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .collect();
    tally.opens += ms.len();
    tally.open_ms.extend(ms);
    tally.failures(&answer);
    Ok(())
}

async fn drafts(
    app: &Desktop,
    patients: &[(String, String)],
    n: usize,
    next: &mut Cursor,
    tally: &mut Tally,
) -> Result<Vec<Value>> {
    let ids: Vec<&str> = patients
        .iter()
        .skip(next.drafted)
        .take(n)
        .map(|(id, _)| id.as_str())
        .collect();
    next.drafted += ids.len();
    let body = format!("{PRELUDE}{DRAFTS}");
    let timeout = Duration::from_secs(30 + 30 * n as u64);
    let answer = job(
        app,
        &body,
        json!({ "patients": ids, "drug": DRUG }),
        timeout,
    )
    .await?;
    let drafts = answer["drafts"].as_array().cloned().unwrap_or_default();
    tally.drafts += drafts.len();
    tally.failures(&answer);
    Ok(drafts)
}

async fn sign(
    app: &Desktop,
    drafts: Vec<Value>,
    batch: usize,
    tally: &mut Tally,
) -> Result<Vec<Value>> {
    if drafts.is_empty() {
        return Ok(Vec::new());
    }
    let body = format!("{PRELUDE}{SIGNS}");
    let timeout = Duration::from_secs(60 + 10 * drafts.len() as u64);
    let args = json!({ "drafts": drafts, "batch": batch.max(1), "drug": DRUG });
    let answer = job(app, &body, args, timeout).await?;
    let signed = answer["signed"].as_array().cloned().unwrap_or_default();
    tally.signed += signed.len();
    tally.failures(&answer);
    Ok(signed)
}

async fn orders(app: &Desktop, signed: Vec<Value>, change: usize, tally: &mut Tally) -> Result<()> {
    if signed.is_empty() {
        return Ok(());
    }
    let body = format!("{PRELUDE}{ORDERS}");
    let timeout = Duration::from_secs(60 + 30 * signed.len() as u64);
    let args =
        json!({ "signed": signed, "change": change, "pharmacy": OTHER_PHARMACY, "drug": DRUG });
    let answer = job(app, &body, args, timeout).await?;
    tally.sent += answer["sent"].as_u64().unwrap_or(0) as usize;
    tally.changed += answer["changed"].as_u64().unwrap_or(0) as usize;
    tally.failures(&answer);
    Ok(())
}

/// One timed workflow for a new patient (the `n`th of the day).
async fn workflow(app: &Desktop, n: usize) -> Result<f64> {
    let patient = json!({
        "firstName": "Wanda",
        "lastName": format!("Workflow{}", letters(n)),
        "dateOfBirth": "1971-05-20",
        "sex": "FEMALE",
        "email": null,
        "phone": "+16175550188",
    });
    let body = format!("{PRELUDE}{WORKFLOW}");
    let answer = job(
        app,
        &body,
        json!({ "patient": patient, "drug": DRUG }),
        Duration::from_secs(60),
    )
    .await?;
    answer.as_f64().context("the workflow measured no time")
}

/// What the page holds: its elements, and the callbacks Tauri's IPC keeps
/// for it (a command's answer or an event's listener each; one kept per
/// visit of a screen would be a leak).
async fn page(app: &Desktop) -> Result<String> {
    let answer = app
        .script(
            "return [document.getElementsByTagName('*').length, \
             (window.__TAURI_INTERNALS__.callbacks || new Map()).size];",
            vec![],
        )
        .await?;
    Ok(format!(
        "{} elements, {} IPC callbacks",
        answer[0].as_u64().unwrap_or(0),
        answer[1].as_u64().unwrap_or(0)
    ))
}

/// An order Sync or Send, as a backend sends one.
const ORDER: &str = "mutation Order($order: OrderInput!, $metadata: RequestMetadata!) { \
    order(order: $order, metadata: $metadata) { __typename \
    ... on OrderPayload { order { id state } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

/// The network's share of the workflow: its five calls sent straight from
/// the bench with the prescriber's `token`, one after the other (the `n`th
/// such patient); the time from the first to the last answer, in ms.
async fn workflow_directly(
    http: &reqwest::Client,
    origin: &url::Url,
    token: &str,
    n: usize,
) -> Result<f64> {
    let last = format!("Networkshare{}", letters(n));
    let order = |order: Value| {
        services::graphql(
            http,
            origin,
            token,
            ORDER,
            json!({ "order": order, "metadata": network::metadata() }),
        )
    };
    let started = Instant::now();
    let patient = network::add_patient(http, origin, token, ("Wanda", &last)).await?;
    let draft = network::add_draft(http, origin, token, &patient).await?;
    crate::signing::sign_directly(http, origin, token, std::slice::from_ref(&draft)).await?;
    let drafted = order(json!({
        "patient": { "id": patient },
        "prescriptions": { "add": [{ "id": draft.0 }] },
    }))
    .await?;
    let id = drafted["order"]["order"]["id"]
        .as_str()
        .with_context(|| format!("no order: {}", drafted["order"]["unappliedChanges"]))?;
    let sent = order(json!({ "id": id, "state": "SUBMITTED" })).await?;
    let took = started.elapsed().as_secs_f64() * 1000.0;
    if sent["order"]["order"]["state"] != "SUBMITTED" {
        bail!(
            "the bench's order was not sent: {}",
            sent["order"]["unappliedChanges"]
        );
    }
    Ok(took)
}

/// **Lock**, then a fresh sign-in through the browser.
async fn lock_and_sign_in(world: &World, app: &Desktop, tally: &mut Tally) -> Result<()> {
    app.click("Lock").await?;
    app.wait_for_text("Rx Desk is locked.").await?;
    flows::sign_in(world, app, "day", &PIA, Some(HARBOR)).await?;
    tally.locks += 1;
    Ok(())
}

/// The link layer's request counters by operation.
async fn requests(sandbox: &Sandbox) -> Result<BTreeMap<String, u64>> {
    let status = sandbox.link_status().await?;
    let requests = status["counters"]["requests"]
        .as_object()
        .context("no request counters in the link status")?;
    Ok(requests
        .iter()
        .filter_map(|(op, n)| Some((op.clone(), n.as_u64()?)))
        .collect())
}

/// `ERROR` lines in the app's own log files of this run.
fn app_log_errors(world: &World) -> usize {
    let dir = world.home.data().join(APP_IDENTIFIER).join("logs");
    std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                .map(|text| error_lines(&text))
                .sum()
        })
        .unwrap_or(0)
}

/// The vitals at the end of one hour (not settled: the trend).
struct Hourly {
    pss_mib: f64,
    anon_mib: f64,
    threads: u64,
    descriptors: u64,
}

/// Everything the rows are made of.
struct Measured {
    tally: Tally,
    /// [`READINGS`] readings each.
    warm: Vec<Vitals>,
    end: Vec<Vitals>,
    took: Duration,
    round_trips: Vec<f64>,
    workflow_sent: BTreeMap<String, u64>,
    all_requests: BTreeMap<String, u64>,
    logged_errors: usize,
    /// The end of each hour, read at once after its sign-in.
    hourly: Vec<Hourly>,
    /// The page after the warm-up and at the end ([`page`]).
    pages: (String, String),
    /// The workflow's five calls straight from the bench, in ms.
    network_share: Vec<f64>,
}

fn rows(plan: &Plan, m: &Measured) -> Result<Vec<Figure>> {
    let day = &plan.day;
    let t = &m.tally;
    let what = format!(
        "{} records opened through Open link or id (median {} ms an open), {} drafts, {} signed \
         in batches of {}, {} orders sent and {} of them moved to another pharmacy after Send, \
         {} locks each followed by a sign-in through the browser (the Lock button: the idle \
         lock takes a minute at least), {} timed workflows; {:.0} s in all on the clinic link",
        t.opens,
        Summary::of(&t.open_ms).map_or_else(|| "—".into(), |s| crate::report::number(s.median)),
        t.drafts + t.workflow_ms.len(),
        t.signed + t.workflow_ms.len(),
        day.batch,
        t.sent + t.workflow_ms.len(),
        t.changed,
        t.locks,
        t.workflow_ms.len(),
        m.took.as_secs_f64(),
    );
    let warm_label = |unit: &str| {
        format!(
            "after the first of {} hours (the warm-up), {} s idle, {unit}",
            day.hours(),
            day.settle.as_secs()
        )
    };
    let (warm, end) = (
        m.warm.last().context("no reading after the warm-up")?,
        m.end.last().context("no reading at the end")?,
    );
    let of =
        |readings: &[Vitals], f: fn(&Vitals) -> f64| readings.iter().map(f).collect::<Vec<_>>();
    let hourly = |f: fn(&Hourly) -> String| m.hourly.iter().map(f).collect::<Vec<_>>().join(", ");
    let reading = format!(
        "{READINGS} readings a second apart, {} s after the day's last sign-in; the app's process and its WebKit processes \
         (not the browser of a sign-in); at the end — {}; after the warm-up — {}; what grew, \
         by mapping — {}; the page after the warm-up: {}, at the end: {}; PSS at the end of \
         each hour, read at once after its sign-in (MiB): {}",
        day.settle.as_secs(),
        end.breakdown(),
        warm.breakdown(),
        end.growth_since(warm),
        m.pages.0,
        m.pages.1,
        hourly(|h| format!("{:.0}", h.pss_mib)),
    );
    let least = MIN_WORKFLOW.len();
    let reference: Vec<f64> = m.round_trips.iter().map(|r| r * least as f64).collect();
    let beyond = beyond_minimum(&m.workflow_sent);
    let errors = (t.error_count + m.logged_errors) as f64;
    Ok(vec![
        Figure::measured(
            "day_workflow",
            "a day: new patient → draft → sign → send (the app's commands, first call → last answer), clinic link",
            "ms",
            &t.workflow_ms,
            (
                &format!("{least} × a patient Get round trip on the clinic link"),
                Some(&reference),
            ),
            Target::RatioAtMost(1.5),
        )?
        .with_note(format!(
            "the least the Network API needs is {least} round trips, one after the other: {} \
             (the draft's screening comes in its answer; the patient chooses the pharmacy); \
             `save_patient`, `save_draft`, `sign_prescriptions`, `draft_order`, `send_order` \
             invoked through the window's IPC as the screens call them, without the pages a \
             person reads on the way; the same five calls straight from the bench (the \
             network's share): {} ms median, {}× the reference; requests the app sent for \
             one: {}{}",
            MIN_WORKFLOW.join(", "),
            Summary::of(&m.network_share)
                .map_or_else(|| "—".into(), |s| crate::report::number(s.median)),
            match (Summary::of(&m.network_share), Summary::of(&reference)) {
                (Some(n), Some(r)) if r.median > 0.0 => crate::report::number(n.median / r.median),
                _ => "—".into(),
            },
            words(&m.workflow_sent),
            if beyond.is_empty() {
                " (the least)".to_owned()
            } else {
                format!(" ({} beyond the least)", beyond.join(", "))
            }
        )),
        Figure::measured(
            "day_memory",
            "a day: memory at the end (PSS of the app and its WebKit processes)",
            "MiB",
            &of(&m.end, |v| v.pss_mib),
            (&warm_label("MiB"), Some(&of(&m.warm, |v| v.pss_mib))),
            Target::RatioAtMost(1.1),
        )?
        .with_note(format!("{what}; {reading}")),
        Figure::measured(
            "day_anon_memory",
            "a day: anonymous memory at the end (the heaps in that PSS, private to the app)",
            "MiB",
            &of(&m.end, |v| v.anon_mib),
            (&warm_label("MiB"), Some(&of(&m.warm, |v| v.anon_mib))),
            Target::Report,
        )?
        .with_note(format!(
            "what a leak grows, unmoved by other processes mapping the same libraries (which \
             moves the PSS of shared pages on a shared machine); at the end of each hour, read \
             at once after its sign-in (MiB): {}",
            hourly(|h| format!("{:.0}", h.anon_mib))
        )),
        Figure::measured(
            "day_threads",
            "a day: threads at the end (the app and its WebKit processes)",
            "threads",
            &of(&m.end, |v| v.threads as f64),
            (&warm_label("threads"), Some(&of(&m.warm, |v| v.threads as f64))),
            Target::RatioAtMost(1.0),
        )?
        .with_note(format!(
            "flat is the target: a thread more at the end (the median of the readings) is a \
             miss; threads at the end of each hour, read at once after its sign-in: {}",
            hourly(|h| h.threads.to_string())
        )),
        Figure::measured(
            "day_descriptors",
            "a day: open file descriptors at the end (the app and its WebKit processes)",
            "descriptors",
            &of(&m.end, |v| v.descriptors as f64),
            (&warm_label("descriptors"), Some(&of(&m.warm, |v| v.descriptors as f64))),
            Target::RatioAtMost(1.0),
        )?
        .with_note(format!(
            "flat is the target: a descriptor more at the end (the median of the readings) is \
             a miss; descriptors at the end of each hour, read at once after its sign-in: {}",
            hourly(|h| h.descriptors.to_string())
        )),
        Figure::measured(
            "day_errors",
            "a day: errors (actions failed or answered wrong, ERROR lines in the app's log)",
            "errors",
            &[errors],
            ("none", None),
            Target::Exactly(0.0),
        )?
        .with_note(format!(
            "{} actions failed, {} ERROR lines logged{}; the day's requests on the link: {}",
            t.error_count,
            m.logged_errors,
            if t.errors.is_empty() {
                String::new()
            } else {
                format!(" (first: {})", t.errors.join("; "))
            },
            words(&m.all_requests)
        )),
    ])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(op, n)| ((*op).to_owned(), *n)).collect()
    }

    #[test]
    fn every_key_of_the_day_is_a_figure_of_the_report() {
        for key in KEYS {
            assert!(
                crate::report::FIGURES.contains(&key),
                "{key} is not in FIGURES"
            );
        }
    }

    #[test]
    fn a_total_spread_over_the_hours_adds_up_with_parts_one_apart_at_most() {
        for (total, hours) in [(1000, 20), (300, 20), (50, 20), (10, 20), (3, 2), (7, 3)] {
            let parts: Vec<usize> = (0..hours).map(|h| share(total, hours, h)).collect();
            assert_eq!(parts.iter().sum::<usize>(), total, "{total} over {hours}");
            let (min, max) = (parts.iter().min().unwrap(), parts.iter().max().unwrap());
            assert!(max - min <= 1, "{parts:?}");
        }
        assert_eq!(share(5, 0, 0), 0);
    }

    #[test]
    fn the_full_day_is_the_issues_day_and_the_quick_one_a_smaller_one_with_a_warm_up() {
        let full = Day::full();
        assert_eq!(
            (
                full.opens,
                full.drafts,
                full.signatures,
                full.orders,
                full.locks
            ),
            (1000, 300, 200, 50, 20)
        );
        let quick = Day::quick();
        assert!(
            quick.hours() >= 2,
            "the quick day needs a warm-up hour and an end"
        );
        for day in [full, quick] {
            assert!(day.signatures <= day.drafts && day.orders <= day.signatures);
            assert!(day.changed_after_send <= day.orders && day.batch > 1);
        }
    }

    #[test]
    fn the_least_workflow_is_five_round_trips_one_per_call() {
        assert_eq!(MIN_WORKFLOW.len(), 5);
        let least = counts(&[
            ("patient_sync", 1),
            ("prescription_draft", 1),
            ("prescription_sign", 1),
            ("order_draft", 1),
            ("order_send", 1),
            ("token", 1),
        ]);
        assert!(beyond_minimum(&least).is_empty());
    }

    #[test]
    fn requests_beyond_the_least_are_named_with_their_count() {
        let sent = counts(&[
            ("patient_sync", 1),
            ("prescription_draft", 1),
            ("prescription_sign", 1),
            ("order_draft", 1),
            ("order_send", 1),
            ("get", 2),
        ]);
        assert_eq!(beyond_minimum(&sent), vec!["2 get".to_owned()]);
    }

    #[test]
    fn the_counters_since_a_reading_leave_out_what_did_not_move() {
        let before = counts(&[("get", 3), ("patient_sync", 1)]);
        let after = counts(&[("get", 5), ("patient_sync", 1), ("order_send", 1)]);
        assert_eq!(
            counted_since(&before, &after),
            counts(&[("get", 2), ("order_send", 1)])
        );
        assert_eq!(
            words(&counted_since(&before, &after)),
            "2 get, 1 order_send"
        );
        assert_eq!(words(&BTreeMap::new()), "none");
    }

    #[test]
    fn threads_are_read_from_a_status_file() {
        let status = "Name:\trxdesk\nState:\tS (sleeping)\nThreads:\t27\nSigQ:\t0/62811\n";
        assert_eq!(threads_in_status(status), Some(27));
        assert_eq!(threads_in_status("Name:\tx\n"), None);
        let me = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(threads_in_status(&me).unwrap() >= 1);
    }

    #[test]
    fn pss_is_summed_by_mapping_and_a_nameless_mapping_is_anonymous() {
        let smaps = "55d0a000-55d0b000 r-xp 00000000 08:01 1234 /usr/lib/libwebkit.so.4\n\
                     Rss: 8 kB\nPss: 6 kB\nVmFlags: rd ex\n\
                     7f00a000-7f00b000 rw-p 00000000 00:00 0 \n\
                     Pss: 100 kB\n\
                     7f00c000-7f00d000 rw-p 00000000 00:00 0 \n\
                     Pss: 50 kB\n\
                     55d0c000-55d0d000 rw-p 00000000 00:00 0 [heap]\n\
                     Pss: 20 kB\n";
        let by = pss_by_mapping(smaps);
        assert_eq!(by["/usr/lib/libwebkit.so.4"], 6);
        assert_eq!(by["[anon]"], 150);
        assert_eq!(by["[heap]"], 20);
        assert_eq!(by.len(), 3);
    }

    #[test]
    fn the_mappings_that_grew_most_are_named_largest_first() {
        let before = counts(&[
            ("[anon]", 10_240),
            ("[heap]", 1024),
            ("/usr/lib/libx.so", 100),
        ]);
        let after = counts(&[
            ("[anon]", 30_720),
            ("[heap]", 3072),
            ("/usr/lib/libx.so", 200),
            ("/usr/lib/liby.so", 1024),
        ]);
        assert_eq!(
            grown_mappings(&before, &after, 2),
            "[anon] +20.0 MiB, [heap] +2.0 MiB"
        );
        assert_eq!(
            grown_mappings(&after, &before, 2),
            "no mapping grew by more than 0.5 MiB"
        );
    }

    #[test]
    fn only_error_level_lines_of_a_log_count_as_errors() {
        let log = "2026-11-29T11:00:00.000Z  INFO rxdesk: started\n\
                   2026-11-29T11:00:01.000Z ERROR rxdesk::core: the index could not be written\n\
                   2026-11-29T11:00:02.000Z  WARN rxdesk: an ERROR in words is not one\n";
        assert_eq!(error_lines(log), 1);
    }
}
