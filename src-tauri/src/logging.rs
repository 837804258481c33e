//! Logs: `tracing` to a daily-rotated file in the app's log directory (kept
//! [`KEEP_DAYS`] days), and to stderr in debug builds. `RUST_LOG` is honoured
//! (default `info`) — but a release build has a floor: nothing below `info`
//! from Rx Desk's own crates, whatever `RUST_LOG` says, so a support session
//! that turns on `debug` cannot make the app write more than it does by
//! design. Nothing logged carries a token or a patient field: commands log
//! their name and outcome kind only.

use std::path::Path;

use tracing::Level;
use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::filter::{FilterExt as _, filter_fn};
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

/// How many days of log files are kept.
pub const KEEP_DAYS: usize = 14;

/// Rx Desk's own crates: the floor applies to them.
const OUR_CRATES: [&str; 4] = ["rxdesk", "rxdesk_lib", "rxdesk_client", "rxdesk_sandbox"];

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// Whether an event passes the floor: with `floor` on, nothing of our crates
/// below `info`.
fn above_floor(target: &str, level: &Level, floor: bool) -> bool {
    let ours = OUR_CRATES
        .iter()
        .any(|c| target == *c || target.strip_prefix(c).is_some_and(|r| r.starts_with("::")));
    !(floor && ours && *level > Level::INFO)
}

/// `RUST_LOG` (or `info`), and in release builds the floor.
fn layer_filter() -> impl tracing_subscriber::layer::Filter<Registry> {
    let floor = !cfg!(debug_assertions);
    filter().and(filter_fn(move |meta| {
        above_floor(meta.target(), meta.level(), floor)
    }))
}

/// The daily file, `rxdesk.log.YYYY-MM-DD`; files beyond [`KEEP_DAYS`] are
/// removed when it opens (and at each daily rollover).
fn appender(
    log_dir: &Path,
) -> Result<tracing_appender::rolling::RollingFileAppender, tracing_appender::rolling::InitError> {
    tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("rxdesk.log")
        .max_log_files(KEEP_DAYS)
        .build(log_dir)
}

/// How many formatted lines may wait for the file's writer thread; past that a
/// line is dropped rather than holding up the command that logs it (as before).
/// tracing-appender's default is 128 000, and its channel writes every slot's
/// stamp when it is made: 4.1 MB of the app's memory touched in its first
/// millisecond and kept for its life — the largest single allocation of the app
/// process in heaptrack. Commands log a few lines each (name and outcome), so
/// only a runaway loop could fill this.
const BUFFERED_LINES: usize = 4096;

/// The writer thread that puts lines into `appender`, with a buffer of
/// [`BUFFERED_LINES`].
fn file_writer<W: std::io::Write + Send + 'static>(appender: W) -> (NonBlocking, WorkerGuard) {
    NonBlockingBuilder::default()
        .buffered_lines_limit(BUFFERED_LINES)
        .thread_name("rxdesk-log")
        .finish(appender)
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
                .with_filter(layer_filter())
                .boxed(),
        );
    }
    let guard = match std::fs::create_dir_all(log_dir) {
        Ok(()) => {
            let Ok(appender) = appender(log_dir) else {
                // A directory that cannot be written: stderr only.
                let _ = tracing_subscriber::registry().with(layers).try_init();
                return None;
            };
            let (writer, guard) = file_writer(appender);
            layers.push(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .fmt_fields(FileFields::default())
                    .with_writer(writer)
                    .with_filter(layer_filter())
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
    use super::*;

    #[test]
    fn the_release_floor_keeps_our_debug_out_whatever_rust_log_says() {
        for target in [
            "rxdesk_lib::core::session",
            "rxdesk_client",
            "rxdesk_sandbox::network",
        ] {
            assert!(!above_floor(target, &Level::DEBUG, true), "{target}");
            assert!(!above_floor(target, &Level::TRACE, true), "{target}");
            assert!(above_floor(target, &Level::INFO, true), "{target}");
            assert!(above_floor(target, &Level::DEBUG, false), "{target}");
        }
        assert!(above_floor("hyper::client", &Level::DEBUG, true));
        assert!(above_floor("rxdesk_lookalike", &Level::DEBUG, true));
    }

    #[test]
    fn log_files_older_than_the_kept_days_are_removed_at_start() {
        let dir = tempfile::tempdir().unwrap();
        for day in 1..=20 {
            std::fs::write(
                dir.path().join(format!("rxdesk.log.2026-10-{day:02}")),
                "old\n",
            )
            .unwrap();
        }

        drop(appender(dir.path()).unwrap());

        let kept = std::fs::read_dir(dir.path()).unwrap().count();
        assert!(kept <= KEEP_DAYS, "{kept} files kept");
    }

    #[test]
    fn a_burst_of_a_thousand_lines_is_written_whole() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let (mut writer, guard) = file_writer(appender(dir.path()).unwrap());
        let burst = 1000;

        for n in 0..burst {
            writer.write_all(format!("line {n}\n").as_bytes()).unwrap();
        }
        drop(guard);

        let file = std::fs::read_dir(dir.path()).unwrap().next().unwrap();
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        assert_eq!(text.lines().count(), burst);
    }

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
