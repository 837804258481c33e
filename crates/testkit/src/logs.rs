//! A tracing log capture: every line a subscriber writes, kept in memory for a
//! test to search (for a token, a secret, a patient's name). Installed either
//! process-wide (a test binary of its own: tracing has one global subscriber)
//! or as this thread's default while a guard lives.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything logged since the capture was installed.
#[derive(Debug, Clone, Default)]
pub struct CapturedLogs(Arc<Mutex<Vec<u8>>>);

impl CapturedLogs {
    /// Installs the process-wide subscriber, at `filter` (an `EnvFilter`
    /// directive), writing here. Once per test binary: a second call panics.
    pub fn install_global(&self, filter: &str) {
        let writer = self.clone();
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
    }

    /// Installs this thread's default subscriber while the guard lives, at
    /// `filter`, with span opens and closes (use a current-thread runtime).
    pub fn install_on_this_thread(&self, filter: &str) -> tracing::subscriber::DefaultGuard {
        let writer = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    /// The log lines written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for CapturedLogs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
