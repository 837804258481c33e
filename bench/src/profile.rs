//! "Where the time goes": `perf` samples this very process (CPU clock, with
//! DWARF call chains) while a load runs, and [`summarize`] groups the samples
//! into one line of the report.
//!
//! Each sample is given to one group, the first that applies:
//! - **load generator**: the bench's own HTTP client (a frame of `reqwest` or
//!   of hyper-util's client), which runs in the same process;
//! - **kernel**: the sample was taken in the kernel (TCP on loopback, epoll,
//!   futex wake-ups, the scheduler);
//! - otherwise the crate of the innermost frame that is not plumbing (the
//!   standard library, the allocator, libc, maps, futures, byte buffers, HTTP
//!   types, tower: see [`is_plumbing`]): a `memcpy` called by serde_json counts
//!   as serde_json's, a `malloc` or an `IndexMap` lookup in async-graphql's
//!   validation as async_graphql's. Rust symbols are read as perf demangles
//!   them; SQLite (bundled C) is named by its `sqlite3` prefix.
//!
//! Without `perf` (CI runs `--quick` on machines without it), or when it cannot
//! record, the line says so; the bench goes on.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

/// A directory to keep each profile in (`api-N.perf.data` and its
/// `perf script` text), for a closer look than the summary line.
pub const KEEP: &str = "RXDESK_BENCH_PERF_KEEP";

/// `CTL,ACK`: the control and acknowledgement FIFOs of a `perf record
/// --control fifo:CTL,ACK -D -1` started by hand (system-wide, say). The
/// window's largest signing batch enables it for its own duration only
/// ([`Recording`]), so a profile of the app holds that figure and nothing else.
/// Set with no perf holding the control FIFO, the felt group stops at its start
/// and says so ([`Recording::check`]).
pub const CONTROL: &str = "RXDESK_BENCH_PERF_CONTROL";
static KEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sampling frequency (Hz): about 3000 samples over 3 s on two cores.
const FREQUENCY: u32 = 499;
/// Groups named in the line; the rest is summed as "other".
const SHOWN: usize = 9;

/// Runs `work` while `perf` samples this process for `duration` (give
/// `work` the same duration), and returns the summary line, or why there is
/// none. Never fails: a missing profile is said, not raised.
pub async fn during<T>(duration: Duration, work: impl Future<Output = Result<T>>) -> String {
    match record(duration, work).await {
        Ok(line) => line,
        Err(e) => format!("not profiled ({e:#})"),
    }
}

async fn record<T>(duration: Duration, work: impl Future<Output = Result<T>>) -> Result<String> {
    let data = tempfile::Builder::new()
        .prefix("rxdesk-bench-perf-")
        .suffix(".data")
        .tempfile()?
        .into_temp_path();
    let data_path: PathBuf = data.to_path_buf();
    let kept = std::env::var_os(KEEP).map(PathBuf::from);
    // perf stops when `sleep` does; idle time takes no CPU-clock sample.
    let seconds = duration.as_secs_f64() + 1.0;
    let recorder = tokio::process::Command::new("perf")
        .args([
            "record",
            "-q",
            "-e",
            "cpu-clock",
            "-F",
            &FREQUENCY.to_string(),
        ])
        .args([
            "--call-graph",
            "dwarf,16384",
            "-p",
            &std::process::id().to_string(),
        ])
        .arg("-o")
        .arg(&data_path)
        .args(["--", "sleep", &format!("{seconds:.1}")])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let recorder = match recorder {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("perf is not installed; on Debian: apt-get install linux-perf")
        }
        Err(e) => return Err(e).context("perf could not start"),
    };
    // Let perf attach before the load starts.
    tokio::time::sleep(Duration::from_millis(500)).await;
    work.await.context("the profiled load run failed")?;
    let recorded = recorder.wait_with_output().await?;
    if !recorded.status.success() {
        bail!(
            "perf record failed: {}",
            first_line(&String::from_utf8_lossy(&recorded.stderr))
        );
    }
    // `--no-inline`: without it perf resolves inlined frames with addr2line,
    // which on the debug build a `--quick` run profiles took minutes for a
    // 0.5 s profile (0.3 s with it); a release build has no inline debug
    // information, so its figures read the same.
    let script = tokio::process::Command::new("perf")
        .args(["script", "--no-inline", "-F", "comm,tid,ip,sym,dso", "-i"])
        .arg(&data_path)
        .output()
        .await?;
    if !script.status.success() {
        bail!(
            "perf script failed: {}",
            first_line(&String::from_utf8_lossy(&script.stderr))
        );
    }
    if let Some(dir) = kept {
        let n = KEPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::fs::create_dir_all(&dir)?;
        std::fs::copy(&data_path, dir.join(format!("api-{n}.perf.data")))?;
        std::fs::write(dir.join(format!("api-{n}.perf.txt")), &script.stdout)?;
    }
    let summary =
        summarize(&String::from_utf8_lossy(&script.stdout)).context("perf recorded no sample")?;
    Ok(summary.line(duration))
}

