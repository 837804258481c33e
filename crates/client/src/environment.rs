//! Which network to talk to: [`Environment`] (auth server, API, audience, the
//! Application `client_id`, an optional fixed callback port, the issuer when it
//! is not the auth server's address) read from TOML or environment variables,
//! and [`BackendCredentials`] for machine tokens.
//!
//! A desktop environment is a *public* client: one that carries a `client_secret`
//! is refused ([`EnvironmentError::SecretInPublicClient`]), as the contract refuses
//! a secret in its browser-side client. Backend credentials are a separate type,
//! read only by [`Environment::backend_from_env`]. No network access here.

use std::net::IpAddr;
use std::path::Path;

use serde::Deserialize;
use url::{Host, Url};

use crate::secret::Secret;

/// `RXDESK_AUTH_URL`: the authorization server's origin.
pub const VAR_AUTH_URL: &str = "RXDESK_AUTH_URL";
/// `RXDESK_API_URL`: the API's origin (`/graphql` is appended).
pub const VAR_API_URL: &str = "RXDESK_API_URL";
/// `RXDESK_AUDIENCE`: the API audience asked for in every token request.
pub const VAR_AUDIENCE: &str = "RXDESK_AUDIENCE";
/// `RXDESK_CLIENT_ID`: the Application (desktop) or Backend (machine) client id.
pub const VAR_CLIENT_ID: &str = "RXDESK_CLIENT_ID";
/// `RXDESK_CLIENT_SECRET`: the Backend credential's secret (backends only).
pub const VAR_CLIENT_SECRET: &str = "RXDESK_CLIENT_SECRET";
/// `RXDESK_CALLBACK_PORT`: optional fixed port of the sign-in listener.
pub const VAR_CALLBACK_PORT: &str = "RXDESK_CALLBACK_PORT";
/// `RXDESK_ISSUER`: optional; the authorization server's issuer when it is not
/// `RXDESK_AUTH_URL` (a sandbox restarted on another port keeps the issuer of
/// its data directory's first start, and says so when it starts).
pub const VAR_ISSUER: &str = "RXDESK_ISSUER";

/// Why an environment cannot be used. Each message names the setting to fix.
#[derive(Debug, thiserror::Error)]
pub enum EnvironmentError {
    #[error(
        "this environment carries a client_secret, but Rx Desk is a public client: a public client must never hold a secret (remove client_secret; only a backend uses one)"
    )]
    SecretInPublicClient,
    #[error("{setting} is missing")]
    Missing { setting: &'static str },
    #[error("{setting} is not a valid URL: {reason}")]
    InvalidUrl {
        setting: &'static str,
        reason: String,
    },
    #[error("{setting} must use https (plain http is allowed only for loopback hosts): {url}")]
    InsecureUrl { setting: &'static str, url: String },
    #[error("{setting} is not a valid port number: {value}")]
    InvalidPort {
        setting: &'static str,
        value: String,
    },
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} is not a valid environment file: {reason}")]
    Toml { path: String, reason: String },
}

/// A prescribing network as a desktop (public) client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    auth_url: Url,
    api_url: Url,
    audience: String,
    client_id: String,
    callback_port: Option<u16>,
    /// The issuer identifier, when it is not `auth_url` (see [`Environment::issuer`]).
    issuer: Option<String>,
    /// Sign-in refuses an authorization response without `iss` (RFC 9207).
    require_issuer: bool,
}

/// The TOML file's shape. `client_secret` is read only to refuse it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvironmentFile {
    auth_url: String,
    api_url: String,
    audience: String,
    client_id: String,
    callback_port: Option<u16>,
    #[serde(default)]
    require_issuer: bool,
    client_secret: Option<toml::Value>,
}

