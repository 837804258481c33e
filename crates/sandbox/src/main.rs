//! `rxdesk-sandbox`: runs the local prescribing network from the command line.
//! Prints exactly one line, `rxdesk-sandbox listening on http://127.0.0.1:PORT`,
//! once connections are accepted; logs go to stderr (`RUST_LOG` honoured).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use rxdesk_sandbox::{Config, FixtureSource, Sandbox, Storage};

/// The local prescribing network: OAuth authorization server + GraphQL API.
#[derive(Debug, Parser)]
#[command(name = "rxdesk-sandbox", version)]
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
}

impl Args {
    fn into_config(self) -> Config {
        Config {
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
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let config = Args::parse().into_config();
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
    shutdown.await;
    tracing::info!("shutting down");
    sandbox.shutdown().await;
    ExitCode::SUCCESS
}

/// Listens for SIGTERM from the call on (Ctrl-C from the first poll); resolves on
/// either.
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
