//! What runs beside the Network API once orders are sent: the simulated pharmacy
//! (`crate::fulfillment`) and the webhook delivery worker (`crate::webhooks`), on
//! the simulated clock (`crate::clock`). [`Settings::resolve`] checks the fixture's
//! sections and the flags; [`AfterSend::start`] starts both workers and wakes them
//! when a transaction that concerns them commits (SQLite's update and commit hooks
//! on the one connection), so nothing polls. [`TestClock`] is the handle tests and the
//! control endpoint move the simulated clock with.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::hooks::Action;
use tokio::sync::{Mutex, Notify, watch};
use tokio::task::JoinHandle;

use crate::catalog::Catalog;
use crate::config::{AfterSendFlags, SettingsError};
use crate::fixture::{DeliverySection, FulfillmentSection, WebhookEntry};
use crate::fulfillment::{Rules, Simulation};
use crate::store::{Db, StoreError};
use crate::webhooks::{WebhookSettings, Webhooks};

/// The after-Send settings of a sandbox, checked.
#[derive(Debug, Clone)]
pub struct Settings {
    pub rules: Rules,
    pub webhooks: WebhookSettings,
}

impl Settings {
    /// Checks the fixture's `[fulfillment]`, `[[webhooks]]` and `[webhook_delivery]`
    /// with the flags (which win) against the catalog and the organizations.
    pub fn resolve(
        fulfillment: &FulfillmentSection,
        webhooks: &[WebhookEntry],
        delivery: &DeliverySection,
        flags: &AfterSendFlags,
        catalog: &Catalog,
        organizations: &[String],
    ) -> Result<Self, SettingsError> {
        let rules = crate::fulfillment::settings::resolve(fulfillment, flags.step, catalog)?;
        let webhooks = crate::webhooks::settings::resolve(
            webhooks,
            delivery,
            flags,
            rules.step,
            organizations,
        )?;
        Ok(Self { rules, webhooks })
    }
}

/// The running simulated pharmacy and webhook worker. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AfterSend {
    pub(crate) db: Db,
    simulation: Simulation,
    webhooks: Webhooks,
    stop: Arc<watch::Sender<bool>>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl AfterSend {
    /// Starts both workers. They stop on [`AfterSend::stop`], or when every clone
    /// of this handle is dropped.
    pub(crate) async fn start(
        db: Db,
        catalog: Arc<Catalog>,
        organizations: Vec<String>,
        settings: Settings,
    ) -> Result<Self, AfterSendError> {
        let simulation = Simulation::new(db.clone(), catalog, settings.rules);
        let webhooks = Webhooks::new(db.clone(), organizations, settings.webhooks)
            .map_err(|e| AfterSendError::Http(e.to_string()))?;
        wake_on_commit(&db, simulation.notifier(), webhooks.notifier()).await?;
        let (stop, stopped) = watch::channel(false);
        let tasks = vec![simulation.spawn(stopped.clone()), webhooks.spawn(stopped)];
        Ok(Self {
            db,
            simulation,
            webhooks,
            stop: Arc::new(stop),
            tasks: Arc::new(Mutex::new(tasks)),
        })
    }

    pub(crate) fn webhooks(&self) -> &Webhooks {
        &self.webhooks
    }

    /// The test clock over this simulation and delivery worker.
    pub(crate) fn clock(&self) -> TestClock {
        TestClock {
            after_send: self.clone(),
        }
    }

    /// Takes every pharmacy step that is due now.
    pub(crate) async fn run_due_steps(&self) -> Result<usize, StoreError> {
        self.simulation.run_due().await
    }

    pub(crate) fn wake_delivery(&self) {
        self.webhooks.wake();
    }

    /// Stops both workers and waits for them (a delivery in flight is abandoned:
    /// it is made again at the next start).
    pub(crate) async fn stop(&self) {
        let _ = self.stop.send(true);
        let tasks: Vec<_> = self.tasks.lock().await.drain(..).collect();
        for task in tasks {
            if tokio::time::timeout(Duration::from_secs(5), task)
                .await
                .is_err()
            {
                tracing::warn!("an after-Send worker did not stop in time");
            }
        }
    }
}