impl Environment {
    /// Checks and builds an environment. `auth_url` and `api_url` are origins
    /// (`https://…`, or `http://` on a loopback host).
    pub fn new(
        auth_url: &str,
        api_url: &str,
        audience: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Result<Self, EnvironmentError> {
        let audience = non_empty("audience", audience.into())?;
        let client_id = non_empty("client_id", client_id.into())?;
        Ok(Self {
            auth_url: checked_url("auth_url", auth_url)?,
            api_url: checked_url("api_url", api_url)?,
            audience,
            client_id,
            callback_port: None,
            issuer: None,
            require_issuer: false,
        })
    }

    /// The local sandbox at `url` with its defaults: audience `rxdesk-sandbox`,
    /// Application `rxdesk-desktop`.
    pub fn sandbox(url: &Url) -> Result<Self, EnvironmentError> {
        Ok(Self::new(
            url.as_str(),
            url.as_str(),
            "rxdesk-sandbox",
            "rxdesk-desktop",
        )?
        .with_required_issuer(true))
    }

    /// The same environment, refusing (or not) an authorization response that
    /// does not name its issuer (`iss`, RFC 9207). A response naming another
    /// issuer is always refused.
    pub fn with_required_issuer(mut self, required: bool) -> Self {
        self.require_issuer = required;
        self
    }

    /// The same environment whose authorization server names itself `issuer`
    /// (`iss`, RFC 9207) rather than its address: a sandbox restarted on another
    /// port keeps the issuer of its data directory's first start. Checked as
    /// `auth_url` is (https unless loopback).
    pub fn with_issuer(mut self, issuer: &str) -> Result<Self, EnvironmentError> {
        let url = checked_url("issuer", issuer)?;
        self.issuer = Some(url.as_str().trim_end_matches('/').to_owned());
        Ok(self)
    }

    /// The authorization server's issuer: the one given by
    /// [`Environment::with_issuer`], or else `auth_url` without its trailing slash.
    pub fn issuer(&self) -> &str {
        self.issuer
            .as_deref()
            .unwrap_or_else(|| self.auth_url.as_str().trim_end_matches('/'))
    }

    /// True when sign-in refuses an authorization response without `iss`.
    pub fn requires_issuer(&self) -> bool {
        self.require_issuer
    }

    /// One of the network vendor's own networks, needing only the organization's
    /// Application `client_id` (from its dashboard's developer settings). Its
    /// sign-in answers must name their issuer ([`Preset::requires_issuer`]).
    pub fn preset(preset: Preset, client_id: impl Into<String>) -> Result<Self, EnvironmentError> {
        let (auth, api, audience) = preset.endpoints();
        Ok(Self::new(auth, api, audience, client_id)?
            .with_required_issuer(preset.requires_issuer()))
    }

    /// The same environment with the sign-in listener on a fixed port.
    pub fn with_callback_port(mut self, port: Option<u16>) -> Self {
        self.callback_port = port;
        self
    }

    /// The same environment with another client id (a backend's, for machine tokens).
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = client_id.into();
        self
    }

