//! Bearer tokens whose signature has been verified, remembered so that a
//! client sending the same access token again and again (every client does)
//! costs one RS256 verification per token rather than one per request.
//!
//! What the cache holds and promises:
//! - only tokens that [`SigningKeys::verify`] accepted (signature, `iss`,
//!   `aud`, `exp`): a token is inserted after it verified, never before, so a
//!   token whose signature was not verified is never answered from here;
//! - keyed by the SHA-256 of the token (the tokens themselves are not kept);
//! - the claims shared, not copied: a hit hands out the same `Arc`;
//! - expiry checked on every hit, by the same rule as the verification (no
//!   leeway: refused once `exp` is in the past), and an expired entry dropped;
//! - at most [`VerifiedTokens::capacity`] entries: when full, expired entries
//!   go first, then the ones expiring soonest.
//!
//! Only the verification is cached. Anything that can change while a token is
//! valid (e.g. whether the sign-in it belongs to was revoked) is checked by the
//! caller on every request, after [`VerifiedTokens::verify`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::claims::AccessClaims;
use super::keys::{SigningKeys, TokenRejection};

/// Entries kept by default: far more than the live tokens of any test or bench
/// (a token lives an hour, or a day for machine tokens).
pub const DEFAULT_CAPACITY: usize = 4096;

type Digest32 = [u8; 32];

/// The cache (see the module doc). One per running sandbox.
#[derive(Debug)]
pub struct VerifiedTokens {
    entries: Mutex<HashMap<Digest32, Arc<AccessClaims>>>,
    capacity: usize,
}

impl Default for VerifiedTokens {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl VerifiedTokens {
    /// A cache holding at most `capacity` tokens (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// The most entries it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many tokens it holds now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when it holds no token.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The claims of `token`: from the cache when `keys` verified it before (and
    /// it has not expired since), else verified by `keys` now and remembered.
    pub fn verify(
        &self,
        token: &str,
        keys: &SigningKeys,
        issuer: &str,
        audience: &str,
    ) -> Result<Arc<AccessClaims>, TokenRejection> {
        self.verify_at(token, keys, issuer, audience, now())
    }

    fn verify_at(
        &self,
        token: &str,
        keys: &SigningKeys,
        issuer: &str,
        audience: &str,
        now: i64,
    ) -> Result<Arc<AccessClaims>, TokenRejection> {
        let digest: Digest32 = Sha256::digest(token.as_bytes()).into();
        {
            let mut entries = self.lock();
            if let Some(claims) = entries.get(&digest) {
                // The issuer and audience are the sandbox's own and never change;
                // compared anyway, so a hit means exactly what a verification would.
                if claims.iss == issuer && claims.aud == audience {
                    if claims.exp < now {
                        entries.remove(&digest);
                        return Err(TokenRejection::Expired);
                    }
                    return Ok(Arc::clone(claims));
                }
            }
        }
        // Verified outside the lock: other requests are not held up by it.
        let claims = Arc::new(keys.verify(token, issuer, audience)?);
        self.insert(digest, Arc::clone(&claims), now);
        Ok(claims)
    }

