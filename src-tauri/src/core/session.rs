//! The session: at most one, the active environment's, kept in the keyring (or
//! memory) under one entry with the time of its last use; restored at start
//! unless it was idle past the lock (then it is ended at the network);
//! renewed silently before it expires; retried once after `SignedOut`, as the
//! same user only; ended — revoked at the network and deleted — on sign-out, on
//! the lock (the UI's timer or the core's own check of the last input), and when
//! its environment is removed or another one chosen. [`AppCore::with_network`]
//! is the one door every workflow's network call goes through.

use std::future::Future;
use std::time::Duration;

use rxdesk_client::network::Network;
use rxdesk_client::{Client, ClientError, Session};
use serde::{Deserialize, Serialize};

use super::activity::{Activity, idle_since, unix_now};
use super::{AppCore, Inner, RENEW_MARGIN, kind};
use crate::convert::session_info;
use crate::environments::SANDBOX_ID;
use crate::index::Scope;
use crate::ipc::{CommandError, Revocation, SessionEnd, SessionInfo, SignOutSummary};
use crate::session_store::{SESSION_ENTRY, SessionStore, StoreError};

/// The stored session: whose environment, and when it was last used.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredSession {
    /// The environment that issued it.
    env: String,
    /// The user's last input, Unix seconds.
    last: u64,
    #[serde(rename = "s")]
    session: Session,
}

/// A session taken out of the app, to be ended at the network.
pub(super) struct Ending {
    session: Session,
    client: Option<Client>,
}

impl Ending {
    /// `session`, to be ended by `client`: the client of the environment
    /// that issued it.
    pub(super) fn new(session: Session, client: Client) -> Self {
        Self {
            session,
            client: Some(client),
        }
    }
}

/// What a call refused as signed out may do next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Retry {
    /// Another call renewed the session meanwhile: send again with it.
    WithCurrent,
    /// Renew, then send again.
    Renew,
    /// No renewal possible: the session ends.
    Ended,
    /// Nobody is signed in now.
    SignedOut,
    /// Someone else (or another organization) is signed in now: the call is
    /// not sent again on their behalf.
    OtherUser,
}

/// What to do after `first` was refused as signed out, `current` being the
/// session the app holds now.
pub(super) fn retry_plan(first: &Session, current: Option<&Session>) -> Retry {
    match current {
        None => Retry::SignedOut,
        Some(cur)
            if cur.user().id != first.user().id
                || cur.organization().id != first.organization().id =>
        {
            Retry::OtherUser
        }
        Some(cur) if cur.access_token().expose() != first.access_token().expose() => {
            Retry::WithCurrent
        }
        Some(cur) if cur.can_renew() => Retry::Renew,
        Some(_) => Retry::Ended,
    }
}

/// A session's renewal under way ([`AppCore::renew_locked`]).
pub(super) struct Renewal {
    /// The access token of the session it renews (never logged).
    from: String,
    task: tokio::task::JoinHandle<Result<Session, ClientError>>,
}

impl Renewal {
    fn start(client: &Client, session: &Session) -> Self {
        let (client, old) = (client.clone(), session.clone());
        Self {
            from: session.access_token().expose().to_owned(),
            task: tokio::spawn(async move { client.renew(&old).await }),
        }
    }

    fn renews(&self, session: &Session) -> bool {
        self.from == session.access_token().expose()
    }
}

fn minutes(limit: Duration) -> u32 {
    u32::try_from(limit.as_secs().div_ceil(60)).unwrap_or(u32::MAX)
}

