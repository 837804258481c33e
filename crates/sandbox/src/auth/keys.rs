//! The sandbox's RS256 signing key: generated on first start, kept in the data
//! directory (mode 0600) so tokens survive a restart, published as a JWKS, and
//! used to issue and verify access tokens. Token *contents* (claims) live in
//! [`super::claims`]; HTTP handlers live elsewhere.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rsa::traits::PublicKeyParts;
use rsa::{RsaPrivateKey, RsaPublicKey};
use sha2::{Digest, Sha256};

use super::claims::{AccessClaims, IdClaims};

const KEY_FILE: &str = "signing-key.pem";
const KEY_BITS: usize = 2048;

/// Why a signing key could not be loaded or created.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot read or write the signing key file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("the signing key file {path} is not a valid PKCS#8 RSA key")]
    Corrupt { path: String },
    #[error("cannot generate an RSA signing key: {0}")]
    Generate(String),
}

/// Why an access token was rejected. Each variant becomes the message of an
/// `INVALID_AUTHORIZATION_HEADER` error, so it never echoes the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenRejection {
    #[error("the token is not a well-formed JWT")]
    Malformed,
    #[error("the token's signature does not verify")]
    BadSignature,
    #[error("the token was issued for another audience")]
    WrongAudience,
    #[error("the token was issued by another issuer")]
    WrongIssuer,
    #[error("the token has expired")]
    Expired,
}

/// The signing key pair plus what is derived from it once.
pub struct SigningKeys {
    kid: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
    public: RsaPublicKey,
}

impl std::fmt::Debug for SigningKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKeys")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKeys {
    /// Loads `dir/signing-key.pem`, creating it (0600) on first start.
    pub fn load_or_create(dir: &Path) -> Result<Self, KeyError> {
        let path = dir.join(KEY_FILE);
        let shown = path.display().to_string();
        match std::fs::read_to_string(&path) {
            Ok(pem) => {
                let key = RsaPrivateKey::from_pkcs8_pem(&pem).map_err(|_| KeyError::Corrupt {
                    path: shown.clone(),
                })?;
                Self::from_private(key).map_err(|_| KeyError::Corrupt { path: shown })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = generate()?;
                let pem = key
                    .to_pkcs8_pem(LineEnding::LF)
                    .map_err(|e| KeyError::Generate(e.to_string()))?;
                write_private(&path, pem.as_bytes()).map_err(|source| KeyError::Io {
                    path: shown.clone(),
                    source,
                })?;
                Self::from_private(key)
            }
            Err(source) => Err(KeyError::Io {
                path: shown,
                source,
            }),
        }
    }

    /// A fresh key kept only in memory.
    pub fn generate() -> Result<Self, KeyError> {
        Self::from_private(generate()?)
    }

    fn from_private(key: RsaPrivateKey) -> Result<Self, KeyError> {
        let pem = key
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| KeyError::Generate(e.to_string()))?;
        let encoding = EncodingKey::from_rsa_pem(pem.as_bytes())
            .map_err(|e| KeyError::Generate(e.to_string()))?;
        let public = key.to_public_key();
        let n = URL_SAFE_NO_PAD.encode(public.n().to_bytes_be());
        let e = URL_SAFE_NO_PAD.encode(public.e().to_bytes_be());
        let decoding = DecodingKey::from_rsa_components(&n, &e)
            .map_err(|e| KeyError::Generate(e.to_string()))?;
        let kid = URL_SAFE_NO_PAD.encode(&Sha256::digest(n.as_bytes())[..12]);
        Ok(Self {
            kid,
            encoding,
            decoding,
            public,
        })
    }

    /// The key id put in every token header and in the JWKS.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JSON Web Key Set (`/.well-known/jwks.json`).
    pub fn jwks(&self) -> serde_json::Value {
        serde_json::json!({
            "keys": [{
                "kty": "RSA",
                "use": "sig",
                "alg": "RS256",
                "kid": self.kid,
                "n": URL_SAFE_NO_PAD.encode(self.public.n().to_bytes_be()),
                "e": URL_SAFE_NO_PAD.encode(self.public.e().to_bytes_be()),
            }]
        })
    }

    /// Signs `claims` (an access token's or an ID token's) as an RS256 JWT.
    pub fn sign<C: serde::Serialize>(
        &self,
        claims: &C,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding)
    }

    /// Verifies signature, `iss`, `aud` and `exp` (no leeway) and returns the claims.
    pub fn verify(
        &self,
        token: &str,
        issuer: &str,
        audience: &str,
    ) -> Result<AccessClaims, TokenRejection> {
        let mut validation = Validation::new(Algorithm::RS256);
        validation.leeway = 0;
        validation.set_audience(&[audience]);
        validation.set_issuer(&[issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        jsonwebtoken::decode::<AccessClaims>(token, &self.decoding, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidSignature => TokenRejection::BadSignature,
                ErrorKind::ExpiredSignature => TokenRejection::Expired,
                ErrorKind::InvalidAudience => TokenRejection::WrongAudience,
                ErrorKind::InvalidIssuer => TokenRejection::WrongIssuer,
                _ => TokenRejection::Malformed,
            })
    }
}

impl SigningKeys {
    /// Verifies an ID token sent back as `id_token_hint` (RP-initiated logout):
    /// signature and `iss`, not its expiry (OpenID Connect lets an expired ID
    /// token name the sign-in to end). Its audience, an Application, is for the
    /// caller to check.
    pub fn verify_id_token_hint(
        &self,
        token: &str,
        issuer: &str,
    ) -> Result<IdClaims, TokenRejection> {
        let mut validation = Validation::new(Algorithm::RS256);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.set_issuer(&[issuer]);
        validation.set_required_spec_claims(&["iss", "aud", "sub"]);
        jsonwebtoken::decode::<IdClaims>(token, &self.decoding, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidSignature => TokenRejection::BadSignature,
                ErrorKind::InvalidIssuer => TokenRejection::WrongIssuer,
                _ => TokenRejection::Malformed,
            })
    }
}

fn generate() -> Result<RsaPrivateKey, KeyError> {
    RsaPrivateKey::new(&mut rand::thread_rng(), KEY_BITS)
        .map_err(|e| KeyError::Generate(e.to_string()))
}

/// Crash-safe: the file (the key, or the issuer of `issuer.rs`) is written
/// whole to a temporary file (0600), synced, then renamed over `path` — a
/// crash leaves no file or the whole file, never part of one (a leftover
/// temporary file is simply overwritten next time).
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    // The rename is durable once the folder's entry is: on Unix, by syncing
    // the folder. Windows cannot open a folder as a file ("Access denied");
    // there NTFS journals the rename itself, so there is nothing to sync.
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_key_write_cut_short_by_a_crash_leaves_no_partial_key_behind() {
        let dir = tempfile::tempdir().unwrap();
        // What a crash mid-write leaves: half a key in the temporary file.
        std::fs::write(
            dir.path().join(KEY_FILE).with_extension("pem.tmp"),
            "-----BEGIN PRIV",
        )
        .unwrap();

        let created = SigningKeys::load_or_create(dir.path()).unwrap();
        let loaded = SigningKeys::load_or_create(dir.path()).unwrap();

        assert_eq!(created.kid, loaded.kid);
        assert!(!dir.path().join(KEY_FILE).with_extension("pem.tmp").exists());
    }
}
