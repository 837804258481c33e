//! The running link ([`Link`]): the settings in force, each operation's request
//! numbers (the `n` of its decisions), the counters of what was injected
//! ([`LinkCounters`], by kind: [`Injected`]) and the token outage's end.
//! [`UpstreamFault`] carries a chosen `UpstreamServiceError` to the Network API.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::decide::{self, Fault};
use super::operation::Operation;
use super::settings::{LinkError, LinkSettings};

/// Something the layer did to a request, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Injected {
    /// The request was delayed by the configured latency.
    Latency,
    Upstream,
    #[serde(rename = "http_502")]
    Http502,
    #[serde(rename = "http_503")]
    Http503,
    #[serde(rename = "http_429")]
    Http429,
    ResetBefore,
    ResetAfter,
    /// The token endpoint answered 503 during an outage.
    TokenOutage,
}

impl Injected {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Latency => "latency",
            Self::Upstream => "upstream",
            Self::Http502 => "http_502",
            Self::Http503 => "http_503",
            Self::Http429 => "http_429",
            Self::ResetBefore => "reset_before",
            Self::ResetAfter => "reset_after",
            Self::TokenOutage => "token_outage",
        }
    }
}

impl From<Fault> for Injected {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::Upstream => Self::Upstream,
            Fault::Http502 => Self::Http502,
            Fault::Http503 => Self::Http503,
            Fault::Http429 => Self::Http429,
            Fault::ResetBefore => Self::ResetBefore,
            Fault::ResetAfter => Self::ResetAfter,
        }
    }
}

/// What the layer saw and did since the settings were last applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCounters {
    /// Requests seen, per operation (only while the layer is on).
    pub requests: BTreeMap<Operation, u64>,
    /// What was injected, per operation and kind.
    pub injected: BTreeMap<Operation, BTreeMap<Injected, u64>>,
    /// What was injected, per kind, over every operation.
    pub total: BTreeMap<Injected, u64>,
}

impl LinkCounters {
    /// How many `kind` were injected on `op`.
    pub fn injected(&self, op: Operation, kind: Injected) -> u64 {
        self.injected
            .get(&op)
            .and_then(|m| m.get(&kind))
            .copied()
            .unwrap_or(0)
    }

    /// How many `kind` were injected in all.
    pub fn total(&self, kind: Injected) -> u64 {
        self.total.get(&kind).copied().unwrap_or(0)
    }

    /// How many faults (anything but latency) were injected in all.
    pub fn faults(&self) -> u64 {
        self.total
            .iter()
            .filter(|(k, _)| **k != Injected::Latency)
            .map(|(_, n)| n)
            .sum()
    }
}

/// The link as `GET /link` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkStatus {
    pub settings: LinkSettings,
    /// Seconds until the token endpoint answers again (0 when it does).
    pub token_outage_remaining_secs: f64,
    pub counters: LinkCounters,
}

#[derive(Debug)]
struct State {
    settings: LinkSettings,
    /// Request numbers per operation: the `n` of each decision.
    requests: BTreeMap<Operation, u64>,
    counters: LinkCounters,
    outage_until: Option<Instant>,
}

#[derive(Debug)]
struct Inner {
    /// False when the settings inject nothing and no outage was set: requests
    /// pass without a lock.
    active: AtomicBool,
    state: Mutex<State>,
}

/// The running sandbox's link: cheap to clone, shared by the middleware, the
/// control endpoint and `Sandbox::link()`.
#[derive(Debug, Clone)]
pub struct Link {
    inner: Arc<Inner>,
}

