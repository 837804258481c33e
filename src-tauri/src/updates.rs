//! Updates: Rx Desk asks the vendor's release server for a newer version only
//! when the user clicks "Check for updates", and installs it only when they
//! click "Install and restart" — a prescriber in the middle of signing is never
//! restarted under them.
//!
//! Where updates come from is `plugins.updater` in the Tauri config: the
//! release server's `endpoints` and the release `pubkey` (minisign, base64 of
//! the public-key box). The checked-in `tauri.conf.json` has neither, so a
//! local build says "This build does not update itself"; the release workflow
//! adds both through an overlay config. tauri-plugin-updater downloads the
//! bundle and refuses it unless its signature verifies against that key (and,
//! with `requireSignedVersion`, names the version the server announced).
//!
//! The IT policy ([`crate::policy`]) is read on every status, check and
//! install, so a policy deployed while the app runs applies at once; `updates =
//! false` (or a broken policy file) stops everything before any request. A
//! policy file no administrator owns is ignored, and the status says so.

use std::path::PathBuf;
use std::time::Duration;

use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_updater::{Update, Updater, UpdaterExt};

use crate::ipc::{CommandError, EVENT_UPDATE, UpdateCheck, UpdateProgress, UpdatesStatus};
use crate::policy::{self, PolicyError};

/// How long a check may wait for the release server (the download has no limit).
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);
/// Progress events at most every this many bytes (and once at the end).
const PROGRESS_STEP: u64 = 256 * 1024;

/// Why a check or an install did not happen, in words for Settings.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("Updates are turned off by your organization (IT policy {}).", path.display())]
    OffByPolicy { path: PathBuf },
    #[error("Updates are off because {0}.")]
    Policy(#[from] PolicyError),
    #[error("This build does not update itself.")]
    NotConfigured,
    #[error("Updates are not available on this installation: {0}.")]
    Unavailable(String),
    #[error("There is no update to install: check for updates first.")]
    NothingFound,
    #[error("An update is already being installed.")]
    Busy,
    #[error("The update server could not be reached ({0}). Check the connection and try again.")]
    Unreachable(String),
    #[error(
        "The update server's answer was not understood ({0}). Try again later, or tell your IT team."
    )]
    BadAnswer(String),
    #[error(
        "The update was refused: its signature does not match Rx Desk's release key ({0}). Nothing was installed; tell your IT team."
    )]
    BadSignature(String),
    #[error("The update could not be installed ({0}).")]
    Install(String),
}

impl From<UpdateError> for CommandError {
    /// Shown as written: the words already say what to do (and "network", to
    /// the UI, means the prescribing network, not the release server).
    fn from(e: UpdateError) -> Self {
        CommandError::app(e.to_string())
    }
}

/// The plugin's errors, sorted by what the user can do about them.
fn classify(e: tauri_plugin_updater::Error) -> UpdateError {
    use tauri_plugin_updater::Error as E;
    let message = e.to_string();
    match e {
        E::Minisign(_)
        | E::Base64(_)
        | E::SignatureUtf8(_)
        | E::SignedVersionMismatch { .. }
        | E::MissingSignedVersion => UpdateError::BadSignature(message),
        E::Reqwest(ref r) if r.is_decode() => UpdateError::BadAnswer(message),
        E::Reqwest(_) | E::Network(_) => UpdateError::Unreachable(message),
        E::ReleaseNotFound
        | E::Serialization(_)
        | E::Semver(_)
        | E::UrlParse(_)
        | E::TargetNotFound(_)
        | E::TargetsNotFound(_) => UpdateError::BadAnswer(message),
        _ => UpdateError::Install(message),
    }
}

/// What the updates need from the running app: its events and a restart.
trait Host: Send + Sync {
    fn progress(&self, progress: UpdateProgress);
    fn restart(&self);
}

impl<R: Runtime> Host for AppHandle<R> {
    fn progress(&self, progress: UpdateProgress) {
        if let Err(e) = self.emit(EVENT_UPDATE, progress) {
            tracing::warn!(error = %e, "update progress not delivered");
        }
    }
    fn restart(&self) {
        AppHandle::restart(self)
    }
}

/// The updater plugin, configured from `plugins.updater`. Its JavaScript API is
/// not granted to the window: the UI goes through our commands.
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R, tauri_plugin_updater::Config> {
    tauri_plugin_updater::Builder::new().build()
}

/// Makes [`Updates`] available to the commands; `policy_path` is the IT policy
/// file ([`policy::system_path`] in the app). Needs [`plugin`] registered.
pub fn install<R: Runtime>(app: &tauri::App<R>, policy_path: PathBuf) {
    let handle = app.handle();
    let updates = Updates {
        updater: updater(handle),
        current_version: handle.package_info().version.to_string(),
        policy_path,
        found: tokio::sync::Mutex::new(None),
        busy: tokio::sync::Mutex::new(()),
        host: Box::new(handle.clone()),
    };
    app.manage(updates);
}

/// The updater for the configured release server, or why there is none.
fn updater<R: Runtime>(app: &AppHandle<R>) -> Result<Updater, UpdateError> {
    let config = app.config().plugins.0.get("updater");
    let pubkey = config
        .and_then(|c| c.get("pubkey"))
        .and_then(|k| k.as_str());
    if pubkey.is_none_or(|k| k.trim().is_empty()) {
        return Err(UpdateError::NotConfigured);
    }
    match app.updater_builder().timeout(CHECK_TIMEOUT).build() {
        Ok(updater) => Ok(updater),
        Err(tauri_plugin_updater::Error::EmptyEndpoints) => Err(UpdateError::NotConfigured),
        Err(e) => {
            tracing::warn!(error = %e, "the updater could not be set up");
            Err(UpdateError::Unavailable(e.to_string()))
        }
    }
}

