//! The built UI: every `.js` and `.css` file under `ui/dist`, each gzipped
//! (level 6, what a web server sends), summed. Reported, no target.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::report::Figure;
use crate::stats::Target;

pub fn figure(dist: &Path) -> Result<Figure> {
    let files: Vec<PathBuf> = walk(dist)?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "js" || e == "css"))
        .collect();
    if files.is_empty() {
        bail!(
            "no JS or CSS under {} (npm --prefix ui run build)",
            dist.display()
        );
    }
    let (mut raw, mut gzipped) = (0usize, 0usize);
    for file in &files {
        let bytes = std::fs::read(file)?;
        raw += bytes.len();
        gzipped += gzip_len(&bytes)?;
    }
    let kib = gzipped as f64 / 1024.0;
    Ok(Figure::measured(
        "ui_size",
        "the built UI (JS + CSS, gzipped)",
        "KiB",
        &[kib],
        ("—", None),
        Target::Report,
    )?
    .with_note(format!(
        "{} files under ui/dist, {:.1} KiB before gzip",
        files.len(),
        raw as f64 / 1024.0
    )))
}

/// Every file under `dist` (what the app embeds), gzipped one by one and summed.
pub fn dist_gzipped(dist: &Path) -> Result<usize> {
    walk(dist)?
        .iter()
        .map(|file| gzip_len(&std::fs::read(file)?))
        .sum()
}

/// The size of `bytes` gzipped at level 6.
pub fn gzip_len(bytes: &[u8]) -> Result<usize> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::new(6));
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?.len())
}

fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn repetitive_text_gzips_small() {
        let text = "const x = 1;\n".repeat(1000);
        let n = gzip_len(text.as_bytes()).unwrap();
        assert!(n > 0 && n < text.len() / 10, "{n}");
    }
}