impl Link {
    /// A link with `settings` applied now (validated).
    pub fn new(settings: LinkSettings) -> Result<Self, LinkError> {
        let link = Self {
            inner: Arc::new(Inner {
                active: AtomicBool::new(false),
                state: Mutex::new(State {
                    settings: LinkSettings::default(),
                    requests: BTreeMap::new(),
                    counters: LinkCounters::default(),
                    outage_until: None,
                }),
            }),
        };
        link.set(settings)?;
        Ok(link)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held leaves counters at worst one short.
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Replaces the settings: counters start again from zero, each operation's
    /// sequence starts again from its seed, and `token_outage_secs` counts from now.
    pub fn set(&self, settings: LinkSettings) -> Result<(), LinkError> {
        settings.validate()?;
        let mut state = self.state();
        let outage = settings.token_outage_secs;
        state.outage_until =
            (outage > 0).then(|| Instant::now() + Duration::from_secs(u64::from(outage)));
        let active = !settings.is_quiet() || state.outage_until.is_some();
        if active {
            tracing::info!(
                latency = %settings.latency,
                seed = settings.seed,
                token_outage_secs = outage,
                "link: settings applied"
            );
        }
        state.settings = settings;
        state.requests.clear();
        state.counters = LinkCounters::default();
        self.inner.active.store(active, Ordering::Release);
        Ok(())
    }

    /// The settings in force.
    pub fn settings(&self) -> LinkSettings {
        self.state().settings.clone()
    }

    /// What was seen and injected since the settings were applied.
    pub fn counters(&self) -> LinkCounters {
        self.state().counters.clone()
    }

    /// Settings, remaining outage and counters, read together.
    pub fn status(&self) -> LinkStatus {
        let state = self.state();
        LinkStatus {
            settings: state.settings.clone(),
            token_outage_remaining_secs: remaining(state.outage_until).as_secs_f64(),
            counters: state.counters.clone(),
        }
    }

    /// Whether requests must go through the layer at all.
    pub(super) fn is_active(&self) -> bool {
        self.inner.active.load(Ordering::Acquire)
    }

    /// Counts a request of `op` and decides what happens to it. For the token
    /// endpoint during an outage, the remaining outage comes back too.
    pub(super) fn next(&self, op: Operation) -> (decide::Decision, Option<Duration>, u32) {
        let mut state = self.state();
        let n = {
            let count = state.requests.entry(op).or_insert(0);
            let n = *count;
            *count += 1;
            n
        };
        *state.counters.requests.entry(op).or_insert(0) += 1;
        let settings = &state.settings;
        let decision = decide::decide(
            settings.seed,
            op,
            n,
            settings.latency_of(op),
            &settings.faults_of(op),
        );
        let outage = (op == Operation::Token)
            .then(|| remaining(state.outage_until))
            .filter(|d| !d.is_zero());
        (decision, outage, settings.retry_after_secs)
    }

    /// Records that `kind` was injected on `op` (and logs a fault at `info`).
    pub(super) fn count(&self, op: Operation, kind: Injected) {
        if kind != Injected::Latency {
            tracing::info!(
                op = op.as_str(),
                fault = kind.as_str(),
                "link: fault injected"
            );
        }
        let mut state = self.state();
        *state
            .counters
            .injected
            .entry(op)
            .or_default()
            .entry(kind)
            .or_insert(0) += 1;
        *state.counters.total.entry(kind).or_insert(0) += 1;
    }
}

fn remaining(until: Option<Instant>) -> Duration {
    until.map_or(Duration::ZERO, |t| {
        t.saturating_duration_since(Instant::now())
    })
}

/// Put in a `/graphql` request's extensions when the link chose an
/// `UpstreamServiceError` for it: the Network API answers that member of the
/// mutation's result union, touches no record, and calls [`UpstreamFault::honour`].
#[derive(Debug, Clone)]
pub struct UpstreamFault {
    link: Link,
    op: Operation,
}

impl UpstreamFault {
    pub(super) fn new(link: Link, op: Operation) -> Self {
        Self { link, op }
    }

    /// Counts and logs the fault as injected (once the resolver answered it).
    pub fn honour(&self) {
        self.link.count(self.op, Injected::Upstream);
    }
}

#[cfg(test)]
mod tests {
    use super::Injected;

    #[test]
    fn injected_kinds_are_named_alike_in_json_and_logs() {
        for kind in [
            Injected::Latency,
            Injected::Upstream,
            Injected::Http502,
            Injected::Http503,
            Injected::Http429,
            Injected::ResetBefore,
            Injected::ResetAfter,
            Injected::TokenOutage,
        ] {
            assert_eq!(
                serde_json::to_value(kind).ok(),
                Some(serde_json::Value::from(kind.as_str()))
            );
        }
    }
}
