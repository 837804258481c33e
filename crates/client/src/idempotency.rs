//! [`IdempotencyKey`]: what makes a create safe to send again. Every call that
//! creates a record (a draft prescription, a draft order) takes one and sends it
//! as the record's `externalId`; the network answers a repeat of that
//! `externalId` with the record the first call made. So a create whose answer
//! was lost — or a user's "Try again" — never makes a second record, provided
//! the key is the *same*: make one per user action (one per click of "Save
//! draft", not one per attempt), keep it with the form until the record is
//! saved, and only then let the next action make a new one.

use std::fmt;
use std::str::FromStr;

/// The longest key accepted, in characters.
pub const MAX_KEY_CHARS: usize = 128;

/// One user action's idempotency key, sent as `externalId`. [`new`](Self::new)
/// makes a ULID (26 characters, time-ordered, 80 random bits); a backend that
/// has its own stable id for the record (a CRM row id) parses that instead, so
/// every run sends the same key for the same row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey(String);

/// Why a text cannot be an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidKey {
    #[error("an idempotency key cannot be empty")]
    Empty,
    #[error("an idempotency key has at most {MAX_KEY_CHARS} characters")]
    TooLong,
    #[error("an idempotency key holds no spaces or control characters")]
    Forbidden,
}

impl IdempotencyKey {
    /// A fresh key (a ULID): call once per user action.
    #[allow(clippy::new_without_default)] // a default would read as a fixed key
    pub fn new() -> Self {
        Self(ulid::Ulid::new().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for IdempotencyKey {
    type Err = InvalidKey;

    /// Any 1–128 characters without whitespace or control characters: a ULID
    /// from [`new`](Self::new) read back, or a backend's own id.
    fn from_str(text: &str) -> Result<Self, InvalidKey> {
        if text.is_empty() {
            Err(InvalidKey::Empty)
        } else if text.chars().count() > MAX_KEY_CHARS {
            Err(InvalidKey::TooLong)
        } else if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            Err(InvalidKey::Forbidden)
        } else {
            Ok(Self(text.to_owned()))
        }
    }
}

impl TryFrom<String> for IdempotencyKey {
    type Error = InvalidKey;

    fn try_from(text: String) -> Result<Self, InvalidKey> {
        text.parse()
    }
}

impl From<IdempotencyKey> for String {
    fn from(key: IdempotencyKey) -> Self {
        key.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for IdempotencyKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for IdempotencyKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn each_new_key_is_another_ulid() {
        let (a, b) = (IdempotencyKey::new(), IdempotencyKey::new());

        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 26);
        assert!(ulid::Ulid::from_string(a.as_str()).is_ok());
    }

    #[test]
    fn a_key_reads_back_as_itself() {
        let key = IdempotencyKey::new();

        let again: IdempotencyKey = key.to_string().parse().unwrap();

        assert_eq!(again, key);
    }

    #[test]
    fn a_backends_own_id_is_a_key() {
        let key: IdempotencyKey = "crm-001".parse().unwrap();

        assert_eq!(key.as_str(), "crm-001");
    }

    #[test]
    fn empty_spaced_or_overlong_text_is_no_key() {
        assert_eq!("".parse::<IdempotencyKey>(), Err(InvalidKey::Empty));
        assert_eq!("a b".parse::<IdempotencyKey>(), Err(InvalidKey::Forbidden));
        assert_eq!(
            "x".repeat(MAX_KEY_CHARS + 1).parse::<IdempotencyKey>(),
            Err(InvalidKey::TooLong)
        );
    }

    #[test]
    fn a_key_is_kept_as_a_json_string() {
        let key: IdempotencyKey = "01J0000000000000000000000A".parse().unwrap();

        let json = serde_json::to_string(&key).unwrap();

        assert_eq!(json, "\"01J0000000000000000000000A\"");
        assert_eq!(serde_json::from_str::<IdempotencyKey>(&json).unwrap(), key);
        assert!(serde_json::from_str::<IdempotencyKey>("\"\"").is_err());
    }
}
