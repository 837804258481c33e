//! The sandbox's issuer identifier: the `iss` of every token it issues and of
//! every authorization response (RFC 9207), and the `issuer` of its discovery
//! document. A sandbox keeping data fixes it at the first start of its data
//! directory — the origin it listened on then — and keeps it in `DIR/issuer`,
//! written crash-safely like the signing key; later starts read it back, so a
//! restart that must take another port (the recorded one busy, or
//! `--listen 127.0.0.1:0`) keeps every token it issued valid. An in-memory
//! sandbox's issuer is its origin. Where the sandbox listens now is
//! `AppState::origin`, the base of the addresses it advertises; nothing here
//! serves HTTP.

use std::path::Path;

use url::Url;

const ISSUER_FILE: &str = "issuer";

/// Why the issuer could not be read or recorded.
#[derive(Debug, thiserror::Error)]
pub enum IssuerError {
    #[error("cannot read or write the issuer file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "the issuer file {path} does not hold an http(s) URL without query or fragment \
         (restore it; deleting it makes the sandbox refuse every token issued before)"
    )]
    Corrupt { path: String },
}

/// The issuer recorded in `dir`; on the data directory's first start,
/// `origin`, recorded there first.
pub fn load_or_create(dir: &Path, origin: &str) -> Result<String, IssuerError> {
    let path = dir.join(ISSUER_FILE);
    let shown = path.display().to_string();
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let issuer = text.trim();
            if is_issuer(issuer) {
                Ok(issuer.to_owned())
            } else {
                Err(IssuerError::Corrupt { path: shown })
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            super::keys::write_private(&path, format!("{origin}\n").as_bytes()).map_err(
                |source| IssuerError::Io {
                    path: shown,
                    source,
                },
            )?;
            Ok(origin.to_owned())
        }
        Err(source) => Err(IssuerError::Io {
            path: shown,
            source,
        }),
    }
}

/// An issuer identifier as RFC 8414 shapes it (plain http allowed: the
/// sandbox listens on loopback): a URL with a host, no query and no fragment.
fn is_issuer(text: &str) -> bool {
    Url::parse(text).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https")
            && url.has_host()
            && url.query().is_none()
            && url.fragment().is_none()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_first_start_records_its_origin_and_later_starts_read_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path(), "http://127.0.0.1:41001").unwrap();
        let again = load_or_create(dir.path(), "http://127.0.0.1:52002").unwrap();
        assert_eq!(first, "http://127.0.0.1:41001");
        assert_eq!(again, first);
    }

    #[test]
    fn a_damaged_issuer_file_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(ISSUER_FILE), "not a url\n").unwrap();
        let error = load_or_create(dir.path(), "http://127.0.0.1:41001").unwrap_err();
        assert!(matches!(error, IssuerError::Corrupt { .. }));
        assert!(error.to_string().contains("issuer"), "{error}");
    }
}
