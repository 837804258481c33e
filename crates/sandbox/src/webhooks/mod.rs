//! Webhooks as the network sends them: events written to an outbox in the same
//! transaction as the change that caused them, and a background worker that
//! delivers them to each organization's subscriptions, signed and retried as
//! documented (`docs/network-api.md`, "Webhooks").
//!
//! - [`events`]: the event types, the CloudEvents envelope, each type's `data`, `emit`;
//! - [`subscriptions`]: URL, event types, shared secret; loopback targets only unless allowed;
//! - [`settings`]: the fixture's `[[webhooks]]` / `[webhook_delivery]` (their TOML shape in
//!   `crate::fixture`) and the flags;
//! - `outbox` (SQL), `delivery` (the worker), `signature` (HMAC), [`log`] (the delivery log),
//!   `state` (what the handle and the worker share; neither imports the other for it).
//!
//! What causes each event is `crate::fulfillment`'s business; [`Webhooks`] is the
//! handle a running sandbox exposes (subscriptions at runtime, the log).

mod delivery;
pub mod events;
pub mod log;
mod outbox;
pub mod settings;
mod signature;
mod state;
pub mod subscriptions;

use std::sync::{Arc, RwLock};

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

pub use delivery::{CONTENT_TYPE_BATCH, SIGNATURE_HEADER, TIMESTAMP_HEADER};
pub use events::EventType;
pub use log::{AttemptEntry, AttemptOutcome, DeliveryRecord, DeliveryState, LogQuery};
pub use settings::{DeliveryPolicy, WebhookSettings};
pub use subscriptions::{EventFilter, Subscription, SubscriptionError};

pub use crate::config::WebhookSecret;

use self::state::Inner;
use crate::store::{Db, StoreError};

/// The webhooks of a running sandbox: its subscriptions and its delivery log.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct Webhooks {
    inner: Arc<Inner>,
}

/// A subscription as it is shown: everything but its secret.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionInfo {
    pub id: String,
    pub organization: String,
    pub url: String,
    /// Type names, or `["all"]`.
    pub events: Vec<&'static str>,
}

impl From<&Subscription> for SubscriptionInfo {
    fn from(s: &Subscription) -> Self {
        Self {
            id: s.id().to_owned(),
            organization: s.organization.clone(),
            url: s.url.to_string(),
            events: s.events.names(),
        }
    }
}

impl Webhooks {
    /// The handle; its worker starts with [`Webhooks::spawn`].
    pub(crate) fn new(
        db: Db,
        organizations: Vec<String>,
        settings: WebhookSettings,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            inner: Arc::new(Inner {
                db,
                organizations,
                subscriptions: RwLock::new(settings.subscriptions),
                policy: settings.policy,
                allow_remote: settings.allow_remote,
                http: delivery::http_client()?,
                notify: Arc::new(Notify::new()),
            }),
        })
    }

    /// Starts the delivery worker; it stops when `shutdown` turns true or drops.
    pub(crate) fn spawn(&self, shutdown: watch::Receiver<bool>) -> JoinHandle<()> {
        tokio::spawn(delivery::run(Arc::clone(&self.inner), shutdown))
    }

    /// Has the worker look for new events and due deliveries now.
    pub(crate) fn wake(&self) {
        self.inner.notify.notify_one();
    }

    /// What wakes the worker (for SQLite's commit hook, which must not hold the
    /// database itself).
    pub(crate) fn notifier(&self) -> Arc<Notify> {
        Arc::clone(&self.inner.notify)
    }

    /// The delivery policy in force.
    pub fn policy(&self) -> &DeliveryPolicy {
        &self.inner.policy
    }

    /// Every subscription, without secrets.
    pub fn subscriptions(&self) -> Vec<SubscriptionInfo> {
        self.inner
            .subscriptions_now()
            .iter()
            .map(SubscriptionInfo::from)
            .collect()
    }

    /// Adds a subscription at runtime (kept in memory only: gone at the next
    /// start), or replaces the one with the same organization and URL. Events
    /// from now on are delivered to it.
    pub fn subscribe(
        &self,
        organization: &str,
        url: &str,
        events: EventFilter,
        secret: WebhookSecret,
    ) -> Result<SubscriptionInfo, SubscriptionError> {
        if !self.inner.organizations.iter().any(|o| o == organization) {
            return Err(SubscriptionError::UnknownOrganization(
                organization.to_owned(),
            ));
        }
        let subscription =
            Subscription::new(organization, url, events, secret, self.inner.allow_remote)?;
        let info = SubscriptionInfo::from(&subscription);
        let mut all = self
            .inner
            .subscriptions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.retain(|s| s.id() != subscription.id());
        all.push(subscription);
        tracing::info!(subscription = %info.id, organization, "webhook subscription added");
        Ok(info)
    }

    /// Removes the subscription `id`; true when there was one. Its pending
    /// deliveries are dropped, and the log says why.
    pub fn unsubscribe(&self, id: &str) -> bool {
        let mut all = self
            .inner
            .subscriptions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = all.len();
        all.retain(|s| s.id() != id);
        let removed = all.len() != before;
        drop(all);
        if removed {
            self.wake();
        }
        removed
    }

    /// The delivery log, newest first.
    pub async fn log(&self, query: LogQuery) -> Result<Vec<DeliveryRecord>, StoreError> {
        let limit = i64::from(query.limit.unwrap_or(500).clamp(1, 500));
        let subject = query.subject;
        let logged = self
            .inner
            .db
            .call(move |conn| outbox::log(conn, subject.as_deref(), limit))
            .await?;
        Ok(logged.into_iter().map(DeliveryRecord::from).collect())
    }
}