/// A `perf record` enabled through [`CONTROL`]'s FIFOs until dropped; `None`
/// when the variable is not set. perf acknowledges each command, so what
/// follows `start` is recorded and what follows the drop is not.
#[derive(Debug)]
pub struct Recording {
    control: std::fs::File,
    ack: std::io::BufReader<std::fs::File>,
}

impl Recording {
    pub fn start() -> Result<Option<Self>> {
        match fifos()? {
            Some((control, ack)) => Self::open(&control, &ack).map(Some),
            None => Ok(None),
        }
    }

    /// Refuses at once a [`CONTROL`] that names no perf, before a run that
    /// would reach its recording only minutes later.
    pub fn check() -> Result<()> {
        match fifos()? {
            Some((control, _)) => ensure_reader(&control),
            None => Ok(()),
        }
    }

    /// Opens perf's two FIFOs and enables it. A control FIFO that no perf
    /// holds open is refused at once, naming what to start, rather than
    /// waiting for a reader that is not coming (opening a FIFO to write
    /// blocks until one is there).
    fn open(control: &Path, ack: &Path) -> Result<Self> {
        ensure_reader(control)?;
        let mut recording = Self {
            control: std::fs::OpenOptions::new()
                .write(true)
                .open(control)
                .with_context(|| format!("perf's control FIFO {}", control.display()))?,
            ack: std::io::BufReader::new(
                std::fs::File::open(ack)
                    .with_context(|| format!("perf's ack FIFO {}", ack.display()))?,
            ),
        };
        recording.command("enable")?;
        Ok(recording)
    }

    fn command(&mut self, command: &str) -> Result<()> {
        use std::io::{BufRead as _, Write as _};
        writeln!(self.control, "{command}")?;
        let mut ack = String::new();
        self.ack.read_line(&mut ack)?;
        Ok(())
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        // A profile that goes on recording says so by its length; the
        // figure itself is not touched by it.
        let _ = self.command("disable");
    }
}

/// [`CONTROL`]'s two paths, if it is set.
fn fifos() -> Result<Option<(PathBuf, PathBuf)>> {
    let Some(fifos) = std::env::var_os(CONTROL) else {
        return Ok(None);
    };
    parse_fifos(&fifos.to_string_lossy()).map(Some)
}

/// `CTL,ACK` as two paths.
fn parse_fifos(value: &str) -> Result<(PathBuf, PathBuf)> {
    let (control, ack) = value
        .split_once(',')
        .with_context(|| format!("{CONTROL} is CTL,ACK (two FIFO paths), not {value}"))?;
    Ok((PathBuf::from(control), PathBuf::from(ack)))
}

/// Whether some process holds `control` open to read: opening a FIFO to
/// write without blocking fails (ENXIO) when none does.
#[cfg(unix)]
fn ensure_reader(control: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(control)
    {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => bail!(
            "no perf reads the control FIFO {}: start `perf record --control fifo:CTL,ACK -D -1 …` \
             on these FIFOs first, or unset {CONTROL}",
            control.display()
        ),
        Err(e) => Err(e).with_context(|| format!("perf's control FIFO {}", control.display())),
    }
}

