//! The installer figure's floor: the empty app (`empty_app.rs`) plus the
//! stack Rx Desk's design names, each crate used once, so that none of it is
//! left out by the linker — the system browser's sign-in (`oauth2`, PKCE)
//! over `reqwest` with rustls, the platform's trust store and HTTP/2, a
//! GraphQL answer read with `serde`, the OS keyring (`keyring`), SQLite,
//! `tracing`, `url`, and the three Tauri plugins (updater, deep links, one
//! instance). Every dependency is written as Rx Desk's manifests write it
//! (same versions through the copied `Cargo.lock`, same features), and the
//! app is built with the same profile by the same CLI as both others.
//!
//! It is not Rx Desk without its features: it has no screens, no commands, no
//! typed GraphQL documents, no retry or offline logic. What it weighs over the
//! empty app is what the stack alone costs, before any of Rx Desk's code.
//!
//! What does not live here: generating and building an app (`empty_app.rs`),
//! the figure (`size.rs`).

use std::path::Path;

use anyhow::{Context, Result};

use crate::empty_app::{self, EmptyApp, Variant};

/// Its binary and package name.
pub const NAME: &str = "stack-app";

/// The crates of the stack, as Rx Desk's manifests name them.
pub const STACK: &[&str] = &[
    "tokio",
    "reqwest",
    "rustls",
    "rustls-platform-verifier",
    "oauth2",
    "serde",
    "serde_json",
    "keyring",
    "keyring-core",
    "rusqlite",
    "url",
    "tracing",
    "tauri-plugin-updater",
    "tauri-plugin-deep-link",
    "tauri-plugin-single-instance",
];

/// The manifests the stack's entries are read from, in order: the app's, then
/// the client's (a `workspace = true` entry is the workspace's).
const MANIFESTS: &[&str] = &["src-tauri/Cargo.toml", "crates/client/Cargo.toml"];

/// Generates, builds and bundles the floor.
pub fn build(root: &Path) -> Result<EmptyApp> {
    empty_app::build_variant(root, &variant(root)?)
}

/// The floor, with its dependencies read from the workspace at `root`.
pub fn variant(root: &Path) -> Result<Variant> {
    let read = |path: &str| -> Result<toml::Table> {
        let text = std::fs::read_to_string(root.join(path))
            .with_context(|| format!("cannot read {path}"))?;
        Ok(toml::from_str(&text)?)
    };
    let workspace = read("Cargo.toml")?;
    let members = MANIFESTS
        .iter()
        .map(|m| read(m))
        .collect::<Result<Vec<_>>>()?;
    Ok(Variant {
        name: NAME,
        heading: "Tauri and the stack",
        identifier: "dev.rxdesk.bench-stack-app",
        dependencies: dependencies(&workspace, &members)?,
        main: MAIN.to_owned(),
        plugins: serde_json::json!({
            "updater": { "pubkey": "", "endpoints": [] },
            "deep-link": { "desktop": { "schemes": ["stackapp"] } },
        }),
    })
}

/// The `[dependencies]` lines of [`STACK`]: each crate's entry in the first
/// member manifest that has one, the workspace's where that says
/// `workspace = true` (with the member's extra features).
pub fn dependencies(workspace: &toml::Table, members: &[toml::Table]) -> Result<String> {
    let shared = workspace
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.as_table());
    let mut lines = String::new();
    for name in STACK {
        let entry = members
            .iter()
            .find_map(|m| m.get("dependencies").and_then(|d| d.get(*name)))
            .with_context(|| format!("no manifest of the app names {name}"))?;
        let spec = match entry.get("workspace").and_then(toml::Value::as_bool) {
            Some(true) => {
                let mut spec = shared
                    .and_then(|d| d.get(*name))
                    .with_context(|| format!("the workspace does not name {name}"))?
                    .clone();
                if let Some(extra) = entry.get("features").and_then(|f| f.as_array()) {
                    spec = with_features(spec, extra);
                }
                spec
            }
            _ => entry.clone(),
        };
        lines.push_str(&format!("{name} = {spec}\n"));
    }
    Ok(lines)
}

/// `spec` (a version string or a table) with `extra` features added.
fn with_features(spec: toml::Value, extra: &[toml::Value]) -> toml::Value {
    let mut table = match spec {
        toml::Value::Table(t) => t,
        version => {
            let mut t = toml::Table::new();
            t.insert("version".into(), version);
            t
        }
    };
    let features = table
        .entry("features")
        .or_insert_with(|| toml::Value::Array(Vec::new()));
    if let toml::Value::Array(list) = features {
        for f in extra {
            if !list.contains(f) {
                list.push(f.clone());
            }
        }
    }
    toml::Value::Table(table)
}

/// The floor's `main`: the empty app with the three plugins; and, when
/// `STACK_APP_NETWORK` names a network, one pass over the stack (sign-in's
/// code exchange, a GraphQL call, the keyring, SQLite, an update check, the
/// link scheme's registration). Nothing runs without the variable, but the
/// linker cannot know that: all of it is in the binary.
const MAIN: &str = r##"//! Generated by rxdesk-bench (`bench/src/stack_app.rs`): the installer
//! figure's floor, an empty Tauri app plus the stack Rx Desk's design names.

