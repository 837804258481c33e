//! The session: kept in the keyring (or memory), restored at start, renewed
//! silently before it expires, retried once after `SignedOut`, ended on
//! sign-out (the refresh token revoked). [`AppCore::with_network`] is the one
//! door every workflow's network call goes through.

use std::future::Future;

use rxdesk_client::network::Network;
use rxdesk_client::{Client, ClientError, Session};

use super::{AppCore, Inner, RENEW_MARGIN, kind};
use crate::convert::session_info;
use crate::index::Scope;
use crate::ipc::{CommandError, Revocation, SessionInfo, SignOutSummary};
use crate::session_store::SessionStore;

impl AppCore {
    pub(super) async fn store_call<T: Send + 'static>(
        &self,
        f: impl FnOnce(SessionStore) -> T + Send + 'static,
    ) -> Option<T> {
        let store = self.store.clone();
        // Keyring calls can block on D-Bus: keep them off the async workers.
        tokio::task::spawn_blocking(move || f(store)).await.ok()
    }

    pub(super) async fn save_session(&self, environment_id: &str, session: &Session) {
        let text = match serde_json::to_string(session) {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(error = %e, "session not serializable; kept in memory");
                return;
            }
        };
        let id = environment_id.to_owned();
        match self.store_call(move |s| s.save(&id, &text)).await {
            Some(Ok(())) => {
                tracing::debug!("session stored");
                self.keyring_failed(None);
            }
            Some(Err(e)) => {
                tracing::warn!(error = %e, "session not stored; kept in memory");
                self.keyring_failed(Some(format!("the keyring did not store the session: {e}")));
            }
            None => tracing::warn!("session store task failed"),
        }
    }

    /// Removes the stored session; `Err` says why the keyring did not.
    pub(super) async fn forget_session(&self, environment_id: &str) -> Result<(), String> {
        let id = environment_id.to_owned();
        match self.store_call(move |s| s.delete(&id)).await {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "stored session not removed");
                Err(format!(
                    "the keyring did not remove the stored session: {e}"
                ))
            }
            None => Err("the keyring task failed".to_owned()),
        }
    }

    pub(super) async fn ensure_restored(&self, inner: &mut Inner) {
        if !inner.restored {
            inner.restored = true;
            self.restore(inner).await;
        }
    }

    /// Loads the active environment's stored session; renews it if it has
    /// expired and can be; drops it otherwise.
    pub(super) async fn restore(&self, inner: &mut Inner) {
        let id = inner.active.clone();
        let key = id.clone();
        let text = match self.store_call(move |s| s.load(&key)).await {
            Some(Ok(Some(text))) => text,
            Some(Ok(None)) | None => return,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "stored session unreadable; removed");
                // A failure is logged; the next sign-in overwrites the entry.
                self.forget_session(&id).await.ok();
                return;
            }
        };
        let session: Session = match serde_json::from_str(&text) {
            Ok(s) => s,
            Err(_) => {
                tracing::warn!("stored session in an unknown shape; removed");
                // A failure is logged; the next sign-in overwrites the entry.
                self.forget_session(&id).await.ok();
                return;
            }
        };
        // Bound to where it was issued: an environment whose addresses changed
        // (an edited file, other RXDESK_* values) never receives it.
        let issued_here = match self.client_for(inner, &id).await {
            Ok(client) => session.issued_by(client.environment()),
            Err(_) => false,
        };
        if !issued_here {
            tracing::info!("stored session was issued by other addresses; removed");
            // A failure is logged; the next sign-in overwrites the entry.
            self.forget_session(&id).await.ok();
            return;
        }
        if !session.expires_within(RENEW_MARGIN) {
            tracing::info!("session restored from the store");
            inner.session = Some(session);
            return;
        }
        let renewed = match self.client_for(inner, &id).await {
            Ok(client) => client.renew(&session).await.map_err(CommandError::from),
            Err(e) => Err(e),
        };
        match renewed {
            Ok(fresh) => {
                tracing::info!("stored session renewed");
                self.save_session(&id, &fresh).await;
                inner.session = Some(fresh);
            }
            Err(CommandError::SignedOut { .. }) => {
                tracing::info!("stored session could not be renewed; sign in again");
                // A failure is logged; the next sign-in overwrites the entry.
                self.forget_session(&id).await.ok();
            }
            Err(e) => {
                // Network trouble: keep it; the next call tries again.
                tracing::warn!(error = %e, "stored session not renewed now");
                inner.session = Some(session);
            }
        }
    }

    /// The client and a fresh-enough session of the active environment.
    pub(super) async fn signed_in(&self) -> Result<(Client, Session, String), CommandError> {
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        let id = inner.active.clone();
        let client = self.client_for(&mut inner, &id).await?;
        let Some(session) = inner
            .session
            .clone()
            .filter(|s| s.issued_by(client.environment()))
        else {
            return Err(CommandError::SignedOut {
                message: "not signed in".into(),
            });
        };
        if session.expires_within(RENEW_MARGIN) {
            return self.renew_locked(&mut inner, &client, &session, &id).await;
        }
        Ok((client, session, id))
    }

    pub(super) async fn renew_locked(
        &self,
        inner: &mut Inner,
        client: &Client,
        session: &Session,
        id: &str,
    ) -> Result<(Client, Session, String), CommandError> {
        match client.renew(session).await {
            Ok(fresh) => {
                tracing::info!("session renewed");
                self.save_session(id, &fresh).await;
                inner.session = Some(fresh.clone());
                self.notifier
                    .session(self.session_event(Some(session_info(id, &fresh))));
                Ok((client.clone(), fresh, id.to_owned()))
            }
            Err(e @ ClientError::SignedOut { .. }) => {
                self.drop_session(inner, id).await;
                Err(e.into())
            }
            Err(e) => Err(e.into()),
        }
    }

    pub(super) async fn drop_session(&self, inner: &mut Inner, id: &str) {
        inner.session = None;
        // A failure is logged; the next sign-in overwrites the entry.
        self.forget_session(id).await.ok();
        self.notifier.session(self.session_event(None));
    }

    /// Runs `op` with the Network API as the signed-in user, and says whose
    /// records it touched ([`Scope`]: environment and organization). On
    /// `SignedOut`, renews once and retries; if that fails too, the session ends
    /// and the UI is told.
    pub(super) async fn with_network<T, F, Fut>(
        &self,
        name: &'static str,
        op: F,
    ) -> Result<(T, Scope), CommandError>
    where
        F: Fn(Network) -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        self.with_network_scoped(name, |net, _| op(net)).await
    }

    /// [`with_network`](Self::with_network) for a batch of calls that needs
    /// the [`Scope`] as it runs (the work lists): `op` is run again, whole,
    /// after a silent renewal.
    pub(super) async fn with_network_scoped<T, E, F, Fut>(
        &self,
        name: &'static str,
        op: F,
    ) -> Result<(T, Scope), CommandError>
    where
        F: Fn(Network, Scope) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        E: Into<CommandError>,
    {
        let (client, session, id) = self.signed_in().await?;
        let scope = Scope {
            environment: id.clone(),
            organization: session.organization().id.clone(),
        };
        let first = op(client.network(&session), scope.clone())
            .await
            .map_err(Into::into);
        let result = match first {
            Err(CommandError::SignedOut { .. }) => {
                let mut inner = self.inner.lock().await;
                // Still the same session? (Another call may have renewed it.)
                let current = inner.session.clone();
                let renewed = match current {
                    Some(cur) if cur.access_token().expose() != session.access_token().expose() => {
                        Ok((client.clone(), cur, id.clone()))
                    }
                    Some(cur) if cur.can_renew() => {
                        self.renew_locked(&mut inner, &client, &cur, &id).await
                    }
                    Some(_) => {
                        self.drop_session(&mut inner, &id).await;
                        Err(CommandError::SignedOut {
                            message: "the session ended; sign in again".into(),
                        })
                    }
                    None => Err(CommandError::SignedOut {
                        message: "not signed in".into(),
                    }),
                };
                drop(inner);
                match renewed {
                    Ok((client, fresh, id)) => {
                        match op(client.network(&fresh), scope.clone())
                            .await
                            .map_err(Into::into)
                        {
                            Err(CommandError::SignedOut { message }) => {
                                let mut inner = self.inner.lock().await;
                                self.drop_session(&mut inner, &id).await;
                                Err(CommandError::SignedOut { message })
                            }
                            other => other,
                        }
                    }
                    Err(e) => Err(e),
                }
            }
            other => other,
        };
        match &result {
            Ok(_) => tracing::debug!(command = name, "ok"),
            Err(e) => tracing::info!(command = name, outcome = kind(e), "failed"),
        }
        result.map(|value| (value, scope))
    }

    /// Signs out: the stored session is removed, the refresh token revoked.
    /// The screen locked after a while without input: the session ends as at
    /// sign-out (forgotten, revoked), so going on needs a fresh sign-in. The UI
    /// keeps the forms for the same user.
    pub async fn lock_session(&self) -> Result<SignOutSummary, CommandError> {
        tracing::info!("locked after a while without input");
        self.sign_out().await
    }

    pub async fn sign_out(&self) -> Result<SignOutSummary, CommandError> {
        let mut inner = self.inner.lock().await;
        let id = inner.active.clone();
        let session = inner.session.take();
        let keyring_problem = self.forget_session(&id).await.err();
        let client = inner.clients.get(&id).cloned();
        drop(inner);
        self.notifier.session(self.session_event(None));
        let revocation = match (session, client) {
            (Some(session), Some(client)) => {
                let report = client.sign_out(session).await;
                let failures = report.failures();
                if !failures.is_empty() {
                    tracing::warn!(failed = failures.len(), "signed out; the network did not confirm everything");
                    Revocation::Failed {
                        message: failures
                            .iter()
                            .map(|e| CommandError::from((*e).clone()).to_string())
                            .collect::<Vec<_>>()
                            .join("; "),
                    }
                } else if report.ended_anything() {
                    tracing::info!("signed out; ended at the network");
                    Revocation::Revoked
                } else {
                    tracing::info!("signed out; nothing to end at the network");
                    Revocation::NothingToRevoke
                }
            }
            _ => Revocation::NothingToRevoke,
        };
        Ok(SignOutSummary {
            revocation,
            keyring_problem,
        })
    }

    /// The session the UI may know about.
    pub async fn session_info(&self) -> Option<SessionInfo> {
        let inner = self.inner.lock().await;
        inner
            .session
            .as_ref()
            .map(|s| session_info(&inner.active, s))
    }
}
