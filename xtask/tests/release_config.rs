//! The release configuration holds before a tag is pushed: the Tauri configs
//! (base, the platform files Tauri merges itself, the release and offline
//! overlays) merged as the CLI merges them (JSON Merge Patch, RFC 7396) are
//! valid against the Tauri CLI's own schema
//! (`ui/node_modules/@tauri-apps/cli/config.schema.json`); the GitHub workflows
//! pass `action-validator`; and what matters in them is there: actions pinned by
//! commit SHA, installers built on the oldest supported glibc without the demo
//! sandbox, the Windows and macOS checks on their own runners.
//!
//! The schema and `action-validator` are the UI's locked dev dependencies:
//! `cargo xtask test` installs them (`npm --prefix ui ci`) before the Rust
//! tests. Missing, the tests fail and say so: they never pass unchecked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

fn installed(relative: &str) -> PathBuf {
    let path = root().join(relative);
    assert!(
        path.exists(),
        "{} is missing: run `npm --prefix ui ci` (cargo xtask test does) and test again",
        path.display()
    );
    path
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn config(name: &str) -> Value {
    read_json(&root().join("src-tauri").join(name))
}

/// RFC 7396: objects merge key by key, `null` removes a key, anything else
/// (arrays included) replaces the target.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let Value::Object(target) = target else {
        unreachable!("made an object above")
    };
    for (key, value) in patch {
        if value.is_null() {
            target.remove(key);
        } else {
            merge_patch(target.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

fn merged(names: &[&str]) -> Value {
    let mut config_value = config("tauri.conf.json");
    for name in names {
        merge_patch(&mut config_value, &config(name));
    }
    config_value
}

fn schema_errors(instance: &Value) -> Vec<String> {
    let schema = read_json(&installed(
        "ui/node_modules/@tauri-apps/cli/config.schema.json",
    ));
    let validator = jsonschema::validator_for(&schema).expect("the Tauri schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Every combination a build uses: `tauri build` on each platform (its
/// platform file merged in), and the release workflow's (`--config` overlays).
const COMBINATIONS: &[&[&str]] = &[
    &[],
    &["tauri.linux.conf.json"],
    &["tauri.windows.conf.json"],
    &["tauri.windows.conf.json", "tauri.windows-offline.conf.json"],
    &["tauri.macos.conf.json"],
    &["tauri.linux.conf.json", "tauri.release.conf.json"],
    &["tauri.windows.conf.json", "tauri.release.conf.json"],
    &[
        "tauri.windows.conf.json",
        "tauri.release.conf.json",
        "tauri.windows-offline.conf.json",
    ],
    &["tauri.macos.conf.json", "tauri.release.conf.json"],
];

#[test]
fn every_tauri_config_file_is_a_json_object() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("src-tauri"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("tauri") && name.ends_with(".conf.json"))
        .collect();
    names.sort();
    for name in &names {
        assert!(config(name).is_object(), "{name} is not a JSON object");
    }
    for expected in COMBINATIONS.iter().flat_map(|c| c.iter()) {
        assert!(names.iter().any(|n| n == expected), "{expected} is missing");
    }
}

#[test]
fn every_merged_combination_is_valid_against_the_tauri_cli_schema() {
    for combination in COMBINATIONS {
        let errors = schema_errors(&merged(combination));
        assert!(
            errors.is_empty(),
            "tauri.conf.json + {combination:?}:\n{}",
            errors.join("\n")
        );
    }
}

#[test]
fn a_misspelt_bundle_key_is_rejected_by_the_schema() {
    let mut broken = merged(&["tauri.linux.conf.json"]);
    merge_patch(
        &mut broken,
        &json!({ "bundle": { "linux": { "deb": { "depend": ["xdg-utils"] } } } }),
    );
    let errors = schema_errors(&broken);
    assert!(
        errors.iter().any(|e| e.contains("depend")),
        "no error names the misspelt key: {errors:?}"
    );
}

#[test]
fn the_overlays_merge_as_the_cli_merges_them() {
    // RFC 7396's own examples: null removes, arrays replace.
    let mut target = json!({ "a": "b", "c": { "d": "e", "f": "g" }, "l": [1, 2] });
    merge_patch(
        &mut target,
        &json!({ "a": "z", "c": { "f": null }, "l": [3] }),
    );
    assert_eq!(target, json!({ "a": "z", "c": { "d": "e" }, "l": [3] }));

    let windows = merged(&["tauri.windows.conf.json", "tauri.release.conf.json"]);
    assert_eq!(
        windows["bundle"]["windows"]["nsis"]["installMode"],
        "currentUser"
    );
    assert_eq!(windows["bundle"]["createUpdaterArtifacts"], true);
    let offline = merged(&[
        "tauri.windows.conf.json",
        "tauri.release.conf.json",
        "tauri.windows-offline.conf.json",
    ]);
    assert_eq!(
        offline["bundle"]["windows"]["webviewInstallMode"]["type"],
        "offlineInstaller"
    );
    assert_eq!(offline["bundle"]["createUpdaterArtifacts"], false);
    let linux = merged(&["tauri.linux.conf.json"]);
    for package in ["deb", "rpm"] {
        let depends = &linux["bundle"]["linux"][package]["depends"];
        assert!(
            depends
                .as_array()
                .is_some_and(|d| d.contains(&json!("xdg-utils"))),
            "{package} does not depend on xdg-utils: {depends}"
        );
    }
}

fn workflows() -> Vec<PathBuf> {
    let dir = root().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no workflow in {}", dir.display());
    files
}

fn workflow(name: &str) -> String {
    let path = root().join(".github/workflows").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn action_validator(file: &Path) -> std::process::Output {
    let validator = installed("ui/node_modules/.bin/action-validator");
    Command::new(validator)
        .arg(file)
        .output()
        .expect("action-validator runs")
}

#[test]
fn every_workflow_passes_action_validator() {
    for file in workflows() {
        let output = action_validator(&file);
        assert!(
            output.status.success(),
            "{} fails action-validator:\n{}{}",
            file.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn a_broken_workflow_fails_action_validator() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yml");
    std::fs::write(
        &file,
        "on: push\njobs:\n  build:\n    runs-on: ubuntu-22.04\n    stepz:\n      - run: true\n",
    )
    .unwrap();
    let output = action_validator(&file);
    assert!(
        !output.status.success(),
        "action-validator accepted a job with `stepz`"
    );
}

/// The value of every `uses:` (comment removed), with the workflow's name.
fn uses_lines() -> Vec<(String, String)> {
    workflows()
        .iter()
        .flat_map(|file| {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::read_to_string(file)
                .unwrap()
                .lines()
                .filter_map(|line| {
                    let line = line.trim_start().trim_start_matches("- ").trim_start();
                    let value = line.strip_prefix("uses:")?;
                    let value = value.split(" #").next().unwrap_or_default().trim();
                    Some((name.clone(), value.trim_matches(['"', '\'']).to_owned()))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_action_is_pinned_by_a_full_commit_sha() {
    let uses = uses_lines();
    assert!(
        !uses.is_empty(),
        "no `uses:` found: the check would check nothing"
    );
    for (file, value) in uses {
        let pinned = value.split_once('@').is_some_and(|(action, sha)| {
            action.contains('/')
                && sha.len() == 40
                && sha
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        });
        assert!(
            pinned,
            "{file}: `uses: {value}` is not pinned by a 40-hex commit SHA"
        );
    }
}

#[test]
fn release_builds_linux_on_ubuntu_22_04_without_the_sandbox() {
    let release = workflow("release.yml");
    assert!(
        release.contains("runner: ubuntu-22.04"),
        "no ubuntu-22.04 build"
    );
    assert!(release.contains("libwebkit2gtk-4.1-dev"));
    assert!(release.contains("--no-default-features --features custom-protocol"));
    // The installers' profile (built for size), as `cargo xtask bundle` builds them.
    assert!(release.contains("-- --profile installer --no-default-features"));
    // The Linux app links the system's SQLite.
    assert!(release.contains("libsqlite3-dev"));
    assert!(release.contains("--target universal-apple-darwin"));
    assert!(release.contains("aarch64-apple-darwin,x86_64-apple-darwin"));
    assert!(release.contains("tags: [\"v*\"]"));
    assert!(release.contains("releaseDraft: true"));
    assert!(release.contains("tauri-apps/tauri-action@84b9d35b5fc46c1e45415bdb6144030364f7ebc5"));
}

#[test]
fn every_config_the_workflows_pass_exists() {
    for file in workflows() {
        let text = std::fs::read_to_string(&file).unwrap();
        for word in text.split_whitespace() {
            let word = word.trim_matches(['"', '\'', ',', ';']);
            if word.starts_with("src-tauri/") && word.ends_with(".json") {
                assert!(
                    root().join(word).is_file(),
                    "{} names {word}, which does not exist",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn platforms_runs_clippy_tests_and_the_real_keyring_on_windows_and_macos() {
    let platforms = workflow("platforms.yml");
    assert!(platforms.contains("os: [windows-latest, macos-latest]"));
    assert!(platforms.contains("-D warnings"));
    assert!(platforms.contains("RXDESK_REAL_KEYRING: \"1\""));
    assert!(platforms.contains("--test real_keyring"));
    assert!(
        root().join("src-tauri/tests/real_keyring.rs").is_file(),
        "the keyring test platforms.yml runs is missing"
    );
}

/// `npm ci` on a release runner needs the lock to name the Tauri CLI's binary
/// package for every platform; this machine's registry mirror serves only the
/// Linux ones, so an `npm install` here drops the others without a word.
#[test]
fn the_ui_lock_names_the_tauri_cli_binary_of_every_platform() {
    let lock = read_json(&root().join("ui/package-lock.json"));
    let packages = &lock["packages"];
    let cli = &packages["node_modules/@tauri-apps/cli"];
    let wanted = cli["optionalDependencies"]
        .as_object()
        .expect("the Tauri CLI in ui/package-lock.json, with its optional binaries");

    let missing: Vec<&String> = wanted
        .keys()
        .filter(|name| packages[format!("node_modules/{name}")].is_null())
        .collect();

    assert!(wanted.len() >= 9, "{wanted:?}");
    assert!(missing.is_empty(), "ui/package-lock.json lacks {missing:?}");
}
