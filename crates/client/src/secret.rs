//! [`Secret`]: the one wrapper for every token and client secret the crate holds.
//!
//! It prints as `[redacted]` in `Debug` and `Display`, wipes its bytes when dropped
//! and compares in constant time. It still serializes to its real value: a
//! [`Session`](crate::Session) must round-trip through the app's keyring store.
//! Nothing else lives here.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A token or secret: redacted when printed, zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, to put on the wire. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl PartialEq for Secret {
    /// Constant-time in the length of the shorter value, so a comparison
    /// does not leak how much of a token matched.
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl Eq for Secret {}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_value() {
        let secret = Secret::new("eyJhbGciOi.top-secret");

        let printed = format!("{secret:?} {secret} {secret:#?}");

        assert!(!printed.contains("top-secret"), "{printed}");
        assert!(printed.contains("redacted"));
    }

    #[test]
    fn serializes_to_its_value_for_the_keyring() {
        let secret = Secret::new("abc");

        let json = serde_json::to_string(&secret).unwrap();

        assert_eq!(json, "\"abc\"");
        assert_eq!(serde_json::from_str::<Secret>(&json).unwrap(), secret);
    }

    #[test]
    fn equality_compares_whole_values() {
        assert_eq!(Secret::new("abc"), Secret::new("abc"));
        assert_ne!(Secret::new("abc"), Secret::new("abd"));
        assert_ne!(Secret::new("abc"), Secret::new("abcd"));
    }
}
