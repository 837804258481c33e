//! Rx Desk, the desktop app: the Tauri builder, thin commands over
//! `rxdesk-client`, the keyring session store, environments, sign-in
//! orchestration and the events sent to the UI. Logic lives in plain modules
//! ([`core`], [`session_store`], [`environments`]) so it can be tested without
//! a window; [`commands`] only adapts them to IPC.

pub mod bindings;
pub mod commands;
pub mod convert;
pub mod core;
pub mod environments;
pub mod index;
pub mod ipc;
pub mod links;
pub mod logging;
pub mod painting;
pub mod policy;
pub mod sandbox;
pub mod scripting;
pub mod session_store;
#[cfg(test)]
mod small_disk;
pub mod updates;
pub mod web_process;

use std::sync::Arc;
use tauri::{Manager, Runtime};

use crate::core::{AppCore, CoreConfig};
use crate::index::Index;
use crate::sandbox::LocalSandbox;
use crate::session_store::SessionStore;

/// Why the app could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot find the app's {0} directory: {1}")]
    Directory(&'static str, String),
    #[error("cannot open the local index: {0}")]
    Index(String),
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
        tracing::warn!(reason = %reason, "no keyring: a session can only be kept in memory");
    }
    // A file the app cannot use (a newer version's, unreadable): the lists
    // live in memory for this run, and the UI says why (`AppStatus`).
    let index = Index::open_or_in_memory(&data_dir.join("index.sqlite"))
        .map_err(|e| StartError::Index(e.to_string()))?;
    Ok(CoreConfig {
        config_dir,
        index,
        sandbox: LocalSandbox::on_disk(data_dir.join("sandbox")),
        store,
        opener: Arc::new(rxdesk_client::SystemBrowser),
        sign_in_timeout: rxdesk_client::DEFAULT_TIMEOUT,
        idle_lock: policy::effective_idle(
            idle_lock_from(std::env::var("RXDESK_IDLE_LOCK_MINUTES").ok().as_deref()),
            policy_max_idle(&policy::system_path()),
        ),
        variables: environments::from_variables(|name| std::env::var(name).ok()),
        notifier: Arc::new(commands::TauriNotifier(app.clone())),
    })
}

/// Hands every `rxdesk://` link the OS gives the app to the core, which tells
/// the UI (a link only navigates). On Linux and Windows the scheme is
/// registered for the running binary too, so links work from a development
/// build; installers register it in their desktop entry. That registration
/// runs beside start-up, not before it: on Linux it writes a desktop entry and
/// runs `update-desktop-database` and `xdg-mime`, which held the event loop —
/// and so the window's page — back by tens of milliseconds at every start.
fn listen_for_links<R: Runtime>(app: &tauri::App<R>) {
    use tauri_plugin_deep_link::DeepLinkExt as _;
    #[cfg(any(target_os = "linux", windows))]
    {
        let handle = app.handle().clone();
        let register = move || {
            if let Err(e) = handle.deep_link().register_all() {
                tracing::warn!(error = %e, "the rxdesk:// scheme is not registered");
            }
        };
        let spawned = std::thread::Builder::new()
            .name("register-links".into())
            .spawn(register.clone());
        if let Err(e) = spawned {
            tracing::debug!(error = %e, "no thread for the link registration: registered now");
            register();
        }
    }
    // Started by a link (cold start): the UI takes it with its first status.
    if let Ok(Some(urls)) = app.deep_link().get_current()
        && let Some(url) = urls.first()
    {
        app.state::<Arc<AppCore>>().started_with_link(url.as_str());
    }
    let handle = app.handle().clone();
    app.deep_link().on_open_url(move |event| {
        let core = handle.state::<Arc<AppCore>>();
        for url in event.urls() {
            core.link_received(url.as_str());
        }
    });
}

/// `RXDESK_IDLE_LOCK_MINUTES`: whole minutes (0: never lock); anything else,
/// or nothing, is the default.
fn idle_lock_from(value: Option<&str>) -> std::time::Duration {
    match value.map(str::trim).map(str::parse::<u64>) {
        Some(Ok(minutes)) => std::time::Duration::from_secs(minutes.saturating_mul(60)),
        Some(Err(_)) => {
            tracing::warn!("RXDESK_IDLE_LOCK_MINUTES is not a whole number; the default applies");
            crate::core::DEFAULT_IDLE_LOCK
        }
        None => crate::core::DEFAULT_IDLE_LOCK,
    }
}

/// IT's maximum idle time from the policy file at `path`; a policy that cannot
/// be used fails closed (at most the default); a file no administrator owns is
/// ignored (`policy::read` logs it, Settings shows it).
fn policy_max_idle(path: &std::path::Path) -> Option<std::time::Duration> {
    match policy::read(path) {
        Ok(effective) => effective.policy.max_idle,
        Err(e) => {
            tracing::warn!(error = %e, "the IT policy cannot be used; the idle lock is at most the default");
            policy::Policy::closed(crate::core::DEFAULT_IDLE_LOCK).max_idle
        }
    }
}

/// Keeps the log file writer alive for the life of the app.
struct LogGuard(#[allow(dead_code)] Option<tracing_appender::non_blocking::WorkerGuard>);

/// Runs the app, its web process started as [`web_process::apply`] chose (logged).
/// Logs how long start-up took until the window exists and until the core is
/// ready (the bench's cold-start note reads it).
pub fn run(web_process: web_process::WebProcess) -> Result<(), StartError> {
    let started = std::time::Instant::now();
    let app = builder(
        tauri::Builder::default()
            // A second launch (the OS opening a `rxdesk://` link, or the user
            // starting the app again) hands its arguments to this instance —
            // the deep-link plugin turns them into `on_open_url` — and exits.
            .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
                if let Some(window) = app.get_webview_window("main")
                    && let Err(e) = window.set_focus()
                {
                    tracing::debug!(error = %e, "window not focused");
                }
            }))
            .plugin(tauri_plugin_deep_link::init())
            .plugin(updates::plugin()),
    )
    .build(tauri::generate_context!())?;
    let window_ms = started.elapsed().as_millis();
    if let Ok(dir) = app.path().app_log_dir() {
        app.manage(LogGuard(logging::init(&dir)));
    }
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        painting = ?web_process.painting,
        scripting = ?web_process.scripting,
        "Rx Desk starting"
    );
    let config = platform_config(app.handle())?;
    install_core(&app, config);
    updates::install(&app, policy::system_path());
    listen_for_links(&app);
    tracing::info!(
        window_ms,
        ready_ms = started.elapsed().as_millis(),
        "Rx Desk started"
    );
    app.run(|_, _| {});
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::idle_lock_from;
    use crate::core::DEFAULT_IDLE_LOCK;

    #[test]
    fn the_idle_lock_is_whole_minutes_zero_never_and_anything_else_the_default() {
        assert_eq!(idle_lock_from(Some(" 5 ")), Duration::from_secs(300));
        assert_eq!(idle_lock_from(Some("0")), Duration::ZERO);
        assert_eq!(idle_lock_from(Some("five")), DEFAULT_IDLE_LOCK);
        assert_eq!(idle_lock_from(Some("-1")), DEFAULT_IDLE_LOCK);
        assert_eq!(idle_lock_from(None), DEFAULT_IDLE_LOCK);
    }
}
