//! Idle memory: the proportional set size (`Pss` of `/proc/<pid>/smaps_rollup`)
//! summed over the app's process and every descendant (WebKitWebProcess,
//! WebKitNetworkProcess…), read after the window has idled — for Rx Desk
//! signed in with one patient open, for the reference the empty Tauri app's
//! window. Each process's share is split by kind, from the same rollup:
//! anonymous memory (heaps: the JavaScript and DOM heap, painted layers, Rust's
//! allocations), file-backed pages (the code and data of the binary and the
//! libraries it touched) and shared memory. The runs themselves are driven by
//! [`crate::gui`].

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

/// One reading: the total in MiB and each process's share.
#[derive(Debug, Clone)]
pub struct Reading {
    pub total_mib: f64,
    /// Per process, largest first.
    pub processes: Vec<Share>,
}

/// One process's PSS in MiB, whole and by kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    pub name: String,
    pub mib: f64,
    pub anon_mib: f64,
    pub file_mib: f64,
    pub shmem_mib: f64,
}

impl Reading {
    /// "WebKitWebProces 215.8 (anon 150.2, file 60.1, shmem 5.5), …" for the
    /// report's notes.
    pub fn breakdown(&self) -> String {
        self.processes
            .iter()
            .map(|p| {
                format!(
                    "{} {:.1} (anon {:.1}, file {:.1}, shmem {:.1})",
                    p.name, p.mib, p.anon_mib, p.file_mib, p.shmem_mib
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The PSS of the running process whose executable is `exe`, and of its descendants.
pub fn read(exe: &Path) -> Result<Reading> {
    let root = single_pid_of(exe)?;
    let mut processes = Vec::new();
    let mut total_kib = 0u64;
    for pid in with_descendants(root) {
        // A process may end between the listing and the read; it then holds nothing.
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            continue;
        };
        let kib = pss_kib(&rollup).with_context(|| format!("no Pss line for pid {pid}"))?;
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .unwrap_or_default()
            .trim()
            .to_owned();
        total_kib += kib;
        let mib = |field: &str| rollup_kib(&rollup, field).unwrap_or(0) as f64 / 1024.0;
        processes.push(Share {
            name,
            mib: kib as f64 / 1024.0,
            anon_mib: mib("Pss_Anon:"),
            file_mib: mib("Pss_File:"),
            shmem_mib: mib("Pss_Shmem:"),
        });
    }
    processes.sort_by(|a, b| b.mib.total_cmp(&a.mib));
    Ok(Reading {
        total_mib: total_kib as f64 / 1024.0,
        processes,
    })
}

/// The `Pss:` line of an `smaps_rollup`, in KiB.
pub fn pss_kib(rollup: &str) -> Option<u64> {
    rollup_kib(rollup, "Pss:")
}

/// The line of an `smaps_rollup` starting with `field` (with its colon), in KiB.
pub fn rollup_kib(rollup: &str, field: &str) -> Option<u64> {
    rollup
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Running processes whose executable is `exe`.
pub fn pids_of(exe: &Path) -> Vec<u32> {
    let exe = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_owned());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe))
        .collect()
}

fn single_pid_of(exe: &Path) -> Result<u32> {
    match pids_of(exe).as_slice() {
        [pid] => Ok(*pid),
        [] => bail!("no running process of {}", exe.display()),
        many => bail!("{} processes of {}: {many:?}", many.len(), exe.display()),
    }
}

/// Waits until no process of `exe` runs (the next launch must not find one:
/// single-instance would hand it over).
pub async fn wait_gone(exe: &Path, timeout: Duration) -> Result<()> {
    let deadline = tokio::time::Instant::now() + timeout;
    while !pids_of(exe).is_empty() {
        if tokio::time::Instant::now() > deadline {
            bail!("{} still runs after {timeout:?}", exe.display());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// `root` and every process descended from it.
pub fn with_descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for pid in entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()) {
            if let Some(parent) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| parent_pid(&stat))
            {
                children.entry(parent).or_default().push(pid);
            }
        }
    }
    let mut found = Vec::new();
    let mut queue = VecDeque::from([root]);
    while let Some(pid) = queue.pop_front() {
        found.push(pid);
        queue.extend(children.get(&pid).into_iter().flatten());
    }
    found
}

/// The value of `name` in the environment some descendant of the running
/// `exe` started with (`/proc/<pid>/environ`) — what its web process inherited.
pub fn descendant_env(exe: &Path, name: &str) -> Option<String> {
    let root = single_pid_of(exe).ok()?;
    with_descendants(root)
        .into_iter()
        .skip(1)
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/environ")).ok())
        .find_map(|environ| env_value(&environ, name))
}

/// `name`'s value in an `environ` block (NUL-separated `NAME=value`).
pub fn env_value(environ: &[u8], name: &str) -> Option<String> {
    environ.split(|b| *b == 0).find_map(|entry| {
        let entry = std::str::from_utf8(entry).ok()?;
        let (key, value) = entry.split_once('=')?;
        (key == name).then(|| value.to_owned())
    })
}

/// The parent pid from a `/proc/<pid>/stat` line (after the `(comm)`, which
/// may hold spaces and parentheses).
pub fn parent_pid(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Where an executable lives once canonicalized (for messages).
pub fn canonical(exe: &Path) -> PathBuf {
    std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_is_found_in_an_environ_block_by_its_whole_name() {
        let environ = b"HOME=/home/pia\0WEBKIT_SKIA_ENABLE_CPU_RENDERING_X=2\0WEBKIT_SKIA_ENABLE_CPU_RENDERING=1\0";
        assert_eq!(
            env_value(environ, "WEBKIT_SKIA_ENABLE_CPU_RENDERING").as_deref(),
            Some("1")
        );
        assert_eq!(env_value(environ, "DISPLAY"), None);
    }

    #[test]
    fn the_pss_line_is_read_in_kib() {
        let rollup = "55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss: 2048 kB\nPss: 1536 kB\nPss_Anon: 100 kB\n";
        assert_eq!(pss_kib(rollup), Some(1536));
        assert_eq!(pss_kib("Rss: 1 kB\n"), None);
    }

    #[test]
    fn the_kinds_of_pss_are_read_apart_from_the_whole() {
        let rollup = "Pss: 1536 kB\nPss_Dirty: 900 kB\nPss_Anon: 1024 kB\nPss_File: 500 kB\nPss_Shmem: 12 kB\n";
        assert_eq!(rollup_kib(rollup, "Pss_Anon:"), Some(1024));
        assert_eq!(rollup_kib(rollup, "Pss_File:"), Some(500));
        assert_eq!(rollup_kib(rollup, "Pss_Shmem:"), Some(12));
        assert_eq!(pss_kib(rollup), Some(1536));
    }

    #[test]
    fn the_parent_pid_follows_a_command_name_with_spaces_and_parentheses() {
        assert_eq!(
            parent_pid("4242 (Web (Content) x) S 17 4242 4242 0"),
            Some(17)
        );
    }

    #[test]
    fn this_process_is_found_by_its_executable_with_its_memory() {
        let exe = std::env::current_exe().unwrap();
        assert!(pids_of(&exe).contains(&std::process::id()));
        let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap();
        assert!(pss_kib(&rollup).unwrap() > 0);
    }
}
