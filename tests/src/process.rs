//! Child processes the suite starts and must always stop: each runs in its own
//! process group with its output appended to a log file, and dropping its
//! [`Guard`] terminates the whole group (SIGTERM, then SIGKILL after a grace
//! period) so no Xvfb, keyring, driver, app or browser outlives a run, even one
//! that failed half-way.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// How long a group gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(3);

/// A running child in its own process group; dropping it ends the group.
#[derive(Debug)]
pub struct Guard {
    name: String,
    child: Child,
    /// Whether the child leads its own group (else only the child is signalled).
    own_group: bool,
}

impl Guard {
    /// Starts `command` as `name` in a new process group, stdin closed, stdout
    /// and stderr appended to `log`.
    pub fn spawn(name: &str, command: &mut Command, log: &Path) -> Result<Self> {
        let out = append(log)?;
        let err = out.try_clone()?;
        Self::start(name, command.stdout(out).stderr(err), true)
    }

    /// Like [`Guard::spawn`] but stdout is piped: returns the guard, the first
    /// stdout line satisfying `ready` (waiting at most `timeout`), and copies
    /// the rest of stdout to `log` in the background.
    pub fn spawn_until_line(
        name: &str,
        command: &mut Command,
        log: &Path,
        timeout: Duration,
        ready: impl Fn(&str) -> bool + Send + 'static,
    ) -> Result<(Self, String)> {
        Self::until_line(name, command, log, timeout, ready, true)
    }

    /// [`Guard::spawn_until_line`], but the child stays in the caller's
    /// process group, so whoever ends that group ends it too (a helper of a
    /// program that may be killed without the chance to clean up).
    pub fn spawn_until_line_in_my_group(
        name: &str,
        command: &mut Command,
        log: &Path,
        timeout: Duration,
        ready: impl Fn(&str) -> bool + Send + 'static,
    ) -> Result<(Self, String)> {
        Self::until_line(name, command, log, timeout, ready, false)
    }

    fn until_line(
        name: &str,
        command: &mut Command,
        log: &Path,
        timeout: Duration,
        ready: impl Fn(&str) -> bool + Send + 'static,
        own_group: bool,
    ) -> Result<(Self, String)> {
        let err = append(log)?;
        let mut guard = Self::start(name, command.stdout(Stdio::piped()).stderr(err), own_group)?;
        let stdout = guard
            .child
            .stdout
            .take()
            .with_context(|| format!("{name}: no stdout pipe"))?;
        let sink = append(log)?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || forward_stdout(stdout, sink, &tx, &ready));
        let deadline = Instant::now() + timeout;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => return Ok((guard, line)),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(status) = guard.child.try_wait()? {
                        bail!(
                            "{name} exited ({status}) before it was ready; see {}",
                            log.display()
                        );
                    }
                    if Instant::now() > deadline {
                        bail!("{name} not ready after {timeout:?}; see {}", log.display());
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!(
                        "{name} closed its stdout before it was ready; see {}",
                        log.display()
                    )
                }
            }
        }
    }

    /// Starts `command` (its stdout/stderr already set) with a stdin pipe the
    /// caller writes to and closes.
    pub fn spawn_with_stdin(name: &str, command: &mut Command) -> Result<(Self, ChildStdin)> {
        let mut child = command
            .stdin(Stdio::piped())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {name} ({:?})", command.get_program()))?;
        let stdin = child
            .stdin
            .take()
            .with_context(|| format!("{name}: no stdin pipe"))?;
        Ok((
            Self {
                name: name.to_owned(),
                child,
                own_group: true,
            },
            stdin,
        ))
    }

    fn start(name: &str, command: &mut Command, own_group: bool) -> Result<Self> {
        command.stdin(Stdio::null());
        if own_group {
            command.process_group(0);
        }
        let child = command
            .spawn()
            .with_context(|| format!("cannot start {name} ({:?})", command.get_program()))?;
        Ok(Self {
            name: name.to_owned(),
            child,
            own_group,
        })
    }

    /// The child's pid (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the child itself is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The child's exit status once it has exited (`None` while it runs).
    pub fn try_wait(&mut self) -> Result<Option<std::process::ExitStatus>> {
        Ok(self.child.try_wait()?)
    }

    /// What the guard runs, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Ends the process group now (what dropping does).
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let Ok(pid) = i32::try_from(self.child.id()) else {
            return;
        };
        let group = Pid::from_raw(pid);
        if !self.own_group {
            // Only the child: its group is the caller's own.
            let _ = kill(group, Signal::SIGTERM);
            let deadline = Instant::now() + GRACE;
            while Instant::now() < deadline {
                if matches!(self.child.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
            return;
        }
        // The group may already be gone: nothing to do then.
        let _ = killpg(group, Signal::SIGTERM);
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) && killpg(group, None).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// Every process descended from `ancestor` (children, theirs, …), read from
/// `/proc`; empty when it has none or `/proc` cannot be read.
pub fn descendants(ancestor: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, parent_of(pid)?)))
        .collect();
    let mut found = vec![ancestor];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        next += 1;
    }
    found.remove(0);
    found
}

