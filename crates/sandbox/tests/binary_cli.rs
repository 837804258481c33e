//! The `rxdesk-sandbox` binary: prints exactly one "listening" line with the
//! real port, serves discovery, and exits 0 on SIGTERM; with `--control`, a
//! second line names the control endpoint, and the link flags are in force; a
//! broken fixture or a control address off loopback makes it exit non-zero with
//! a message naming the problem.

use std::process::Command;
// The Unix-only tests (SIGTERM) read the binary's output as it runs.
#[cfg(unix)]
use std::{
    io::{BufRead as _, BufReader, Read as _},
    process::Stdio,
    time::{Duration, Instant},
};

const BIN: &str = env!("CARGO_BIN_EXE_rxdesk-sandbox");

/// Kills the child this test started if an assertion fails before it exits.
#[cfg(unix)]
struct Reap(std::process::Child);

#[cfg(unix)]
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

    rxdesk_testkit::install_crypto();
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

/// Sends SIGTERM and waits (at most 10 s) for the exit code.
#[cfg(unix)]
async fn terminate(child: &mut Reap) -> Option<i32> {
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(exit) = child.0.try_wait().unwrap() {
            return exit.code();
        }
        assert!(
            Instant::now() < deadline,
            "the sandbox did not exit after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(unix)]
#[tokio::test]
async fn with_control_a_second_line_names_the_control_endpoint_and_the_link_flags_apply() {
    let mut child = Reap(
        Command::new(BIN)
            .args([
                "--in-memory",
                "--listen",
                "127.0.0.1:0",
                "--control",
                "127.0.0.1:0",
                "--link",
                "clinic",
                "--faults",
                "5%",
                "--fault-seed",
                "7",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();

    assert!(
        first.starts_with("rxdesk-sandbox listening on http://127.0.0.1:"),
        "{first:?}"
    );
    let (control, token_file) = second
        .trim_end()
        .strip_prefix("rxdesk-sandbox control on ")
        .and_then(|rest| rest.split_once(" token file "))
        .unwrap_or_else(|| panic!("unexpected second line {second:?}"));
    assert!(control.starts_with("http://127.0.0.1:"), "{control}");
    let token = std::fs::read_to_string(token_file).unwrap();
    rxdesk_testkit::install_crypto();
    let link: serde_json::Value = reqwest::Client::new()
        .get(format!("{control}/link"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        link["settings"]["latency"],
        serde_json::json!({ "ms": 60, "jitter_ms": 20 })
    );
    assert_eq!(link["settings"]["seed"], 7);
    let reset_after = link["settings"]["faults"]["reset_after"].as_f64().unwrap();
    assert!((reset_after - 0.05 / 6.0).abs() < 1e-9, "{link}");
    assert_eq!(terminate(&mut child).await, Some(0));
}

#[cfg(unix)]
#[tokio::test]
async fn the_control_on_line_names_the_token_file_and_never_the_token() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Reap(
        Command::new(BIN)
            .args([
                "--listen",
                "127.0.0.1:0",
                "--control",
                "127.0.0.1:0",
                "--data",
            ])
            .arg(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();

    let file = dir.path().join("control.token");
    let token = std::fs::read_to_string(&file).unwrap();
    assert!(
        second.starts_with("rxdesk-sandbox control on http://127.0.0.1:"),
        "{second:?}"
    );
    assert!(
        second
            .trim_end()
            .ends_with(&format!(" token file {}", file.display())),
        "{second:?}"
    );
    assert!(!token.is_empty());
    assert!(!second.contains(&token), "the token is printed: {second:?}");
    assert!(!first.contains(&token));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    assert_eq!(terminate(&mut child).await, Some(0));
}

#[test]
fn a_control_address_off_loopback_stops_the_binary() {
    let output = Command::new(BIN)
        .args([
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--control",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();

    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[test]
fn a_bad_faults_flag_is_refused_naming_it() {
    let output = Command::new(BIN)
        .args(["--in-memory", "--faults", "reset_after=150%"])
        .output()
        .unwrap();

    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--faults"), "{stderr}");
}
