//! The registry of user actions while they run, below `AppCore`: what kind
//! of action each is ([`Safety`]), how to stop the ones that may be stopped,
//! the result cell of each create or change in flight (so an identical second
//! run waits for it), and the action the current task runs for. `actions.rs`
//! puts it to work; nothing here knows the network or the UI.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::AbortHandle;
use rxdesk_client::retry::{RetryCause, RetryNotice};

use crate::ipc::{ActionId, RetryEvent, RetryReason};

/// What stopping an action halfway means, which decides whether it may be
/// cancelled and whether identical runs are merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Safety {
    /// A read or search: cancelling stops it and changes nothing anywhere.
    Read,
    /// A create under a kept key: cancelling stops waiting; the record may
    /// have been saved, and the same key finds it. Identical runs merge.
    Create,
    /// A change: once sent it runs to its end (retries included). Identical
    /// runs merge.
    Change,
}

impl Safety {
    pub(super) fn cancellable(self) -> bool {
        matches!(self, Self::Read | Self::Create)
    }
}

/// The running actions: who can be cancelled, and what is in flight by identity.
#[derive(Default)]
pub(super) struct Actions {
    /// The stops of every command running for an action (a screen may run
    /// several at once for one action, and one Cancel stops them all), each
    /// with the number of its run.
    pub(super) cancels: Mutex<HashMap<ActionId, Vec<(u64, AbortHandle)>>>,
    /// The number of the next run.
    pub(super) runs: std::sync::atomic::AtomicU64,
    /// Identity (command and arguments) → the result cell of the run in flight
    /// (an `Arc<OnceCell<Result<T, CommandError>>>`, typed by the command).
    pub(super) in_flight: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Plain maps: a panic elsewhere leaves them usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

tokio::task_local! {
    /// The action the current task runs, for nested notices (one signature of a batch).
    pub(super) static CURRENT: ActionId;
}

/// The action this task runs for, if the UI named one.
pub(super) fn current() -> Option<ActionId> {
    CURRENT.try_with(Clone::clone).ok()
}

fn reason(cause: RetryCause) -> RetryReason {
    match cause {
        RetryCause::Server { .. } => RetryReason::Server,
        RetryCause::RateLimited => RetryReason::RateLimited,
        RetryCause::Upstream => RetryReason::Upstream,
        // `Network`, and any cause a newer client adds: the link itself.
        _ => RetryReason::Network,
    }
}

/// The UI's event for a retry of `action`'s call about `record`.
pub(super) fn retry_event(
    action: &ActionId,
    record: Option<&str>,
    notice: &RetryNotice,
) -> RetryEvent {
    RetryEvent {
        action: action.clone(),
        attempt: notice.attempt,
        wait_ms: u32::try_from(notice.wait.as_millis()).unwrap_or(u32::MAX),
        reason: reason(notice.cause),
        record: record.map(str::to_owned),
    }
}

/// Removes an entry when the run that made it ends, however it ends.
pub(super) struct Cleanup<'a> {
    pub(super) actions: &'a Actions,
    /// The action and the number of this run, while it can be cancelled.
    pub(super) action: Option<(ActionId, u64)>,
    pub(super) identity: Option<(String, Arc<dyn Any + Send + Sync>)>,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        if let Some((action, run)) = &self.action {
            let mut cancels = lock(&self.actions.cancels);
            if let Some(stops) = cancels.get_mut(action) {
                stops.retain(|(n, _)| n != run);
                if stops.is_empty() {
                    cancels.remove(action);
                }
            }
        }
        if let Some((identity, cell)) = &self.identity {
            let mut in_flight = lock(&self.actions.in_flight);
            // Only the run that put it there takes it out.
            if in_flight
                .get(identity)
                .is_some_and(|current| Arc::ptr_eq(current, cell))
            {
                in_flight.remove(identity);
            }
        }
    }
}