#[cfg(not(unix))]
fn ensure_reader(_control: &Path) -> Result<()> {
    bail!("{CONTROL}: perf's control FIFOs exist only on Linux")
}

fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message")
}

/// One frame of a sample's call chain, innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame<'a> {
    sym: &'a str,
    dso: &'a str,
}

/// The samples of a profile, grouped.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub samples: usize,
    /// (group, share of the samples in %), largest first.
    pub groups: Vec<(String, f64)>,
}

impl Summary {
    /// "perf, 2950 samples in 3 s: kernel 31 %, load generator 24 %, …".
    pub fn line(&self, duration: Duration) -> String {
        format!(
            "perf, {} CPU samples in {} s under the same load, by crate: {}",
            self.samples,
            duration.as_secs_f64(),
            self.by_crate()
        )
    }

    /// "kernel 31 %, load generator 24 %, …, other 5 %": the largest groups.
    pub fn by_crate(&self) -> String {
        let mut parts: Vec<String> = self
            .groups
            .iter()
            .take(SHOWN)
            .map(|(group, share)| format!("{group} {share:.0} %"))
            .collect();
        let other: f64 = self.groups.iter().skip(SHOWN).map(|(_, s)| s).sum();
        if other > 0.0 {
            parts.push(format!("other {other:.0} %"));
        }
        parts.join(", ")
    }
}

/// Groups the samples of `perf script -F comm,tid,ip,sym,dso` output (see
/// the module doc); `None` when it holds none.
pub fn summarize(script: &str) -> Option<Summary> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut samples = 0;
    for block in script.split("\n\n") {
        let frames: Vec<Frame<'_>> = block.lines().skip(1).filter_map(frame).collect();
        if frames.is_empty() {
            continue;
        }
        samples += 1;
        *counts.entry(group(&frames)).or_default() += 1;
    }
    if samples == 0 {
        return None;
    }
    let mut groups: Vec<(String, f64)> = counts
        .into_iter()
        .map(|(g, n)| (g, n as f64 * 100.0 / samples as f64))
        .collect();
    groups.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Some(Summary { samples, groups })
}

