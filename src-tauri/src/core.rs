//! The app's logic behind the commands, testable without a window: which
//! environment is active, the session (restored from the keyring, renewed
//! silently, removed on sign-out), browser sign-in driven from Rust with its
//! progress sent through a [`Notifier`], and every workflow as a call to
//! `rxdesk-client`.
//!
//! Rules kept here:
//! - the UI never receives a token: only [`SessionInfo`];
//! - an answer of `SignedOut` is retried once after a silent renewal (the
//!   server did nothing: authentication comes before any work); if that fails
//!   the session is dropped and the UI asked to sign in again;
//! - nothing logged carries a token or a patient field.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rxdesk_client::types as net;
use rxdesk_client::{
    Api, CancelHandle, Client, ClientError, Environment, Session, SignOutReport, UrlOpener,
};
use tokio::sync::Mutex;
use url::Url;

use crate::convert::{parse_sex, session_info, sign_in_failure};
use crate::environments::{self, Configured, EnvironmentsFile, SANDBOX_ID};
use crate::ipc::{
    AppStatus, CommandError, EnvironmentInfo, EnvironmentInput, Medication, Order, OrderInput,
    Page, Patient, PatientDetail, PatientInput, Pharmacy, Prescription, PrescriptionInput,
    SessionEvent, SessionInfo, SessionStorage, SignInEvent, SignInFailure, SignOutcome,
};
use crate::sandbox::LocalSandbox;
use crate::session_store::SessionStore;

/// Renew this long before the access token expires.
const RENEW_MARGIN: Duration = Duration::from_secs(60);
/// Patients per page in search.
const PAGE_SIZE: u32 = 25;

/// Where the app sends events (the webview in the app; a recorder in tests).
pub trait Notifier: Send + Sync {
    fn sign_in(&self, event: SignInEvent);
    fn session(&self, event: SessionEvent);
}

/// Everything the core needs from outside.
pub struct CoreConfig {
    pub config_dir: PathBuf,
    pub sandbox: LocalSandbox,
    pub store: SessionStore,
    pub opener: Arc<dyn UrlOpener>,
    pub sign_in_timeout: Duration,
    /// The environment named by `RXDESK_*` variables (already read).
    pub variables: Result<Option<Configured>, String>,
    pub notifier: Arc<dyn Notifier>,
}

impl std::fmt::Debug for CoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreConfig")
            .field("config_dir", &self.config_dir)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

struct Pending {
    environment_id: String,
    url: Url,
    cancel: CancelHandle,
}

struct Inner {
    active: String,
    clients: HashMap<String, Client>,
    session: Option<Session>,
    restored: bool,
    pending: Option<Pending>,
}

/// The app's state and logic. Shared as `Arc<AppCore>`.
pub struct AppCore {
    file: EnvironmentsFile,
    sandbox: LocalSandbox,
    store: SessionStore,
    opener: Arc<dyn UrlOpener>,
    sign_in_timeout: Duration,
    variables: Result<Option<Configured>, String>,
    notifier: Arc<dyn Notifier>,
    /// Set when the keyring answered the probe but refused to store a session.
    keyring_failure: std::sync::Mutex<Option<String>>,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for AppCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCore")
            .field("file", &self.file)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// An opener shared between sign-ins.
#[derive(Debug)]
struct SharedOpener(Arc<dyn UrlOpener>);

impl UrlOpener for SharedOpener {
    fn open(&self, url: &Url) -> std::io::Result<()> {
        self.0.open(url)
    }
}

fn app_error(e: impl std::fmt::Display) -> CommandError {
    CommandError::app(e.to_string())
}

impl AppCore {
    pub fn new(config: CoreConfig) -> Self {
        // The variables' environment, when given, is what the user (or a test) means.
        let active = match &config.variables {
            Ok(Some(env)) => env.id.clone(),
            _ => SANDBOX_ID.to_owned(),
        };
        Self {
            file: EnvironmentsFile::in_dir(&config.config_dir),
            sandbox: config.sandbox,
            store: config.store,
            opener: config.opener,
            sign_in_timeout: config.sign_in_timeout,
            variables: config.variables,
            notifier: config.notifier,
            keyring_failure: std::sync::Mutex::new(None),
            inner: Mutex::new(Inner {
                active,
                clients: HashMap::new(),
                session: None,
                restored: false,
                pending: None,
            }),
        }
    }