impl AppCore {
    pub(super) async fn store_call<T: Send + 'static>(
        &self,
        f: impl FnOnce(SessionStore) -> T + Send + 'static,
    ) -> Option<T> {
        let store = self.store.clone();
        // Keyring calls can block on D-Bus: keep them off the async workers.
        tokio::task::spawn_blocking(move || f(store)).await.ok()
    }

    /// Stores `session` as the one session, with the last input's time.
    pub(super) async fn save_session(
        &self,
        inner: &mut Inner,
        environment_id: &str,
        session: &Session,
    ) {
        let stored = StoredSession {
            env: environment_id.to_owned(),
            last: inner.activity.unix(),
            session: session.clone(),
        };
        let text = match serde_json::to_string(&stored) {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(error = %e, "session not serializable; kept in memory");
                return;
            }
        };
        if self.this_run_only() {
            // The user's choice (or the keyring's refusal): not asked again.
            return;
        }
        match self.store_call(move |s| s.save(SESSION_ENTRY, &text)).await {
            Some(Ok(())) => {
                tracing::debug!("session stored");
                inner.activity.mark_saved();
                self.keyring_failed(None, true);
            }
            Some(Err(e)) => {
                tracing::warn!(error = %e, "session not stored; kept in memory for this run");
                self.keyring_failed(Some(e.into_trouble()), true);
            }
            None => tracing::warn!("session store task failed"),
        }
    }

    /// Removes the stored session; `Err` says why the keyring did not.
    pub(super) async fn forget_session(&self) -> Result<(), String> {
        match self.store_call(|s| s.delete(SESSION_ENTRY)).await {
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
            let started = std::time::Instant::now();
            // Marked done only once it is: a caller cancelled part-way (a
            // search typed past before the keyring answered) leaves the rest
            // to the next caller, which looks again. Each step before the
            // session is held is safe to repeat; `restore` marks it done
            // itself once the session is held.
            self.restore(inner).await;
            inner.restored = true;
            // A start-up phase (the bench's cold-start note reads it).
            tracing::info!(
                restore_ms = started.elapsed().as_millis(),
                "stored session looked up"
            );
        }
    }

    /// At start: the stored session, if it belongs to a known environment, was
    /// issued by its addresses and was used within the idle time. Entries older
    /// versions kept per environment are removed. A session idle past the lock
    /// is ended at the network (the lock the closed app could not apply).
    async fn restore(&self, inner: &mut Inner) {
        let known: Vec<String> = self
            .environment_list()
            .await
            .0
            .into_iter()
            .map(|e| e.id)
            .collect();
        let legacy = known.clone();
        let loaded = self
            .store_call(move |s| {
                for id in &legacy {
                    // One entry per environment, as older versions stored them.
                    if let Err(e) = s.delete(id) {
                        tracing::warn!(error = %e, "an older stored session was not removed");
                    }
                }
                s.load(SESSION_ENTRY)
            })
            .await;
        let text = match loaded {
            Some(Ok(Some(text))) => text,
            Some(Ok(None)) | None => return,
            // Locked (a dismissed unlock prompt), gone or refusing: the session
            // may be whole in there, so it is left alone and the user told.
            Some(Err(StoreError::Keyring(trouble))) => {
                tracing::warn!(error = %trouble, "the keyring did not give the stored session");
                self.keyring_failed(Some(trouble), false);
                return;
            }
            // Never a silent reset: the user is told to sign in again.
            Some(Err(e)) => {
                tracing::warn!(error = %e, "stored session unreadable; removed");
                // A failure is logged; the next sign-in overwrites the entry.
                self.forget_session().await.ok();
                inner.ended_at_start = Some(SessionEnd::Unreadable);
                return;
            }
        };
        let Ok(stored) = serde_json::from_str::<StoredSession>(&text) else {
            tracing::warn!("stored session in an unknown shape; removed");
            self.forget_session().await.ok();
            inner.ended_at_start = Some(SessionEnd::Unreadable);
            return;
        };
        // The environment the variables name is what the user (or a test)
        // means; otherwise the app opens where it was left.
        let chosen = matches!(self.variables, Ok(Some(_)));
        if stored.env != inner.active && !chosen && known.contains(&stored.env) {
            inner.active = stored.env.clone();
        }
        let client = self.client_for(inner, &stored.env).await.ok();
        // Bound to where it was issued: an environment whose addresses changed
        // (an edited file, other RXDESK_* values) never receives it. The one
        // exception is the built-in sandbox restarted on another port: the app
        // started it from the data directory that keeps its issuer, so the
        // same issuer there means the same sandbox, and the session follows it.
        let issued_here = client
            .as_ref()
            .is_some_and(|c| stored.session.issued_by(c.environment()));
        let followed = match &client {
            Some(c) if !issued_here && stored.env == SANDBOX_ID => {
                stored.session.moved_to(c.environment())
            }
            _ => None,
        };
        let moved = followed.is_some();
        let mut stored = stored;
        match followed {
            Some(session) => {
                tracing::info!(
                    "the local sandbox listens on another port now; its session follows it"
                );
                stored.session = session;
            }
            None if issued_here => {}
            None => {
                tracing::info!("stored session was issued by other addresses; removed");
                self.forget_session().await.ok();
                return;
            }
        }
        if stored.env != inner.active {
            tracing::info!("stored session of another environment than the one chosen; ended");
            self.forget_session().await.ok();
            self.end_in_background(Ending {
                session: stored.session,
                client,
            });
            return;
        }
        if idle_since(stored.last, unix_now(), self.idle_lock) {
            tracing::info!("stored session idle past the lock; ended");
            self.forget_session().await.ok();
            inner.ended_at_start = Some(SessionEnd::Locked {
                idle_minutes: minutes(self.idle_lock),
            });
            self.end_in_background(Ending {
                session: stored.session,
                client,
            });
            return;
        }
        let session = stored.session;
        let id = inner.active.clone();
        inner.activity = Activity::now();
        if moved {
            self.save_session(inner, &id, &session).await;
        }
        // Held before any renewal: a caller cancelled while the network
        // renews it leaves the session, and the renewal under way
        // (`renew_locked` keeps it in `inner`), to the next caller. Renewed in
        // place and dropped with its caller, a refresh token the network had
        // already rotated was lost, and the session with it.
        inner.session = Some(session.clone());
        inner.restored = true;
        if !session.expires_within(RENEW_MARGIN) {
            tracing::info!("session restored from the store");
            return;
        }
        let Some(client) = client else {
            // No client for its environment now: the next call tries again.
            tracing::warn!("stored session not renewed now: no client");
            return;
        };
        match self.renew_locked(inner, &client, &session, &id).await {
            Ok(_) => tracing::info!("stored session renewed"),
            Err(CommandError::SignedOut { .. }) => {
                // `renew_locked` dropped it; the sign-in screen says why.
                tracing::info!("stored session could not be renewed; sign in again");
                inner.ended_at_start = Some(SessionEnd::Expired);
            }
            // Network trouble: kept; the next call tries again.
            Err(e) => tracing::warn!(error = %e, "stored session not renewed now"),
        }
    }

    /// Takes the session out of the app and the keyring: the next sign-in
    /// asks for the password. The caller ends it at the network
    /// ([`AppCore::end_at_network`]) and tells the UI.
    pub(super) async fn take_session(&self, inner: &mut Inner) -> (Option<Ending>, Option<String>) {
        let session = inner.session.take();
        inner.fresh_login = true;
        inner.checks.clear();
        let keyring_problem = self.forget_session().await.err();
        let ending = session.map(|session| Ending {
            client: inner.clients.get(&inner.active).cloned(),
            session,
        });
        (ending, keyring_problem)
    }

    /// Ends a taken session at the network: both tokens revoked and the
    /// sign-in ended where the network offers that.
    pub(super) async fn end_at_network(ending: Option<Ending>) -> Revocation {
        let Some(Ending {
            session,
            client: Some(client),
        }) = ending
        else {
            return Revocation::NothingToRevoke;
        };
        let report = client.sign_out(session).await;
        let failures = report.failures();
        if !failures.is_empty() {
            tracing::warn!(
                failed = failures.len(),
                "session ended here; the network did not confirm everything"
            );
            Revocation::Failed {
                message: failures
                    .iter()
                    .map(|e| CommandError::from((*e).clone()).to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        } else if report.ended_anything() {
            tracing::info!("session ended at the network");
            Revocation::Revoked
        } else {
            tracing::info!("session ended; nothing the network could end");
            Revocation::NothingToRevoke
        }
    }

    /// [`AppCore::end_at_network`] without waiting (a lock found by a command, an
    /// idle session at start): the outcome is logged.
    pub(super) fn end_in_background(&self, ending: Ending) {
        tokio::spawn(async move {
            let _ = Self::end_at_network(Some(ending)).await;
        });
    }

    /// The session ends for `why`: taken out, deleted, ended at the network in
    /// the background, the UI told.
    pub(super) async fn end_session(&self, inner: &mut Inner, why: SessionEnd) {
        let (ending, _) = self.take_session(inner).await;
        if let Some(ending) = ending {
            self.end_in_background(ending);
        }
        self.notifier.session(self.session_event(None, Some(why)));
    }

    /// Locks when no input came for the idle time: the session ends. `Err` is
    /// the answer of the command that found it.
    pub(super) async fn lock_if_idle(&self, inner: &mut Inner) -> Result<(), CommandError> {
        if inner.session.is_none() || !inner.activity.is_idle(self.idle_lock) {
            return Ok(());
        }
        tracing::info!("locked: no input for the idle time");
        let idle_minutes = minutes(self.idle_lock);
        self.end_session(inner, SessionEnd::Locked { idle_minutes })
            .await;
        Err(CommandError::SignedOut {
            message: format!(
                "Rx Desk locked after {idle_minutes} minutes without input; sign in again"
            ),
        })
    }

    /// The UI saw input: the idle time starts again, and the stored session's
    /// last use is brought up to date (at most once a minute). Input after the
    /// idle time has passed does not unlock: the session ends as it would have.
    pub async fn note_activity(&self) -> Result<(), CommandError> {
        let mut inner = self.inner.lock().await;
        self.lock_if_idle(&mut inner).await?;
        inner.activity.note();
        if inner.activity.needs_saving()
            && let Some(session) = inner.session.clone()
        {
            let id = inner.active.clone();
            self.save_session(&mut inner, &id, &session).await;
        }
        Ok(())
    }

    /// The client and a fresh-enough session of the active environment.
    pub(super) async fn signed_in(&self) -> Result<(Client, Session, String), CommandError> {
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        self.lock_if_idle(&mut inner).await?;
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
        // The exchange runs as a task of its own, kept in `inner` while it is
        // awaited: a caller cancelled meanwhile (a search typed past, a Cancel)
        // drops only its wait, and the next caller takes the answer up. Dropped
        // with its caller, a refresh token the network had already rotated was
        // lost, and the session with it.
        let renewal = match inner.renewal.take() {
            Some(under_way) if under_way.renews(session) => under_way,
            // None, or one of a session since replaced: its answer is not this one's.
            _ => Renewal::start(client, session),
        };
        let joined = (&mut inner.renewal.insert(renewal).task).await;
        inner.renewal = None;
        // The task ends by itself (it is never aborted); a panic in it is the
        // one way to get here.
        let renewed = joined.unwrap_or_else(|e| {
            Err(ClientError::Protocol {
                message: format!("the session's renewal stopped: {e}"),
            })
        });
        match renewed {
            Ok(fresh) => {
                tracing::info!("session renewed");
                // Held before the keyring is written: a caller cancelled during
                // that write loses nothing (the write itself runs on a blocking
                // thread that finishes either way).
                inner.session = Some(fresh.clone());
                self.save_session(inner, id, &fresh).await;
                self.notifier
                    .session(self.session_event(Some(session_info(id, &fresh)), None));
                Ok((client.clone(), fresh, id.to_owned()))
            }
            Err(e @ ClientError::SignedOut { .. }) => {
                self.drop_session(inner).await;
                Err(e.into())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The network refused the session and it cannot be renewed: it is gone.
    /// The same user signing in again finds their forms (no fresh login asked).
    pub(super) async fn drop_session(&self, inner: &mut Inner) {
        inner.session = None;
        // A failure is logged; the next sign-in overwrites the entry.
        self.forget_session().await.ok();
        self.notifier
            .session(self.session_event(None, Some(SessionEnd::Expired)));
    }

    /// Runs `op` with the Network API as the signed-in user, and says whose
    /// records it touched ([`Scope`]: environment and organization). On
    /// `SignedOut`, renews once and retries — as the same user in the same
    /// organization only; if that fails too, the session ends and the UI is told.
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
                let current = inner.session.clone();
                let renewed = match retry_plan(&session, current.as_ref()) {
                    Retry::WithCurrent => Ok((
                        client.clone(),
                        current.unwrap_or_else(|| session.clone()),
                        id.clone(),
                    )),
                    Retry::Renew => match current {
                        Some(cur) => self.renew_locked(&mut inner, &client, &cur, &id).await,
                        None => Err(CommandError::SignedOut {
                            message: "not signed in".into(),
                        }),
                    },
                    Retry::Ended => {
                        self.drop_session(&mut inner).await;
                        Err(CommandError::SignedOut {
                            message: "the session ended; sign in again".into(),
                        })
                    }
                    Retry::SignedOut => Err(CommandError::SignedOut {
                        message: "not signed in".into(),
                    }),
                    Retry::OtherUser => {
                        tracing::info!(
                            command = name,
                            "not sent again: someone else signed in meanwhile"
                        );
                        Err(CommandError::app(
                            "Someone else signed in meanwhile: the request was not sent again on their behalf. Check it and send it again if it is yours to send.",
                        ))
                    }
                };
                drop(inner);
                match renewed {
                    Ok((client, fresh, id)) => {
                        match op(client.network(&fresh), scope.clone())
                            .await
                            .map_err(Into::into)
                        {
                            Err(CommandError::SignedOut { message }) => {
                                let _ = id;
                                let mut inner = self.inner.lock().await;
                                self.drop_session(&mut inner).await;
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

    /// The screen locked (no input for the idle time, or the user's Lock): the
    /// session ends as at sign-out, so going on needs a fresh sign-in. The UI
    /// keeps the forms for the same user.
    pub async fn lock_session(&self) -> Result<SignOutSummary, CommandError> {
        tracing::info!("locked");
        let idle_minutes = minutes(self.idle_lock);
        self.end_with_summary(SessionEnd::Locked { idle_minutes })
            .await
    }

    /// Signs out: the stored session is removed, the session ended at the network.
    pub async fn sign_out(&self) -> Result<SignOutSummary, CommandError> {
        self.end_with_summary(SessionEnd::SignedOut).await
    }

    async fn end_with_summary(&self, why: SessionEnd) -> Result<SignOutSummary, CommandError> {
        let mut inner = self.inner.lock().await;
        if let Some(pending) = inner.pending.take() {
            pending.cancel.cancel();
        }
        let (ending, keyring_problem) = self.take_session(&mut inner).await;
        drop(inner);
        self.notifier.session(self.session_event(None, Some(why)));
        let revocation = Self::end_at_network(ending).await;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn session(user: &str, org: &str, token: &str, refresh: bool) -> Session {
        let mut json = serde_json::json!({
            "at": token, "exp": 4_102_444_800u64, "perm": [],
            "user": { "id": user, "name": user }, "org": { "id": org, "name": org },
        });
        if refresh {
            json["rt"] = serde_json::json!("rt");
        }
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_call_is_not_resent_for_another_user_or_organization() {
        let ada = session("usr_ada", "org_maple", "t1", true);

        let ben = session("usr_ben", "org_birch", "t2", true);
        let ada_in_birch = session("usr_ada", "org_birch", "t3", true);

        assert_eq!(retry_plan(&ada, Some(&ben)), Retry::OtherUser);
        assert_eq!(retry_plan(&ada, Some(&ada_in_birch)), Retry::OtherUser);
    }

    #[test]
    fn a_call_is_resent_as_the_same_user_renewed_or_renewing() {
        let ada = session("usr_ada", "org_maple", "t1", true);
        let renewed = session("usr_ada", "org_maple", "t2", true);
        let no_refresh = session("usr_ada", "org_maple", "t1", false);

        assert_eq!(retry_plan(&ada, Some(&renewed)), Retry::WithCurrent);
        assert_eq!(retry_plan(&ada, Some(&ada)), Retry::Renew);
        assert_eq!(retry_plan(&no_refresh, Some(&no_refresh)), Retry::Ended);
        assert_eq!(retry_plan(&ada, None), Retry::SignedOut);
    }
}
