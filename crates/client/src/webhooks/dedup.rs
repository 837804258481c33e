//! [`Deduplicator`]: remembers the last N event ids, so an event the network
//! delivers twice (it may), or a captured delivery replayed within the
//! verifier's event window, is handled once. Bounded: the oldest id is forgotten
//! when a new one would exceed the capacity. In memory ([`Deduplicator::new`]),
//! or kept in a file ([`Deduplicator::open`]) so the ids seen survive a restart
//! of the receiver.
//!
//! The file is one id a line, appended (and synced to disk) before an id is
//! reported new, and rewritten whole — through a temporary file renamed over
//! it — at open and whenever it reaches twice the capacity, so it never holds
//! more than `2 × capacity` lines. One receiver process per file.

use std::collections::{HashSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use super::error::WebhookError;

/// The last `capacity` distinct event ids seen.
#[derive(Debug)]
pub struct Deduplicator {
    seen: HashSet<String>,
    order: VecDeque<String>,
    capacity: usize,
    journal: Option<Journal>,
}

/// The file the ids are kept in, open for appending.
#[derive(Debug)]
struct Journal {
    path: PathBuf,
    file: File,
    lines: usize,
}

impl Deduplicator {
    /// Remembers up to `capacity` ids (at least one), in memory: forgotten when
    /// the process ends.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            seen: HashSet::with_capacity(capacity),
            order: VecDeque::with_capacity(capacity),
            capacity,
            journal: None,
        }
    }

    /// Remembers up to `capacity` ids (at least one) in the file at `path`,
    /// created when missing: the ids it already holds are seen. A last line cut
    /// short (the process stopped mid-write) is dropped.
    pub fn open(path: impl AsRef<Path>, capacity: usize) -> std::io::Result<Self> {
        let path = path.as_ref().to_owned();
        let mut memory = Self::new(capacity);
        match File::open(&path) {
            Ok(file) => {
                let mut reader = BufReader::new(file);
                let mut line = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 {
                        break;
                    }
                    // No newline: the last write was cut short.
                    let Some(id) = line.strip_suffix('\n') else {
                        break;
                    };
                    if !id.is_empty() {
                        memory.remember(id);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let (temporary, file) = write_beside(&path, &memory.order)?;
        std::fs::rename(&temporary, &path)?;
        memory.journal = Some(Journal {
            path,
            file,
            lines: memory.order.len(),
        });
        Ok(memory)
    }

    /// `Ok(true)` the first time `id` is seen (among the ids remembered),
    /// `Ok(false)` for a duplicate. Kept in a file, the id is on disk before
    /// `true` is answered; when it cannot be written the answer is
    /// [`WebhookError::SeenStore`] (a `503`: the network sends the event again)
    /// and the id is not remembered. An id holding a line break is refused as
    /// [`WebhookError::MalformedEvent`].
    pub fn first_time(&mut self, id: &str) -> Result<bool, WebhookError> {
        if self.seen.contains(id) {
            return Ok(false);
        }
        if id.is_empty() || id.contains(['\n', '\r']) {
            return Err(WebhookError::MalformedEvent(
                "the event id is empty or holds a line break".to_owned(),
            ));
        }
        if let Some(journal) = &mut self.journal {
            journal
                .append(id)
                .map_err(|e| WebhookError::SeenStore(e.to_string()))?;
        }
        self.remember(id);
        self.compact_if_full();
        Ok(true)
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    fn remember(&mut self, id: &str) {
        if self.seen.contains(id) {
            return;
        }
        if self.order.len() == self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.seen.remove(&oldest);
        }
        self.seen.insert(id.to_owned());
        self.order.push_back(id.to_owned());
    }

    /// Rewrites the file with the ids remembered once it holds twice as many
    /// lines. A failure leaves the longer file, which still holds every id: it
    /// is only reported.
    fn compact_if_full(&mut self) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        if journal.lines < self.capacity.saturating_mul(2) {
            return;
        }
        match rewrite(&journal.path, &self.order, &mut journal.file) {
            Ok(()) => journal.lines = self.order.len(),
            Err(e) => {
                tracing::warn!(path = %journal.path.display(), error = %e, "the seen webhook ids could not be compacted");
            }
        }
    }
}

impl Journal {
    fn append(&mut self, id: &str) -> std::io::Result<()> {
        self.file.write_all(format!("{id}\n").as_bytes())?;
        self.file.sync_data()?;
        self.lines += 1;
        Ok(())
    }
}

/// Writes `ids` to a temporary file beside `path` and syncs it: its path, and
/// the file, open for writing at its end (after a rename, `path`'s handle).
fn write_beside(path: &Path, ids: &VecDeque<String>) -> std::io::Result<(PathBuf, File)> {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".tmp");
    let temporary = path.with_file_name(name);
    let mut file = File::create(&temporary)?;
    let mut text = String::with_capacity(ids.iter().map(|id| id.len() + 1).sum());
    for id in ids {
        text.push_str(id);
        text.push('\n');
    }
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    Ok((temporary, file))
}

/// Replaces the file at `path`, open as `current`, with one holding only `ids`;
/// `current` becomes the new file's handle. The old handle is closed before the
/// rename, not after: Windows replaces no file that is open where the rename
/// has no POSIX semantics (Wine, FAT and network drives). A failed rename goes
/// back to appending to the old file, which still holds every id.
fn rewrite(path: &Path, ids: &VecDeque<String>, current: &mut File) -> std::io::Result<()> {
    let (temporary, file) = write_beside(path, ids)?;
    drop(std::mem::replace(current, file));
    if let Err(e) = std::fs::rename(&temporary, path) {
        *current = OpenOptions::new().append(true).open(path)?;
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    Ok(())
}

impl Default for Deduplicator {
    /// Ten thousand ids, in memory: hours of a busy clinic's events.
    fn default() -> Self {
        Self::new(10_000)
    }
}

#[cfg(test)]
mod tests {
    use super::Deduplicator;

    #[test]
    fn an_id_is_new_once() {
        let mut seen = Deduplicator::new(8);
        assert_eq!(seen.first_time("01A"), Ok(true));
        assert_eq!(seen.first_time("01A"), Ok(false));
        assert_eq!(seen.first_time("01B"), Ok(true));
    }

    #[test]
    fn the_oldest_id_is_forgotten_past_the_capacity() {
        let mut seen = Deduplicator::new(2);
        for id in ["01A", "01B", "01C"] {
            assert_eq!(seen.first_time(id), Ok(true));
        }
        assert_eq!(seen.len(), 2);
        assert_eq!(seen.first_time("01C"), Ok(false));
        assert_eq!(seen.first_time("01A"), Ok(true), "forgotten, so new again");
    }
}
