//! Reading what the app keeps in the Secret Service, the way an attacker with
//! the user's unlocked keyring could (`secret-tool`), and searching files for
//! secrets. The app keeps a session as a manifest `<environment>` =
//! `v2:<generation>:<count>` naming parts `<environment>#<generation>.<i>`; this
//! module puts them back together and pulls the tokens out of the session's JSON.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use base64::Engine as _;

use crate::services::KeyringClient;

/// One environment's session as the keyring holds it.
#[derive(Clone)]
pub struct StoredSession {
    pub environment: String,
    pub text: String,
}

impl std::fmt::Debug for StoredSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredSession")
            .field("environment", &self.environment)
            .field("len", &self.text.len())
            .finish_non_exhaustive()
    }
}

/// Every token the keyring held at any of its polls (twice a second) while
/// it ran: the app rotates tokens on renewal, and each rotation replaces the
/// entry, so snapshots at a few checkpoints would miss most of them.
#[derive(Debug)]
pub struct KeyringWatch {
    seen: std::sync::Arc<std::sync::Mutex<BTreeSet<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl KeyringWatch {
    /// Starts polling `service` through `keyring`.
    pub fn start(keyring: KeyringClient, service: &'static str) -> Self {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(BTreeSet::new()));
        let sink = seen.clone();
        let task = tokio::spawn(async move {
            loop {
                let keyring = keyring.clone();
                let found = tokio::task::spawn_blocking(move || {
                    stored_sessions(&keyring, service).unwrap_or_default()
                })
                .await
                .unwrap_or_default();
                if let Ok(mut seen) = sink.lock() {
                    seen.extend(found.iter().flat_map(StoredSession::tokens));
                }
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        });
        Self { seen, task }
    }

    /// Every token seen so far.
    pub fn tokens(&self) -> Vec<String> {
        self.seen
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl Drop for KeyringWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Every session stored under `service`, reassembled from its parts.
pub fn stored_sessions(keyring: &KeyringClient, service: &str) -> Result<Vec<StoredSession>> {
    // `secret-tool search` prints attributes on stderr and secrets on stdout,
    // so the two cannot be paired: list the user names, then look each up.
    let listing = keyring.search(service)?;
    let users: BTreeSet<String> = listing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("attribute.username = "))
        .map(str::to_owned)
        .collect();
    let mut sessions = Vec::new();
    for environment in users.iter().filter(|u| !u.contains('#')) {
        let Some(head) = lookup(keyring, service, environment)? else {
            continue;
        };
        let Some(rest) = head.trim().strip_prefix("v2:") else {
            continue;
        };
        let Some((generation, count)) = rest.split_once(':') else {
            continue;
        };
        let count: usize = count.parse().unwrap_or(1);
        let mut text = String::new();
        for i in 0..count {
            text.push_str(
                &lookup(keyring, service, &format!("{environment}#{generation}.{i}"))?
                    .unwrap_or_default(),
            );
        }
        sessions.push(StoredSession {
            environment: environment.clone(),
            text,
        });
    }
    Ok(sessions)
}

fn lookup(keyring: &KeyringClient, service: &str, user: &str) -> Result<Option<String>> {
    let out = keyring
        .command("secret-tool")
        .args(["lookup", "service", service, "username", user])
        .output()?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
}

impl StoredSession {
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.text).unwrap_or(serde_json::Value::Null)
    }

    /// Every string in the session stored under a key naming a token, and
    /// every JWT anywhere in it.
    pub fn tokens(&self) -> Vec<String> {
        let mut found = BTreeSet::new();
        collect_tokens(&self.json(), false, &mut found);
        found.extend(jwts_in(&self.text));
        found.into_iter().collect()
    }

    /// The refresh token (under `rt`, or a key containing "refresh").
    pub fn refresh_token(&self) -> Option<String> {
        find_key(&self.json(), &|k| {
            k == "rt" || k.to_ascii_lowercase().contains("refresh")
        })
    }

    /// The access token: the first JWT in the session.
    pub fn access_token(&self) -> Option<String> {
        jwts_in(&self.text).into_iter().next()
    }
}

fn collect_tokens(value: &serde_json::Value, under_token_key: bool, found: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::String(s) if under_token_key && s.len() >= 16 => {
            found.insert(s.clone());
        }
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                collect_tokens(v, under_token_key || is_token_key(k), found);
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                collect_tokens(v, under_token_key, found);
            }
        }
        _ => {}
    }
}

