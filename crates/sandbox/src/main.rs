//! `rxdesk-sandbox`: runs the local prescribing network from the command line.
//! Prints `rxdesk-sandbox listening on http://127.0.0.1:PORT` once connections
//! are accepted — always the first line — then, with `--control`,
//! `rxdesk-sandbox control on http://127.0.0.1:PORT token file PATH` (the file
//! holding the control endpoint's bearer token; never the token); logs go to stderr
//! (`RUST_LOG` honoured). `rxdesk-sandbox audit --data DIR` reports the
//! duplicates in a sandbox's database instead (exit 0 clean, 1 duplicates,
//! 2 when it cannot read it).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use rxdesk_sandbox::link::{Latency, LinkSettings, settings as link_settings};
use rxdesk_sandbox::webhooks::WebhookSecret;
use rxdesk_sandbox::{AfterSendFlags, Config, FixtureSource, Sandbox, Storage};

/// The local prescribing network: OAuth authorization server + GraphQL API.
#[derive(Debug, Parser)]
#[command(
    name = "rxdesk-sandbox",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: Args,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report duplicate records (a write retried without its key) in a
    /// sandbox's database, stopped or running; ids only. Exit 0 when clean,
    /// 1 when duplicates were found, 2 when the database cannot be read.
    Audit {
        /// The directory the sandbox ran with as `--data`.
        #[arg(long)]
        data: PathBuf,
    },
}

/// Serving the network (no subcommand).
#[derive(Debug, clap::Args)]
struct Args {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Directory for the SQLite database and the signing key.
    #[arg(
        long,
        conflicts_with = "in_memory",
        required_unless_present = "in_memory"
    )]
    data: Option<PathBuf>,
    /// Keep everything in memory (lost on exit).
    #[arg(long)]
    in_memory: bool,
    /// Fixture file (TOML); the built-in demo fixture when absent.
    #[arg(long)]
    fixture: Option<PathBuf>,
    /// The API audience tokens are issued for.
    #[arg(long, default_value = rxdesk_sandbox::config::DEFAULT_AUDIENCE)]
    audience: String,
    /// Lifetime of user access tokens, in seconds.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    user_token_ttl: u64,
    /// Lifetime of machine access tokens, in seconds.
    #[arg(long, default_value_t = 86_400, value_parser = clap::value_parser!(u64).range(1..))]
    machine_token_ttl: u64,
    /// Lifetime of refresh tokens, in seconds (default 30 days).
    #[arg(long, default_value_t = 2_592_000, value_parser = clap::value_parser!(u64).range(1..))]
    refresh_token_ttl: u64,
    /// How long a sign-in can be renewed for in all, in seconds (default 12
    /// hours): past it, refresh tokens are refused and the user signs in again.
    #[arg(long, default_value_t = 43_200, value_parser = clap::value_parser!(u64).range(1..))]
    refresh_family_ttl: u64,
    /// Serve the control endpoint (`GET`/`PUT /link`, …) on this loopback
    /// address; port 0 picks a free port, printed on a second line.
    #[arg(long, value_name = "ADDR")]
    control: Option<SocketAddr>,
    /// Added round-trip latency of every API and token request: `clinic`
    /// (60±20 ms), `hotspot` (150±60 ms), `off`, or milliseconds `MS[±MS]`.
    /// Any link flag replaces the fixture's `[link]` section.
    #[arg(long, value_name = "PROFILE", value_parser = link_settings::parse_latency)]
    link: Option<Latency>,
    /// Transient faults, comma-separated: `5%` (spread over the six kinds),
    /// `KIND=RATE` (upstream, http_502, http_503, http_429, reset_before,
    /// reset_after), `OP:KIND=RATE` or `OP:RATE` for one operation
    /// (prescription_sign, order_send, …). Rates: `5%` or `0.05`.
    #[arg(long, value_name = "SPEC", value_parser = faults_spec)]
    faults: Option<String>,
    /// Seed of the fault and jitter decisions (the same seed replays the same faults).
    #[arg(long, value_name = "N")]
    fault_seed: Option<u64>,
    /// `Retry-After` of an injected 429, in seconds.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    retry_after: Option<u32>,
    /// The token endpoint answers 503 for this many seconds after start.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(0..=86_400))]
    token_outage: Option<u32>,
    /// Seconds between two steps of a sent order at the simulated pharmacy
    /// (default: the fixture's `[fulfillment] step_seconds`, else 5).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    fulfillment_step: Option<u64>,
    /// A webhook subscription, ORG=URL (repeatable): the organization's events are
    /// POSTed to URL. Loopback URLs only, unless --webhook-allow-remote.
    #[arg(long = "webhook", value_name = "ORG=URL", value_parser = parse_webhook)]
    webhooks: Vec<(String, String)>,
    /// The event types the --webhook subscriptions want, comma-separated
    /// (e.g. photon:order:placed,photon:order:error); all when absent.
    #[arg(long, value_delimiter = ',')]
    webhook_events: Vec<String>,
    /// The shared secret --webhook requests are signed with. Prefer the
    /// environment variable: a flag shows in the process list.
    #[arg(
        long,
        env = "RXDESK_SANDBOX_WEBHOOK_SECRET",
        hide_env_values = true,
        value_parser = |s: &str| Ok::<_, String>(WebhookSecret::new(s))
    )]
    webhook_secret: Option<WebhookSecret>,
    /// Deliver this share of events (0.0 to 1.0) twice and late, as the network
    /// may (overrides `[webhook_delivery] duplicate_share`).
    #[arg(long)]
    webhook_duplicates: Option<f64>,
    /// The seed that chooses which events arrive twice (reproducible runs).
    #[arg(long)]
    webhook_seed: Option<u64>,
    /// Allow webhook URLs that are not on this machine.
    #[arg(long)]
    webhook_allow_remote: bool,
}

