//! The built-in "Local sandbox" environment: `rxdesk-sandbox` started
//! in-process on `127.0.0.1:0` with the demo fixture, its data under the app's
//! data directory. Started on first use and kept for the life of the app.

use std::path::PathBuf;

use rxdesk_sandbox::{Config, Sandbox, Storage};
use tokio::sync::Mutex;
use url::Url;

/// A sandbox started on demand.
#[derive(Debug)]
pub struct LocalSandbox {
    storage: Storage,
    running: Mutex<Option<Sandbox>>,
}

impl LocalSandbox {
    /// A sandbox keeping its data under `data_dir`.
    pub fn on_disk(data_dir: PathBuf) -> Self {
        Self {
            storage: Storage::Data(data_dir),
            running: Mutex::new(None),
        }
    }

    /// A sandbox keeping everything in memory (tests).
    pub fn in_memory() -> Self {
        Self {
            storage: Storage::InMemory,
            running: Mutex::new(None),
        }
    }

    /// The sandbox's origin, starting it first if needed.
    pub async fn url(&self) -> Result<Url, String> {
        let mut running = self.running.lock().await;
        if let Some(sandbox) = running.as_ref() {
            return Ok(sandbox.url().clone());
        }
        if let Storage::Data(dir) = &self.storage {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let config = Config {
            storage: self.storage.clone(),
            ..Config::in_memory()
        };
        let sandbox = Sandbox::start(config)
            .await
            .map_err(|e| format!("the local sandbox did not start: {e}"))?;
        tracing::info!(url = %sandbox.url(), "local sandbox started");
        let url = sandbox.url().clone();
        *running = Some(sandbox);
        Ok(url)
    }

    /// The origin if the sandbox is already running.
    pub async fn running_url(&self) -> Option<Url> {
        self.running.lock().await.as_ref().map(|s| s.url().clone())
    }
}