    /// Reads a TOML file with `auth_url`, `api_url`, `audience`, `client_id` and
    /// optionally `callback_port`.
    pub fn from_toml_file(path: &Path) -> Result<Self, EnvironmentError> {
        let text = std::fs::read_to_string(path).map_err(|e| EnvironmentError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_toml_str(&text).map_err(|e| match e {
            EnvironmentError::Toml { reason, .. } => EnvironmentError::Toml {
                path: path.display().to_string(),
                reason,
            },
            other => other,
        })
    }

    /// Parses the TOML text of an environment file.
    pub fn from_toml_str(text: &str) -> Result<Self, EnvironmentError> {
        let file: EnvironmentFile = toml::from_str(text).map_err(|e| EnvironmentError::Toml {
            path: "environment".to_owned(),
            reason: e.message().to_owned(),
        })?;
        if file.client_secret.is_some() {
            return Err(EnvironmentError::SecretInPublicClient);
        }
        Ok(
            Self::new(&file.auth_url, &file.api_url, file.audience, file.client_id)?
                .with_callback_port(file.callback_port)
                .with_required_issuer(file.require_issuer),
        )
    }

    /// A desktop environment from `RXDESK_AUTH_URL`, `RXDESK_API_URL`,
    /// `RXDESK_AUDIENCE`, `RXDESK_CLIENT_ID` and optionally `RXDESK_CALLBACK_PORT`
    /// and `RXDESK_ISSUER`.
    /// Refused when `RXDESK_CLIENT_SECRET` is set too.
    pub fn from_env() -> Result<Self, EnvironmentError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`Environment::from_env`] with the variables looked up through `var`
    /// (tests, or a configuration layer of the app's own).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, EnvironmentError> {
        if var(VAR_CLIENT_SECRET).is_some_and(|s| !s.is_empty()) {
            return Err(EnvironmentError::SecretInPublicClient);
        }
        Self::read_vars(&var)
    }

    /// A backend's environment and credentials: the variables of
    /// [`Environment::from_env`] plus `RXDESK_CLIENT_SECRET`.
    pub fn backend_from_env() -> Result<(Self, BackendCredentials), EnvironmentError> {
        Self::backend_from_vars(|name| std::env::var(name).ok())
    }

    /// [`Environment::backend_from_env`] with the variables looked up through `var`.
    pub fn backend_from_vars(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<(Self, BackendCredentials), EnvironmentError> {
        let environment = Self::read_vars(&var)?;
        let secret =
            var(VAR_CLIENT_SECRET)
                .filter(|s| !s.is_empty())
                .ok_or(EnvironmentError::Missing {
                    setting: VAR_CLIENT_SECRET,
                })?;
        let credentials = BackendCredentials::new(environment.client_id.clone(), secret);
        Ok((environment, credentials))
    }

    fn read_vars(var: &impl Fn(&str) -> Option<String>) -> Result<Self, EnvironmentError> {
        let get = |setting: &'static str| {
            var(setting)
                .filter(|v| !v.is_empty())
                .ok_or(EnvironmentError::Missing { setting })
        };
        let port = match var(VAR_CALLBACK_PORT).filter(|v| !v.is_empty()) {
            None => None,
            Some(value) => {
                Some(
                    value
                        .parse::<u16>()
                        .map_err(|_| EnvironmentError::InvalidPort {
                            setting: VAR_CALLBACK_PORT,
                            value,
                        })?,
                )
            }
        };
        let env = Self::new(
            &get(VAR_AUTH_URL)?,
            &get(VAR_API_URL)?,
            get(VAR_AUDIENCE)?,
            get(VAR_CLIENT_ID)?,
        )
        .map_err(|e| rename_setting(e, VAR_AUTH_URL, VAR_API_URL))?;
        let env = match var(VAR_ISSUER).filter(|v| !v.is_empty()) {
            Some(issuer) => env
                .with_issuer(&issuer)
                .map_err(|e| rename_setting(e, VAR_AUTH_URL, VAR_API_URL))?,
            None => env,
        };
        Ok(env.with_callback_port(port))
    }

    /// The authorization server's origin.
    pub fn auth_url(&self) -> &Url {
        &self.auth_url
    }

    /// The API's origin.
    pub fn api_url(&self) -> &Url {
        &self.api_url
    }

    /// The audience asked for in token requests.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The Application (public) client id.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The fixed callback port, if any (otherwise the listener takes port 0).
    pub fn callback_port(&self) -> Option<u16> {
        self.callback_port
    }

    pub(crate) fn authorize_endpoint(&self) -> Url {
        join(&self.auth_url, "authorize")
    }

    pub(crate) fn token_endpoint(&self) -> Url {
        join(&self.auth_url, "oauth/token")
    }

    pub(crate) fn revocation_endpoint(&self) -> Url {
        join(&self.auth_url, "oauth/revoke")
    }

    /// The authorization server's discovery document (OpenID Connect Discovery).
    pub(crate) fn discovery_endpoint(&self) -> Url {
        join(&self.auth_url, ".well-known/openid-configuration")
    }

    /// OpenID Connect UserInfo: who a user's access token acts for.
    pub(crate) fn userinfo_endpoint(&self) -> Url {
        join(&self.auth_url, "userinfo")
    }

    /// The Network API.
    pub(crate) fn graphql_endpoint(&self) -> Url {
        join(&self.api_url, "graphql")
    }
}

/// The network vendor's networks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The vendor's sandbox network (every sandbox account has credentials).
    VendorSandbox,
    /// The vendor's production network.
    VendorProduction,
}

impl Preset {
    /// `(auth_url, api_url, audience)`.
    pub fn endpoints(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::VendorSandbox => (
                "https://auth.neutron.health",
                "https://network.neutron.health",
                "https://api.neutron.health",
            ),
            Self::VendorProduction => (
                "https://auth.photon.health",
                "https://network.photon.health",
                "https://api.photon.health",
            ),
        }
    }

    /// Whether sign-in refuses an answer without `iss` (RFC 9207): always, for
    /// the vendor's networks — a mix-up attack across the environments a desk
    /// knows is what the check exists for, and the vendor's server names itself.
    pub fn requires_issuer(self) -> bool {
        true
    }
}