/// The parent of `pid` (`/proc/<pid>/stat`'s fourth field, read after the
/// command name, which may hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// Whether process `pid` runs `binary` (its `/proc/<pid>/exe`).
pub fn runs(pid: u32, binary: &Path) -> bool {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let binary = binary.canonicalize().unwrap_or_else(|_| binary.to_owned());
    exe.is_some_and(|exe| exe == binary)
}

/// Whether `pid` still runs: it exists and is not a zombie waiting for its
/// parent to reap it (a killed process is gone for every purpose then).
pub fn is_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, after_name) = stat.rsplit_once(')')?;
            after_name.split_whitespace().next().map(|s| s != "Z")
        })
        .unwrap_or(false)
}

/// SIGKILL to `pid` alone: no handler runs, nothing is flushed.
pub fn kill_hard(pid: u32) -> Result<()> {
    let raw = i32::try_from(pid).context("a process id out of range")?;
    kill(Pid::from_raw(raw), Signal::SIGKILL).with_context(|| format!("SIGKILL to {pid}"))
}

/// Opens `path` for appending, creating it and its directory.
pub fn append(path: &Path) -> Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

fn forward_stdout(
    stdout: ChildStdout,
    mut sink: File,
    tx: &mpsc::Sender<String>,
    ready: &dyn Fn(&str) -> bool,
) {
    let mut found = false;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        // A full disk only loses log lines; the run goes on.
        let _ = writeln!(sink, "{line}");
        if !found && ready(&line) {
            found = true;
            let _ = tx.send(line);
        }
    }
}

/// A free TCP port on 127.0.0.1 (bound then released: for programs that cannot
/// report the port they picked).
pub fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    Ok(listener.local_addr()?.port())
}

/// Polls `check` every 100 ms until it returns `Some`, failing after `timeout`
/// with `what` in the message.
pub async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match check().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => last_error = Some(e),
        }
        if tokio::time::Instant::now() > deadline {
            return Err(match last_error {
                Some(e) => e.context(format!("timed out after {timeout:?} waiting for {what}")),
                None => anyhow::anyhow!("timed out after {timeout:?} waiting for {what}"),
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_grandchild_is_found_by_its_binary_and_killed_hard() {
        let mut shell = Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let sleep = which("sleep");
        let deadline = Instant::now() + Duration::from_secs(5);
        let pid = loop {
            let found = descendants(shell.id())
                .into_iter()
                .find(|pid| runs(*pid, &sleep));
            if let Some(pid) = found {
                break pid;
            }
            assert!(Instant::now() < deadline, "sleep never showed up under sh");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(is_alive(pid));

        kill_hard(pid).unwrap();

        // sh reaps it; until then it is a zombie, which counts as gone.
        let deadline = Instant::now() + Duration::from_secs(5);
        while is_alive(pid) {
            assert!(Instant::now() < deadline, "the killed process lives on");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(shell.wait().unwrap().success());
    }

    #[test]
    fn a_process_with_no_children_has_no_descendants() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        assert!(descendants(child.id()).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
    }

    fn which(program: &str) -> std::path::PathBuf {
        std::env::var_os("PATH")
            .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
            .unwrap()
            .canonicalize()
            .unwrap()
    }
}
