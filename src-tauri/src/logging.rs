//! Logs: `tracing` to a daily-rotated file in the app's log directory, and to
//! stderr in debug builds. `RUST_LOG` is honoured (default `info`). Nothing
//! logged by this crate carries a token or a patient field: commands log their
//! name and outcome kind only.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{DefaultFields, Writer};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// The file's own field formatter. Span fields are formatted once per
/// formatter *type* and cached on the span; with one shared type the file would
/// get the stderr layer's colours and every field twice.
#[derive(Debug, Default)]
struct FileFields(DefaultFields);

impl<'w> FormatFields<'w> for FileFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> std::fmt::Result {
        self.0.format_fields(writer, fields)
    }
}

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
                    .fmt_fields(FileFields::default())
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    #[test]
    fn the_log_file_is_plain_text_in_the_log_directory() {
        let dir = tempfile::tempdir().unwrap();
        let guard = super::init(dir.path());
        let span = tracing::error_span!("rxdesk.op", op = "patients");
        span.in_scope(|| tracing::error!(outcome = "ok", "done"));
        drop(guard);

        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        assert!(
            file.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("rxdesk.log")
        );
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("op=\"patients\""), "{text}");
        assert!(
            !text.contains('\u{1b}'),
            "no terminal colours in the file: {text}"
        );
        assert_eq!(text.matches("op=").count(), 1, "{text}");
    }
}
