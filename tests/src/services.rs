//! The machine around the app, started once per run and torn down by `Drop`:
//! an isolated home ([`Home`]), an X display ([`Display`], Xvfb), a D-Bus session
//! bus with an unlocked gnome-keyring Secret Service ([`SecretService`]), a
//! bus with no keyring at all for the journey that needs one ([`BareBus`]), and
//! the sandbox network ([`Sandbox`]).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use url::Url;

use crate::link::{BadLink, Transient, is_transient_status, retried};
use crate::process::{Guard, append, wait_for};

/// A home directory of its own, so the app, WebKit and gnome-keyring write
/// nothing outside the run's directory: `HOME` and the `XDG_*` dirs point into it.
#[derive(Debug, Clone)]
pub struct Home {
    pub root: PathBuf,
}

impl Home {
    /// A fresh (emptied) home at `root`.
    pub fn fresh(root: &Path) -> Result<Self> {
        if root.exists() {
            std::fs::remove_dir_all(root)
                .with_context(|| format!("cannot empty {}", root.display()))?;
        }
        let home = Self {
            root: root.to_owned(),
        };
        for dir in [home.data(), home.config(), home.cache(), home.runtime()] {
            std::fs::create_dir_all(&dir)?;
        }
        std::fs::set_permissions(
            home.runtime(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )?;
        Ok(home)
    }

    pub fn data(&self) -> PathBuf {
        self.root.join(".local/share")
    }
    pub fn config(&self) -> PathBuf {
        self.root.join(".config")
    }
    pub fn cache(&self) -> PathBuf {
        self.root.join(".cache")
    }
    pub fn runtime(&self) -> PathBuf {
        self.root.join("run")
    }

    /// The variables that confine a program to this home.
    pub fn vars(&self) -> Vec<(String, OsString)> {
        vec![
            ("HOME".into(), self.root.clone().into()),
            ("XDG_DATA_HOME".into(), self.data().into()),
            ("XDG_CONFIG_HOME".into(), self.config().into()),
            ("XDG_CACHE_HOME".into(), self.cache().into()),
            ("XDG_RUNTIME_DIR".into(), self.runtime().into()),
        ]
    }
}

/// An Xvfb display on a number the X server picked itself.
#[derive(Debug)]
pub struct Display {
    _server: Guard,
    /// `:N`
    pub name: String,
}

impl Display {
    pub fn start(log: &Path) -> Result<Self> {
        require("Xvfb", "xvfb")?;
        let (server, line) = Guard::spawn_until_line(
            "Xvfb",
            Command::new("Xvfb").args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
            ]),
            log,
            Duration::from_secs(20),
            |line| line.trim().parse::<u32>().is_ok(),
        )?;
        Ok(Self {
            _server: server,
            name: format!(":{}", line.trim()),
        })
    }
}

/// A private D-Bus session bus with gnome-keyring's Secret Service on it,
/// its login keyring created and unlocked with a password fed on stdin.
/// Derefs to the [`KeyringClient`] that talks to it.
#[derive(Debug)]
pub struct SecretService {
    // Field order is drop order: the keyring goes before its bus.
    _keyring: Guard,
    _bus: Guard,
    client: KeyringClient,
}

impl std::ops::Deref for SecretService {
    type Target = KeyringClient;
    fn deref(&self) -> &KeyringClient {
        &self.client
    }
}

/// `secret-tool` on a given bus, in a given home; cheap to clone and send.
#[derive(Debug, Clone)]
pub struct KeyringClient {
    /// `DBUS_SESSION_BUS_ADDRESS`
    pub address: String,
    home: Home,
}

