//! `rxdesk-client`: everything about talking to a prescribing network that
//! honours `shared/service-contract.md` (the local sandbox is one). No UI and no
//! Tauri here; the desktop app and backends stand on it.
//!
//! # Contents
//!
//! | item | what it is |
//! | --- | --- |
//! | [`Environment`], [`BackendCredentials`] | which network: auth server, API, audience, client id; TOML or `RXDESK_*` variables; a public client never holds a secret |
//! | [`Client`] | the entry point: one per environment, shares its HTTP clients (the OS trust store and proxy; loopback direct) |
//! | [`Client::sign_in`] → [`SignIn`] → [`PendingSignIn`] → [`Session`] | browser sign-in: PKCE, loopback listener, [`UrlOpener`], cancel ([`CancelHandle`]), timeout, a fresh login on request ([`SignIn::fresh_login`]); errors in [`SignInError`] |
//! | [`Session`], [`Client::renew`], [`Client::sign_out`] | the user's token, expiry, permissions (the token response's `scope`), user and organization (OpenID Connect UserInfo), the sign-in's ID token; renewal by refresh token (rotation); sign-out: both tokens revoked and the sign-in ended at the network ([`SignOutReport`]) |
//! | [`MachineTokens`], [`Client::machine_tokens`] | client-credentials tokens, cached and shared, one request in flight (also through a token-endpoint outage) |
//! | [`network::Network`] ([`Client::network`], [`Client::machine_network`]) | the Network API: one typed async fn per call shape, answers as [`network::Outcome`]s |
//! | [`IdempotencyKey`] | what every create carries as its `externalId`, made once per user action, so a repeat never makes a second record |
//! | [`retry`] | the retry policy ([`retry::RetryPolicy`]: backoff with jitter, `Retry-After`, a deadline per [`retry::CallKind`]) and [`retry::observe`] for "Still trying (attempt n)" |
//! | [`ClientError`] | the one error of network calls: signed out, refused, invalid, not found, upstream, network, rate limited, timed out, untrusted, server, protocol |
//! | [`sync`] | the CSV patient/prescription/order sync behind `examples/backend_sync.rs` |
//! | [`webhooks`] | receiving the network's webhooks: [`webhooks::Verifier`] (signature in constant time, timestamp tolerance, the signed event `time` within a window; an empty secret refused), typed [`webhooks::Event`]s, [`webhooks::Deduplicator`] (in memory or in a file), [`webhooks::WebhookError`]; `examples/webhook_receiver.rs` |
//! | [`WallClock`], [`ClockOffset`], [`CLOCK_LEEWAY`] | the workstation's clock against the network's: measured at sign-in, kept in the [`Session`], "wrong" beyond the leeway; nothing the client decides needs the two to agree |
//! | [`Secret`] | tokens and secrets: redacted when printed, zeroized on drop |
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use rxdesk_client::{Client, Environment};
//! let client = Client::new(Environment::from_env()?)?;
//! let pending = client.sign_in().start().await?;
//! println!("Waiting for your browser… {}", pending.authorize_url());
//! let session = pending.finish().await?;
//! println!("Signed in as {} at {}", session.user().name, session.organization().name);
//! let pong = client.network(&session).ping().await?;
//! # let _ = pong; Ok(()) }
//! ```
//!
//! Logs go through `tracing`: one span per operation with its name, duration and
//! outcome; never a token, secret, code, verifier or patient field.

mod call_kind;
mod clock;
mod environment;
mod error;
mod http;
mod id_token;
mod idempotency;
pub mod network;
mod redact;
pub mod retry;
mod secret;
mod session;
mod sign_out;
mod signin;
pub mod sync;
mod token;
mod transport;
pub mod webhooks;

use std::sync::Arc;

