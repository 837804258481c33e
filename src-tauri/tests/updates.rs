//! Updates as the app runs them, without mocks: a release key pair made in the
//! test (minisign, as `tauri signer` makes), a `latest.json` manifest and a
//! bundle served over loopback by a real HTTP server that counts requests, and
//! the app on Tauri's mock runtime with the updater plugin configured as the
//! release overlay does (`plugins.updater` of the checked-in `tauri.conf.json`
//! plus `endpoints` and `pubkey`). The commands are called as the UI calls
//! them. Installing is never exercised (it would replace the test binary):
//! the accepted case stops at the verified download `install_update` starts
//! with; the refused cases go through `install_update` itself, which refuses
//! before installing anything.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::support::{args, invoke_on};
use base64::Engine as _;
use rxdesk_lib::ipc::{CommandError, EVENT_UPDATE, UpdateCheck, UpdateProgress, UpdatesStatus};
use rxdesk_lib::updates::{UpdateError, Updates};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder, mock_context, noop_assets};
use tauri::{Listener, Manager, WebviewWindow, WebviewWindowBuilder};

const BUNDLE_PATH: &str = "/download/rxdesk_0.2.0.tar.gz";
const NOTES: &str = "Faster signing.\nA clearer pharmacy search.";

// ---- the release key ------------------------------------------------------------------

/// A release key pair, as `tauri signer generate` makes (unencrypted here).
struct ReleaseKey(minisign::KeyPair);

impl ReleaseKey {
    fn generate() -> Self {
        Self(minisign::KeyPair::generate_unencrypted_keypair().unwrap())
    }

    /// What `plugins.updater.pubkey` holds: base64 of the public-key box text.
    fn pubkey(&self) -> String {
        let text = self.0.pk.to_box().unwrap().into_string();
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    /// What the manifest's `signature` holds: base64 of the signature box
    /// text, its trusted comment naming the version as `tauri build` does.
    fn sign(&self, bytes: &[u8], version: &str) -> String {
        let trusted =
            format!("timestamp:1767225600\tfile:rxdesk_{version}.tar.gz\tversion:{version}");
        let signature = minisign::sign(
            Some(&self.0.pk),
            &self.0.sk,
            std::io::Cursor::new(bytes),
            Some(&trusted),
            Some("signature from tauri secret key"),
        )
        .unwrap();
        base64::engine::general_purpose::STANDARD.encode(signature.into_string())
    }
}

/// A stand-in for an installer bundle.
fn bundle() -> Vec<u8> {
    (0..300_000u32).map(|i| (i % 251) as u8).collect()
}

// ---- the release server ----------------------------------------------------------------

/// A release server on loopback: `/latest.json` and the bundle; counts every request.
struct ReleaseServer {
    base: String,
    requests: Arc<AtomicUsize>,
}

impl ReleaseServer {
    /// Serves a manifest announcing `version` with `signature`, and `bundle`.
    fn start(version: &str, signature: &str, bundle: Vec<u8>) -> Self {
        let listener =
            tauri::async_runtime::block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut platforms = serde_json::Map::new();
        platforms.insert(
            platform(),
            json!({"url": format!("{base}{BUNDLE_PATH}"), "signature": signature}),
        );
        let manifest = json!({
            "version": version,
            "notes": NOTES,
            "pub_date": "2026-01-01T00:00:00Z",
            "platforms": platforms,
        });
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let router = axum::Router::new()
            .route(
                "/latest.json",
                axum::routing::get(move || {
                    let manifest = manifest.clone();
                    async move { axum::Json(manifest) }
                }),
            )
            .route(
                BUNDLE_PATH,
                axum::routing::get(move || {
                    let bundle = bundle.clone();
                    async move { bundle }
                }),
            )
            .layer(axum::middleware::from_fn(
                move |request: axum::extract::Request, next: axum::middleware::Next| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    next.run(request)
                },
            ));
        tauri::async_runtime::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        Self { base, requests }
    }

    fn endpoint(&self) -> String {
        format!("{}/latest.json", self.base)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// The manifest key the updater looks for on this machine (`{os}-{arch}`).
fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86" => "i686",
        "arm" => "armv7",
        other => other,
    };
    format!("{os}-{arch}")
}

// ---- the app -----------------------------------------------------------------------------