impl SecretService {
    pub async fn start(home: &Home, log: &Path) -> Result<Self> {
        require("dbus-daemon", "dbus")?;
        require("gnome-keyring-daemon", "gnome-keyring")?;
        require("secret-tool", "libsecret-tools")?;
        require("dbus-send", "dbus")?;
        let (bus, address) = Guard::spawn_until_line(
            "dbus-daemon",
            Command::new("dbus-daemon")
                .args(["--session", "--nofork", "--print-address=1"])
                .envs(home.vars()),
            log,
            Duration::from_secs(20),
            |line| line.contains("unix:"),
        )?;
        let address = address.trim().to_owned();

        let out = append(log)?;
        let mut keyring = Command::new("gnome-keyring-daemon");
        keyring
            .args(["--foreground", "--unlock", "--components=secrets"])
            .envs(home.vars())
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .stdout(out.try_clone()?)
            .stderr(out);
        let (keyring, mut stdin) = Guard::spawn_with_stdin("gnome-keyring-daemon", &mut keyring)?;
        stdin.write_all(b"rxdesk-e2e-keyring")?;
        drop(stdin);

        let service = Self {
            _keyring: keyring,
            _bus: bus,
            client: KeyringClient {
                address,
                home: home.clone(),
            },
        };
        // Nothing may touch the bus before the unlocked daemon owns the name:
        // D-Bus would activate a second, locked one.
        wait_for(
            "gnome-keyring to own org.freedesktop.secrets",
            Duration::from_secs(20),
            || async {
                let out = service
                    .command("dbus-send")
                    .args([
                        "--session",
                        "--print-reply",
                        "--dest=org.freedesktop.DBus",
                        "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.NameHasOwner",
                        "string:org.freedesktop.secrets",
                    ])
                    .output()?;
                Ok(String::from_utf8_lossy(&out.stdout)
                    .contains("boolean true")
                    .then_some(()))
            },
        )
        .await?;
        Ok(service)
    }
}

/// A private D-Bus session bus on which nothing provides a Secret Service and
/// nothing can be activated: a desktop session without a keyring. The stock
/// session configuration would let D-Bus start gnome-keyring on the first
/// call, so this bus has a configuration of its own, with no service dirs.
#[derive(Debug)]
pub struct BareBus {
    _bus: Guard,
    /// `DBUS_SESSION_BUS_ADDRESS`
    pub address: String,
}

impl BareBus {
    pub fn start(home: &Home, log: &Path) -> Result<Self> {
        require("dbus-daemon", "dbus")?;
        let config = home.root.join("bare-bus.conf");
        std::fs::write(
            &config,
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
        )?;
        let (bus, address) = Guard::spawn_until_line(
            "dbus-daemon (no keyring)",
            Command::new("dbus-daemon")
                .arg(format!("--config-file={}", config.display()))
                .args(["--nofork", "--print-address=1"])
                .envs(home.vars()),
            log,
            Duration::from_secs(20),
            |line| line.contains("unix:"),
        )?;
        Ok(Self {
            _bus: bus,
            address: address.trim().to_owned(),
        })
    }
}

impl KeyringClient {
    /// A command on this bus, in this home.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .envs(self.home.vars())
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .stdin(Stdio::null());
        command
    }

    /// `secret-tool search --all service SERVICE`: each item's attributes and
    /// secret, as the tool prints them (empty when there is none).
    pub fn search(&self, service: &str) -> Result<String> {
        let out = self
            .command("secret-tool")
            .args(["search", "--all", "--unlock", "service", service])
            .output()?;
        // secret-tool prints attributes on stderr and the rest on stdout.
        Ok(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }

    /// The secrets stored under `service`, one per item.
    pub fn secrets(&self, service: &str) -> Result<Vec<String>> {
        let out = self
            .command("secret-tool")
            .args(["search", "--all", "--unlock", "service", service])
            .output()?;
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("secret = "))
            .map(str::to_owned)
            .collect())
    }

    /// Removes every item of `service`.
    pub fn clear(&self, service: &str) -> Result<()> {
        // `secret-tool clear` fails when nothing matched; that is fine.
        let _ = self
            .command("secret-tool")
            .args(["clear", "service", service])
            .status()?;
        Ok(())
    }
}

