//! A production build (`--no-default-features --features custom-protocol`, as
//! installers are built) has no built-in sandbox at all: not its code, not its
//! demo fixture and published demo secrets. Checked on the dependency graph
//! cargo resolves for that build; `cargo xtask test` also lints that build.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn normal_dependencies(features: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "rxdesk",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
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
