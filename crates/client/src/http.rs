//! The HTTP clients every request to a network goes through ([`Http`]), built
//! once per [`Client`](crate::Client) and shared by sign-in, renewal,
//! revocation, UserInfo, machine tokens and the Network API.
//!
//! What they do, for clinic networks (TLS-inspecting proxies, private CAs):
//! - **Trust**: the operating system's trust store, through
//!   `rustls-platform-verifier` — the platform verifier on Windows and macOS
//!   (certificates IT deploys by policy count); on Linux the system bundle, as
//!   `SSL_CERT_FILE` / `SSL_CERT_DIR` name it when set. Only when the system
//!   has no roots at all (a bare container) do the built-in Mozilla roots
//!   stand in, with a warning.
//! - **Proxy**: the system proxy — `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
//!   `NO_PROXY` (either case), read when the [`Http`] is built; with none set,
//!   the Windows (registry, "Internet Options") or macOS (System Settings)
//!   proxy. PAC scripts and WPAD are not read.
//! - **Loopback goes direct**, whatever the proxy settings say: a clinic's proxy
//!   cannot reach this machine's `127.0.0.1`, so the local sandbox is never
//!   proxied (the sign-in redirect to the loopback listener is the browser's,
//!   not ours).
//!
//! Both clients: no redirects (a token endpoint that redirects is an attack,
//! not a feature, and `oauth2` requires it), bounded waits.

use std::sync::Arc;
use std::time::Duration;

use url::Url;

use crate::environment::is_loopback;
use crate::error::ClientError;

/// The two clients behind every request: through the system proxy, and direct
/// for loopback hosts. Cheap to clone (both share one connection pool each).
#[derive(Debug, Clone)]
pub(crate) struct Http {
    proxied: reqwest::Client,
    direct: reqwest::Client,
}

impl Http {
    /// Reads the trust store and the proxy settings once.
    pub(crate) fn new() -> Result<Self, ClientError> {
        let tls = tls_config();
        Ok(Self {
            proxied: builder(tls.clone())
                .build()
                .map_err(ClientError::from_reqwest)?,
            direct: builder(tls)
                .no_proxy()
                .build()
                .map_err(ClientError::from_reqwest)?,
        })
    }

    /// The client for requests to `url`: direct for a loopback host, else
    /// through the system proxy (if any).
    pub(crate) fn for_url(&self, url: &Url) -> &reqwest::Client {
        if is_loopback(url) {
            &self.direct
        } else {
            &self.proxied
        }
    }
}

fn builder(tls: Option<rustls::ClientConfig>) -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30));
    match tls {
        Some(config) => builder.use_preconfigured_tls(config),
        None => builder,
    }
}

/// rustls with the platform verifier, or `None` (reqwest's built-in roots) when
/// the system offers no trust store at all.
fn tls_config() -> Option<rustls::ClientConfig> {
    match platform_tls_config() {
        Ok(config) => Some(config),
        Err(e) => {
            tracing::warn!(
                error = %e,
                "the system's trust store could not be read; trusting the built-in roots only"
            );
            None
        }
    }
}

fn platform_tls_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    // reqwest is built without HTTP/2: say so, as its own rustls setup would.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn is_direct(http: &Http, url: &str) -> bool {
        let chosen = http.for_url(&Url::parse(url).unwrap());
        std::ptr::eq(chosen, &http.direct)
    }

    #[test]
    fn loopback_hosts_are_reached_directly() {
        let http = Http::new().unwrap();

        for url in [
            "http://127.0.0.1:8080/oauth/token",
            "http://127.10.0.1/",
            "http://[::1]:9/graphql",
            "https://LOCALHOST:8443/",
        ] {
            assert!(is_direct(&http, url), "{url}");
        }
    }

    #[test]
    fn other_hosts_go_through_the_system_proxy() {
        let http = Http::new().unwrap();

        for url in [
            "https://auth.example.org/oauth/token",
            "https://10.0.0.5/graphql",
            "https://localhost.example.org/",
        ] {
            assert!(!is_direct(&http, url), "{url}");
        }
    }
}