/// The sandbox network, from its binary, with the suite's fixture.
#[derive(Debug)]
pub struct Sandbox {
    _server: Guard,
    pub url: Url,
    /// The control endpoint (`--control`, loopback): the link's settings and counters.
    pub control: Url,
    /// Its bearer token, read from the file the "control on" line names.
    control_token: ControlToken,
    http: reqwest::Client,
}

/// The control endpoint's bearer token: never shown by `Debug`.
struct ControlToken(String);

impl std::fmt::Debug for ControlToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ControlToken(<redacted>)")
    }
}

/// The sandbox's first stdout line, then its control endpoint's (`… control on
/// URL token file PATH`).
const LISTENING_LINE: &str = "rxdesk-sandbox listening on ";
const CONTROL_LINE: &str = "rxdesk-sandbox control on ";
const TOKEN_FILE_MARK: &str = " token file ";

/// Token lifetimes a sandbox is started with.
#[derive(Debug, Clone, Copy)]
pub struct Lifetimes {
    pub user_token: Duration,
    pub refresh_token: Duration,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Self {
            user_token: Duration::from_secs(3600),
            refresh_token: Duration::from_secs(30 * 86_400),
        }
    }
}

/// The audience the suite's sandboxes serve.
pub const AUDIENCE: &str = "rxdesk-sandbox";

impl Sandbox {
    pub fn start(
        binary: &Path,
        fixture: &Path,
        data: &Path,
        lifetimes: Lifetimes,
        link: Option<&BadLink>,
        log_level: &str,
        log: &Path,
    ) -> Result<Self> {
        if !binary.is_file() {
            bail!(
                "no sandbox binary at {} (build it: cargo build -p rxdesk-sandbox)",
                binary.display()
            );
        }
        std::fs::create_dir_all(data)?;
        // The control endpoint's line comes after the API's: waiting for it
        // means both are up; the API's address is then read from the log.
        let (server, control) = Guard::spawn_until_line(
            "rxdesk-sandbox",
            Command::new(binary)
                .args([
                    "--listen",
                    "127.0.0.1:0",
                    "--control",
                    "127.0.0.1:0",
                    "--data",
                ])
                .arg(data)
                .arg("--fixture")
                .arg(fixture)
                .arg("--user-token-ttl")
                .arg(lifetimes.user_token.as_secs().to_string())
                .arg("--refresh-token-ttl")
                .arg(lifetimes.refresh_token.as_secs().to_string())
                .args(link.map(BadLink::sandbox_args).unwrap_or_default())
                .env("RUST_LOG", log_level),
            log,
            Duration::from_secs(60),
            |line| line.starts_with(CONTROL_LINE),
        )?;
        let (control_url, token_file) = control
            .trim_start_matches(CONTROL_LINE)
            .trim()
            .split_once(TOKEN_FILE_MARK)
            .with_context(|| format!("no token file on the control line {control:?}"))?;
        let control_token = ControlToken(
            std::fs::read_to_string(token_file)
                .with_context(|| format!("cannot read the control token file {token_file}"))?,
        );
        let control =
            Url::parse(control_url).with_context(|| format!("bad control URL in {control:?}"))?;
        let written = std::fs::read_to_string(log)?;
        let line = written
            .lines()
            .rev()
            .find(|line| line.starts_with(LISTENING_LINE))
            .with_context(|| format!("no {LISTENING_LINE:?} line in {}", log.display()))?;
        let url = Url::parse(line.trim_start_matches(LISTENING_LINE).trim())
            .with_context(|| format!("bad sandbox URL in {line:?}"))?;
        Ok(Self {
            _server: server,
            url,
            control,
            control_token,
            http: crate::http_client(),
        })
    }

    /// What the sandbox's link layer did so far: its control endpoint's
    /// `GET /link` (`settings`, `counters.requests`, `counters.injected`, …).
    pub async fn link_status(&self) -> Result<serde_json::Value> {
        Ok(self
            .http
            .get(self.control.join("/link")?)
            .bearer_auth(&self.control_token.0)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?)
    }

