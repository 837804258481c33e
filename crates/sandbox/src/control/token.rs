//! The control endpoint's credential: a random token made at each start, written
//! to `control.token` (mode `0600`) in the sandbox's private directory — the data
//! directory, beside the database; for an in-memory sandbox a private temporary
//! directory of its own, removed when it stops — and required as
//! `Authorization: Bearer <token>` on every control route ([`require`]: `401`
//! without it or with another, compared in constant time). The token is never
//! printed or logged: the "control on" line names the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore as _;
use subtle::ConstantTimeEq as _;

use super::reply;

/// The file the token is written to, in the sandbox's private directory.
pub const TOKEN_FILE: &str = "control.token";

/// The control endpoint's bearer token: 256 random bits, base64url.
#[derive(Clone)]
pub(crate) struct ControlToken(Arc<str>);

impl std::fmt::Debug for ControlToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ControlToken(<redacted>)")
    }
}

impl ControlToken {
    /// A fresh token from the OS's random source.
    pub(crate) fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(URL_SAFE_NO_PAD.encode(bytes).into())
    }

    /// The token itself, for whoever drives the sandbox in-process. Never log it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is this token, in time independent of where they differ.
    fn matches(&self, presented: &str) -> bool {
        bool::from(self.0.as_bytes().ct_eq(presented.as_bytes()))
    }

    /// Writes the token to `dir/control.token`, readable by its owner only: a
    /// new file renamed over any old one, so a reader never sees half a token
    /// and a file left by an earlier start (whatever its mode) is replaced.
    pub(crate) fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        use std::io::Write as _;
        let path = dir.join(TOKEN_FILE);
        let temporary = dir.join(format!("{TOKEN_FILE}.tmp"));
        let _ = std::fs::remove_file(&temporary);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(&temporary)?;
        file.write_all(self.0.as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temporary, &path)?;
        Ok(path)
    }
}

/// Refuses a request without `Authorization: Bearer <the token>` (`401`, with
/// `WWW-Authenticate: Bearer`); the scheme's case does not matter.
pub(crate) async fn require(
    State(token): State<ControlToken>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, credential) = value.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| credential.trim())
        });
    let refusal = match presented {
        Some(credential) if token.matches(credential) => return next.run(request).await,
        Some(_) => {
            "the bearer token is not this sandbox's control token (it changes at every start: read control.token again)"
        }
        None => {
            "the control endpoint needs `Authorization: Bearer <token>`, the token being the content of control.token (its path is on the \"control on\" line)"
        }
    };
    let mut response = reply::error(StatusCode::UNAUTHORIZED, refusal);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"rxdesk-sandbox control\""),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::ControlToken;

    #[test]
    fn a_token_matches_itself_only() {
        let token = ControlToken::generate();
        assert!(token.matches(token.expose()));
        assert!(!token.matches(&ControlToken::generate().0));
        assert!(!token.matches(""));
    }

    #[test]
    fn a_token_is_not_shown_by_debug() {
        let token = ControlToken::generate();
        assert!(!format!("{token:?}").contains(token.expose()));
    }
}
