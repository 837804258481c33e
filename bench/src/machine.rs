//! The machine a run measured on, for the report's header line: CPUs
//! (`nproc`), CPU model (`/proc/cpuinfo`), memory (`/proc/meminfo`) and OS
//! (`/etc/os-release`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// CPUs this process may run on (what `nproc` prints).
    pub cpus: usize,
    pub cpu_model: String,
    pub memory_gib: f64,
    pub os: String,
}

impl Machine {
    /// This machine.
    pub fn detect() -> Self {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        Self {
            cpus: std::thread::available_parallelism().map_or(0, usize::from),
            cpu_model: cpu_model(&read("/proc/cpuinfo")).unwrap_or_else(|| "unknown CPU".into()),
            memory_gib: memory_kib(&read("/proc/meminfo")).map_or(0.0, |k| k / 1024.0 / 1024.0),
            os: os_name(&read("/etc/os-release")).unwrap_or_else(|| std::env::consts::OS.into()),
        }
    }

    /// "2 CPUs (AMD EPYC …), 23.4 GiB, Debian GNU/Linux 12 (bookworm)"
    pub fn describe(&self) -> String {
        format!(
            "{} CPUs ({}), {:.1} GiB memory, {}",
            self.cpus, self.cpu_model, self.memory_gib, self.os
        )
    }
}

fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn memory_kib(meminfo: &str) -> Option<f64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

fn os_name(os_release: &str) -> Option<String> {
    os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_is_read_from_proc_and_os_release() {
        assert_eq!(
            cpu_model("processor\t: 0\nmodel name\t: AMD  EPYC 7B13\n").as_deref(),
            Some("AMD EPYC 7B13")
        );
        assert_eq!(
            memory_kib("MemTotal:       24576000 kB\n"),
            Some(24_576_000.0)
        );
        assert_eq!(
            os_name("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
    }

    #[test]
    fn this_machine_has_cpus() {
        assert!(Machine::detect().cpus >= 1);
    }
}