    /// Replaces the link layer's settings (`PUT /link` on the control
    /// endpoint; `{}` turns every fault and delay off again).
    pub async fn set_link(&self, settings: serde_json::Value) -> Result<()> {
        self.http
            .put(self.control.join("/link")?)
            .bearer_auth(&self.control_token.0)
            .json(&settings)
            .send()
            .await?
            .error_for_status()
            .context("the sandbox refused the link settings")?;
        Ok(())
    }

    /// Moves the sandbox's test clock `seconds` forward (`POST /clock/advance`
    /// on the control endpoint); answers once every pharmacy step that fell
    /// due has been taken.
    pub async fn advance_clock(&self, seconds: u64) -> Result<serde_json::Value> {
        Ok(self
            .http
            .post(self.control.join("/clock/advance")?)
            .bearer_auth(&self.control_token.0)
            .json(&serde_json::json!({ "seconds": seconds }))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?)
    }

    /// Subscribes `url` to every event of `organization`, signed with `secret`
    /// (`POST /webhooks/subscriptions` on the control endpoint).
    pub async fn subscribe_webhooks(
        &self,
        organization: &str,
        url: &str,
        secret: &str,
    ) -> Result<()> {
        self.http
            .post(self.control.join("/webhooks/subscriptions")?)
            .bearer_auth(&self.control_token.0)
            .json(
                &serde_json::json!({ "organization": organization, "url": url, "secret": secret }),
            )
            .send()
            .await?
            .error_for_status()
            .context("the sandbox refused the webhook subscription")?;
        Ok(())
    }

    /// The origin as the app's variables want it (no trailing slash).
    pub fn origin(&self) -> String {
        self.url.as_str().trim_end_matches('/').to_owned()
    }

    /// A machine token for a fixture backend (client credentials).
    pub async fn machine_token(&self, client_id: &str, client_secret: &str) -> Result<String> {
        machine_token(&self.http, &self.url, (client_id, client_secret)).await
    }

    /// Whether `refresh_token` still buys a token for `client_id`. Careful:
    /// when it does, it has been used (rotation) and the app's copy is spent.
    pub async fn refresh_works(&self, client_id: &str, refresh_token: &str) -> Result<bool> {
        let answer = self
            .http
            .post(self.url.join("/oauth/token")?)
            .form(&[
                ("grant_type", "refresh_token"),
                ("client_id", client_id),
                ("refresh_token", refresh_token),
            ])
            .send()
            .await?;
        Ok(answer.status().is_success())
    }

    /// A Network API request with `token`; the `data` of the answer.
    pub async fn graphql(
        &self,
        token: &str,
        query: &str,
        variables: serde_json::Value,
    ) -> Result<serde_json::Value> {
        graphql(&self.http, &self.url, token, query, variables).await
    }
}

/// The Network API's Sync with the four fields that add someone new; answers
/// the new patient's id.
pub const SYNC_PATIENT: &str = "mutation Sync($patient: PatientInput!, $metadata: RequestMetadata!) { \
    patient(patient: $patient, metadata: $metadata) { __typename \
    ... on PatientPayload { patient { __typename ... on Patient { id } } unappliedChanges { key reason } } \
    ... on UnauthorizedError { code message } } }";

/// A machine token from the sandbox at `origin` for a backend (client
/// credentials, the contract's JSON body, the suite's [`AUDIENCE`]).
pub async fn machine_token(
    http: &reqwest::Client,
    origin: &Url,
    (client_id, client_secret): (&str, &str),
) -> Result<String> {
    let url = origin.join("/oauth/token")?;
    let body = serde_json::json!({
        "grant_type": "client_credentials",
        "client_id": client_id,
        "client_secret": client_secret,
        "audience": AUDIENCE,
    });
    let answer: serde_json::Value = retried("machine token", || async {
        let answer = http
            .post(url.clone())
            .json(&body)
            .send()
            .await
            .map_err(sent)?;
        if is_transient_status(answer.status()) {
            return Err(Transient(answer.status().to_string()).into());
        }
        answer.error_for_status()?.json().await.map_err(sent)
    })
    .await?;
    answer["access_token"]
        .as_str()
        .map(str::to_owned)
        .context("no access_token in the token response")
}

