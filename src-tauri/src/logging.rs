//! Logs: `tracing` to a daily-rotated file in the app's log directory, and to
//! stderr in debug builds. `RUST_LOG` is honoured (default `info`). Nothing
//! logged by this crate carries a token or a patient field: commands log their
//! name and outcome kind only.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// Starts logging into `log_dir`. Keep the guard alive for the life of the app
/// (dropping it flushes the file). `None` when the directory cannot be created;
/// logging then goes to stderr only.
pub fn init(log_dir: &Path) -> Option<WorkerGuard> {
    let mut layers: Vec<BoxedLayer> = Vec::new();
    if cfg!(debug_assertions) {
        layers.push(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter())
                .boxed(),
        );
    }
    let guard = match std::fs::create_dir_all(log_dir) {
        Ok(()) => {
            let appender = tracing_appender::rolling::daily(log_dir, "rxdesk.log");
            let (writer, guard) = tracing_appender::non_blocking(appender);
            layers.push(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(writer)
                    .with_filter(filter())
                    .boxed(),
            );
            Some(guard)
        }
        Err(_) => None,
    };
    // Fails only if a subscriber is already set (tests): keep the existing one.
    let _ = tracing_subscriber::registry().with(layers).try_init();
    guard
}