    // ---- environments and status -------------------------------------------------

    fn configured(&self) -> (Vec<Configured>, Vec<String>) {
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

    async fn environment_list(&self) -> (Vec<EnvironmentInfo>, Vec<String>) {
        let (configured, problems) = self.configured();
        let sandbox_url = self.sandbox.running_url().await;
        let mut list = vec![environments::sandbox_info(sandbox_url.as_ref())];
        list.extend(configured.iter().map(Configured::info));
        (list, problems)
    }

    /// The environment with this id (starting the sandbox for the built-in one).
    async fn environment(&self, id: &str) -> Result<Environment, CommandError> {
        if id == SANDBOX_ID {
            let url = self.sandbox.url().await.map_err(CommandError::app)?;
            return Environment::sandbox(&url).map_err(app_error);
        }
        self.configured()
            .0
            .into_iter()
            .find(|e| e.id == id)
            .map(|e| e.environment)
            .ok_or_else(|| CommandError::app(format!("no environment {id}")))
    }

    async fn client_for(&self, inner: &mut Inner, id: &str) -> Result<Client, CommandError> {
        if let Some(client) = inner.clients.get(id) {
            return Ok(client.clone());
        }
        let client = Client::new(self.environment(id).await?).map_err(CommandError::from)?;
        inner.clients.insert(id.to_owned(), client.clone());
        Ok(client)
    }

    fn storage(&self) -> SessionStorage {
        if let Some(reason) = self.store.memory_reason() {
            return SessionStorage::MemoryOnly {
                reason: reason.to_owned(),
            };
        }
        let failure = self
            .keyring_failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        match failure {
            Some(reason) => SessionStorage::MemoryOnly { reason },
            None => SessionStorage::Keyring,
        }
    }

    fn keyring_failed(&self, reason: Option<String>) {
        *self
            .keyring_failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = reason;
    }

    fn session_event(&self, session: Option<SessionInfo>) -> SessionEvent {
        SessionEvent {
            session,
            storage: self.storage(),
        }
    }

    /// Environments, the active one, who is signed in, where the session lives.
    /// The first call restores the stored session of the active environment.
    pub async fn status(&self) -> AppStatus {
        let mut inner = self.inner.lock().await;
        if !inner.restored {
            inner.restored = true;
            self.restore(&mut inner).await;
        }
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
        }
    }

    /// Switches environment: cancels a pending sign-in, restores that environment's session.
    pub async fn select_environment(&self, id: &str) -> Result<AppStatus, CommandError> {
        let known = self.environment_list().await.0.iter().any(|e| e.id == id);
        if !known {
            return Err(CommandError::app(format!("no environment {id}")));
        }
        {
            let mut inner = self.inner.lock().await;
            if let Some(pending) = inner.pending.take() {
                pending.cancel.cancel();
            }
            inner.active = id.to_owned();
            inner.session = None;
            inner.restored = true;
            self.restore(&mut inner).await;
        }
        Ok(self.status().await)
    }

    pub async fn save_environment(
        &self,
        input: &EnvironmentInput,
    ) -> Result<AppStatus, CommandError> {
        self.file.add(input).map_err(|e| match e {
            environments::EnvironmentsError::Invalid { field, message } => CommandError::Invalid {
                code: "INVALID_ENVIRONMENT".into(),
                message,
                field: Some(field),
            },
            other => app_error(other),
        })?;
        self.inner
            .lock()
            .await
            .clients
            .retain(|id, _| !id.starts_with("file:"));
        Ok(self.status().await)
    }

    pub async fn remove_environment(&self, id: &str) -> Result<AppStatus, CommandError> {
        self.file.remove(id).map_err(app_error)?;
        {
            let mut inner = self.inner.lock().await;
            inner.clients.remove(id);
            if inner.active == id {
                inner.active = SANDBOX_ID.to_owned();
                inner.session = None;
                self.restore(&mut inner).await;
            }
        }
        Ok(self.status().await)
    }

    // ---- the session ----------------------------------------------------------------

    async fn store_call<T: Send + 'static>(
        &self,
        f: impl FnOnce(SessionStore) -> T + Send + 'static,
    ) -> Option<T> {
        let store = self.store.clone();
        // Keyring calls can block on D-Bus: keep them off the async workers.
        tokio::task::spawn_blocking(move || f(store)).await.ok()
    }

