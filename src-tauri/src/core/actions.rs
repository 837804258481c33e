//! User actions while they run: each command's network work is wrapped here
//! ([`AppCore::act`]) so that
//!
//! - every retry the client makes is told to the UI as a `RetryEvent` under
//!   the `ActionId` the UI gave (through `rxdesk_client::retry::observe`);
//! - `cancel_action` can stop it where stopping is safe ([`Safety`]): a read
//!   or search, and a keyed create (which may have been saved: its "Try again"
//!   with the same key finds it); a change (update, sign, send, cancel) runs to
//!   its end once sent;
//! - a second identical create or change arriving while the first runs (a
//!   double click that got past the UI) sends nothing: it waits for the first
//!   and answers the same result.
//!
//! The registry itself is `running.rs`; what the actions do on the network is
//! in `workflows/`; their IPC shapes in `crate::ipc::actions`.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::future::{AbortHandle, Abortable};
use rxdesk_client::retry::{self, RetryNotice};
use tokio::sync::OnceCell;

use super::running::{CURRENT, Cleanup, Safety, lock, retry_event};
use super::{AppCore, Notifier};
use crate::ipc::{ActionId, CommandError};

pub(super) use super::running::current;

/// An observer that tells `notifier` of each retry, as `action`'s, about `record`.
pub(super) fn retry_observer(
    notifier: Arc<dyn Notifier>,
    action: ActionId,
    record: Option<String>,
) -> impl Fn(&RetryNotice) + Send + Sync + 'static {
    move |notice: &RetryNotice| {
        notifier.retry(retry_event(&action, record.as_deref(), notice));
    }
}

impl AppCore {
    /// Runs one command's network `work` as the user action `action` (see the
    /// module doc). `identity` names what the action does (command and
    /// arguments, the create key included): two runs with the same identity in
    /// flight at once are one.
    pub async fn act<T, Fut>(
        &self,
        action: Option<ActionId>,
        safety: Safety,
        identity: impl FnOnce() -> String,
        work: Fut,
    ) -> Result<T, CommandError>
    where
        T: Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<T, CommandError>> + Send,
    {
        // On the heap: the layers below wrap it several times over, and a
        // workflow's future is large (a debug build's stack would not hold it).
        let work = Box::pin(work);
        let (notifier, named) = (self.notifier.clone(), action.clone());
        let observed = async move {
            match named {
                Some(id) => {
                    let observer = retry_observer(notifier, id.clone(), None);
                    CURRENT.scope(id, retry::observe(observer, work)).await
                }
                None => work.await,
            }
        };
        let mut cleanup = Cleanup {
            actions: &self.actions,
            action: None,
            identity: None,
        };
        let shared = match safety {
            Safety::Read => None,
            Safety::Create | Safety::Change => {
                let identity = identity();
                let cell = lock(&self.actions.in_flight)
                    .entry(identity.clone())
                    .or_insert_with(|| Arc::new(OnceCell::<Result<T, CommandError>>::new()))
                    .clone();
                let typed = cell.clone().downcast::<OnceCell<Result<T, CommandError>>>();
                cleanup.identity = Some((identity, cell));
                // Another result type under the same identity cannot happen
                // (the command's name leads it); such a run goes on its own.
                typed.ok()
            }
        };
        let run = async move {
            match shared {
                // A run already in flight: wait for its answer. Ours is only
                // sent if that one was cancelled before it answered.
                Some(cell) => cell.get_or_init(|| observed).await.clone(),
                None => observed.await,
            }
        };
        let answer = match action.filter(|_| safety.cancellable()) {
            Some(id) => {
                let (handle, registration) = AbortHandle::new_pair();
                let run_number = self.actions.runs.fetch_add(1, Ordering::Relaxed);
                lock(&self.actions.cancels)
                    .entry(id.clone())
                    .or_default()
                    .push((run_number, handle));
                cleanup.action = Some((id, run_number));
                Abortable::new(run, registration).await.unwrap_or_else(|_| {
                    Err(CommandError::Cancelled {
                        message: "cancelled by the user".into(),
                    })
                })
            }
            None => run.await,
        };
        drop(cleanup);
        answer
    }

    /// Stops the action `action` if it runs and stopping it is safe; says
    /// whether it was stopped.
    pub fn cancel_action(&self, action: &ActionId) -> bool {
        match lock(&self.actions.cancels).remove(action) {
            Some(stops) => {
                for (_, stop) in stops {
                    stop.abort();
                }
                tracing::info!("action cancelled");
                true
            }
            None => false,
        }
    }
}