struct UpdatingApp {
    app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    progress: mpsc::Receiver<UpdateProgress>,
    dir: tempfile::TempDir,
}

/// `plugins.updater` as the checked-in config has it.
fn checked_in_updater_config() -> Value {
    let config: Value =
        serde_json::from_str(include_str!("../tauri.conf.json")).expect("tauri.conf.json");
    config["plugins"]["updater"].clone()
}

impl UpdatingApp {
    /// The app with `plugins.updater` as given and the IT policy file holding
    /// `policy` (`None`: no policy file).
    fn start(updater: Value, policy: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let policy_path = dir.path().join("policy.toml");
        if let Some(text) = policy {
            std::fs::write(&policy_path, text).unwrap();
        }
        let mut context = mock_context(noop_assets());
        context
            .config_mut()
            .plugins
            .0
            .insert("updater".into(), updater);
        let app = rxdesk_lib::builder(mock_builder())
            .plugin(rxdesk_lib::updates::plugin())
            .build(context)
            .unwrap();
        rxdesk_lib::updates::install(&app, policy_path);
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        let (tx, progress) = mpsc::channel();
        app.listen_any(EVENT_UPDATE, move |e| {
            let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
        });
        Self {
            app,
            window,
            progress,
            dir,
        }
    }

    /// A release build: the checked-in config plus what the release overlay adds.
    fn released(server: &ReleaseServer, key: &ReleaseKey, policy: Option<&str>) -> Self {
        let mut updater = checked_in_updater_config();
        updater["pubkey"] = json!(key.pubkey());
        updater["endpoints"] = json!([server.endpoint()]);
        // The test server speaks plain HTTP on loopback; releases use https.
        updater["dangerousInsecureTransportProtocol"] = json!(true);
        Self::start(updater, policy)
    }

    fn status(&self) -> UpdatesStatus {
        invoke_on(&self.window, args::update_status {}).unwrap()
    }

    fn check(&self) -> Result<UpdateCheck, CommandError> {
        invoke_on(&self.window, args::check_for_update {})
    }

    fn install(&self) -> Result<(), CommandError> {
        invoke_on(&self.window, args::install_update {})
    }

    /// What `install_update` does before installing: the verified download.
    fn download(&self) -> Result<Vec<u8>, UpdateError> {
        let updates = self.app.state::<Updates>();
        tauri::async_runtime::block_on(updates.download())
    }

    fn progress_events(&self) -> Vec<UpdateProgress> {
        let mut seen = Vec::new();
        while let Ok(p) = self.progress.recv_timeout(Duration::from_millis(200)) {
            seen.push(p);
        }
        seen
    }
}

fn found_version(check: UpdateCheck) -> String {
    match check {
        UpdateCheck::Found { version, .. } => version,
        other => panic!("no update found: {other:?}"),
    }
}

fn message(e: &CommandError) -> String {
    match e {
        CommandError::App { message } => message.clone(),
        other => panic!("not an app error: {other:?}"),
    }
}

// ---- signatures -----------------------------------------------------------------------------

#[test]
fn a_correctly_signed_update_is_accepted() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &key.sign(&bundle, "0.2.0"), bundle.clone());
    let app = UpdatingApp::released(&server, &key, None);

    assert_eq!(
        app.status(),
        UpdatesStatus::Offered {
            current_version: "0.1.0".into(),
            policy_note: None,
        }
    );
    assert_eq!(
        server.requests(),
        0,
        "nothing is fetched before the user checks"
    );
    match app.check().unwrap() {
        UpdateCheck::Found {
            current_version,
            version,
            notes,
            date,
        } => {
            assert_eq!(current_version, "0.1.0");
            assert_eq!(version, "0.2.0");
            assert_eq!(notes.as_deref(), Some(NOTES));
            assert_eq!(date.as_deref(), Some("2026-01-01T00:00:00Z"));
        }
        other => panic!("no update found: {other:?}"),
    }
    assert_eq!(server.requests(), 1, "checking downloads nothing");

    assert_eq!(app.download().unwrap(), bundle);
    let progress = app.progress_events();
    let last = progress.last().expect("progress events");
    assert!(last.verified, "{progress:?}");
    assert_eq!(last.downloaded, bundle.len() as u64);
    assert!(
        progress.len() >= 2,
        "progress while downloading, not only at the end: {progress:?}"
    );
}

