//! The app's logic behind the commands, testable without a window. What lives
//! where:
//!
//! - [`actions`](self::actions): each command's network work as one user
//!   action — its retries told to the UI, cancelled where that is safe, a
//!   double submit merged into one;
//! - [`environments`](self::environments): which networks there are, the active
//!   one, and whether it speaks what the app sends (the compatibility check);
//! - [`session`](self::session): the one session kept in the keyring, restored
//!   (unless idle past the lock), renewed silently, ended everywhere at sign-out,
//!   lock or when its environment goes; every workflow's call goes through
//!   `AppCore::with_network`, which checks the idle time first;
//! - [`keyring`](self::keyring): where the session is kept, as the UI is told
//!   it, and the user's choice to sign in for this run only when the keyring
//!   cannot keep it;
//! - [`activity`](self::activity): when the user last gave input;
//! - [`sign_in`](self::sign_in): browser sign-in driven from Rust, progress sent
//!   through a [`Notifier`];
//! - [`workflows`](self::workflows): patients, prescriptions, signing, orders and
//!   the work lists, each a call to `rxdesk-client`'s `Network` plus the local
//!   index of ids.
//!
//! Rules kept here:
//! - the UI never receives a token: only [`SessionInfo`](crate::ipc::SessionInfo);
//! - an answer of `SignedOut` is retried once after a silent renewal (the
//!   server did nothing: authentication comes before any work), and only as
//!   the same user in the same organization; if that fails the session is
//!   dropped and the UI asked to sign in again;
//! - at most one session is stored, the active environment's; picking an
//!   environment never restores one; after a lock or a sign-out (and at start)
//!   the next sign-in asks the network for a fresh login;
//! - nothing logged carries a token or a patient field.

mod actions;
mod activity;
mod environments;
mod keyring;
mod running;
mod session;
mod sign_in;
mod workflows;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rxdesk_client::{CancelHandle, Client, UrlOpener};
use tokio::sync::Mutex;
use url::Url;

use crate::environments::{Configured, EnvironmentsFile, SANDBOX_ID};
use crate::index::Index;
use crate::ipc::{
    CommandError, LinkEvent, NetworkCheck, RetryEvent, SessionEnd, SessionEvent, SignInEvent,
    SigningProgress,
};

use crate::sandbox::LocalSandbox;
use crate::session_store::SessionStore;
pub use running::Safety;

/// Input-free time after which the app locks, unless `RXDESK_IDLE_LOCK_MINUTES` says otherwise.
pub const DEFAULT_IDLE_LOCK: Duration = Duration::from_secs(15 * 60);

/// Renew this long before the access token expires.
const RENEW_MARGIN: Duration = Duration::from_secs(60);

/// Where the app sends events (the webview in the app; a recorder in tests).
pub trait Notifier: Send + Sync {
    fn sign_in(&self, event: SignInEvent);
    fn session(&self, event: SessionEvent);
    fn signing(&self, progress: SigningProgress);
    fn open_link(&self, event: LinkEvent);
    /// A call of a running action is being tried again.
    fn retry(&self, event: RetryEvent);
}

/// Everything the core needs from outside.
pub struct CoreConfig {
    pub config_dir: PathBuf,
    pub sandbox: LocalSandbox,
    pub store: SessionStore,
    /// The local index of ids (see [`crate::index`]).
    pub index: Index,
    pub opener: Arc<dyn UrlOpener>,
    pub sign_in_timeout: Duration,
    /// Input-free time after which the app locks (zero: never), the IT
    /// policy's maximum already applied (`policy::effective_idle`).
    pub idle_lock: Duration,
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
    session: Option<rxdesk_client::Session>,
    restored: bool,
    pending: Option<Pending>,
    /// The compatibility check's answer, per environment, once it ran.
    checks: HashMap<String, NetworkCheck>,
    /// The user's last input.
    activity: activity::Activity,
    /// The next sign-in asks the network for a fresh login (the password):
    /// at start, and after a lock, a sign-out or the loss of an environment.
    fresh_login: bool,
    /// Why the stored session was not taken up at start, until the UI's first
    /// status says so.
    ended_at_start: Option<SessionEnd>,
    /// The session's renewal under way (`session.rs`, `renew_locked`).
    renewal: Option<session::Renewal>,
}

/// The app's state and logic. Shared as `Arc<AppCore>`.
pub struct AppCore {
    file: EnvironmentsFile,
    sandbox: LocalSandbox,
    store: SessionStore,
    index: Index,
    opener: Arc<dyn UrlOpener>,
    sign_in_timeout: Duration,
    idle_lock: Duration,
    variables: Result<Option<Configured>, String>,
    notifier: Arc<dyn Notifier>,
    /// Set when the keyring answered the probe but refused a session since.
    keyring_failure: std::sync::Mutex<Option<crate::session_store::KeyringTrouble>>,
    /// The user chose to sign in for this run only (or a sign-in's session
    /// could not be stored): the keyring is not asked to store it.
    this_run_only: std::sync::atomic::AtomicBool,
    /// The link the app was started with, until the UI asks for its status.
    start_link: std::sync::Mutex<Option<LinkEvent>>,
    /// The user actions running now (cancels, identical runs in flight).
    actions: running::Actions,
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
        let file = EnvironmentsFile::in_dir(&config.config_dir);
        let active = match &config.variables {
            Ok(Some(env)) => env.id.clone(),
            _ => default_environment(&file),
        };
        Self {
            file,
            sandbox: config.sandbox,
            store: config.store,
            index: config.index,
            opener: config.opener,
            sign_in_timeout: config.sign_in_timeout,
            idle_lock: config.idle_lock,
            variables: config.variables,
            notifier: config.notifier,
            keyring_failure: std::sync::Mutex::new(None),
            this_run_only: std::sync::atomic::AtomicBool::new(false),
            start_link: std::sync::Mutex::new(None),
            actions: running::Actions::default(),
            inner: Mutex::new(Inner {
                active,
                clients: HashMap::new(),
                session: None,
                restored: false,
                pending: None,
                checks: HashMap::new(),
                activity: activity::Activity::now(),
                fresh_login: true,
                ended_at_start: None,
                renewal: None,
            }),
        }
    }

    /// Hands a link the OS gave the app (a second launch, the URL handler) to
    /// the UI. It only navigates.
    pub fn link_received(&self, text: &str) {
        self.notifier.open_link(link_event(text));
    }

    /// Keeps the link the app was started with (before the UI listens) for
    /// the UI's first status.
    pub fn started_with_link(&self, text: &str) {
        *self
            .start_link
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(link_event(text));
    }

    fn take_start_link(&self) -> Option<LinkEvent> {
        self.start_link
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// The environment used when none is chosen: the built-in sandbox, or in a
/// production build the first network of the environments file (none: the
/// user adds one in Settings).
fn default_environment(file: &EnvironmentsFile) -> String {
    if LocalSandbox::AVAILABLE {
        return SANDBOX_ID.to_owned();
    }
    file.load()
        .environments
        .first()
        .map(|e| e.id.clone())
        .unwrap_or_default()
}

fn link_event(text: &str) -> LinkEvent {
    match crate::links::parse(text) {
        Ok(target) => LinkEvent::Open { target },
        Err(e) => LinkEvent::Invalid {
            message: e.to_string(),
        },
    }
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
        CommandError::Cancelled { .. } => "cancelled",
        CommandError::App { .. } => "app",
    }
}
