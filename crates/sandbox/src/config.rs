//! Start-up settings of a sandbox: where it listens, where it keeps its data,
//! which fixture it loads, the token lifetimes, the control endpoint, the link
//! layer's settings and what the command line adds to the fixture's after-Send
//! settings ([`AfterSendFlags`], and [`SettingsError`] when they are wrong). The
//! command-line flags in `main.rs` map onto [`Config`]; nothing here touches the
//! network.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Default API audience, as in `shared/DESIGN.md`.
pub const DEFAULT_AUDIENCE: &str = "rxdesk-sandbox";

/// Where the sandbox keeps its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// SQLite database (WAL) and signing key under this directory; survives restarts.
    Data(PathBuf),
    /// Everything in memory; gone when the sandbox stops.
    InMemory,
}

/// Which accounts, applications and backends the sandbox knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixtureSource {
    /// The built-in demo fixture (demo accounts shown on the sign-in page).
    Demo,
    /// A TOML fixture file.
    File(PathBuf),
}

/// Everything a sandbox needs to start.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub storage: Storage,
    pub fixture: FixtureSource,
    pub audience: String,
    pub user_token_ttl: Duration,
    pub machine_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    /// How long a sign-in's refresh tokens can be rotated for, in all: past
    /// it, the user signs in again (the session's absolute lifetime).
    pub refresh_family_ttl: Duration,
    /// Where the control endpoint listens (loopback only; `None`: no control
    /// endpoint). Port 0 picks a free port: see `Sandbox::control_url`.
    pub control: Option<SocketAddr>,
    /// The link layer's settings at start; `None` takes the fixture's `[link]`
    /// section, or none (off). When set, it replaces that section whole.
    pub link: Option<crate::link::LinkSettings>,
    /// The simulated pharmacy's pace and webhook subscriptions given on the
    /// command line (they add to, or win over, the fixture's).
    pub after_send: AfterSendFlags,
}

/// What the command line says about the time after Send (`--fulfillment-step`,
/// `--webhook*`). Empty by default: the fixture decides.
#[derive(Debug, Clone, Default)]
pub struct AfterSendFlags {
    /// Time between two steps of a sent order at the simulated pharmacy.
    pub step: Option<Duration>,
    /// Subscriptions: (organization id, URL).
    pub webhooks: Vec<(String, String)>,
    /// The event types those subscriptions want (empty: all).
    pub webhook_events: Vec<String>,
    /// The shared secret of those subscriptions.
    pub webhook_secret: Option<WebhookSecret>,
    /// The share of events delivered twice and late.
    pub duplicate_share: Option<f64>,
    /// The seed that chooses them.
    pub seed: Option<u64>,
    /// Allow webhook URLs that are not on this machine.
    pub allow_remote_webhooks: bool,
}

impl Config {
    /// An in-memory sandbox on a free loopback port with the demo fixture and
    /// the default lifetimes: what tests and the desktop app start from.
    pub fn in_memory() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            storage: Storage::InMemory,
            fixture: FixtureSource::Demo,
            audience: DEFAULT_AUDIENCE.to_owned(),
            user_token_ttl: Duration::from_secs(3600),
            machine_token_ttl: Duration::from_secs(86_400),
            refresh_token_ttl: Duration::from_secs(30 * 86_400),
            refresh_family_ttl: Duration::from_secs(12 * 3600),
            control: None,
            link: None,
            after_send: AfterSendFlags::default(),
        }
    }
}

/// A shared secret: never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

/// A broken after-Send setting: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{entry}: {rule}")]
pub struct SettingsError {
    /// e.g. `[[fulfillment.closed]] #1 (phr_…)` or `--webhook org_maple=…`.
    pub entry: String,
    pub rule: SettingsRule,
    /// True for a command-line flag, false for a fixture entry.
    pub from_flag: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsRule {
    #[error("unknown {what} `{reference}`")]
    Unknown {
        what: &'static str,
        reference: String,
    },
    #[error("{0}")]
    Invalid(String),
}
