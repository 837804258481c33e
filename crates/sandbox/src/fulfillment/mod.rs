//! The simulated pharmacy: what happens to an order after Send. Each sent order
//! moves through the documented sequence of its fulfillment type, one step each
//! `step` on the simulated clock (`crate::clock`), and fixture rules make some
//! orders meet a closed pharmacy (rerouted) or an order error. A Get of the order
//! shows what the real schema allows (`pharmacy`, `exceptions`); everything else is
//! told by webhook events (`crate::webhooks`).
//!
//! - [`hooks`]: the Network API's one call per state change (sent, canceled,
//!   rerouted, signed), in its transaction;
//! - [`stage`]: the stages; [`steps`]: what each step does;
//! - [`settings`]: `[fulfillment]` (its TOML shape in `crate::fixture`), checked against the catalog;
//! - `store`: its SQL (`fulfillment_orders`).
//!
//! [`Simulation`] takes the due steps, one transaction each, in the order they fell
//! due: in the background as time passes, and at once when the test clock advances.

pub mod hooks;
pub mod settings;
pub mod stage;
pub mod steps;
mod store;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

pub use settings::Rules;

use crate::catalog::Catalog;
use crate::store::{Db, StoreError};

/// The simulated pharmacy of a running sandbox. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Simulation {
    db: Db,
    catalog: Arc<Catalog>,
    rules: Arc<Rules>,
    notify: Arc<Notify>,
}

impl Simulation {
    pub(crate) fn new(db: Db, catalog: Arc<Catalog>, rules: Rules) -> Self {
        Self {
            db,
            catalog,
            rules: Arc::new(rules),
            notify: Arc::new(Notify::new()),
        }
    }

    fn step_ms(&self) -> i64 {
        i64::try_from(self.rules.step.as_millis()).unwrap_or(i64::MAX)
    }

    /// What wakes the background loop (an order was sent, the clock moved).
    pub(crate) fn notifier(&self) -> Arc<Notify> {
        Arc::clone(&self.notify)
    }

    /// Takes every step that is due on the simulated clock, earliest first, each
    /// at the time it fell due. Answers how many were taken.
    pub(crate) async fn run_due(&self) -> Result<usize, StoreError> {
        let mut taken = 0;
        while self.take_one().await? {
            taken += 1;
        }
        Ok(taken)
    }

    async fn take_one(&self) -> Result<bool, StoreError> {
        let catalog = Arc::clone(&self.catalog);
        let rules = Arc::clone(&self.rules);
        let step_ms = self.step_ms();
        self.db
            .call(move |conn| {
                let tx = conn.transaction()?;
                let now_ms = crate::clock::now_ms(&tx)?;
                let Some(tracked) = store::next_due(&tx, step_ms, now_ms)? else {
                    return Ok(false);
                };
                let at_ms = tracked.since_ms.saturating_add(step_ms);
                steps::take(&tx, &catalog, &rules, &tracked, at_ms)?;
                tx.commit()?;
                tracing::debug!(order = %tracked.order_id, from = tracked.stage.as_str(), "pharmacy step taken");
                Ok(true)
            })
            .await
    }

    /// When the next step falls due (simulated clock, Unix ms), if an order is in
    /// progress.
    pub(crate) async fn next_due_ms(&self) -> Result<Option<i64>, StoreError> {
        let step_ms = self.step_ms();
        self.db
            .call(move |conn| store::next_due_ms(conn, step_ms))
            .await
    }

    /// How long until the next step falls due (an hour when nothing is in progress).
    async fn until_next(&self) -> Result<Duration, StoreError> {
        let step_ms = self.step_ms();
        let (next, now) = self
            .db
            .call(move |conn| {
                Ok((
                    store::next_due_ms(conn, step_ms)?,
                    crate::clock::now_ms(conn)?,
                ))
            })
            .await?;
        Ok(match next {
            Some(due) => Duration::from_millis(u64::try_from(due - now).unwrap_or(0)),
            None => Duration::from_secs(3600),
        })
    }

    /// The background loop, until `shutdown` turns true (or its sender drops).
    pub(crate) fn spawn(&self, mut shutdown: watch::Receiver<bool>) -> JoinHandle<()> {
        let simulation = self.clone();
        tokio::spawn(async move {
            loop {
                if *shutdown.borrow() {
                    break;
                }
                let wait = match simulation.run_due().await {
                    Ok(_) => simulation
                        .until_next()
                        .await
                        .unwrap_or(Duration::from_secs(1)),
                    Err(e) => {
                        tracing::error!(error = %e, "pharmacy step failed; trying again shortly");
                        Duration::from_secs(1)
                    }
                };
                tokio::select! {
                    () = simulation.notify.notified() => {}
                    () = tokio::time::sleep(wait) => {}
                    changed = shutdown.changed() => {
                        if changed.is_err() {
                            break;
                        }
                    }
                }
            }
        })
    }
}
