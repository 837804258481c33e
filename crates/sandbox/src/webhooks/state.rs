//! What the `Webhooks` handle (`mod.rs`) and the delivery worker (`delivery.rs`)
//! share: the database, the organizations, the subscriptions in force, the
//! delivery policy, the HTTP client and the worker's wake-up.

use std::sync::{Arc, RwLock};

use tokio::sync::Notify;

use super::settings::DeliveryPolicy;
use super::subscriptions::Subscription;
use crate::store::Db;

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) db: Db,
    pub(super) organizations: Vec<String>,
    pub(super) subscriptions: RwLock<Vec<Subscription>>,
    pub(super) policy: DeliveryPolicy,
    pub(super) allow_remote: bool,
    pub(super) http: reqwest::Client,
    pub(super) notify: Arc<Notify>,
}

impl Inner {
    pub(super) fn subscriptions_now(&self) -> Vec<Subscription> {
        self.subscriptions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(super) fn subscription(&self, id: &str) -> Option<Subscription> {
        self.subscriptions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|s| s.id() == id)
            .cloned()
    }
}