/// Keys a session stores tokens under: `…token…`, or the client's short
/// `at` (access) and `rt` (refresh).
fn is_token_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("token") || key == "at" || key == "rt"
}

fn find_key(value: &serde_json::Value, key: &dyn Fn(&str) -> bool) -> Option<String> {
    match value {
        serde_json::Value::Object(map) => map.iter().find_map(|(k, v)| match v {
            serde_json::Value::String(s) if key(k) => Some(s.clone()),
            other => find_key(other, key),
        }),
        serde_json::Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

/// The JWTs (three base64url parts, the first a JSON header) in `text`.
pub fn jwts_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .filter(|w| w.starts_with("eyJ") && w.split('.').count() == 3 && w.len() > 40)
        .map(str::to_owned)
        .collect()
}

/// The `exp` claim of a JWT (seconds since the epoch).
pub fn jwt_expiry(token: &str) -> Option<u64> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims["exp"].as_u64()
}

/// Files under `roots` (recursively) whose bytes contain one of `needles`,
/// with the needle's label. Unreadable files are reported, not skipped.
pub fn files_containing(roots: &[PathBuf], needles: &[(String, String)]) -> Vec<(PathBuf, String)> {
    let mut hits = Vec::new();
    for root in roots {
        for file in walk(root) {
            match std::fs::read(&file) {
                Ok(bytes) => {
                    for (label, needle) in needles {
                        if contains(&bytes, needle.as_bytes()) {
                            hits.push((file.clone(), label.clone()));
                        }
                    }
                }
                Err(e) => hits.push((file.clone(), format!("unreadable: {e}"))),
            }
        }
    }
    hits
}

/// Every regular file under `root` (none when it does not exist).
pub fn walk(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    if root.is_file() {
        files.push(root.to_owned());
    }
    files.sort();
    files
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const JWT: &str =
        "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE3MDAwMDAwMDAsInN1YiI6InUifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ";

    #[test]
    fn tokens_are_found_under_token_keys_and_as_jwts() {
        let session = StoredSession {
            environment: "env".into(),
            text: format!(
                r#"{{"tokens":{{"access":"{JWT}","refreshToken":"rt_0123456789abcdef"}},"user":{{"name":"Pia"}}}}"#
            ),
        };
        let tokens = session.tokens();
        assert!(tokens.contains(&JWT.to_owned()));
        assert!(tokens.contains(&"rt_0123456789abcdef".to_owned()));
        assert!(!tokens.iter().any(|t| t == "Pia"));
        assert_eq!(
            session.refresh_token().as_deref(),
            Some("rt_0123456789abcdef")
        );
        assert_eq!(session.access_token().as_deref(), Some(JWT));
    }

    #[test]
    fn the_clients_short_keys_are_token_keys() {
        let session = StoredSession {
            environment: "variables".into(),
            text: format!(
                r#"{{"at":"{JWT}","exp":1,"rt":"opaque-refresh-0123456789","perm":["read:patient"]}}"#
            ),
        };
        assert_eq!(
            session.refresh_token().as_deref(),
            Some("opaque-refresh-0123456789")
        );
        assert_eq!(session.tokens().len(), 2);
    }

    #[test]
    fn the_expiry_of_a_jwt_is_read_from_its_claims() {
        assert_eq!(jwt_expiry(JWT), Some(1_700_000_000));
        assert_eq!(jwt_expiry("not.a.jwt"), None);
    }

    #[test]
    fn files_containing_a_needle_are_named() {
        let dir = std::env::temp_dir().join(format!("tokens-scan-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/log"), "line with secret-value inside").unwrap();
        std::fs::write(dir.join("clean"), "nothing").unwrap();
        let hits = files_containing(
            std::slice::from_ref(&dir),
            &[("secret".into(), "secret-value".into())],
        );
        assert_eq!(hits, vec![(dir.join("sub/log"), "secret".to_owned())]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