#[test]
fn a_tampered_update_is_refused() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let signature = key.sign(&bundle, "0.2.0");
    let mut tampered = bundle;
    tampered[1234] ^= 0x01;
    let server = ReleaseServer::start("0.2.0", &signature, tampered);
    let app = UpdatingApp::released(&server, &key, None);

    assert_eq!(found_version(app.check().unwrap()), "0.2.0");
    assert!(matches!(
        app.download().unwrap_err(),
        UpdateError::BadSignature(_)
    ));
    // Install and restart: refused the same way, before anything is installed.
    let refused = app.install().unwrap_err();
    assert!(message(&refused).contains("signature"), "{refused:?}");
    assert!(app.progress_events().iter().all(|p| !p.verified));
}

#[test]
fn an_update_signed_by_another_key_is_refused() {
    let release_key = ReleaseKey::generate();
    let other_key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &other_key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &release_key, None);

    assert_eq!(found_version(app.check().unwrap()), "0.2.0");
    assert!(matches!(
        app.download().unwrap_err(),
        UpdateError::BadSignature(_)
    ));
    let refused = app.install().unwrap_err();
    assert!(message(&refused).contains("signature"), "{refused:?}");
}

#[test]
fn an_older_release_announced_as_newer_is_refused() {
    // A manifest pairing version 0.3.0 with the genuine, signed 0.2.0 bundle.
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.3.0", &key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &key, None);

    assert_eq!(found_version(app.check().unwrap()), "0.3.0");
    assert!(matches!(
        app.download().unwrap_err(),
        UpdateError::BadSignature(_)
    ));
}

#[test]
fn install_without_a_check_installs_nothing() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &key, None);

    let refused = app.install().unwrap_err();
    assert!(
        message(&refused).contains("check for updates first"),
        "{refused:?}"
    );
    assert_eq!(server.requests(), 0);
}

#[test]
fn the_same_version_is_not_an_update() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.1.0", &key.sign(&bundle, "0.1.0"), bundle);
    let app = UpdatingApp::released(&server, &key, None);

    assert_eq!(
        app.check().unwrap(),
        UpdateCheck::UpToDate {
            current_version: "0.1.0".into()
        }
    );
}

// ---- configuration and policy ---------------------------------------------------------------

#[test]
fn a_build_without_a_release_key_does_not_update_itself() {
    let app = UpdatingApp::start(checked_in_updater_config(), None);
    assert_eq!(
        app.status(),
        UpdatesStatus::NotConfigured { policy_note: None }
    );
    let refused = app.check().unwrap_err();
    assert_eq!(message(&refused), "This build does not update itself.");
}

#[test]
fn updates_off_by_policy_never_contact_the_server() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &key, Some("# managed by IT\nupdates = false\n"));

    assert!(matches!(app.status(), UpdatesStatus::OffByPolicy { .. }));
    let refused = app.check().unwrap_err();
    assert!(
        message(&refused).starts_with("Updates are turned off by your organization"),
        "{refused:?}"
    );
    assert!(app.install().is_err());
    assert_eq!(server.requests(), 0);
}

#[test]
fn a_broken_policy_file_turns_updates_off() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &key, Some("updates = \"no\"\n"));

    match app.status() {
        UpdatesStatus::PolicyBroken { problem } => {
            assert!(problem.contains("policy.toml"), "{problem}");
        }
        other => panic!("not off: {other:?}"),
    }
    assert!(app.check().is_err());
    assert_eq!(server.requests(), 0);
}

#[test]
fn a_policy_deployed_while_the_app_runs_applies_at_once() {
    let key = ReleaseKey::generate();
    let bundle = bundle();
    let server = ReleaseServer::start("0.2.0", &key.sign(&bundle, "0.2.0"), bundle);
    let app = UpdatingApp::released(&server, &key, None);
    assert_eq!(found_version(app.check().unwrap()), "0.2.0");
    assert_eq!(server.requests(), 1);

    write_policy(&app, "updates = false\n");
    assert!(matches!(app.status(), UpdatesStatus::OffByPolicy { .. }));
    assert!(app.install().is_err());
    assert_eq!(
        server.requests(),
        1,
        "the update found earlier is not downloaded"
    );
}

fn write_policy(app: &UpdatingApp, text: &str) {
    std::fs::write(app.dir.path().join("policy.toml"), text).unwrap();
}
