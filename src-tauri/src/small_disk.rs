//! Tests only: a small tmpfs to fill, for what the app does on a full disk
//! (ENOSPC). Mounting needs root (or a user namespace); where it is refused
//! the caller says so and skips.
#![allow(clippy::unwrap_used)]

/// A tmpfs of `size` mounted on a new directory, or why not (mounting
/// needs root, or a user namespace): the test then says so and is skipped.
pub struct SmallDisk {
    pub dir: tempfile::TempDir,
}

impl SmallDisk {
    pub fn mount(size: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::piped())
            .output()
            .map_err(|e| format!("mount could not run: {e}"))?;
        if !status.status.success() {
            return Err(format!(
                "mount -t tmpfs was refused: {}",
                String::from_utf8_lossy(&status.stderr).trim()
            ));
        }
        Ok(Self { dir })
    }

    /// Fills what is left with one file.
    pub fn fill(&self) {
        use std::io::Write as _;
        let mut filler = std::fs::File::create(self.dir.path().join("filler")).unwrap();
        let block = vec![0u8; 4096];
        while filler.write_all(&block).is_ok() {}
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}
