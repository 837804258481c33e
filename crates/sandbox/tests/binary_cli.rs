//! The `rxdesk-sandbox` binary: prints exactly one "listening" line with the
//! real port, serves discovery, and exits 0 on SIGTERM; a broken fixture makes
//! it exit non-zero with a message naming the file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rxdesk-sandbox");

/// Kills the child this test started if an assertion fails before it exits.
struct Reap(std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[cfg(unix)]
#[tokio::test]
async fn binary_prints_one_line_serves_and_exits_0_on_sigterm() {
    let mut child = Reap(
        Command::new(BIN)
            .args(["--in-memory", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let origin = line
        .trim_end()
        .strip_prefix("rxdesk-sandbox listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(origin.starts_with("http://127.0.0.1:"), "{origin}");
    assert!(
        !origin.ends_with(":0"),
        "the real port is printed: {origin}"
    );

    let discovery: serde_json::Value =
        reqwest::get(format!("{origin}/.well-known/openid-configuration"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(discovery["issuer"], origin.as_str());

    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = child.0.try_wait().unwrap() {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "the sandbox did not exit after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(exit.code(), Some(0));
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "exactly one line on stdout");
}

#[test]
fn broken_fixture_makes_the_binary_exit_non_zero_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, "[[organizations]]\nid = \"o\"\nname = \"O\"\n[[organizations]]\nid = \"o\"\nname = \"P\"\n").unwrap();

    let output = Command::new(BIN)
        .args(["--in-memory", "--listen", "127.0.0.1:0", "--fixture"])
        .arg(&path)
        .output()
        .unwrap();

    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("[[organizations]] #2 (o)"), "{stderr}");
    assert!(stderr.contains("duplicate id"), "{stderr}");
}
