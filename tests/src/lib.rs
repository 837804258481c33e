//! End-to-end harness of Rx Desk: the real `rxdesk` binary under Xvfb, driven
//! through `tauri-driver`, with a real Secret Service (gnome-keyring on a private
//! D-Bus bus), the real sandbox binary with the suite's fixture, and headless
//! Chromium completing the sign-in page as the app's `$BROWSER`.
//!
//! [`World`] starts all of it once per run and tears it down when dropped;
//! [`desktop::Desktop`] is one launch of the app. Everything a run writes lands
//! under `target/e2e/` (`target/e2e-<link>/` on a bad link, see [`link`]):
//! `logs/`, `screenshots/<journey>/`, `run/` (the isolated home and the
//! sandbox's data).

pub mod browser;
pub mod desktop;
pub mod flows;
pub mod link;
pub mod process;
pub mod services;
pub mod tokens;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::browser::{Action, Plan};
use crate::desktop::{Desktop, Shots};
use crate::link::BadLink;
use crate::services::{Display, Home, Lifetimes, Sandbox, SecretService};

/// The Application client id in the suite's fixture.
pub const CLIENT_ID: &str = "rxdesk-desktop";
/// The keyring service of the app's entries.
pub const KEYRING_SERVICE: &str = "dev.rxdesk.desktop";
/// The app's bundle identifier: its data, config and cache dirs are named so.
pub const APP_IDENTIFIER: &str = "dev.rxdesk.desktop";

/// The app's `RUST_LOG` in the journeys: debug logs for whoever reads a failed
/// run, the noisiest libraries at `info`.
pub const DEBUG_LOG: &str = "debug,hyper=info,hyper_util=info,zbus=info,tao=info,wry=info";