/// Checking for, downloading and installing updates (a Tauri state).
pub struct Updates {
    updater: Result<Updater, UpdateError>,
    current_version: String,
    policy_path: PathBuf,
    /// The update the last check found: the one "Install" installs.
    found: tokio::sync::Mutex<Option<Update>>,
    /// Held while an update downloads and installs.
    busy: tokio::sync::Mutex<()>,
    host: Box<dyn Host>,
}

impl std::fmt::Debug for Updates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Updates")
            .field("configured", &self.updater.is_ok())
            .field("current_version", &self.current_version)
            .field("policy_path", &self.policy_path)
            .finish_non_exhaustive()
    }
}

impl Updates {
    /// Whether the IT policy allows updates now, and the policy file ignored
    /// to decide it, if one was.
    fn policy_allows(&self) -> Result<Option<policy::Ignored>, UpdateError> {
        let effective = policy::read(&self.policy_path)?;
        if !effective.policy.updates {
            return Err(UpdateError::OffByPolicy {
                path: self.policy_path.clone(),
            });
        }
        Ok(effective.ignored)
    }

    /// This build's updater, if it has one.
    fn configured(&self) -> Result<&Updater, UpdateError> {
        match &self.updater {
            Ok(updater) => Ok(updater),
            Err(UpdateError::Unavailable(problem)) => {
                Err(UpdateError::Unavailable(problem.clone()))
            }
            Err(_) => Err(UpdateError::NotConfigured),
        }
    }

    /// The updater, if the IT policy allows updates and this build has one.
    fn allowed(&self) -> Result<&Updater, UpdateError> {
        self.policy_allows()?;
        self.configured()
    }

    /// What Settings shows before anything is clicked.
    pub fn status(&self) -> UpdatesStatus {
        let policy_note = match self.policy_allows() {
            Ok(ignored) => ignored.map(|i| i.to_string()),
            Err(UpdateError::OffByPolicy { path }) => {
                return UpdatesStatus::OffByPolicy {
                    path: path.display().to_string(),
                };
            }
            Err(e) => {
                tracing::warn!(error = %e, "the IT policy file is broken: updates are off");
                return UpdatesStatus::PolicyBroken {
                    problem: match e {
                        UpdateError::Policy(e) => e.to_string(),
                        other => other.to_string(),
                    },
                };
            }
        };
        match self.configured() {
            Ok(_) => UpdatesStatus::Offered {
                current_version: self.current_version.clone(),
                policy_note,
            },
            Err(UpdateError::Unavailable(problem)) => UpdatesStatus::Unavailable {
                problem,
                policy_note,
            },
            Err(_) => UpdatesStatus::NotConfigured { policy_note },
        }
    }

    /// Asks the release server whether a newer version exists; remembers it
    /// for [`Self::install`]. Downloads nothing.
    pub async fn check(&self) -> Result<UpdateCheck, UpdateError> {
        let updater = self.allowed()?;
        let found = updater.check().await.map_err(classify)?;
        let answer = match &found {
            None => UpdateCheck::UpToDate {
                current_version: self.current_version.clone(),
            },
            Some(update) => {
                tracing::info!(version = %update.version, "an update is available");
                UpdateCheck::Found {
                    current_version: update.current_version.clone(),
                    version: update.version.clone(),
                    notes: update.body.clone(),
                    date: update.date.and_then(|d| {
                        d.format(&time::format_description::well_known::Rfc3339)
                            .ok()
                    }),
                }
            }
        };
        *self.found.lock().await = found;
        Ok(answer)
    }

    /// Downloads the update found by the last check, sending progress events;
    /// the bytes are returned only once their signature verified.
    pub async fn download(&self) -> Result<Vec<u8>, UpdateError> {
        self.allowed()?;
        let update = self.found_update().await?;
        self.download_update(&update).await
    }

    /// Downloads, verifies and installs the update found by the last check,
    /// then restarts the app. Only ever called on the user's click.
    pub async fn install(&self) -> Result<(), UpdateError> {
        let _busy = self.busy.try_lock().map_err(|_| UpdateError::Busy)?;
        self.allowed()?;
        let update = self.found_update().await?;
        let bytes = self.download_update(&update).await?;
        let version = update.version.clone();
        // Installing runs the platform's installer (and waits for it).
        tauri::async_runtime::spawn_blocking(move || update.install(bytes))
            .await
            .map_err(|e| UpdateError::Install(e.to_string()))?
            .map_err(classify)?;
        tracing::info!(%version, "update installed: restarting");
        self.host.restart();
        Ok(())
    }

    async fn found_update(&self) -> Result<Update, UpdateError> {
        self.found
            .lock()
            .await
            .clone()
            .ok_or(UpdateError::NothingFound)
    }

    async fn download_update(&self, update: &Update) -> Result<Vec<u8>, UpdateError> {
        let mut downloaded = 0u64;
        let mut reported = 0u64;
        let mut size = None;
        let bytes = update
            .download(
                |chunk, total| {
                    downloaded += chunk as u64;
                    size = total;
                    if downloaded - reported >= PROGRESS_STEP {
                        reported = downloaded;
                        self.host.progress(UpdateProgress {
                            downloaded,
                            total,
                            verified: false,
                        });
                    }
                },
                || {},
            )
            .await
            .map_err(|e| {
                let e = classify(e);
                tracing::warn!(error = %e, version = %update.version, "update download refused");
                e
            })?;
        self.host.progress(UpdateProgress {
            downloaded: bytes.len() as u64,
            total: size,
            verified: true,
        });
        Ok(bytes)
    }
}
