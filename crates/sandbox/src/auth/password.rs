//! Hashing and checking of user passwords and Backend client secrets (argon2id,
//! PHC strings). Only hashes are stored; the plain values never leave the
//! request or fixture that carried them. Who may try how often lives in
//! [`super::limits`].

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// Hashing failed (only possible with broken parameters; never carries the secret).
#[derive(Debug, thiserror::Error)]
#[error("cannot hash a secret: {0}")]
pub struct HashError(String);

/// An argon2id PHC string of `secret` with a fresh random salt.
pub fn hash(secret: &str) -> Result<String, HashError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| HashError(e.to_string()))
}

/// True when `secret` matches the PHC string `phc` (false for a malformed hash).
pub fn verify(secret: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|parsed| {
            Argon2::default()
                .verify_password(secret.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Spends the time of one [`verify`] without a stored hash, so that an unknown
/// account or client answers as slowly as a known one with a wrong secret.
pub fn verify_nothing(secret: &str) {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    if let Some(phc) = DUMMY.get_or_init(|| hash("not a real secret").ok()) {
        let _ = verify(secret, phc);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_hash_verifies_its_secret_only() {
        let phc = hash("s3cret").unwrap();
        assert!(phc.starts_with("$argon2id$"));
        assert!(!phc.contains("s3cret"));
        assert!(verify("s3cret", &phc));
        assert!(!verify("s3cret!", &phc));
        assert!(!verify("s3cret", "not a hash"));
    }
}
