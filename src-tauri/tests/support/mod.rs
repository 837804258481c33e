//! Test plumbing for the command-level tests: the app built on Tauri's mock
//! runtime around an [`AppCore`] whose environment is an in-process sandbox
//! (named through the `RXDESK_*` variables path), keyring-core's mock store, a
//! test browser through which a person walks the sandbox's sign-in pages
//! (`rxdesk-testkit`), the local index in memory (or in a file the test can
//! read), IPC calls through a mock webview (typed: `invoke(args::…)`, the
//! command's own argument struct and result), and the events the UI would receive.
//! The demo accounts and the log capture come from `rxdesk-testkit`.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rxdesk_client::UrlOpener;
use rxdesk_lib::core::{AppCore, CoreConfig};
use rxdesk_lib::environments;
use rxdesk_lib::index::{Index, Scope};
use rxdesk_lib::ipc::{
    CommandError, EVENT_OPEN_LINK, EVENT_SESSION, EVENT_SIGN_IN, EVENT_SIGNING, LinkEvent,
    SessionEvent, SignInEvent, SigningProgress,
};
use rxdesk_lib::sandbox::LocalSandbox;
use rxdesk_lib::session_store::SessionStore;
use rxdesk_sandbox::Sandbox;
use rxdesk_testkit::demo::{AUDIENCE, DESKTOP_CLIENT};
use rxdesk_testkit::person::{self, walk_and_land};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tauri::test::{INVOKE_KEY, MockRuntime, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;
use tauri::{Listener, Manager, WebviewWindow, WebviewWindowBuilder};
use url::Url;

pub use rxdesk_lib::commands::{CommandArgs, args};
pub use rxdesk_lib::ipc::{ActionId, CreateKey};
pub use rxdesk_testkit::demo::{ADA, BEN, BIRCH, MAPLE, MAPLE_ID, MO, PASSWORD};
pub use rxdesk_testkit::{CapturedLogs, install_crypto};

pub const ENV_ID: &str = environments::VARIABLES_ID;

/// The session the keyring holds (the one stored session's own JSON), if any.
pub fn stored_session(keyring: &SessionStore) -> Option<serde_json::Value> {
    let text = keyring
        .load(rxdesk_lib::session_store::SESSION_ENTRY)
        .unwrap()?;
    let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
    Some(stored["s"].clone())
}

/// Makes the next call on `keyring`'s entry `user` fail with `error` (a mock
/// keyring's entry: `session`, its parts `session#<generation>.<i>`).
pub fn fail_next_keyring_call(keyring: &SessionStore, user: &str, error: keyring_core::Error) {
    let SessionStore::Keyring(backing) = keyring else {
        panic!("not a keyring: {keyring:?}")
    };
    let entry = backing
        .build(rxdesk_lib::session_store::SERVICE, user, None)
        .unwrap();
    let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().unwrap();
    cred.set_error(error);
}

/// Stores `session` (its JSON) as the one session of `environment`, last used now.
pub fn store_session(keyring: &SessionStore, environment: &str, session: &serde_json::Value) {
    store_session_used_at(keyring, environment, session, unix_now());
}

/// [`store_session`], last used at `last` (Unix seconds).
pub fn store_session_used_at(
    keyring: &SessionStore,
    environment: &str,
    session: &serde_json::Value,
    last: u64,
) {
    let stored = serde_json::json!({ "env": environment, "last": last, "s": session });
    keyring
        .save(
            rxdesk_lib::session_store::SESSION_ENTRY,
            &stored.to_string(),
        )
        .unwrap();
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Whose records a session at Maple Street Clinic touches, in the index.
pub fn maple_scope() -> Scope {
    Scope {
        environment: ENV_ID.to_owned(),
        organization: MAPLE_ID.to_owned(),
    }
}

/// One sandbox for a test (in memory), kept running across app "restarts".
pub fn sandbox() -> Sandbox {
    tauri::async_runtime::block_on(rxdesk_testkit::start_demo())
}

/// An app started again after a sign-in as MO, on the stored session as
/// `change` leaves it; with its sandbox and keyring.
pub fn restarted_with_stored_session(
    change: impl FnOnce(&mut serde_json::Value),
) -> (Sandbox, SessionStore, TestApp) {
    let sandbox = sandbox();
    let keyring = mock_keyring();
    {
        let app = TestApp::start(Options::new(&sandbox, &keyring));
        app.sign_in_as(MO);
    }
    let mut stored = stored_session(&keyring).unwrap();
    change(&mut stored);
    store_session(&keyring, ENV_ID, &stored);
    let app = TestApp::start(Options::new(&sandbox, &keyring));
    (sandbox, keyring, app)
}

/// A keyring that survives app restarts within a test.
pub fn mock_keyring() -> SessionStore {
    SessionStore::probe(keyring_core::mock::Store::new().unwrap())
}

/// What the test browser does with the sign-in page.
#[derive(Debug, Clone)]
pub enum Act {
    /// Sign in as this email, choosing Maple Street Clinic if asked.
    SignIn(String),
    /// Sign in as this email, choosing this organization (by name) if asked.
    SignInAt(String, String),
    /// Press Cancel on the sign-in page.
    Cancel,
    /// Open nothing (a person who never comes back).
    Nothing,
}

/// A [`UrlOpener`] that behaves like a person in a browser.
#[derive(Debug, Clone)]
pub struct TestBrowser(pub Arc<Mutex<Act>>);

impl TestBrowser {
    pub fn set(&self, act: Act) {
        *self.0.lock().unwrap() = act;
    }
}

impl UrlOpener for TestBrowser {
    fn open(&self, url: &Url) -> std::io::Result<()> {
        let act = self.0.lock().unwrap().clone();
        if !matches!(act, Act::Nothing) {
            tauri::async_runtime::spawn(browse(act, url.clone()));
        }
        Ok(())
    }
}

async fn browse(act: Act, url: Url) {
    let act = match act {
        Act::SignIn(email) => person::Act::SignIn {
            email,
            organization: Some(MAPLE.to_owned()),
        },
        Act::SignInAt(email, organization) => person::Act::SignIn {
            email,
            organization: Some(organization),
        },
        Act::Cancel => person::Act::Cancel,
        Act::Nothing => return,
    };
    walk_and_land(&rxdesk_testkit::browser(), &url, &act).await;
}

/// The app on the mock runtime, with its window and the events it sent.
pub struct TestApp {
    pub app: tauri::App<MockRuntime>,
    pub window: WebviewWindow<MockRuntime>,
    pub sign_in_events: mpsc::Receiver<SignInEvent>,
    pub session_events: mpsc::Receiver<SessionEvent>,
    pub signing_events: mpsc::Receiver<SigningProgress>,
    pub link_events: mpsc::Receiver<LinkEvent>,
    pub browser: TestBrowser,
    _config_dir: tempfile::TempDir,
}

pub struct Options {
    /// `None`: no `RXDESK_*` variables, so the built-in Local sandbox is used.
    pub sandbox_url: Option<Url>,
    /// The Network API's address when it is not the sandbox's (a proxy in
    /// front of it); `None`: the sandbox's.
    pub api_url: Option<Url>,
    pub store: SessionStore,
    pub sign_in_timeout: Duration,
    /// `None`: the local index lives in memory; `Some`: in this file.
    pub index_file: Option<PathBuf>,
    /// `None`: the built-in Local sandbox keeps everything in memory; `Some`:
    /// its data directory.
    pub sandbox_dir: Option<PathBuf>,
    /// The idle lock (the default: 15 minutes).
    pub idle_lock: Duration,
}

impl Options {
    /// The app with its built-in, in-process Local sandbox.
    pub fn built_in(store: &SessionStore) -> Self {
        Self {
            sandbox_url: None,
            api_url: None,
            store: store.clone(),
            sign_in_timeout: Duration::from_secs(30),
            index_file: None,
            sandbox_dir: None,
            idle_lock: rxdesk_lib::core::DEFAULT_IDLE_LOCK,
        }
    }

    /// The app with its built-in Local sandbox keeping its data in `dir`.
    pub fn built_in_on_disk(store: &SessionStore, dir: &std::path::Path) -> Self {
        Self {
            sandbox_dir: Some(dir.to_owned()),
            ..Self::built_in(store)
        }
    }

    pub fn new(sandbox: &Sandbox, store: &SessionStore) -> Self {
        Self {
            sandbox_url: Some(sandbox.url().clone()),
            api_url: None,
            store: store.clone(),
            sign_in_timeout: Duration::from_secs(30),
            index_file: None,
            sandbox_dir: None,
            idle_lock: rxdesk_lib::core::DEFAULT_IDLE_LOCK,
        }
    }
}

impl TestApp {
    pub fn start(options: Options) -> Self {
        let config_dir = tempfile::tempdir().unwrap();
        let dir = config_dir.path().to_owned();
        let browser = TestBrowser(Arc::new(Mutex::new(Act::Nothing)));
        let opener = browser.clone();
        let url = options.sandbox_url.map(|u| u.to_string());
        let api_url = options
            .api_url
            .map(|u| u.to_string())
            .or_else(|| url.clone());
        let variables = environments::from_variables(|name| match (name, &url) {
            (_, None) => None,
            ("RXDESK_AUTH_URL", Some(url)) => Some(url.clone()),
            ("RXDESK_API_URL", Some(_)) => api_url.clone(),
            ("RXDESK_AUDIENCE", _) => Some(AUDIENCE.to_owned()),
            ("RXDESK_CLIENT_ID", _) => Some(DESKTOP_CLIENT.to_owned()),
            _ => None,
        });
        let store = options.store;
        let timeout = options.sign_in_timeout;
        let index = match &options.index_file {
            Some(path) => Index::open(path).unwrap(),
            None => Index::in_memory().unwrap(),
        };
        let app = rxdesk_lib::builder(mock_builder())
            .build(mock_context(noop_assets()))
            .unwrap();
        let notifier = rxdesk_lib::commands::TauriNotifier(app.handle().clone());
        rxdesk_lib::install_core(
            &app,
            CoreConfig {
                config_dir: dir,
                sandbox: match options.sandbox_dir {
                    Some(dir) => LocalSandbox::on_disk(dir),
                    None => LocalSandbox::in_memory(),
                },
                store,
                index,
                opener: Arc::new(opener),
                sign_in_timeout: timeout,
                idle_lock: options.idle_lock,
                variables,
                notifier: Arc::new(notifier),
            },
        );
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        let (sign_in_tx, sign_in_events) = mpsc::channel();
        app.listen_any(EVENT_SIGN_IN, move |e| {
            let _ = sign_in_tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        let (session_tx, session_events) = mpsc::channel();
        app.listen_any(EVENT_SESSION, move |e| {
            let _ = session_tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        let (signing_tx, signing_events) = mpsc::channel();
        app.listen_any(EVENT_SIGNING, move |e| {
            let _ = signing_tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        let (link_tx, link_events) = mpsc::channel();
        app.listen_any(EVENT_OPEN_LINK, move |e| {
            let _ = link_tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        Self {
            app,
            window,
            sign_in_events,
            session_events,
            signing_events,
            link_events,
            browser,
            _config_dir: config_dir,
        }
    }

    /// Invokes the command `args` are for, as the UI does: typed arguments
    /// (`args::find_patients { action: None, query }`: a missing or misspelled
    /// one does not compile) and a typed result; the error is the UI's
    /// `CommandError`.
    pub fn invoke<A>(&self, args: A) -> Result<A::Output, CommandError>
    where
        A: CommandArgs,
        A::Output: DeserializeOwned,
    {
        invoke_on(&self.window, args)
    }

    /// [`Self::invoke`], which must succeed.
    pub fn invoke_ok<A>(&self, args: A) -> A::Output
    where
        A: CommandArgs,
        A::Output: DeserializeOwned,
    {
        self.invoke(args)
            .unwrap_or_else(|e| panic!("{} failed: {e:?}", A::NAME))
    }

    /// Invokes `cmd` by name with any arguments (a `json!` body, for what the
    /// typed [`Self::invoke`] cannot send: a malformed call); the error is the
    /// UI's `CommandError`.
    pub fn call<T: DeserializeOwned>(
        &self,
        cmd: &str,
        args: impl Serialize,
    ) -> Result<T, CommandError> {
        call_on(&self.window, cmd, args)
    }

    /// [`Self::call`], which must succeed.
    pub fn ok<T: DeserializeOwned>(&self, cmd: &str, args: impl Serialize) -> T {
        self.call(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e:?}"))
    }

    /// The signing progress events sent so far, up to the one that reports
    /// `total` done (waits up to 30 s for each).
    pub fn signing_progress_until_done(&self) -> Vec<SigningProgress> {
        let mut seen = Vec::new();
        loop {
            let progress = self
                .signing_events
                .recv_timeout(Duration::from_secs(30))
                .expect("no signing progress event");
            let finished = progress.done == progress.total;
            seen.push(progress);
            if finished {
                return seen;
            }
        }
    }

    /// The next sign-in event (waits up to 30 s).
    pub fn next_sign_in_event(&self) -> SignInEvent {
        self.sign_in_events
            .recv_timeout(Duration::from_secs(30))
            .expect("no sign-in event")
    }

    /// The core behind the commands (what the OS's link handler calls).
    pub fn core(&self) -> Arc<AppCore> {
        self.app.state::<Arc<AppCore>>().inner().clone()
    }

    /// Signs in through the test browser as `email` (at Maple Street Clinic
    /// when asked); returns once signed in.
    pub fn sign_in_as(&self, email: &str) {
        self.sign_in_with(Act::SignIn(email.to_owned()));
    }

    /// Signs in as `email`, choosing `organization` (by name) when asked.
    pub fn sign_in_at(&self, email: &str, organization: &str) {
        self.sign_in_with(Act::SignInAt(email.to_owned(), organization.to_owned()));
    }

    /// Signs in as `email` having chosen "for this run only" (a keyring that
    /// cannot keep the session); returns once signed in.
    pub fn sign_in_for_this_run_as(&self, email: &str) {
        self.sign_in_with_args(
            Act::SignIn(email.to_owned()),
            args::sign_in {
                this_run_only: Some(true),
            },
        );
    }

    fn sign_in_with(&self, act: Act) {
        self.sign_in_with_args(
            act,
            args::sign_in {
                this_run_only: None,
            },
        );
    }

    fn sign_in_with_args(&self, act: Act, args: args::sign_in) {
        self.browser.set(act);
        self.invoke_ok(args);
        assert!(matches!(
            self.next_sign_in_event(),
            SignInEvent::Waiting { .. }
        ));
        match self.next_sign_in_event() {
            SignInEvent::SignedIn { .. } => {}
            other => panic!("sign-in failed: {other:?}"),
        }
    }
}

/// Invokes `cmd` on `window` as the UI does (from any thread: a second click
/// while the first runs); the error is the UI's `CommandError`.
pub fn call_on<T: DeserializeOwned>(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: impl Serialize,
) -> Result<T, CommandError> {
    let args = serde_json::to_value(args).unwrap();
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: tauri::ipc::CallbackFn(0),
        error: tauri::ipc::CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: tauri::ipc::InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    match tauri::test::get_ipc_response(window, request) {
        Ok(body) => Ok(body.deserialize().unwrap()),
        Err(value) => Err(serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("{cmd}: not a CommandError ({e}): {value}"))),
    }
}

/// [`TestApp::invoke`] on `window` (from any thread: a second click while the
/// first runs).
pub fn invoke_on<A>(window: &WebviewWindow<MockRuntime>, args: A) -> Result<A::Output, CommandError>
where
    A: CommandArgs,
    A::Output: DeserializeOwned,
{
    call_on(window, A::NAME, args)
}

/// A keyring that answers reads (nothing stored) but refuses every write, like
/// a Secret Service whose collection is locked.
#[derive(Debug)]
pub struct LockedKeyring;

#[derive(Debug)]
struct LockedCredential;

impl keyring_core::api::CredentialApi for LockedCredential {
    fn set_secret(&self, _: &[u8]) -> keyring_core::Result<()> {
        Err(keyring_core::Error::NoStorageAccess(Box::new(
            std::io::Error::other("the collection is locked"),
        )))
    }
    fn get_secret(&self) -> keyring_core::Result<Vec<u8>> {
        Err(keyring_core::Error::NoEntry)
    }
    fn delete_credential(&self) -> keyring_core::Result<()> {
        Err(keyring_core::Error::NoEntry)
    }
    fn get_credential(&self) -> keyring_core::Result<Option<Arc<keyring_core::Credential>>> {
        Ok(None)
    }
    fn get_specifiers(&self) -> Option<(String, String)> {
        None
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl keyring_core::api::CredentialStoreApi for LockedKeyring {
    fn vendor(&self) -> String {
        "locked test keyring".into()
    }
    fn id(&self) -> String {
        "locked".into()
    }
    fn build(
        &self,
        _: &str,
        _: &str,
        _: Option<&std::collections::HashMap<&str, &str>>,
    ) -> keyring_core::Result<keyring_core::Entry> {
        Ok(keyring_core::Entry::new_with_credential(Arc::new(
            LockedCredential,
        )))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub fn locked_keyring() -> SessionStore {
    SessionStore::probe(Arc::new(LockedKeyring))
}

/// [`new_key`], typed.
pub fn create_key() -> CreateKey {
    CreateKey(new_key())
}

/// A fresh key for one create, as the UI makes one per user action.
pub fn new_key() -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("test-key-{}-{n}", std::process::id())
}
