//! Environments: the built-in sandbox, the file's and the variables' networks,
//! the active one, the status the UI starts from, and the compatibility check
//! run when a network is first used.

use rxdesk_client::{Client, Environment};

use super::{AppCore, Inner, app_error};
use crate::convert::session_info;
use crate::environments::{self, Configured, SANDBOX_ID};
use crate::ipc::{
    AppStatus, CommandError, EnvironmentInfo, EnvironmentInput, NetworkCheck, SessionEnd,
    SessionEvent, SessionInfo,
};
use crate::sandbox::LocalSandbox;

impl AppCore {
    pub(super) fn configured(&self) -> (Vec<Configured>, Vec<String>) {
        let mut list = Vec::new();
        let mut problems = Vec::new();
        match &self.variables {
            Ok(Some(env)) => list.push(env.clone()),
            Ok(None) => {}
            Err(problem) => problems.push(problem.clone()),
        }
        let loaded = self.file.load();
        list.extend(loaded.environments);
        problems.extend(loaded.problems);
        (list, problems)
    }

    pub(super) async fn environment_list(&self) -> (Vec<EnvironmentInfo>, Vec<String>) {
        let (configured, problems) = self.configured();
        let mut list = Vec::new();
        if LocalSandbox::AVAILABLE {
            let sandbox_url = self.sandbox.running_url().await;
            list.push(environments::sandbox_info(sandbox_url.as_ref()));
        }
        list.extend(configured.iter().map(Configured::info));
        (list, problems)
    }

    /// The environment with this id (starting the sandbox for the built-in one).
    pub(super) async fn environment(&self, id: &str) -> Result<Environment, CommandError> {
        if id == SANDBOX_ID {
            let address = self.sandbox.address().await.map_err(CommandError::app)?;
            // The sandbox names itself by the issuer its data directory keeps,
            // which is not its address after a restart on another port.
            return Environment::sandbox(&address.url)
                .and_then(|env| env.with_issuer(&address.issuer))
                .map_err(app_error);
        }
        self.configured()
            .0
            .into_iter()
            .find(|e| e.id == id)
            .map(|e| e.environment)
            .ok_or_else(|| CommandError::app(format!("no environment {id}")))
    }

    pub(super) async fn client_for(
        &self,
        inner: &mut Inner,
        id: &str,
    ) -> Result<Client, CommandError> {
        if let Some(client) = inner.clients.get(id) {
            return Ok(client.clone());
        }
        let client = Client::new(self.environment(id).await?).map_err(CommandError::from)?;
        inner.clients.insert(id.to_owned(), client.clone());
        Ok(client)
    }

    pub(super) fn session_event(
        &self,
        session: Option<SessionInfo>,
        ended: Option<SessionEnd>,
    ) -> SessionEvent {
        SessionEvent {
            session,
            storage: self.storage(),
            ended,
        }
    }

    /// Environments, the active one, who is signed in, where the session lives.
    /// The first call restores the stored session of the active environment.
    pub async fn status(&self) -> AppStatus {
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        let ended = inner.ended_at_start.take();
        let session = inner
            .session
            .as_ref()
            .map(|s| session_info(&inner.active, s));
        let active = inner.active.clone();
        drop(inner);
        let (environments, environment_problems) = self.environment_list().await;
        AppStatus {
            environments,
            active_environment: active,
            session,
            storage: self.storage(),
            environment_problems,
            presets: environments::presets(),
            link: self.take_start_link(),
            idle_lock_seconds: u32::try_from(self.idle_lock.as_secs()).unwrap_or(u32::MAX),
            ended,
            index_problem: self.index.problem().map(str::to_owned),
        }
    }

