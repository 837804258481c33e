//! The networks the user can sign in to: where each comes from, the Settings
//! screen's form and the vendor's presets, and whether a network speaks what the
//! app sends ([`NetworkCheck`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where environments come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum EnvironmentSource {
    /// The built-in local sandbox, started in-process.
    Sandbox,
    /// `RXDESK_AUTH_URL` & co. in the process environment.
    Variables,
    /// The environments file in the app's config directory.
    File,
}

/// One network the user can sign in to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentInfo {
    pub id: String,
    pub name: String,
    pub source: EnvironmentSource,
    /// The authorization server's origin ("starts on first use" for the sandbox).
    pub auth_url: String,
    pub api_url: String,
    /// Sign-in refuses an authorization answer that does not name its issuer
    /// (`iss`, RFC 9207).
    pub require_issuer: bool,
}

/// What the settings screen submits to add or replace a file environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentInput {
    pub name: String,
    pub auth_url: String,
    pub api_url: String,
    pub audience: String,
    pub client_id: String,
    pub callback_port: Option<u16>,
    /// Refuse a sign-in answer that does not name its issuer (`iss`, RFC 9207):
    /// on for the vendor's networks, which name it.
    pub require_issuer: bool,
    /// Only ever filled to be refused: a public client never holds a secret.
    pub client_secret: Option<String>,
}

/// One of the network vendor's own networks: the Settings screen fills its
/// addresses in, and the user adds only their Application's `client_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPreset {
    pub name: String,
    pub auth_url: String,
    pub api_url: String,
    pub audience: String,
    /// The vendor's authorization server names itself in every answer, so
    /// an environment made from a preset requires it.
    pub require_issuer: bool,
}

/// One operation the network would not accept, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FailingOperation {
    pub operation: String,
    pub problems: Vec<String>,
}

/// Whether a network speaks what the app sends (checked on first use).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum NetworkCheck {
    Compatible,
    Incompatible {
        failing: Vec<FailingOperation>,
    },
    /// The check could not run (network trouble); workflows are not blocked.
    Unchecked {
        message: String,
    },
}