/// A Network API request to the sandbox at `origin` with `token`; the `data`
/// of the answer, or the GraphQL errors as the error.
///
/// Transient failures (a gateway's 429/502/503, a dropped connection, the
/// API's `UpstreamServiceError`) are tried again: callers send only what is
/// safe to repeat (reads, patient Syncs, updates that set a value).
pub async fn graphql(
    http: &reqwest::Client,
    origin: &Url,
    token: &str,
    query: &str,
    variables: serde_json::Value,
) -> Result<serde_json::Value> {
    let url = origin.join("/graphql")?;
    let body = serde_json::json!({ "query": query, "variables": variables });
    retried("network request", || async {
        let answer = http
            .post(url.clone())
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .map_err(sent)?;
        if is_transient_status(answer.status()) {
            return Err(Transient(answer.status().to_string()).into());
        }
        let answer: serde_json::Value = answer.json().await.map_err(sent)?;
        if let Some(errors) = answer.get("errors") {
            bail!("GraphQL errors: {errors}");
        }
        let data = answer["data"].clone();
        let upstream = data
            .as_object()
            .into_iter()
            .flat_map(|fields| fields.values())
            .any(|field| field["__typename"] == "UpstreamServiceError");
        if upstream {
            return Err(Transient("UpstreamServiceError".into()).into());
        }
        Ok(data)
    })
    .await
}

/// A request that did not come back whole (connection dropped, body cut):
/// transient.
fn sent(e: reqwest::Error) -> anyhow::Error {
    Transient(e.without_url().to_string()).into()
}

/// Fails with the Debian package to install when `program` is not on PATH.
pub fn require(program: &str, package: &str) -> Result<()> {
    let found = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false);
    if found {
        Ok(())
    } else {
        bail!(
            "`{program}` is not installed (Debian package `{package}`); the end-to-end suite needs it"
        )
    }
}

/// The client's `webhook_receiver` example run as a clinic's backend runs it:
/// it verifies each delivery and prints one line per event (ids, types,
/// pharmacies; no patient data) to its log.
#[derive(Debug)]
pub struct WebhookReceiver {
    _process: Guard,
    /// Where the sandbox delivers (`http://127.0.0.1:PORT/webhooks`).
    pub url: String,
    log: PathBuf,
}

const RECEIVER_LINE: &str = "webhook_receiver listening on ";

impl WebhookReceiver {
    pub fn start(binary: &Path, secret: &str, log: &Path) -> Result<Self> {
        if !binary.is_file() {
            bail!(
                "no webhook receiver at {} (build it: cargo build -p rxdesk-client --example webhook_receiver)",
                binary.display()
            );
        }
        let (process, line) = Guard::spawn_until_line(
            "webhook_receiver",
            Command::new(binary)
                .args(["--listen", "127.0.0.1:0", "--seen"])
                // The ids it saw, beside its log (not in the working directory).
                .arg(log.with_extension("seen"))
                .env("RXDESK_WEBHOOK_SECRET", secret),
            log,
            Duration::from_secs(30),
            |line| line.starts_with(RECEIVER_LINE),
        )?;
        Ok(Self {
            _process: process,
            url: line.trim_start_matches(RECEIVER_LINE).trim().to_owned(),
            log: log.to_owned(),
        })
    }

    /// The lines it printed so far (one per event, then refusals and duplicates).
    pub fn lines(&self) -> Result<Vec<String>> {
        Ok(std::fs::read_to_string(&self.log)?
            .lines()
            .map(str::to_owned)
            .collect())
    }
}