/// The Backend credential: `client_id` and `client_secret`, for the client
/// credentials grant. The secret is redacted when printed and zeroized on drop.
#[derive(Debug, Clone)]
pub struct BackendCredentials {
    client_id: String,
    client_secret: Secret,
}

impl BackendCredentials {
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<Secret>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        }
    }

    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    pub(crate) fn client_secret(&self) -> &Secret {
        &self.client_secret
    }
}

/// `base` joined with `path`, keeping any path prefix of `base` (`https://h/net/` + `graphql`).
fn join(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    let prefix = url.path().trim_end_matches('/').to_owned();
    url.set_path(&format!("{prefix}/{path}"));
    url.set_query(None);
    url.set_fragment(None);
    url
}

fn non_empty(setting: &'static str, value: String) -> Result<String, EnvironmentError> {
    if value.trim().is_empty() {
        Err(EnvironmentError::Missing { setting })
    } else {
        Ok(value)
    }
}

/// `value` as a URL an environment may use: https, or http on a loopback host.
pub(crate) fn checked_url(setting: &'static str, value: &str) -> Result<Url, EnvironmentError> {
    let url = Url::parse(value).map_err(|e| EnvironmentError::InvalidUrl {
        setting,
        reason: e.to_string(),
    })?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(EnvironmentError::InsecureUrl {
            setting,
            url: value.to_owned(),
        }),
        other => Err(EnvironmentError::InvalidUrl {
            setting,
            reason: format!("scheme {other:?} is neither https nor http"),
        }),
    }
}

/// `localhost`, `127.0.0.0/8` or `::1`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Names the environment variable rather than the field in URL errors.
fn rename_setting(e: EnvironmentError, auth: &'static str, api: &'static str) -> EnvironmentError {
    let rename = |s: &'static str| match s {
        "auth_url" => auth,
        "api_url" => api,
        "issuer" => VAR_ISSUER,
        other => other,
    };
    match e {
        EnvironmentError::InvalidUrl { setting, reason } => EnvironmentError::InvalidUrl {
            setting: rename(setting),
            reason,
        },
        EnvironmentError::InsecureUrl { setting, url } => EnvironmentError::InsecureUrl {
            setting: rename(setting),
            url,
        },
        other => other,
    }
}

#[cfg(test)]
mod preset_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_vendor_sandbox_preset_needs_only_a_client_id() {
        let env = Environment::preset(Preset::VendorSandbox, "app-client-id").unwrap();

