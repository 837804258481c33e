//! Browser sign-in for the active environment: started from a command, its
//! progress and outcome sent through the [`Notifier`](super::Notifier); a newer
//! sign-in, a lock, a sign-out or an environment switch cancels an older one.
//! A cancelled sign-in that still ends with a session (its code was already
//! being exchanged) is ended at the network in the background, by the client
//! of the environment that issued it: a session nobody holds is never left
//! alive there.

use std::sync::Arc;

use rxdesk_client::{Client, Session};
use url::Url;

use super::session::Ending;
use super::{AppCore, Pending, SharedOpener};
use crate::convert::{session_info, sign_in_failure};
use crate::ipc::{CommandError, SignInEvent, SignInFailure};

impl AppCore {
    /// Starts browser sign-in for the active environment. Progress and outcome
    /// arrive through the notifier; this returns once the browser was asked to open.
    pub async fn start_sign_in(self: &Arc<Self>) -> Result<(), CommandError> {
        self.keyring_allows_sign_in()?;
        let mut inner = self.inner.lock().await;
        if let Some(pending) = inner.pending.take() {
            pending.cancel.cancel();
        }
        let id = inner.active.clone();
        let client = self.client_for(&mut inner, &id).await?;
        let started = client
            .sign_in()
            .fresh_login(inner.fresh_login)
            .opener(SharedOpener(self.opener.clone()))
            .timeout(self.sign_in_timeout)
            .start()
            .await;
        let pending = match started {
            Ok(p) => p,
            Err(e) => {
                let (reason, message) = sign_in_failure(&e);
                self.notifier.sign_in(SignInEvent::Failed {
                    reason,
                    message: message.clone(),
                });
                return Err(CommandError::app(message));
            }
        };
        let url = pending.authorize_url().clone();
        inner.pending = Some(Pending {
            environment_id: id.clone(),
            url: url.clone(),
            cancel: pending.cancel_handle(),
        });
        drop(inner);
        self.notifier.sign_in(SignInEvent::Waiting {
            url: url.to_string(),
            browser_opened: pending.browser_error().is_none(),
        });
        let core = Arc::clone(self);
        tokio::spawn(async move {
            let outcome = pending.finish().await;
            core.finish_sign_in(&id, &url, &client, outcome).await;
        });
        Ok(())
    }

    /// Takes up the session of the sign-in started for environment `id` at
    /// `url` by `client` — if that sign-in is still the one waited for, in the
    /// environment still active; otherwise the session is ended at the network.
    pub(super) async fn finish_sign_in(
        &self,
        id: &str,
        url: &Url,
        client: &Client,
        outcome: Result<Session, rxdesk_client::SignInError>,
    ) {
        let mut inner = self.inner.lock().await;
        let current = inner
            .pending
            .as_ref()
            .is_some_and(|p| p.environment_id == id && &p.url == url);
        if current {
            inner.pending = None;
        }
        match outcome {
            Ok(session) if current && inner.active == id => {
                tracing::info!("signed in");
                inner.activity = super::activity::Activity::now();
                inner.fresh_login = false;
                self.save_session(&mut inner, id, &session).await;
                let info = session_info(id, &session);
                inner.session = Some(session);
                drop(inner);
                self.notifier.sign_in(SignInEvent::SignedIn {
                    session: info.clone(),
                });
                self.notifier.session(self.session_event(Some(info), None));
            }
            Ok(session) => {
                tracing::info!(
                    "a sign-in finished after it was cancelled; its session is ended at the network"
                );
                drop(inner);
                self.end_in_background(Ending::new(session, client.clone()));
            }
            Err(e) => {
                let (reason, message) = sign_in_failure(&e);
                tracing::info!(reason = ?reason, "sign-in ended without a session");
                // A superseded sign-in was cancelled by its successor: say nothing.
                if current || reason != SignInFailure::Cancelled {
                    self.notifier
                        .sign_in(SignInEvent::Failed { reason, message });
                }
            }
        }
    }

    pub async fn cancel_sign_in(&self) {
        if let Some(p) = self.inner.lock().await.pending.as_ref() {
            p.cancel.cancel();
        }
    }

    /// Opens the pending sign-in's URL in the browser again.
    pub async fn open_sign_in_again(&self) -> Result<(), CommandError> {
        let url = self
            .inner
            .lock()
            .await
            .pending
            .as_ref()
            .map(|p| p.url.clone())
            .ok_or_else(|| CommandError::app("no sign-in is waiting"))?;
        self.opener
            .open(&url)
            .map_err(|e| CommandError::app(format!("the browser did not open: {e}")))
    }
}