use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, CsrfToken, PkceCodeChallenge, RedirectUrl, TokenUrl,
};
use tauri_plugin_deep_link::DeepLinkExt as _;
use tauri_plugin_updater::UpdaterExt as _;

type Failure = Box<dyn Error + Send + Sync>;

#[derive(Debug, serde::Deserialize)]
struct Answer {
    data: Option<serde_json::Value>,
}

// rxdesk-client's adapter (`http.rs`), written again: the floor must not link
// Rx Desk's crates.
struct OAuthHttp<'a>(&'a reqwest::Client);

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp<'_> {
    type Error = oauth2::HttpClientError<reqwest::Error>;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let request = reqwest::Request::try_from(request).map_err(Box::new)?;
            let response = self.0.execute(request).await.map_err(Box::new)?;
            let mut answer = oauth2::http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                answer = answer.header(name, value);
            }
            let body = response.bytes().await.map_err(Box::new)?;
            answer
                .body(body.to_vec())
                .map_err(oauth2::HttpClientError::Http)
        })
    }
}

fn http() -> Result<reqwest::Client, Failure> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())?;
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .use_preconfigured_tls(tls)
        .build()?)
}

async fn exercise(network: url::Url) -> Result<(), Failure> {
    let http = http()?;
    let client = BasicClient::new(ClientId::new("stack-app".to_owned()))
        .set_auth_uri(AuthUrl::from_url(network.join("authorize")?))
        .set_token_uri(TokenUrl::from_url(network.join("oauth/token")?))
        .set_redirect_uri(RedirectUrl::new("http://127.0.0.1:1/callback".to_owned())?);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (authorize, _state) = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .url();
    tracing::info!(%authorize, "sign-in");
    let token = client
        .exchange_code(AuthorizationCode::new("code".to_owned()))
        .set_pkce_verifier(verifier)
        .request_async(&OAuthHttp(&http))
        .await;
    tracing::info!(exchanged = token.is_ok(), "sign-in");
    let answer: Answer = http
        .post(network.join("graphql")?)
        .json(&serde_json::json!({ "query": "{ ping }" }))
        .send()
        .await?
        .json()
        .await?;
    tracing::info!(answered = answer.data.is_some(), "graphql");
    if let Err(e) = keyring::Entry::store_status() {
        return Err(e.to_string().into());
    }
    let entry = keyring_core::Entry::new("stack-app", "session").map_err(|e| e.to_string())?;
    entry.set_password("session").map_err(|e| e.to_string())?;
    tracing::info!(kept = entry.get_password().is_ok(), "keyring");
    let db = rusqlite::Connection::open_in_memory()?;
    db.execute_batch("CREATE TABLE drafts (id TEXT PRIMARY KEY); INSERT INTO drafts VALUES ('d');")?;
    Ok(())
}

fn main() {
    tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|_app, _argv, _cwd| {}))
        .plugin(tauri_plugin_deep_link::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(|app| {
            let network = std::env::var("STACK_APP_NETWORK")
                .ok()
                .and_then(|u| url::Url::parse(&u).ok());
            if let Some(network) = network {
                let handle = app.handle().clone();
                tauri::async_runtime::spawn(async move {
                    if let Err(e) = exercise(network).await {
                        eprintln!("stack-app: {e}");
                    }
                    if let Ok(updater) = handle.updater() {
                        let _ = updater.check().await;
                    }
                    let _ = handle.deep_link().register_all();
                });
            }
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("the stack app runs");
}
"##;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_workspace_entry_is_the_workspaces_with_the_members_extra_features() {
        let workspace = table(
            "[workspace.dependencies]\nrusqlite = { version = \"0.37\", features = [\"hooks\"] }\n",
        );
        let member =
            table("[dependencies]\nrusqlite = { workspace = true, features = [\"bundled\"] }\n");

        let spec = with_features(
            workspace["workspace"]["dependencies"]["rusqlite"].clone(),
            member["dependencies"]["rusqlite"]["features"]
                .as_array()
                .unwrap(),
        );

        assert_eq!(spec["version"].as_str(), Some("0.37"));
        let features: Vec<_> = spec["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .collect();
        assert_eq!(features, ["hooks", "bundled"]);
    }

    #[test]
    fn a_crate_no_manifest_names_is_an_error() {
        let workspace = table("[workspace.dependencies]\n");
        let member = table("[dependencies]\ntokio = \"1\"\n");

        let missing = dependencies(&workspace, &[member]).unwrap_err();

        assert!(missing.to_string().contains("no manifest"), "{missing}");
    }

    #[test]
    fn every_crate_of_the_stack_is_read_as_rx_desk_names_it() {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));

        let floor = variant(root).unwrap();

        for name in STACK {
            assert!(
                floor.dependencies.contains(&format!("\n{name} = "))
                    || floor.dependencies.starts_with(&format!("{name} = ")),
                "{name} missing from:\n{}",
                floor.dependencies
            );
        }
        assert!(
            floor.dependencies.contains("rustls-no-provider"),
            "reqwest's features are the workspace's:\n{}",
            floor.dependencies
        );
    }
}
