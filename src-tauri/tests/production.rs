//! A production build (`--no-default-features --features custom-protocol`, as
//! installers are built) has no built-in sandbox at all: not its code, not its
//! demo fixture and published demo secrets. Checked on the dependency graph
//! cargo resolves for that build; `cargo xtask test` also lints that build.
//!
//! On Linux the production app links the system's SQLite (WebKitGTK loads it
//! anyway) and its packages depend on it; a build with the sandbox compiles
//! SQLite in, as the sandbox asks.
//!
//! The training build ("Rx Desk Training", `--features training`) is another
//! app to the OS: its own bundle identifier, keyring service and link scheme,
//! so it never restores or ends a production session and never takes a
//! production `rxdesk://` link. Checked on the two config files the CLI merges.

use std::process::Command;

use rxdesk_lib::links::{PRODUCTION_SCHEME, TRAINING_SCHEME};
use rxdesk_lib::session_store::{PRODUCTION_SERVICE, TRAINING_SERVICE};
use serde_json::Value;

/// `cargo tree -p rxdesk {view} {features} --prefix none`, offline and locked.
fn cargo_tree(view: &[&str], features: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "rxdesk",
            "--prefix",
            "none",
        ])
        .args(view)
        .args(features)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn normal_dependencies(features: &[&str]) -> String {
    cargo_tree(&["-e", "normal"], features)
}

#[test]
fn a_production_build_has_no_built_in_sandbox() {
    let production =
        normal_dependencies(&["--no-default-features", "--features", "custom-protocol"]);
    let development = normal_dependencies(&[]);

    assert!(
        development.contains("rxdesk-sandbox"),
        "the check would pass vacuously: the default build lacks the sandbox too"
    );
    assert!(
        !production.contains("rxdesk-sandbox"),
        "the production build depends on the sandbox"
    );
}

/// How `libsqlite3-sys` is built for a Linux build of the app with `features`:
/// its features and who asks for them, through normal dependencies only (a
/// build of the app builds no dev-dependency; the tests' `rxdesk-testkit`
/// starts a sandbox, which compiles SQLite in).
fn linux_sqlite_features(features: &[&str]) -> String {
    let view = [
        "-e",
        "features,normal",
        "--target",
        "x86_64-unknown-linux-gnu",
        "-i",
        "libsqlite3-sys",
    ];
    cargo_tree(&view, features)
}

#[test]
fn the_production_app_links_the_system_sqlite_on_linux() {
    let production =
        linux_sqlite_features(&["--no-default-features", "--features", "custom-protocol"]);
    let development = linux_sqlite_features(&[]);

    assert!(
        development.contains("libsqlite3-sys feature \"bundled\""),
        "the check would pass vacuously: the sandbox build links the system's SQLite too"
    );
    assert!(
        production.contains("libsqlite3-sys v"),
        "the production build has no SQLite at all: {production}"
    );
    assert!(
        !production.contains("feature \"bundled\""),
        "the production build compiles SQLite in: {production}"
    );
}

#[test]
fn the_linux_packages_depend_on_the_system_sqlite() {
    let linux = config("tauri.linux.conf.json");

    let depends = |kind: &str| -> Vec<String> {
        linux
            .pointer(&format!("/bundle/linux/{kind}/depends"))
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };

    assert!(depends("deb").contains(&"libsqlite3-0".to_owned()));
    assert!(depends("rpm").contains(&"libsqlite3.so.0()(64bit)".to_owned()));
}

fn config(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// `identifier` and `plugins.deep-link.desktop.schemes` of a config.
fn identity(config: &Value) -> (Option<&str>, Option<Vec<&str>>) {
    let schemes = config
        .pointer("/plugins/deep-link/desktop/schemes")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect());
    (config["identifier"].as_str(), schemes)
}

#[test]
fn the_production_app_registers_its_keyring_service_and_link_scheme() {
    let production = config("tauri.conf.json");

    assert_eq!(
        identity(&production),
        (Some(PRODUCTION_SERVICE), Some(vec![PRODUCTION_SCHEME]))
    );
}

#[test]
fn the_training_build_has_its_own_keyring_service_and_link_scheme() {
    // The overlay replaces both values when merged (a JSON merge patch
    // replaces arrays whole), so what it says is what the training app has.
    let training = config("tauri.training.conf.json");

    assert_eq!(
        identity(&training),
        (Some(TRAINING_SERVICE), Some(vec![TRAINING_SCHEME]))
    );
    assert_ne!(TRAINING_SERVICE, PRODUCTION_SERVICE);
    assert_ne!(TRAINING_SCHEME, PRODUCTION_SCHEME);
}