/// `    55d0c0a1b2c3 tokio::runtime::park+0x13 (/path/rxdesk-bench)`.
fn frame(line: &str) -> Option<Frame<'_>> {
    let line = line.trim();
    let (_ip, rest) = line.split_once(' ')?;
    let (sym, dso) = match rest.rfind(" (") {
        Some(at) => (&rest[..at], rest[at + 2..].trim_end_matches(')')),
        None => (rest, ""),
    };
    // `+0x13` offsets and legacy `::h0123456789abcdef` hashes.
    let sym = sym.rsplit_once("+0x").map_or(sym, |(s, _)| s);
    let sym = match sym.rsplit_once("::h") {
        Some((s, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => s,
        _ => sym,
    };
    Some(Frame { sym, dso })
}

fn group(frames: &[Frame<'_>]) -> String {
    let client = |f: &Frame<'_>| {
        ["reqwest::", "hyper_util::client::", "hyper::client::"]
            .iter()
            .any(|client| f.sym.contains(client))
    };
    if frames.iter().any(client) {
        return "load generator".into();
    }
    if frames[0].dso.contains("kernel") {
        return "kernel".into();
    }
    frames
        .iter()
        .map(|f| crate_of(f.sym))
        .find(|c| !is_plumbing(c))
        .unwrap_or_else(|| {
            let leaf = crate_of(frames[0].sym);
            if leaf == "[unknown]" {
                "unknown (no symbols)".into()
            } else {
                leaf
            }
        })
}

/// The crate a demangled symbol belongs to: `<async_graphql::X as Y>::f` →
/// `async_graphql`, `sqlite3VdbeExec` → `SQLite`, `malloc` → `malloc`.
fn crate_of(sym: &str) -> String {
    // `<F as axum::handler::Handler<…>>::call`: a generic self type is named
    // by its trait.
    let sym_or_trait = match sym.strip_prefix('<').and_then(|s| s.split_once(" as ")) {
        Some((self_type, rest)) if !self_type.contains("::") => rest,
        _ => sym,
    };
    let s = sym_or_trait.trim_start_matches(['<', '&', '*', '_', ' ']);
    let s = s
        .strip_prefix("mut ")
        .or_else(|| s.strip_prefix("const "))
        .or_else(|| s.strip_prefix("dyn "))
        .unwrap_or(s)
        .trim_start_matches(['<', '&']);
    if s.starts_with("sqlite3") {
        return "SQLite".into();
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if end == 0 || !s[end..].starts_with("::") {
        // Not a Rust path: a C function (libc, the allocator) or `[unknown]`.
        return sym.to_owned();
    }
    s[..end].to_owned()
}

/// Frames whose cost belongs to their caller: the standard library, the
/// allocator, and the small crates every framework is built of (maps, futures,
/// byte buffers, HTTP types, tower's services), so that a lookup in an
/// `IndexMap` made by async-graphql counts as async-graphql's.
fn is_plumbing(krate: &str) -> bool {
    // A versioned C symbol (`cfree@GLIBC_2.2.5`) is its name.
    let krate = krate.split('@').next().unwrap_or(krate);
    const PLUMBING: &[&str] = &[
        "core",
        "alloc",
        "std",
        "hashbrown",
        "indexmap",
        "memchr",
        "compiler_builtins",
        "futures_util",
        "futures_core",
        "futures_task",
        "futures_channel",
        "pin_project_lite",
        "atomic_waker",
        "slab",
        "smallvec",
        "bytes",
        "http",
        "http_body",
        "http_body_util",
        "tower",
        "tower_service",
        "tower_layer",
        "axum_core",
        "tracing",
        "tracing_core",
        "[unknown]",
        "malloc",
        "free",
        "realloc",
        "calloc",
        "cfree",
        "_int_malloc",
        "_int_free",
        "_int_realloc",
        "malloc_consolidate",
        "unlink_chunk",
    ];
    PLUMBING.contains(&krate)
        || krate.starts_with("__mem")
        || krate.starts_with("__strlen")
        || krate.starts_with("__rust")
        || krate.starts_with("__libc")
        || krate.starts_with("pthread_")
        || krate.starts_with("__pthread")
        || krate.starts_with("__GI_")
        // mimalloc, the sandbox's allocator.
        || krate.starts_with("mi_")
        || krate.starts_with("_mi_")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A FIFO made with `mkfifo` in `dir`.
    fn fifo(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        path
    }

    #[test]
    fn the_control_variable_names_the_control_fifo_then_the_ack_fifo() {
        let fifos = parse_fifos("/tmp/ctl,/tmp/ack").unwrap();

        assert_eq!(
            fifos,
            (PathBuf::from("/tmp/ctl"), PathBuf::from("/tmp/ack"))
        );
    }

    #[test]
    fn a_control_variable_without_two_paths_is_refused_naming_the_form() {
        let error = parse_fifos("/tmp/ctl").unwrap_err().to_string();

        assert!(error.contains("CTL,ACK"), "{error}");
    }

    #[test]
    fn a_control_fifo_no_perf_reads_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (control, ack) = (fifo(dir.path(), "ctl"), fifo(dir.path(), "ack"));

        // On a thread: were the check missing, opening the FIFO would wait forever.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(Recording::open(&control, &ack).map(|_| ())));
        let answer = rx.recv_timeout(Duration::from_secs(10));

        assert!(answer.is_ok(), "opening the FIFOs waited for a reader");
        let error = answer.unwrap().unwrap_err().to_string();

        assert!(error.contains("no perf reads the control FIFO"), "{error}");
        assert!(error.contains(CONTROL), "{error}");
    }

    const SCRIPT: &str = "\
rxdesk-bench 10/11 
\t    55d0c0a1b2c3 __memmove_avx_unaligned_erms+0x20 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    55d0c0a1b2c4 serde_json::ser::format_escaped_str+0x44 (/w/target/release/rxdesk-bench)
\t    55d0c0a1b2c5 tokio::runtime::task::raw::poll+0x1 (/w/target/release/rxdesk-bench)

rxdesk-bench 10/12 
\tffffffff8e0a1b2c tcp_sendmsg+0x1 ([kernel.kallsyms])
\t    55d0c0a1b2c5 tokio::net::tcp::stream::TcpStream::poll_write+0x1 (/w/target/release/rxdesk-bench)

rxdesk-bench 10/12 
\t    55d0c0a1b2c6 malloc+0x9 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    55d0c0a1b2c7 <reqwest::async_impl::client::Pending as core::future::future::Future>::poll+0x1 (/w/rxdesk-bench)

rxdesk-bench 10/12 
\t    55d0c0a1b2c8 core::ptr::drop_in_place<async_graphql::value::ConstValue>+0x3 (/w/rxdesk-bench)
\t    55d0c0a1b2c9 <async_graphql::validation::rules::Foo as async_graphql::validation::visitor::Visitor>::enter_field::h0123456789abcdef+0x1 (/w/rxdesk-bench)

rxdesk-bench 10/12 
\t    55d0c0a1b2ca sqlite3VdbeExec+0x9 (/w/rxdesk-bench)
\t    55d0c0a1b2cb rusqlite::statement::Statement::step+0x1 (/w/rxdesk-bench)
";

    #[test]
    fn samples_are_grouped_by_load_generator_kernel_then_crate_of_the_innermost_owner() {
        let summary = summarize(SCRIPT).unwrap();

        assert_eq!(summary.samples, 5);
        let mut groups: Vec<&str> = summary.groups.iter().map(|(g, _)| g.as_str()).collect();
        groups.sort_unstable();
        assert_eq!(
            groups,
            [
                "SQLite",
                "async_graphql",
                "kernel",
                "load generator",
                "serde_json"
            ]
        );
        assert!(summary.groups.iter().all(|(_, share)| *share == 20.0));
    }

    #[test]
    fn allocator_frames_count_as_their_callers() {
        for allocator in [
            "cfree@GLIBC_2.2.5",
            "_mi_page_malloc_zero",
            "mi_free",
            "malloc",
        ] {
            assert!(is_plumbing(allocator), "{allocator}");
        }
        assert!(!is_plumbing("serde_json"));
    }

    #[test]
    fn a_script_without_samples_has_no_summary() {
        assert_eq!(summarize(""), None);
        assert_eq!(summarize("\n\n"), None);
    }

    #[test]
    fn the_line_names_the_largest_groups_and_sums_the_rest() {
        let summary = Summary {
            samples: 100,
            groups: (0..12).map(|i| (format!("g{i}"), 100.0 / 12.0)).collect(),
        };

        let line = summary.line(Duration::from_secs(3));

        assert!(line.starts_with("perf, 100 CPU samples in 3 s"), "{line}");
        assert!(line.contains("g0 8 %"), "{line}");
        assert!(!line.contains("g9 "), "{line}");
        assert!(line.ends_with("other 25 %"), "{line}");
    }

    #[test]
    fn crates_are_read_from_demangled_rust_paths_and_c_names() {
        assert_eq!(crate_of("tokio::runtime::park"), "tokio");
        assert_eq!(
            crate_of("<hyper::proto::h1::Conn<I,B,T> as X>::poll"),
            "hyper"
        );
        assert_eq!(crate_of("&mut serde_json::de::Deserializer"), "serde_json");
        assert_eq!(
            crate_of("<F as axum::handler::Handler<(M,T1),S>>::call::{{closure}}"),
            "axum"
        );
        assert_eq!(crate_of("sqlite3VdbeExec"), "SQLite");
        assert_eq!(crate_of("malloc"), "malloc");
        assert_eq!(crate_of("[unknown]"), "[unknown]");
    }
}
