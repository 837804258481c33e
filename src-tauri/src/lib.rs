//! Rx Desk, the desktop app: the Tauri builder, thin commands over
//! `rxdesk-client`, the keyring session store, environments, sign-in
//! orchestration and the events sent to the UI. Logic lives in plain modules
//! ([`core`], [`session_store`], [`environments`]) so it can be tested without
//! a window; [`commands`] only adapts them to IPC.

pub mod commands;
pub mod convert;
pub mod core;
pub mod environments;
pub mod ipc;
pub mod logging;
pub mod sandbox;
pub mod session_store;

use std::sync::Arc;
use tauri::{Manager, Runtime};

use crate::core::{AppCore, CoreConfig};
use crate::sandbox::LocalSandbox;
use crate::session_store::SessionStore;

/// Why the app could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot find the app's {0} directory: {1}")]
    Directory(&'static str, String),
    #[error(transparent)]
    Tauri(#[from] tauri::Error),
}

/// The app's commands on `builder`; the core is added once the app is built
/// ([`install_core`]).
pub fn builder<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    commands::register(builder)
}

/// Makes the core available to the commands.
pub fn install_core<R: Runtime>(app: &tauri::App<R>, config: CoreConfig) {
    app.manage(Arc::new(AppCore::new(config)));
}

/// The production configuration: the OS keyring (or memory), the sandbox's
/// data under the app data directory, the system browser.
fn platform_config<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<CoreConfig, StartError> {
    let paths = app.path();
    let config_dir = paths
        .app_config_dir()
        .map_err(|e| StartError::Directory("config", e.to_string()))?;
    let data_dir = paths
        .app_data_dir()
        .map_err(|e| StartError::Directory("data", e.to_string()))?;
    let store = SessionStore::platform();
    if let Some(reason) = store.memory_reason() {
        tracing::warn!(reason, "no keyring: the session is kept in memory only");
    }
    Ok(CoreConfig {
        config_dir,
        sandbox: LocalSandbox::on_disk(data_dir.join("sandbox")),
        store,
        opener: Arc::new(rxdesk_client::SystemBrowser),
        sign_in_timeout: rxdesk_client::DEFAULT_TIMEOUT,
        variables: environments::from_variables(|name| std::env::var(name).ok()),
        notifier: Arc::new(commands::TauriNotifier(app.clone())),
    })
}

/// Keeps the log file writer alive for the life of the app.
struct LogGuard(#[allow(dead_code)] Option<tracing_appender::non_blocking::WorkerGuard>);

/// Runs the app.
pub fn run() -> Result<(), StartError> {
    let app = builder(tauri::Builder::default()).build(tauri::generate_context!())?;
    if let Ok(dir) = app.path().app_log_dir() {
        app.manage(LogGuard(logging::init(&dir)));
    }
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "Rx Desk starting");
    let config = platform_config(app.handle())?;
    install_core(&app, config);
    app.run(|_, _| {});
    Ok(())
}