/// The test clock of a running sandbox: read it, or advance it and have everything
/// that became due happen at once. Cheap to clone.
#[derive(Debug, Clone)]
pub struct TestClock {
    pub(crate) after_send: AfterSend,
}

impl TestClock {
    /// The simulated now.
    pub async fn read(&self) -> Result<crate::clock::ClockReading, StoreError> {
        crate::clock::read(&self.after_send.db).await
    }

    /// Moves the clock `by` forward, through each pharmacy step on the way: the
    /// clock stops at every step's time, the step is taken, and only then does it
    /// move on, so nothing (a delivery held back, a retry) sees a time whose steps
    /// have not happened yet. Returns once every step that became due has been
    /// taken (a Get shows it, its events are in the outbox); deliveries that
    /// became due start at once, in the background.
    pub async fn advance(&self, by: Duration) -> Result<crate::clock::ClockReading, StoreError> {
        let db = &self.after_send.db;
        let start = crate::clock::read(db).await?;
        let by_ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let target_offset_ms = start.offset_ms.saturating_add(by_ms);
        while let Some(due_ms) = self.after_send.simulation.next_due_ms().await? {
            // The offset at which that step is due now.
            let due_offset_ms = due_ms.saturating_sub(crate::clock::real_now_ms());
            if due_offset_ms > target_offset_ms {
                break;
            }
            crate::clock::raise_offset_to(db, due_offset_ms).await?;
            self.after_send.run_due_steps().await?;
        }
        let reading = crate::clock::raise_offset_to(db, target_offset_ms).await?;
        self.after_send.wake_delivery();
        tracing::info!(
            by_ms = by.as_millis(),
            offset_ms = reading.offset_ms,
            "test clock advanced"
        );
        Ok(reading)
    }
}

/// Why the after-Send workers could not start.
#[derive(Debug, thiserror::Error)]
pub enum AfterSendError {
    #[error("the webhook client could not be built: {0}")]
    Http(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Wakes the simulation when a transaction that touched its tables (or the clock)
/// commits, and the delivery worker when one added an event.
async fn wake_on_commit(
    db: &Db,
    simulation: Arc<Notify>,
    webhooks: Arc<Notify>,
) -> Result<(), StoreError> {
    let pharmacy_changed = Arc::new(AtomicBool::new(false));
    let event_added = Arc::new(AtomicBool::new(false));
    db.call(move |conn| {
        let (pharmacy, events) = (Arc::clone(&pharmacy_changed), Arc::clone(&event_added));
        conn.update_hook(Some(
            move |action: Action, _db: &str, table: &str, _row: i64| match table {
                "fulfillment_orders" | "sim_clock" => pharmacy.store(true, Ordering::Relaxed),
                "webhook_events" if action == Action::SQLITE_INSERT => {
                    events.store(true, Ordering::Relaxed);
                }
                _ => {}
            },
        ));
        let (pharmacy, events) = (Arc::clone(&pharmacy_changed), Arc::clone(&event_added));
        conn.commit_hook(Some(move || {
            // Runs while the committing closure still holds the connection: a
            // woken worker's own query waits for the commit to finish.
            if pharmacy.swap(false, Ordering::Relaxed) {
                simulation.notify_one();
            }
            if events.swap(false, Ordering::Relaxed) {
                webhooks.notify_one();
            }
            false
        }));
        let (pharmacy, events) = (pharmacy_changed, event_added);
        conn.rollback_hook(Some(move || {
            pharmacy.store(false, Ordering::Relaxed);
            events.store(false, Ordering::Relaxed);
        }));
        Ok(())
    })
    .await
}