    async fn save_session(&self, environment_id: &str, session: &Session) {
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

    async fn forget_session(&self, environment_id: &str) {
        let id = environment_id.to_owned();
        if let Some(Err(e)) = self.store_call(move |s| s.delete(&id)).await {
            tracing::warn!(error = %e, "stored session not removed");
        }
    }

    async fn ensure_restored(&self, inner: &mut Inner) {
        if !inner.restored {
            inner.restored = true;
            self.restore(inner).await;
        }
    }

    /// Loads the active environment's stored session; renews it if it has
    /// expired and can be; drops it otherwise.
    async fn restore(&self, inner: &mut Inner) {
        let id = inner.active.clone();
        let key = id.clone();
        let text = match self.store_call(move |s| s.load(&key)).await {
            Some(Ok(Some(text))) => text,
            Some(Ok(None)) | None => return,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "stored session unreadable; removed");
                self.forget_session(&id).await;
                return;
            }
        };
        let session: Session = match serde_json::from_str(&text) {
            Ok(s) => s,
            Err(_) => {
                tracing::warn!("stored session in an unknown shape; removed");
                self.forget_session(&id).await;
                return;
            }
        };
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
                self.forget_session(&id).await;
            }
            Err(e) => {
                // Network trouble: keep it; the next call tries again.
                tracing::warn!(error = %e, "stored session not renewed now");
                inner.session = Some(session);
            }
        }
    }

    /// The client and a fresh-enough session of the active environment.
    async fn signed_in(&self) -> Result<(Client, Session, String), CommandError> {
        let mut inner = self.inner.lock().await;
        self.ensure_restored(&mut inner).await;
        let id = inner.active.clone();
        let client = self.client_for(&mut inner, &id).await?;
        let Some(session) = inner.session.clone() else {
            return Err(CommandError::SignedOut {
                message: "not signed in".into(),
            });
        };
        if session.expires_within(RENEW_MARGIN) {
            return self.renew_locked(&mut inner, &client, &session, &id).await;
        }
        Ok((client, session, id))
    }

    async fn renew_locked(
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

    async fn drop_session(&self, inner: &mut Inner, id: &str) {
        inner.session = None;
        self.forget_session(id).await;
        self.notifier.session(self.session_event(None));
    }

    /// Runs `op` with the API as the signed-in user. On `SignedOut`, renews once
    /// and retries; if that fails too, the session ends and the UI is told.
    async fn with_api<T, F, Fut>(&self, name: &'static str, op: F) -> Result<T, CommandError>
    where
        F: Fn(Api) -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let (client, session, id) = self.signed_in().await?;
        let first = op(client.api(&session)).await;
        let result = match first {
            Err(ClientError::SignedOut { .. }) => {
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
                    Ok((client, fresh, id)) => match op(client.api(&fresh)).await {
                        Err(ClientError::SignedOut { message, .. }) => {
                            let mut inner = self.inner.lock().await;
                            self.drop_session(&mut inner, &id).await;
                            Err(CommandError::SignedOut { message })
                        }
                        other => other.map_err(CommandError::from),
                    },
                    Err(e) => Err(e),
                }
            }
            other => other.map_err(CommandError::from),
        };
        match &result {
            Ok(_) => tracing::debug!(command = name, "ok"),
            Err(e) => tracing::info!(command = name, outcome = kind(e), "failed"),
        }
        result
    }

    /// Signs out: the stored session is removed, the refresh token revoked.
    pub async fn sign_out(&self) -> Result<(), CommandError> {
        let mut inner = self.inner.lock().await;
        let id = inner.active.clone();
        let session = inner.session.take();
        self.forget_session(&id).await;
        let client = inner.clients.get(&id).cloned();
        drop(inner);
        self.notifier.session(self.session_event(None));
        if let (Some(session), Some(client)) = (session, client) {
            match client.sign_out(session).await {
                SignOutReport::Revoked => tracing::info!("signed out; refresh token revoked"),
                SignOutReport::NothingToRevoke => tracing::info!("signed out"),
                SignOutReport::RevocationFailed(e) => {
                    tracing::warn!(outcome = e.kind(), "signed out; revocation failed")
                }
            }
        }
        Ok(())
    }

    /// The session the UI may know about.
    pub async fn session_info(&self) -> Option<SessionInfo> {
        let inner = self.inner.lock().await;
        inner
            .session
            .as_ref()
            .map(|s| session_info(&inner.active, s))
    }

    // ---- sign-in ----------------------------------------------------------------------

    /// Starts browser sign-in for the active environment. Progress and outcome
    /// arrive through the notifier; this returns once the browser was asked to open.
    pub async fn start_sign_in(self: &Arc<Self>) -> Result<(), CommandError> {
        let mut inner = self.inner.lock().await;
        if let Some(pending) = inner.pending.take() {
            pending.cancel.cancel();
        }
        let id = inner.active.clone();
        let client = self.client_for(&mut inner, &id).await?;
        let started = client
            .sign_in()
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
            core.finish_sign_in(&id, &url, outcome).await;
        });
        Ok(())
    }

    async fn finish_sign_in(
        &self,
        id: &str,
        url: &Url,
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
                self.save_session(id, &session).await;
                let info = session_info(id, &session);
                inner.session = Some(session);
                drop(inner);
                self.notifier.sign_in(SignInEvent::SignedIn {
                    session: info.clone(),
                });
                self.notifier.session(self.session_event(Some(info)));
            }
            Ok(_) => tracing::info!("sign-in finished for an environment no longer active"),
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

    // ---- workflows ----------------------------------------------------------------------

    pub async fn search_patients(
        &self,
        query: &str,
        after: Option<String>,
    ) -> Result<Page<Patient>, CommandError> {
        let filter = net::PatientFilter {
            name: Some(query.trim().to_owned()).filter(|q| !q.is_empty()),
            external_id: None,
        };
        let page = net::PageRequest {
            after,
            first: Some(PAGE_SIZE),
        };
        let found = self
            .with_api("search_patients", |api| {
                let (filter, page) = (filter.clone(), page.clone());
                async move { api.patients(&filter, &page).await }
            })
            .await?;
        Ok(Page {
            items: found.items.into_iter().map(Patient::from).collect(),
            next_cursor: found.next_cursor,
        })
    }

    pub async fn patient_detail(&self, id: &str) -> Result<PatientDetail, CommandError> {
        let (patient, prescriptions, orders) = self
            .with_api("get_patient", |api| async move {
                let patient = api.patient(id).await?;
                let prescriptions = api
                    .all_prescriptions(&net::PrescriptionFilter {
                        patient_id: Some(id.to_owned()),
                        state: None,
                    })
                    .await?;
                let orders = api
                    .all_orders(&net::OrderFilter {
                        patient_id: Some(id.to_owned()),
                        state: None,
                    })
                    .await?;
                Ok((patient, prescriptions, orders))
            })
            .await?;
        Ok(PatientDetail {
            patient: patient.into(),
            prescriptions: prescriptions.into_iter().map(Prescription::from).collect(),
            orders: orders.into_iter().map(Order::from).collect(),
        })
    }

    pub async fn create_patient(&self, input: &PatientInput) -> Result<Patient, CommandError> {
        let new = net::NewPatient {
            external_id: None,
            name: net::NewPatientName {
                first: input.first_name.trim().to_owned(),
                middle: None,
                last: input.last_name.trim().to_owned(),
            },
            date_of_birth: input.date_of_birth.clone(),
            sex: parse_sex(&input.sex)?,
            gender: None,
            email: non_empty(&input.email),
            phone: non_empty(&input.phone),
            address: None,
        };
        self.with_api("create_patient", |api| {
            let new = new.clone();
            async move { api.create_patient(&new).await }
        })
        .await
        .map(Patient::from)
    }

    pub async fn update_patient(
        &self,
        id: &str,
        input: &PatientInput,
    ) -> Result<Patient, CommandError> {
        let changes = net::PatientChanges {
            name: Some(net::NewPatientName {
                first: input.first_name.trim().to_owned(),
                middle: None,
                last: input.last_name.trim().to_owned(),
            }),
            date_of_birth: Some(input.date_of_birth.clone()),
            sex: Some(parse_sex(&input.sex)?),
            gender: None,
            email: non_empty(&input.email),
            phone: non_empty(&input.phone),
            address: None,
        };
        self.with_api("update_patient", |api| {
            let changes = changes.clone();
            async move { api.update_patient(id, &changes).await }
        })
        .await
        .map(Patient::from)
    }

    pub async fn search_medications(&self, query: &str) -> Result<Vec<Medication>, CommandError> {
        let found = self
            .with_api("search_medications", |api| async move {
                api.medications(query.trim(), Some(20)).await
            })
            .await?;
        Ok(found.into_iter().map(Medication::from).collect())
    }

    pub async fn search_pharmacies(&self, query: &str) -> Result<Vec<Pharmacy>, CommandError> {
        let found = self
            .with_api("search_pharmacies", |api| async move {
                api.pharmacies(Some(query.trim()), Some(20)).await
            })
            .await?;
        Ok(found.into_iter().map(Pharmacy::from).collect())
    }

    pub async fn create_prescription(
        &self,
        input: &PrescriptionInput,
    ) -> Result<Prescription, CommandError> {
        let new = net::NewPrescription {
            external_id: None,
            patient_id: input.patient_id.clone(),
            treatment_id: input.medication_id.clone(),
            dispense_as_written: None,
            dispense_quantity: input.dispense_quantity,
            dispense_unit: input.dispense_unit.trim().to_owned(),
            fills_allowed: i64::from(input.refills) + 1,
            days_supply: i64::from(input.days_supply),
            instructions: input.instructions.trim().to_owned(),
            notes: non_empty(&input.notes),
            effective_date: non_empty(&input.effective_date),
        };
        self.with_api("create_prescription", |api| {
            let new = new.clone();
            async move { api.create_prescription(&new).await }
        })
        .await
        .map(Prescription::from)
    }

    pub async fn cancel_prescription(&self, id: &str) -> Result<Prescription, CommandError> {
        self.with_api("cancel_prescription", |api| async move {
            api.cancel_prescription(id).await
        })
        .await
        .map(Prescription::from)
    }

    /// Drafts across patients, oldest first.
    pub async fn signing_queue(&self) -> Result<Vec<Prescription>, CommandError> {
        let drafts = self
            .with_api("signing_queue", |api| async move {
                api.all_prescriptions(&net::PrescriptionFilter {
                    patient_id: None,
                    state: Some(net::PrescriptionState::Draft),
                })
                .await
            })
            .await?;
        Ok(drafts.into_iter().map(Prescription::from).collect())
    }

    /// Signs the prescriptions in one request; one outcome per id, in order.
    pub async fn sign_prescriptions(
        &self,
        ids: &[String],
    ) -> Result<Vec<SignOutcome>, CommandError> {
        let results = self
            .with_api("sign_prescriptions", |api| async move {
                api.sign_prescriptions(ids).await
            })
            .await?;
        Ok(ids
            .iter()
            .zip(results)
            .map(|(id, result)| match result {
                Ok(p) => SignOutcome {
                    prescription_id: id.clone(),
                    signed: Some(p.into()),
                    error: None,
                },
                Err(e) => SignOutcome {
                    prescription_id: id.clone(),
                    signed: None,
                    error: Some(e.into()),
                },
            })
            .collect())
    }

    pub async fn create_order(&self, input: &OrderInput) -> Result<Order, CommandError> {
        let new = net::NewOrder {
            external_id: None,
            patient_id: input.patient_id.clone(),
            prescription_ids: input.prescription_ids.clone(),
            pharmacy_id: input.pharmacy_id.clone().filter(|p| !p.is_empty()),
            address: None,
        };
        self.with_api("create_order", |api| {
            let new = new.clone();
            async move { api.create_order(&new).await }
        })
        .await
        .map(Order::from)
    }

    pub async fn send_order(&self, id: &str) -> Result<Order, CommandError> {
        self.with_api("send_order", |api| async move { api.send_order(id).await })
            .await
            .map(Order::from)
    }

    pub async fn cancel_order(&self, id: &str) -> Result<Order, CommandError> {
        self.with_api(
            "cancel_order",
            |api| async move { api.cancel_order(id).await },
        )
        .await
        .map(Order::from)
    }
}

fn non_empty(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

fn kind(e: &CommandError) -> &'static str {
    match e {
        CommandError::SignedOut { .. } => "signed_out",
        CommandError::Refused { .. } => "refused",
        CommandError::Invalid { .. } => "invalid",
        CommandError::NotFound { .. } => "not_found",
        CommandError::Network { .. } => "network",
        CommandError::Server { .. } => "server",
        CommandError::Protocol { .. } => "protocol",
        CommandError::App { .. } => "app",
    }
}
