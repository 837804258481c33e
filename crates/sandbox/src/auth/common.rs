//! What the sign-in flow, the token endpoint and their SQL share: how long codes
//! and sign-in pages live, the `offline_access` and `openid` scopes, where
//! RP-initiated logout is served, the clock, random tokens,
//! the hashes they are stored under, and form parsing (into a map, or through
//! serde into the struct of a query or form: [`read_params`], [`non_empty`]).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore as _;
use sha2::{Digest, Sha256};

/// How long an authorization code can be exchanged.
pub const CODE_TTL_SECS: i64 = 60;
/// How long a sign-in page stays usable.
pub const LOGIN_TTL_SECS: i64 = 15 * 60;
/// The scope value that asks for a refresh token.
pub const OFFLINE_ACCESS: &str = "offline_access";
/// The scope value that asks for an ID token (OpenID Connect).
pub const OPENID: &str = "openid";
/// Where RP-initiated logout is served (the `end_session_endpoint`).
pub const END_SESSION_PATH: &str = "/oidc/logout";

/// Now, in Unix seconds.
pub(super) fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// 256 random bits, base64url: codes, refresh tokens, sign-in and browser ids.
pub(super) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// SHA-256, hex: how high-entropy secrets (codes, refresh tokens, ids) are stored.
pub(super) fn sha256_hex(value: &str) -> String {
    Sha256::digest(value.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The S256 PKCE challenge of `verifier` (RFC 7636 §4.2).
pub(super) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Parses `application/x-www-form-urlencoded` (or a query string); `Err(name)`
/// when a parameter appears twice (RFC 6749 §3.1, §3.2).
pub(super) fn parse_params(
    raw: &[u8],
) -> Result<std::collections::HashMap<String, String>, String> {
    let mut params = std::collections::HashMap::new();
    for (name, value) in url::form_urlencoded::parse(raw) {
        if params
            .insert(name.to_string(), value.into_owned())
            .is_some()
        {
            return Err(name.into_owned());
        }
    }
    Ok(params)
}

/// The parameters of a query or form (as [`parse_params`] reads them) as `T`,
/// through serde: every value is a string, so a `T` of strings and optional
/// strings (unknown parameters ignored) always reads.
pub(super) fn read_params<T: serde::de::DeserializeOwned>(
    params: std::collections::HashMap<String, String>,
) -> Result<T, serde_json::Error> {
    let object = params
        .into_iter()
        .map(|(name, value)| (name, serde_json::Value::String(value)))
        .collect();
    T::deserialize(serde_json::Value::Object(object))
}

/// For `#[serde(default, deserialize_with = "non_empty")]`: a parameter sent
/// empty counts as one not sent.
pub(super) fn non_empty<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    use serde::Deserialize as _;
    Ok(Option::<String>::deserialize(deserializer)?.filter(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn repeated_parameters_are_refused() {
        assert_eq!(parse_params(b"a=1&a=2"), Err("a".to_owned()));
        assert_eq!(
            parse_params(b"a=1&b=%20x").map(|p| p["b"].clone()),
            Ok(" x".to_owned())
        );
    }
}
