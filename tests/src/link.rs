//! The link the journeys run on: clean loopback by default, or — with
//! `RXDESK_E2E_LINK` set — the sandbox's link layer with latency and a seeded
//! share of transient faults (lost answers after commit included), so the same
//! journeys prove the app correct on a bad link.
//!
//! What lives here: reading the variables, the sandbox flags they become, and
//! the harness's own retry of its direct network calls (which must survive
//! the faults the app is being tested against). What does not: the app's retry
//! policy (that is `rxdesk-client`'s), the fault layer itself (the sandbox's).

use std::future::Future;
use std::time::Duration;

use anyhow::{Context, Result, bail};

/// The variable naming the link: `clinic`, `hotspot` or milliseconds (`80±10`).
pub const LINK_ENV: &str = "RXDESK_E2E_LINK";
/// The variable overriding the fault items (the sandbox's `--faults` syntax).
pub const FAULTS_ENV: &str = "RXDESK_E2E_FAULTS";
/// The variable overriding the fault seed.
pub const SEED_ENV: &str = "RXDESK_E2E_FAULT_SEED";

/// 5 % of every network operation's requests fail transiently, spread evenly
/// over the six faults (upstream error, 502, 503, 429, reset before, reset
/// after commit); and because a run makes only a handful of writes, the calls
/// that create or commit (a new draft, a new order, Sign, Send) lose their
/// answer after the write committed in a third of their requests — the case
/// only an idempotency key gets right. The token endpoint and `other`
/// (introspection, discovery) are spared: a lost answer to an
/// authorization-code exchange spends the code, which no client can repeat.
pub const DEFAULT_FAULTS: &str = "5%,token:0%,other:0%,\
    prescription_draft:reset_after=34%,order_draft:reset_after=34%,\
    prescription_sign:reset_after=34%,order_send:reset_after=34%";
/// The default seed: a failing run replays with the same one.
pub const DEFAULT_SEED: u64 = 20;

/// A bad link the sandboxes of a run are started on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLink {
    pub latency: String,
    pub faults: String,
    pub seed: u64,
}

impl BadLink {
    /// From the environment: `None` when `RXDESK_E2E_LINK` is unset or empty.
    pub fn from_env() -> Result<Option<Self>> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let Some(latency) = var(LINK_ENV) else {
            return Ok(None);
        };
        let seed = match var(SEED_ENV) {
            Some(seed) => seed
                .trim()
                .parse()
                .with_context(|| format!("{SEED_ENV} must be a whole number, not {seed:?}"))?,
            None => DEFAULT_SEED,
        };
        Ok(Some(Self {
            latency: latency.trim().to_owned(),
            faults: var(FAULTS_ENV).unwrap_or_else(|| DEFAULT_FAULTS.to_owned()),
            seed,
        }))
    }

    /// A link that is only slow: `latency` (as `RXDESK_E2E_LINK` takes it),
    /// its jitter drawn from `seed`, and no fault at all — what the bench
    /// measures the figures a prescriber feels on.
    pub fn latency_only(latency: &str, seed: u64) -> Self {
        Self {
            latency: latency.to_owned(),
            faults: String::new(),
            seed,
        }
    }

    /// The sandbox flags for this link (no `--faults` for a link without any).
    pub fn sandbox_args(&self) -> Vec<String> {
        let mut args = vec!["--link".into(), self.latency.clone()];
        if !self.faults.is_empty() {
            args.extend(["--faults".into(), self.faults.clone()]);
        }
        args.extend(["--fault-seed".into(), self.seed.to_string()]);
        args
    }

    /// A short name for output directories (`e2e-clinic`).
    pub fn label(&self) -> String {
        let name: String = self
            .latency
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("e2e-{name}")
    }
}

/// How often the harness tries one of its own calls before giving up.
const ATTEMPTS: u32 = 8;

/// A transient failure of a harness call: worth another attempt.
#[derive(Debug)]
pub struct Transient(pub String);

impl std::fmt::Display for Transient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transient: {}", self.0)
    }
}

impl std::error::Error for Transient {}

/// Runs `call` until it succeeds, fails with something other than
/// [`Transient`], or has been tried [`ATTEMPTS`] times (backoff from 100 ms,
/// doubling, capped at 2 s). Only for calls that are safe to repeat: the
/// harness's reads, patient Syncs (matched by demographics) and updates that
/// set a value.
pub async fn retried<T, F, Fut>(what: &str, mut call: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let mut wait = Duration::from_millis(100);
    let mut last = None;
    for _ in 0..ATTEMPTS {
        match call().await {
            Ok(value) => return Ok(value),
            Err(e) if e.downcast_ref::<Transient>().is_some() => {
                last = Some(e);
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
            Err(e) => return Err(e),
        }
    }
    match last {
        Some(e) => Err(e.context(format!("{what}: still failing after {ATTEMPTS} attempts"))),
        None => bail!("{what}: never tried"),
    }
}

/// Whether an HTTP status is one a gateway answers for a passing fault.
pub fn is_transient_status(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_link_becomes_the_sandbox_flags_with_its_seed() {
        let link = BadLink {
            latency: "clinic".into(),
            faults: DEFAULT_FAULTS.into(),
            seed: 7,
        };
        assert_eq!(
            link.sandbox_args(),
            [
                "--link",
                "clinic",
                "--faults",
                DEFAULT_FAULTS,
                "--fault-seed",
                "7"
            ]
        );
    }

    #[test]
    fn a_latency_only_link_asks_the_sandbox_for_no_fault() {
        let link = BadLink::latency_only("clinic", 3);

        assert_eq!(
            link.sandbox_args(),
            ["--link", "clinic", "--fault-seed", "3"]
        );
    }

    #[test]
    fn a_link_label_is_a_plain_directory_name() {
        let link = BadLink {
            latency: "80±10".into(),
            faults: String::new(),
            seed: 0,
        };
        assert_eq!(link.label(), "e2e-80-10");
    }

    #[tokio::test]
    async fn a_transient_failure_is_tried_again() {
        let mut calls = 0;
        let answer = retried("count", || {
            calls += 1;
            let n = calls;
            async move {
                if n < 3 {
                    Err(Transient("502".into()).into())
                } else {
                    Ok(n)
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(answer, 3);
    }

    #[tokio::test]
    async fn a_refusal_is_not_tried_again() {
        let mut calls = 0;
        let refused: Result<()> = retried("refused", || {
            calls += 1;
            async { bail!("UnauthorizedError") }
        })
        .await;
        assert!(refused.is_err());
        assert_eq!(calls, 1);
    }
}