    fn insert(&self, digest: Digest32, claims: Arc<AccessClaims>, now: i64) {
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(&digest) {
            entries.retain(|_, c| c.exp >= now);
            while entries.len() >= self.capacity {
                let Some(soonest) = entries
                    .iter()
                    .min_by_key(|(_, c)| c.exp)
                    .map(|(digest, _)| *digest)
                else {
                    break;
                };
                entries.remove(&soonest);
            }
        }
        entries.insert(digest, claims);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Digest32, Arc<AccessClaims>>> {
        // Entries are inserted whole: a panic elsewhere leaves nothing half-written.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::sync::LazyLock;

    use super::*;

    const ISSUER: &str = "http://127.0.0.1:9";
    const AUDIENCE: &str = "rxdesk-sandbox";

    /// One key for every test: RSA key generation takes a while.
    static KEYS: LazyLock<SigningKeys> = LazyLock::new(|| SigningKeys::generate().unwrap());

    fn claims(jti: &str, exp: i64) -> AccessClaims {
        AccessClaims {
            iss: ISSUER.to_owned(),
            sub: "maple-backend".to_owned(),
            aud: AUDIENCE.to_owned(),
            iat: exp - 3600,
            exp,
            azp: "maple-backend".to_owned(),
            scope: "read:patient".to_owned(),
            permissions: vec!["read:patient".to_owned()],
            org_id: "org_maple".to_owned(),
            jti: jti.to_owned(),
            gty: Some(super::super::claims::GTY_CLIENT_CREDENTIALS.to_owned()),
            sid: None,
        }
    }

    fn token(jti: &str, exp: i64) -> String {
        KEYS.sign(&claims(jti, exp)).unwrap()
    }

    fn in_an_hour() -> i64 {
        now() + 3600
    }

    #[test]
    fn the_token_cache_refuses_an_expired_token_it_cached() {
        let cache = VerifiedTokens::default();
        let exp = in_an_hour();
        let token = token("t1", exp);
        cache
            .verify_at(&token, &KEYS, ISSUER, AUDIENCE, exp)
            .unwrap();
        assert_eq!(cache.len(), 1);

        let later = cache.verify_at(&token, &KEYS, ISSUER, AUDIENCE, exp + 1);

        assert_eq!(later, Err(TokenRejection::Expired));
        assert!(cache.is_empty(), "the expired entry is dropped");
    }

    #[test]
    fn the_token_cache_refuses_a_token_whose_signature_it_has_not_verified() {
        let cache = VerifiedTokens::default();
        let good = token("t2", in_an_hour());
        cache.verify(&good, &KEYS, ISSUER, AUDIENCE).unwrap();
        // Same header and claims, another signature: what a forger would send.
        let (signed, _) = good.rsplit_once('.').unwrap();
        let forged = format!("{signed}.{}", "A".repeat(342));

        let first = cache.verify(&forged, &KEYS, ISSUER, AUDIENCE);
        let second = cache.verify(&forged, &KEYS, ISSUER, AUDIENCE);

        assert_eq!(first, Err(TokenRejection::BadSignature));
        assert_eq!(second, Err(TokenRejection::BadSignature));
        assert_eq!(cache.len(), 1, "only the verified token is held");
    }

    #[test]
    fn the_token_cache_refuses_another_key_s_token_with_the_same_claims() {
        let cache = VerifiedTokens::default();
        let exp = in_an_hour();
        cache
            .verify(&token("t3", exp), &KEYS, ISSUER, AUDIENCE)
            .unwrap();
        let other = SigningKeys::generate().unwrap();
        let foreign = other.sign(&claims("t3", exp)).unwrap();

        let answer = cache.verify(&foreign, &KEYS, ISSUER, AUDIENCE);

        assert_eq!(answer, Err(TokenRejection::BadSignature));
    }

    #[test]
    fn the_token_cache_holds_a_bounded_number_of_entries() {
        let cache = VerifiedTokens::with_capacity(3);
        let base = in_an_hour();
        let tokens: Vec<String> = (0..5)
            .map(|i| token(&format!("c{i}"), base + 100 - i))
            .collect();

        for token in &tokens {
            cache.verify(token, &KEYS, ISSUER, AUDIENCE).unwrap();
            assert!(cache.len() <= 3, "{} entries", cache.len());
        }

        assert_eq!(cache.len(), 3);
        // The last one (expiring soonest of all) was just inserted and is kept.
        let entries = cache.lock();
        let kept: Vec<&str> = {
            let mut jtis: Vec<&str> = entries.values().map(|c| c.jti.as_str()).collect();
            jtis.sort_unstable();
            jtis
        };
        assert_eq!(kept, ["c0", "c1", "c4"]);
    }
}