pub use clock::{CLOCK_LEEWAY, ClockOffset, WallClock};
pub use environment::{
    BackendCredentials, Environment, EnvironmentError, Preset, VAR_API_URL, VAR_AUDIENCE,
    VAR_AUTH_URL, VAR_CALLBACK_PORT, VAR_CLIENT_ID, VAR_CLIENT_SECRET, VAR_ISSUER,
};
pub use error::ClientError;
pub use idempotency::{IdempotencyKey, InvalidKey, MAX_KEY_CHARS};
pub use secret::Secret;
pub use session::{Session, SessionOrganization, SessionUser};
pub use sign_out::{SignOutReport, SignOutStep};
pub use signin::{
    CancelHandle, DEFAULT_TIMEOUT, NoBrowser, PendingSignIn, SignIn, SignInError, SystemBrowser,
    UrlOpener,
};
pub use token::MachineTokens;

/// One network: its [`Environment`], shared HTTP clients (redirects
/// disabled, bounded timeouts, the operating system's trust store and proxy,
/// loopback never proxied) and the [`retry::RetryPolicy`] of its calls. Cheap
/// to clone.
#[derive(Debug, Clone)]
pub struct Client {
    environment: Arc<Environment>,
    http: http::Http,
    retry: Arc<retry::RetryPolicy>,
    clock: WallClock,
}

impl Client {
    pub fn new(environment: Environment) -> Result<Self, ClientError> {
        Ok(Self {
            environment: Arc::new(environment),
            http: http::Http::new()?,
            retry: Arc::new(retry::RetryPolicy::default()),
            clock: WallClock::system(),
        })
    }

    /// The same network with other deadlines, attempts or backoff for the
    /// networks and machine tokens made from it afterwards.
    pub fn with_retry_policy(mut self, policy: retry::RetryPolicy) -> Self {
        self.retry = Arc::new(policy);
        self
    }

    /// The same network read against another wall clock: only tests and the
    /// bench, to play a workstation whose clock is set wrong.
    pub fn with_wall_clock(mut self, clock: WallClock) -> Self {
        self.clock = clock;
        self
    }

    pub(crate) fn wall_clock(&self) -> &WallClock {
        &self.clock
    }

    pub fn retry_policy(&self) -> &retry::RetryPolicy {
        &self.retry
    }

    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    pub(crate) fn http(&self) -> &http::Http {
        &self.http
    }

    /// Browser sign-in with the default options (system browser, five minutes,
    /// `offline_access`); adjust them on the returned [`SignIn`].
    pub fn sign_in(&self) -> SignIn {
        SignIn::new(self.clone())
    }

    /// The Network API as the signed-in user of `session`.
    pub fn network(&self, session: &Session) -> network::Network {
        self.network_with_token(session.access_token().clone())
    }

    /// The Network API with a bearer token obtained elsewhere.
    pub fn network_with_token(&self, token: Secret) -> network::Network {
        let endpoint = self.environment.graphql_endpoint();
        network::Network::new(transport::Transport::new(
            self.http.for_url(&endpoint).clone(),
            endpoint,
            transport::Auth::Bearer(token),
            self.retry.clone(),
        ))
    }

    /// The Network API as a backend, sharing `tokens` with other callers.
    pub fn machine_network(&self, tokens: MachineTokens) -> network::Network {
        let endpoint = self.environment.graphql_endpoint();
        network::Network::new(transport::Transport::new(
            self.http.for_url(&endpoint).clone(),
            endpoint,
            transport::Auth::Machine(tokens),
            self.retry.clone(),
        ))
    }

    /// Machine tokens for a backend, cached and shared by every clone.
    pub fn machine_tokens(&self, credentials: BackendCredentials) -> MachineTokens {
        MachineTokens::with_http(
            &self.http,
            &self.environment,
            credentials,
            self.retry.clone(),
        )
    }

    /// Renews a session with its refresh token. Store the returned session: the
    /// old refresh token no longer works (rotation). Without a refresh token, or
    /// when renewal is refused, the answer is [`ClientError::SignedOut`].
    pub async fn renew(&self, session: &Session) -> Result<Session, ClientError> {
        session::renew(&self.http, &self.environment, session).await
    }

    /// Signs out: the session is dropped (tokens wiped) and ended at the
    /// network — refresh and access tokens revoked, the sign-in ended at the
    /// end-session endpoint where the network offers one. What failed is
    /// reported, never an obstacle.
    pub async fn sign_out(&self, session: Session) -> SignOutReport {
        sign_out::sign_out(&self.http, &self.environment, session).await
    }
}
