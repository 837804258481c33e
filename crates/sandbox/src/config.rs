//! Start-up settings of a sandbox: where it listens, where it keeps its data,
//! which fixture it loads, the token lifetimes, the control endpoint and the
//! link layer's settings. The command-line flags in `main.rs` map onto
//! [`Config`]; nothing here touches the network.

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
        }
    }
}
