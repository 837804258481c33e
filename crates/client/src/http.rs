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
//! Both clients speak HTTP/2 where the server offers it (ALPN over TLS) and
//! HTTP/1.1 otherwise (plain `http://` on loopback is always HTTP/1.1). Both:
//! no redirects (a token endpoint that redirects is an attack, not a feature,
//! and `oauth2` requires it), bounded waits. `oauth2` (code
//! exchange, refresh) goes through the same clients via [`OAuthHttp`], so the
//! app carries one HTTP stack: the reqwest line the updater plugin uses.

use std::future::Future;
use std::pin::Pin;
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
        let tls = tls_config()?;
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

    /// The client for `url`, as `oauth2` takes it (`request_async(&http.oauth(&url))`).
    pub(crate) fn oauth(&self, url: &Url) -> OAuthHttp<'_> {
        OAuthHttp(self.for_url(url))
    }
}

/// `oauth2`'s [`AsyncHttpClient`](oauth2::AsyncHttpClient) over one of our
/// reqwest clients: `oauth2` is built without an HTTP client of its own (its
/// `reqwest` feature would bring a second reqwest line into the binary).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OAuthHttp<'a>(&'a reqwest::Client);

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp<'_> {
    type Error = oauth2::HttpClientError<reqwest::Error>;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let request = reqwest::Request::try_from(request).map_err(Box::new)?;
            let response = self.0.execute(request).await.map_err(Box::new)?;
            let mut answer = oauth2::http::Response::builder()
                .status(response.status())
                .version(response.version());
            for (name, value) in response.headers() {
                answer = answer.header(name, value);
            }
            let body = response.bytes().await.map_err(Box::new)?;
            answer
                .body(body.to_vec())
                .map_err(oauth2::HttpClientError::Http)
        })
    }
}

fn builder(tls: rustls::ClientConfig) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .use_preconfigured_tls(tls)
}

/// rustls (ring) with the platform verifier, or with the built-in Mozilla roots
/// when the system offers no trust store at all.
fn tls_config() -> Result<rustls::ClientConfig, ClientError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?;
    let mut config = match rustls_platform_verifier::Verifier::new(provider) {
        Ok(verifier) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth(),
        Err(e) => {
            tracing::warn!(
                error = %e,
                "the system's trust store could not be read; trusting the built-in roots only"
            );
            let roots =
                rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    // HTTP/2 where the network offers it, as reqwest's own rustls setup would:
    // the calls of a batch (signatures, a screen's Gets) then share one warm
    // connection instead of each opening its own (a TCP and a TLS handshake,
    // two round trips more, per call on a remote link).
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

fn tls_error(e: rustls::Error) -> ClientError {
    ClientError::Protocol {
        message: format!("TLS cannot be set up: {e}"),
    }
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