    /// Switches environment: cancels a pending sign-in. Never restores a
    /// session: whoever picks an environment signs in there. Choosing another
    /// environment while signed in ends the session (only one is ever kept).
    pub async fn select_environment(&self, id: &str) -> Result<AppStatus, CommandError> {
        let known = self.environment_list().await.0.iter().any(|e| e.id == id);
        if !known {
            return Err(CommandError::app(format!("no environment {id}")));
        }
        {
            let mut inner = self.inner.lock().await;
            self.ensure_restored(&mut inner).await;
            if let Some(pending) = inner.pending.take() {
                pending.cancel.cancel();
            }
            if inner.active != id && inner.session.is_some() {
                self.end_session(&mut inner, SessionEnd::EnvironmentChanged)
                    .await;
            }
            inner.active = id.to_owned();
        }
        Ok(self.status().await)
    }

    /// Adds an environment to the file, or replaces the one of the same name.
    /// Replacing the environment in use with other addresses (or issuer,
    /// audience, client) ends its session first — taken out of the app and the
    /// keyring, and revoked at the addresses that issued it, by the old
    /// environment's client — since the new addresses would never accept it
    /// and sign-out could no longer reach it. A pending sign-in there is
    /// cancelled. Other changes (the callback port, the issuer check) keep it.
    pub async fn save_environment(
        &self,
        input: &EnvironmentInput,
    ) -> Result<AppStatus, CommandError> {
        let invalid = |e| match e {
            environments::EnvironmentsError::Invalid { field, message } => CommandError::Invalid {
                code: "INVALID_ENVIRONMENT".into(),
                message,
                field: Some(field),
            },
            other => app_error(other),
        };
        let saved = environments::check_input(input).map_err(invalid)?;
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        if inner.active == saved.id {
            // The client of the environment as the file still has it: the
            // old addresses, which issued the session and any pending sign-in.
            let id = saved.id.clone();
            let old = self.client_for(&mut inner, &id).await.ok();
            if old.is_none_or(|c| c.environment() != &saved.environment)
                && let Some(pending) = inner.pending.take()
            {
                pending.cancel.cancel();
            }
            let moved = inner
                .session
                .as_ref()
                .is_some_and(|s| !s.issued_by(&saved.environment));
            if moved {
                tracing::info!("the environment in use got new addresses; its session is ended");
                self.end_session(&mut inner, SessionEnd::EnvironmentEdited)
                    .await;
            }
        }
        self.file.add(input).map_err(invalid)?;
        inner.clients.retain(|id, _| !id.starts_with("file:"));
        drop(inner);
        Ok(self.status().await)
    }

    /// Removes an environment. The environment in use takes its session with
    /// it: ended at the network, deleted, and the UI told why.
    pub async fn remove_environment(&self, id: &str) -> Result<AppStatus, CommandError> {
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        if inner.active == id {
            if let Some(pending) = inner.pending.take() {
                pending.cancel.cancel();
            }
            if inner.session.is_some() {
                self.end_session(&mut inner, SessionEnd::EnvironmentRemoved)
                    .await;
            }
        }
        self.file.remove(id).map_err(app_error)?;
        inner.clients.remove(id);
        inner.checks.remove(id);
        if inner.active == id {
            inner.active = super::default_environment(&self.file);
        }
        drop(inner);
        Ok(self.status().await)
    }

    /// Whether the active network accepts every document the app sends. Runs
    /// once per environment (on first use), then answers from memory.
    pub async fn check_network(&self) -> Result<NetworkCheck, CommandError> {
        let (_, _, id) = self.signed_in().await?;
        if let Some(known) = self.inner.lock().await.checks.get(&id) {
            return Ok(known.clone());
        }
        let check = match self
            .with_network("check_network", |net| async move {
                net.check_compatibility().await
            })
            .await
        {
            Ok((report, _)) => crate::convert::network_check(&report),
            Err(e @ CommandError::SignedOut { .. }) => return Err(e),
            Err(e) => {
                return Ok(NetworkCheck::Unchecked {
                    message: e.to_string(),
                });
            }
        };
        tracing::info!(
            compatible = matches!(check, NetworkCheck::Compatible),
            "network checked"
        );
        self.inner.lock().await.checks.insert(id, check.clone());
        Ok(check)
    }
}
