//! Every file of a crate's `tests/` is built. The sandbox, the client and the app
//! build their integration tests as a few binaries listed in their `Cargo.toml`
//! (`autotests = false`; `tests/integration.rs` declares one module per file), so
//! cargo no longer finds a new file by itself: a file that is neither a test
//! binary nor a module of one would never compile nor run, silently. Test
//! binaries are read from `cargo metadata`, as cargo sees them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Each workspace member's directory and the root files of its test binaries.
fn test_roots() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo metadata failed");
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let manifest = Path::new(package["manifest_path"].as_str().unwrap());
            let roots = package["targets"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|target| {
                    target["kind"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k == "test")
                })
                .map(|target| PathBuf::from(target["src_path"].as_str().unwrap()))
                .collect();
            (manifest.parent().unwrap().to_path_buf(), roots)
        })
        .collect()
}

/// The module names a root file declares with `mod name;`.
fn declared_modules(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root)
        .unwrap()
        .lines()
        .filter_map(|line| line.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// The files of `tests/` that are neither a test binary's root nor a module
/// one of them declares.
fn unbuilt(dir: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir.join("tests")) else {
        return Vec::new();
    };
    let modules: Vec<String> = roots.iter().flat_map(|r| declared_modules(r)).collect();
    entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .filter(|path| !roots.contains(path))
        .filter(|path| {
            let stem = path.file_stem().unwrap().to_str().unwrap();
            !modules.iter().any(|m| m == stem)
        })
        .collect()
}

#[test]
fn every_file_of_a_crates_tests_is_a_test_binary_or_a_module_of_one() {
    let members = test_roots();
    assert!(
        members
            .iter()
            .filter(|(_, roots)| !roots.is_empty())
            .count()
            >= 4,
        "cargo metadata lists the workspace's test binaries"
    );

    let unbuilt: Vec<PathBuf> = members
        .iter()
        .flat_map(|(dir, roots)| unbuilt(dir, roots))
        .collect();

    assert!(
        unbuilt.is_empty(),
        "never built: {unbuilt:?}; add `mod <name>;` to the crate's tests/integration.rs"
    );
}

#[test]
fn a_file_no_binary_declares_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    let root = dir.path().join("tests/integration.rs");
    std::fs::write(&root, "//! Root.\nmod listed;\n").unwrap();
    std::fs::write(dir.path().join("tests/listed.rs"), "").unwrap();
    std::fs::write(dir.path().join("tests/forgotten.rs"), "").unwrap();

    let found = unbuilt(dir.path(), &[root]);

    assert_eq!(found, vec![dir.path().join("tests/forgotten.rs")]);
}