/// reqwest is built without a crypto provider of its own (the app's client brings
/// its rustls configuration): the harness and the bench install ring, once per process.
pub fn install_crypto() {
    // Err only when a provider is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A plain HTTP client for the harness's calls to the sandbox.
pub fn http_client() -> reqwest::Client {
    install_crypto();
    reqwest::Client::new()
}

/// Where the binaries and outputs of a run are.
#[derive(Debug, Clone)]
pub struct Layout {
    /// `target/debug` (or the profile dir the suite was built in).
    pub profile_dir: PathBuf,
    /// `target/e2e`
    pub out: PathBuf,
    pub app: PathBuf,
    pub sandbox: PathBuf,
    pub browser: PathBuf,
    /// The client's `webhook_receiver` example (`target/<profile>/examples/`).
    pub webhook_receiver: PathBuf,
    pub fixture: PathBuf,
    /// The bad link every sandbox of the run is started on, if any.
    pub link: Option<BadLink>,
    /// The sandboxes' `RUST_LOG`: `debug` for the journeys (their logs are
    /// the evidence of a failure), `info` for the bench (what a network runs at).
    pub sandbox_log: String,
    /// The app's `RUST_LOG`: [`DEBUG_LOG`] in the journeys; `None` runs it as
    /// users do (no `RUST_LOG`: `info`), what the bench measures.
    pub app_log: Option<String>,
}

impl Layout {
    /// Found from the running test binary (`target/debug/deps/…`) unless
    /// `RXDESK_E2E_APP` / `RXDESK_E2E_SANDBOX` name the binaries; the link
    /// from `RXDESK_E2E_LINK` (see [`link`]).
    pub fn discover(browser: &Path) -> Result<Self> {
        let link = BadLink::from_env()?;
        let exe = std::env::current_exe()?;
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .context("the test binary is not in target/<profile>/deps")?
            .to_owned();
        let target = profile_dir.parent().context("no target dir")?.to_owned();
        let from_env = |var: &str, default: PathBuf| {
            std::env::var_os(var).map(PathBuf::from).unwrap_or(default)
        };
        Ok(Self {
            app: from_env("RXDESK_E2E_APP", profile_dir.join("rxdesk")),
            sandbox: from_env("RXDESK_E2E_SANDBOX", profile_dir.join("rxdesk-sandbox")),
            browser: browser.to_owned(),
            webhook_receiver: profile_dir.join("examples").join("webhook_receiver"),
            fixture: Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/e2e.toml"),
            out: target.join(
                link.as_ref()
                    .map_or_else(|| "e2e".to_owned(), BadLink::label),
            ),
            profile_dir,
            link,
            sandbox_log: "debug".to_owned(),
            app_log: Some(DEBUG_LOG.to_owned()),
        })
    }

    pub fn logs(&self) -> PathBuf {
        self.out.join("logs")
    }
    pub fn screenshots(&self) -> PathBuf {
        self.out.join("screenshots")
    }
    pub fn run_dir(&self) -> PathBuf {
        self.out.join("run")
    }
}

/// Everything around the app for one run; dropping it stops it all.
#[derive(Debug)]
pub struct World {
    // Drop order = field order: sandboxes, then the keyring and its bus, then X.
    pub sandbox: Sandbox,
    pub keyring: SecretService,
    pub display: Display,
    pub home: Home,
    pub layout: Layout,
}

impl World {
    /// Starts Xvfb, the bus with an unlocked keyring and the sandbox, after
    /// emptying the outputs of the previous run.
    pub async fn start(layout: Layout) -> Result<Self> {
        for dir in [layout.logs(), layout.screenshots()] {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            std::fs::create_dir_all(&dir)?;
        }
        let home = Home::fresh(&layout.run_dir().join("home"))?;
        let scratch = layout.run_dir().join("browser");
        if scratch.exists() {
            std::fs::remove_dir_all(&scratch)?;
        }
        std::fs::create_dir_all(&scratch)?;
        let display = Display::start(&layout.logs().join("xvfb.log"))?;
        let keyring = SecretService::start(&home, &layout.logs().join("keyring.log")).await?;
        let sandbox = Self::start_sandbox(&layout, "sandbox", Lifetimes::default())?;
        Ok(Self {
            sandbox,
            keyring,
            display,
            home,
            layout,
        })
    }

    /// Another sandbox (own data dir and log) for a journey that needs other
    /// settings; it stops when dropped.
    pub fn extra_sandbox(&self, name: &str, lifetimes: Lifetimes) -> Result<Sandbox> {
        Self::start_sandbox(&self.layout, name, lifetimes)
    }

    /// Another sandbox on its own `link` (`None`: clean loopback), whatever
    /// link the run's other sandboxes are on.
    pub fn extra_sandbox_on(
        &self,
        name: &str,
        lifetimes: Lifetimes,
        link: Option<&BadLink>,
    ) -> Result<Sandbox> {
        Self::start_sandbox_on(&self.layout, name, lifetimes, link)
    }

    /// Where the sandbox named `name` keeps its data during a run.
    pub fn sandbox_data(layout: &Layout, name: &str) -> PathBuf {
        layout.run_dir().join(format!("{name}-data"))
    }

    fn start_sandbox(layout: &Layout, name: &str, lifetimes: Lifetimes) -> Result<Sandbox> {
        Self::start_sandbox_on(layout, name, lifetimes, layout.link.as_ref())
    }

    fn start_sandbox_on(
        layout: &Layout,
        name: &str,
        lifetimes: Lifetimes,
        link: Option<&BadLink>,
    ) -> Result<Sandbox> {
        let data = Self::sandbox_data(layout, name);
        if data.exists() {
            std::fs::remove_dir_all(&data)?;
        }
        Sandbox::start(
            &layout.sandbox,
            &layout.fixture,
            &data,
            lifetimes,
            link,
            &layout.sandbox_log,
            &layout.logs().join(format!("{name}.log")),
        )
    }

    /// The plan file the browser program reads.
    pub fn plan_path(&self) -> PathBuf {
        self.layout.run_dir().join("browser-plan.json")
    }

    /// Chromium profiles and chromedriver logs of the browser program.
    pub fn browser_scratch(&self) -> PathBuf {
        self.layout.run_dir().join("browser")
    }

    /// The browser program's step log.
    pub fn browser_log(&self) -> PathBuf {
        self.layout.logs().join("browser.log")
    }

    /// What the app sees: the display, the bus, the isolated home, `sandbox`
    /// as its network through `RXDESK_*`, and the browser program as `$BROWSER`.
    pub fn app_env(&self, sandbox: &Sandbox) -> Vec<(String, OsString)> {
        let mut env = self.home.vars();
        let origin = sandbox.origin();
        env.extend([
            ("DISPLAY".into(), self.display.name.clone().into()),
            (
                "DBUS_SESSION_BUS_ADDRESS".into(),
                self.keyring.address.clone().into(),
            ),
            ("RXDESK_AUTH_URL".into(), origin.clone().into()),
            ("RXDESK_API_URL".into(), origin.into()),
            ("RXDESK_AUDIENCE".into(), services::AUDIENCE.into()),
            ("RXDESK_CLIENT_ID".into(), CLIENT_ID.into()),
            ("BROWSER".into(), self.layout.browser.clone().into()),
            (browser::PLAN_ENV.into(), self.plan_path().into()),
            (browser::LOG_ENV.into(), self.browser_log().into()),
            (browser::TMP_ENV.into(), self.browser_scratch().into()),
            ("RUST_BACKTRACE".into(), "1".into()),
            // No GLib/GTK accessibility bus of its own, no dconf on the real home.
            ("NO_AT_BRIDGE".into(), "1".into()),
            ("GSETTINGS_BACKEND".into(), "memory".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ]);
        if let Some(filter) = &self.layout.app_log {
            env.push(("RUST_LOG".into(), filter.into()));
        }
        env
    }

    /// Launches the app against `sandbox`; screenshots go to
    /// `screenshots/<journey>/`, the driver's and app's output to `logs/<journey>-app.log`.
    pub async fn launch(&self, journey: &str, sandbox: &Sandbox) -> Result<Desktop> {
        let shots = Shots::new(self.layout.screenshots().join(journey));
        self.launch_continuing(journey, sandbox, shots).await
    }

    /// [`World::launch`] on another session bus (`bus`: its address), such as
    /// one with no keyring on it.
    pub async fn launch_on_bus(
        &self,
        journey: &str,
        sandbox: &Sandbox,
        bus: &str,
        shots: Shots,
    ) -> Result<Desktop> {
        let mut env = self.app_env(sandbox);
        for (name, value) in &mut env {
            if name == "DBUS_SESSION_BUS_ADDRESS" {
                *value = bus.into();
            }
        }
        Desktop::launch(
            &self.layout.app,
            &env,
            &self.layout.logs().join(format!("{journey}-app.log")),
            shots,
        )
        .await
    }

    /// [`World::launch`] continuing an earlier launch's screenshot numbering.
    pub async fn launch_continuing(
        &self,
        journey: &str,
        sandbox: &Sandbox,
        shots: Shots,
    ) -> Result<Desktop> {
        Desktop::launch(
            &self.layout.app,
            &self.app_env(sandbox),
            &self.layout.logs().join(format!("{journey}-app.log")),
            shots,
        )
        .await
    }

    /// Starts the app a second time with `link` as its argument, as the OS does
    /// when a `rxdesk://` link is opened, and waits for it to hand the link to
    /// the running instance and exit. Fails if it keeps running (a second window).
    pub async fn launch_with_link(&self, sandbox: &Sandbox, link: &str) -> Result<()> {
        let log = self.layout.logs().join("second-launch.log");
        let mut guard = process::Guard::spawn(
            "rxdesk (second launch)",
            std::process::Command::new(&self.layout.app)
                .arg(link)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .envs(self.app_env(sandbox)),
            &log,
        )?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            if let Some(status) = guard.try_wait()? {
                anyhow::ensure!(
                    status.success(),
                    "the second launch failed ({status}); see {}",
                    log.display()
                );
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        anyhow::bail!(
            "the second launch kept running instead of handing the link over; see {}",
            log.display()
        )
    }

    /// Tells the browser program how to answer the next sign-in page.
    pub fn plan_sign_in(
        &self,
        journey: &str,
        user: &User,
        organization: Option<&str>,
    ) -> Result<()> {
        Plan {
            action: Action::SignIn,
            email: user.email.into(),
            password: user.password.into(),
            organization: organization.map(str::to_owned),
            screenshot_prefix: Some(self.layout.screenshots().join(journey).join("browser")),
        }
        .write(&self.plan_path())
    }

    /// Tells the browser program to click Cancel on the next sign-in page.
    pub fn plan_cancel(&self, journey: &str, user: &User) -> Result<()> {
        Plan {
            action: Action::Cancel,
            email: user.email.into(),
            password: user.password.into(),
            organization: None,
            screenshot_prefix: Some(self.layout.screenshots().join(journey).join("browser")),
        }
        .write(&self.plan_path())
    }

    /// The app's own directories (data, config, cache) in the isolated home.
    pub fn app_dirs(&self) -> Vec<PathBuf> {
        vec![
            self.home.data().join(APP_IDENTIFIER),
            self.home.config().join(APP_IDENTIFIER),
            self.home.cache().join(APP_IDENTIFIER),
        ]
    }
}

/// An account of the suite's fixture (`fixtures/e2e.toml`).
#[derive(Debug, Clone, Copy)]
pub struct User {
    pub email: &'static str,
    pub password: &'static str,
    pub name: &'static str,
}

/// Fixture accounts and organizations.
pub mod fixture {
    use super::User;

    pub const PASSWORD: &str = "e2e-correct-horse";
    /// Prescriber in Harbor Lane and Willow Creek.
    pub const PIA: User = User {
        email: "pia@harbor.example",
        password: PASSWORD,
        name: "Pia Lindqvist",
    };
    /// Prescriber in Willow Creek only.
    pub const OMAR: User = User {
        email: "omar@willow.example",
        password: PASSWORD,
        name: "Omar Castellanos",
    };
    /// Medical operations in Harbor Lane.
    pub const SAM: User = User {
        email: "sam@harbor.example",
        password: PASSWORD,
        name: "Sam Okonkwo",
    };
    pub const HARBOR: &str = "Harbor Lane Clinic";
    /// Harbor Lane's organization id (webhook subscriptions name it).
    pub const HARBOR_ID: &str = "org_harbor";
    pub const WILLOW: &str = "Willow Creek Practice";
    pub const HARBOR_BACKEND: (&str, &str) = ("harbor-backend", "harbor-backend-e2e-secret");
    pub const WILLOW_BACKEND: (&str, &str) = ("willow-backend", "willow-backend-e2e-secret");
}