/// Checks a `--faults` value on its own (the rates of one spec are applied whole).
fn faults_spec(spec: &str) -> Result<String, String> {
    link_settings::apply_faults_spec(&mut LinkSettings::default(), spec)?;
    Ok(spec.to_owned())
}

/// `ORG=URL`.
fn parse_webhook(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((org, url)) if !org.trim().is_empty() && !url.trim().is_empty() => {
            Ok((org.trim().to_owned(), url.trim().to_owned()))
        }
        _ => Err("write it ORG=URL, e.g. org_maple=http://127.0.0.1:8787/webhooks".to_owned()),
    }
}

impl Args {
    /// The link settings the flags give, or `None` when no link flag was given.
    fn link_settings(&self) -> Result<Option<LinkSettings>, String> {
        let given = self.link.is_some()
            || self.faults.is_some()
            || self.fault_seed.is_some()
            || self.retry_after.is_some()
            || self.token_outage.is_some();
        if !given {
            return Ok(None);
        }
        let mut settings = LinkSettings::default();
        if let Some(latency) = self.link {
            settings.latency = latency;
        }
        if let Some(spec) = &self.faults {
            link_settings::apply_faults_spec(&mut settings, spec)?;
        }
        if let Some(seed) = self.fault_seed {
            settings.seed = seed;
        }
        if let Some(secs) = self.retry_after {
            settings.retry_after_secs = secs;
        }
        if let Some(secs) = self.token_outage {
            settings.token_outage_secs = secs;
        }
        settings.validate().map_err(|e| e.to_string())?;
        Ok(Some(settings))
    }

    fn into_config(self) -> Result<Config, String> {
        let link = self.link_settings()?;
        Ok(Config {
            listen: self.listen,
            storage: match self.data {
                Some(dir) => Storage::Data(dir),
                None => Storage::InMemory,
            },
            fixture: self
                .fixture
                .map_or(FixtureSource::Demo, FixtureSource::File),
            audience: self.audience,
            user_token_ttl: Duration::from_secs(self.user_token_ttl),
            machine_token_ttl: Duration::from_secs(self.machine_token_ttl),
            refresh_token_ttl: Duration::from_secs(self.refresh_token_ttl),
            refresh_family_ttl: Duration::from_secs(self.refresh_family_ttl),
            control: self.control,
            link,
            after_send: AfterSendFlags {
                step: self.fulfillment_step.map(Duration::from_secs),
                webhooks: self.webhooks,
                webhook_events: self.webhook_events,
                webhook_secret: self.webhook_secret,
                duplicate_share: self.webhook_duplicates,
                seed: self.webhook_seed,
                allow_remote_webhooks: self.webhook_allow_remote,
            },
        })
    }
}

/// mimalloc rather than the system's: a Network API request allocates a few
/// hundred small blocks on two or more threads at once, and glibc's malloc
/// spent a fifth of the sandbox's CPU on them, partly waiting on its arena
/// locks (perf, `cargo xtask bench`'s API figure).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    if let Some(Command::Audit { data }) = cli.command {
        return audit(&data);
    }
    let config = match cli.serve.into_config() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("rxdesk-sandbox: {e}");
            return ExitCode::from(2);
        }
    };
    let sandbox = match Sandbox::start(config).await {
        Ok(sandbox) => sandbox,
        Err(e) => {
            eprintln!("rxdesk-sandbox: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Listen for signals before saying we are ready: a supervisor may send
    // SIGTERM as soon as it reads the line.
    let shutdown = shutdown_signal();
    println!(
        "rxdesk-sandbox listening on {}",
        sandbox.url().as_str().trim_end_matches('/')
    );
    if let (Some(control), Some(token_file)) = (sandbox.control_url(), sandbox.control_token_file())
    {
        println!(
            "rxdesk-sandbox control on {} token file {}",
            control.as_str().trim_end_matches('/'),
            token_file.display()
        );
    }
    shutdown.await;
    tracing::info!("shutting down");
    sandbox.shutdown().await;
    ExitCode::SUCCESS
}

/// `rxdesk-sandbox audit`: findings (ids only) one a line, then the summary.
fn audit(data: &std::path::Path) -> ExitCode {
    match rxdesk_sandbox::audit::audit_data_dir(data) {
        Ok(report) => {
            for finding in &report.findings {
                println!("{finding}");
            }
            println!("{}", report.summary());
            if report.is_clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("rxdesk-sandbox audit: {e}");
            ExitCode::from(2)
        }
    }
}

/// Listens for SIGTERM from the call on (Ctrl-C from the first poll); resolves on
/// either.
// Not an `async fn`: SIGTERM is registered when called, before the first poll.
// Off Unix nothing happens before it, and clippy would ask for an `async fn`.
#[cfg_attr(not(unix), allow(clippy::manual_async_fn))]
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let term = async {
            match term {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {},
            () = term => {},
        }
    }
}