        assert_eq!(
            env.graphql_endpoint().as_str(),
            "https://network.neutron.health/graphql"
        );
        assert_eq!(
            env.token_endpoint().as_str(),
            "https://auth.neutron.health/oauth/token"
        );
        assert_eq!(env.audience(), "https://api.neutron.health");
        assert_eq!(env.client_id(), "app-client-id");
    }

    #[test]
    fn a_vendor_preset_requires_the_issuer_in_sign_in_answers() {
        for preset in [Preset::VendorSandbox, Preset::VendorProduction] {
            let env = Environment::preset(preset, "app-client-id").unwrap();

            assert!(env.requires_issuer(), "{preset:?}");
        }
    }

    #[test]
    fn the_vendor_production_preset_uses_the_production_hosts() {
        let env = Environment::preset(Preset::VendorProduction, "app-client-id").unwrap();

        assert_eq!(env.api_url().as_str(), "https://network.photon.health/");
        assert_eq!(env.audience(), "https://api.photon.health");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::collections::HashMap;

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    const DESKTOP: &[(&str, &str)] = &[
        (VAR_AUTH_URL, "https://auth.example"),
        (VAR_API_URL, "https://api.example"),
        (VAR_AUDIENCE, "https://api.example/"),
        (VAR_CLIENT_ID, "desktop-app"),
    ];

    #[test]
    fn reads_a_desktop_environment_from_variables() {
        let env = Environment::from_vars(vars(DESKTOP)).unwrap();

        assert_eq!(env.auth_url().as_str(), "https://auth.example/");
        assert_eq!(env.audience(), "https://api.example/");
        assert_eq!(env.client_id(), "desktop-app");
        assert_eq!(env.callback_port(), None);
    }

    #[test]
    fn the_issuer_is_the_auth_url_unless_one_is_named() {
        let mut pairs = DESKTOP.to_vec();
        let plain = Environment::from_vars(vars(&pairs)).unwrap();
        pairs.push((VAR_ISSUER, "https://issuer.example/"));

        let named = Environment::from_vars(vars(&pairs)).unwrap();

        assert_eq!(plain.issuer(), "https://auth.example");
        assert_eq!(named.issuer(), "https://issuer.example");
        assert_eq!(named.auth_url().as_str(), "https://auth.example/");
    }

    #[test]
    fn an_issuer_variable_in_plain_http_off_loopback_is_refused_by_name() {
        let mut pairs = DESKTOP.to_vec();
        pairs.push((VAR_ISSUER, "http://issuer.example"));

        let err = Environment::from_vars(vars(&pairs)).unwrap_err();

        assert!(
            matches!(err, EnvironmentError::InsecureUrl { setting, .. } if setting == VAR_ISSUER)
        );
    }

    #[test]
    fn refuses_a_secret_in_desktop_variables() {
        let mut pairs = DESKTOP.to_vec();
        pairs.push((VAR_CLIENT_SECRET, "s3cret"));

        let err = Environment::from_vars(vars(&pairs)).unwrap_err();

        assert!(matches!(err, EnvironmentError::SecretInPublicClient));
        assert!(
            err.to_string()
                .contains("a public client must never hold a secret")
        );
    }

    #[test]
    fn refuses_a_secret_in_a_desktop_toml_file() {
        let text = r#"
            auth_url = "https://auth.example"
            api_url = "https://api.example"
            audience = "aud"
            client_id = "desktop-app"
            client_secret = "s3cret"
        "#;

        let err = Environment::from_toml_str(text).unwrap_err();

        assert!(matches!(err, EnvironmentError::SecretInPublicClient));
        assert!(!err.to_string().contains("s3cret"));
    }

    #[test]
    fn reads_a_toml_file_with_a_fixed_callback_port() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("env.toml");
        std::fs::write(
            &path,
            "auth_url = \"http://127.0.0.1:8080\"\napi_url = \"http://localhost:8080\"\naudience = \"rxdesk-sandbox\"\nclient_id = \"rxdesk-desktop\"\ncallback_port = 53682\n",
        )
        .unwrap();

        let env = Environment::from_toml_file(&path).unwrap();

        assert_eq!(env.callback_port(), Some(53682));
        assert_eq!(
            env.graphql_endpoint().as_str(),
            "http://localhost:8080/graphql"
        );
    }

    #[test]
    fn requires_https_except_on_loopback() {
        let err =
            Environment::new("http://auth.example", "https://api.example", "a", "c").unwrap_err();
        assert!(matches!(
            err,
            EnvironmentError::InsecureUrl {
                setting: "auth_url",
                ..
            }
        ));

        assert!(Environment::new("http://127.0.0.1:1", "http://[::1]:2", "a", "c").is_ok());
        assert!(Environment::new("http://localhost", "https://api.example", "a", "c").is_ok());
    }

    #[test]
    fn backend_variables_give_credentials() {
        let mut pairs = DESKTOP.to_vec();
        pairs.push((VAR_CLIENT_SECRET, "s3cret"));

        let (env, creds) = Environment::backend_from_vars(vars(&pairs)).unwrap();

        assert_eq!(creds.client_id(), env.client_id());
        assert_eq!(creds.client_secret().expose(), "s3cret");
        assert!(!format!("{creds:?}").contains("s3cret"));
    }

    #[test]
    fn a_missing_variable_is_named() {
        let err = Environment::from_vars(vars(&DESKTOP[..3])).unwrap_err();

        assert_eq!(err.to_string(), "RXDESK_CLIENT_ID is missing");
    }

    #[test]
    fn endpoints_keep_a_path_prefix() {
        let env =
            Environment::new("https://h.example/auth/", "https://h.example/net", "a", "c").unwrap();

        assert_eq!(
            env.token_endpoint().as_str(),
            "https://h.example/auth/oauth/token"
        );
        assert_eq!(
            env.userinfo_endpoint().as_str(),
            "https://h.example/auth/userinfo"
        );
        assert_eq!(
            env.graphql_endpoint().as_str(),
            "https://h.example/net/graphql"
        );
    }
}
