//! Browser sign-in (RFC 8252, RFC 9700): [`SignIn`] (options) →
//! [`PendingSignIn`] (listener bound, browser opened, authorize URL available to
//! show or copy, cancellable) → [`Session`]. URL building, PKCE S256 and the code
//! exchange go through `oauth2`; the loopback listener is ours (`listener`), the
//! browser is behind [`UrlOpener`]. After the exchange, one OpenID Connect
//! UserInfo request (`GET {auth_url}/userinfo`) says who signed in and in which
//! organization; the permissions are the token response's `scope`.
//! [`SignInError`] is this boundary's error.
//!
//! Scopes are `openid offline_access` unless told otherwise: a refresh token, and
//! an ID token kept in the session to end the sign-in at sign-out. A sign-in
//! asked to be fresh ([`SignIn::fresh_login`], after a lock or a sign-out) sends
//! `prompt=login` and `max_age=0`, so the network asks for the password even
//! when the browser is still signed in there; a network that answers with an
//! ID token whose `auth_time` is older than the sign-in itself did not, and the
//! sign-in is refused (`login_not_fresh`). So is an answer that cannot show it
//! did: no ID token, or one without `auth_time` (OpenID Connect requires it
//! whenever `max_age` is sent). Either way the session it made is ended at once.

mod listener;
mod opener;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, CsrfToken, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, Scope, TokenUrl,
};
use tokio::sync::watch;
use tokio::time::Instant;
use url::Url;

pub use opener::{NoBrowser, SystemBrowser, UrlOpener};

use crate::Client;
use crate::clock::ClockOffset;
use crate::error::ClientError;
use crate::id_token::{IdToken, OidcClient};
use crate::secret::Secret;
use crate::session::{self, Session, token_request_error};
use listener::{Ended, Listener};

/// How long sign-in waits for the browser unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How much earlier than the sign-in's start (both on the network's clock) a
/// fresh login's `auth_time` may read: whole seconds, and the network's own
/// servers' clocks.
const AUTH_TIME_SLACK: Duration = Duration::from_secs(60);

/// Why browser sign-in did not produce a session.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The user cancelled at the sign-in page, or the server denied access (`error=access_denied`).
    #[error("sign-in was denied{}", describe(description))]
    Denied { description: Option<String> },
    /// The authorization server answered with another `error=`.
    #[error("the authorization server answered {error}{}", describe(description))]
    Authorization {
        error: String,
        description: Option<String>,
    },
    /// No callback came in time.
    #[error("sign-in timed out waiting for the browser")]
    TimedOut,
    /// [`CancelHandle::cancel`] was called.
    #[error("sign-in was cancelled")]
    Cancelled,
    /// The local callback listener could not be opened.
    #[error("cannot listen for the sign-in callback on the loopback interface: {message}")]
    Listener { message: String },
    /// The code exchange or the UserInfo request failed.
    #[error("sign-in could not be completed: {0}")]
    Client(#[from] ClientError),
}

fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(": {d}"))
        .unwrap_or_default()
}

/// Browser sign-in options. Start with [`Client::sign_in`].
#[derive(Debug)]
pub struct SignIn {
    client: Client,
    opener: Arc<dyn UrlOpener>,
    timeout: Duration,
    organization: Option<String>,
    scopes: Vec<String>,
    fresh: bool,
}

impl SignIn {
    pub(crate) fn new(client: Client) -> Self {
        Self {
            client,
            opener: Arc::new(SystemBrowser),
            timeout: DEFAULT_TIMEOUT,
            organization: None,
            scopes: vec!["openid".to_owned(), "offline_access".to_owned()],
            fresh: false,
        }
    }

    /// Asks the network for a fresh login (`prompt=login`, `max_age=0`): the
    /// password, even if the browser is still signed in there. For every
    /// sign-in after a lock or a sign-out, when someone else may be at the
    /// keyboard.
    pub fn fresh_login(mut self, fresh: bool) -> Self {
        self.fresh = fresh;
        self
    }

    /// How the authorize URL is opened (default: [`SystemBrowser`]).
    pub fn opener(mut self, opener: impl UrlOpener + 'static) -> Self {
        self.opener = Arc::new(opener);
        self
    }

    /// How long to wait for the browser (default five minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sign in to this organization directly (no "Choose an organization" page).
    pub fn organization(mut self, organization_id: impl Into<String>) -> Self {
        self.organization = Some(organization_id.into());
        self
    }

    /// Scopes asked for (default `openid offline_access`: an ID token and a refresh token).
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Binds the loopback listener, builds the authorize URL (PKCE S256, fresh
    /// `state`, `audience`, scopes) and opens it. A browser that fails to open
    /// is not an error: show [`PendingSignIn::authorize_url`] instead.
    pub async fn start(self) -> Result<PendingSignIn, SignInError> {
        let environment = self.client.environment();
        let listener = Listener::bind(environment.callback_port())
            .await
            .map_err(|e| SignInError::Listener {
                message: e.to_string(),
            })?;
        let redirect_uri = listener.redirect_uri().clone();
        let oauth = OidcClient::new(ClientId::new(environment.client_id().to_owned()))
            .set_auth_uri(AuthUrl::from_url(environment.authorize_endpoint()))
            .set_token_uri(TokenUrl::from_url(environment.token_endpoint()))
            .set_redirect_uri(RedirectUrl::from_url(redirect_uri.clone()));
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = oauth
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("audience", environment.audience().to_owned())
            .add_scopes(self.scopes.iter().cloned().map(Scope::new));
        if let Some(org) = &self.organization {
            request = request.add_extra_param("organization", org.clone());
        }
        if self.fresh {
            request = request
                .add_extra_param("prompt", "login")
                .add_extra_param("max_age", "0");
        }
        let fresh_since = self.fresh.then(|| FreshSince {
            wall: self.client.wall_clock().unix_now(),
            started: std::time::Instant::now(),
        });
        let (authorize_url, state) = request.url();
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let pending = PendingSignIn {
            client: self.client.clone(),
            authorize_url,
            redirect_uri,
            local_addr: listener.local_addr(),
            opener: self.opener,
            cancel: CancelHandle(Arc::new(cancel_tx)),
            cancel_rx,
            listener,
            state,
            verifier,
            deadline: Instant::now() + self.timeout,
            browser_error: None,
            fresh_since,
        };
        let opened = pending.open_again();
        tracing::info!(
            listen = %pending.local_addr,
            browser_opened = opened.is_ok(),
            "sign-in started; waiting for the browser"
        );
        Ok(PendingSignIn {
            browser_error: opened.err().map(|e| e.to_string()),
            ..pending
        })
    }

    /// [`SignIn::start`] then [`PendingSignIn::finish`].
    pub async fn run(self) -> Result<Session, SignInError> {
        self.start().await?.finish().await
    }
}

/// Cancels a pending sign-in from anywhere (a UI's Cancel button). Cheap to clone.
#[derive(Debug, Clone)]
pub struct CancelHandle(Arc<watch::Sender<bool>>);

impl CancelHandle {
    /// Ends the wait with [`SignInError::Cancelled`] and closes the listener.
    pub fn cancel(&self) {
        self.0.send_replace(true);
    }
}

/// A sign-in waiting for the browser: what a UI shows while it waits ("Waiting
/// for your browser…", the copyable URL, "Open again", Cancel).
#[derive(Debug)]
pub struct PendingSignIn {
    client: Client,
    authorize_url: Url,
    redirect_uri: Url,
    local_addr: SocketAddr,
    opener: Arc<dyn UrlOpener>,
    cancel: CancelHandle,
    cancel_rx: watch::Receiver<bool>,
    listener: Listener,
    state: CsrfToken,
    verifier: PkceCodeVerifier,
    deadline: Instant,
    browser_error: Option<String>,
    /// When a fresh login was asked for, if it was.
    fresh_since: Option<FreshSince>,
}

/// When a fresh sign-in began: on the workstation's clock, and as a monotonic
/// instant so that the network's clock can place it too.
#[derive(Debug, Clone, Copy)]
struct FreshSince {
    /// Unix seconds on the workstation's clock.
    wall: u64,
    started: std::time::Instant,
}

impl FreshSince {
    /// When the sign-in began on the network's clock, when its ID token says
    /// what that clock read on issue (`iat`, less the time the sign-in has
    /// taken since); else on the workstation's, which may be wrong.
    fn on_network_clock(&self, id_token: Option<&IdToken>) -> u64 {
        match id_token.and_then(|t| t.issued_at) {
            Some(issued_at) => issued_at.saturating_sub(self.started.elapsed().as_secs()),
            None => self.wall,
        }
    }
}

impl PendingSignIn {
    /// The URL to open in a browser, to show or copy when no browser opened.
    pub fn authorize_url(&self) -> &Url {
        &self.authorize_url
    }

    /// Where the browser comes back: `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// The loopback socket the listener is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Why the browser did not open, if it did not.
    pub fn browser_error(&self) -> Option<&str> {
        self.browser_error.as_deref()
    }

    /// Opens the authorize URL again ("Open again").
    pub fn open_again(&self) -> std::io::Result<()> {
        self.opener.open(&self.authorize_url)
    }

    /// A handle that cancels this sign-in.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Waits for the callback, exchanges the code, asks `/userinfo`, and answers the
    /// browser with a plain page. The listener is closed when this returns.
    pub async fn finish(self) -> Result<Session, SignInError> {
        let span = tracing::info_span!("rxdesk.sign_in", outcome = tracing::field::Empty);
        let started = std::time::Instant::now();
        let Self {
            client,
            listener,
            state,
            verifier,
            deadline,
            cancel_rx,
            redirect_uri,
            fresh_since,
            ..
        } = self;
        let ended = listener.wait(state.secret(), deadline, cancel_rx).await;
        let result = match ended {
            Ended::TimedOut => Err(SignInError::TimedOut),
            Ended::Cancelled => Err(SignInError::Cancelled),
            Ended::Error { error, description } if error == "access_denied" => {
                Err(SignInError::Denied { description })
            }
            Ended::Error { error, description } => {
                Err(SignInError::Authorization { error, description })
            }
            Ended::Code {
                code,
                issuer,
                responder,
            } => {
                let session = match issuer_problem(client.environment(), issuer.as_deref()) {
                    Some(problem) => Err(problem),
                    None => exchange(&client, redirect_uri, code, verifier, fresh_since).await,
                };
                match &session {
                    Ok(_) => responder.signed_in().await,
                    Err(e) => responder.failed(&e.to_string()).await,
                }
                session
            }
        };
        let outcome = match &result {
            Ok(_) => "ok",
            Err(SignInError::Denied { .. }) => "denied",
            Err(SignInError::Authorization { .. }) => "authorization_error",
            Err(SignInError::TimedOut) => "timed_out",
            Err(SignInError::Cancelled) => "cancelled",
            Err(SignInError::Listener { .. }) => "listener",
            Err(SignInError::Client(e)) => e.kind(),
        };
        span.record("outcome", outcome);
        span.in_scope(|| {
            tracing::info!(
                outcome,
                duration_ms = started.elapsed().as_millis() as u64,
                "sign-in finished"
            );
        });
        result
    }
}

/// The code exchange (PKCE verifier, same redirect URI), the ID token checked
/// (and, for a fresh login, its `auth_time`), then `/userinfo` with the new
/// access token.
async fn exchange(
    client: &Client,
    redirect_uri: Url,
    code: String,
    verifier: PkceCodeVerifier,
    fresh_since: Option<FreshSince>,
) -> Result<Session, SignInError> {
    let environment = client.environment();
    let oauth = OidcClient::new(ClientId::new(environment.client_id().to_owned()))
        .set_token_uri(TokenUrl::from_url(environment.token_endpoint()))
        .set_redirect_uri(RedirectUrl::from_url(redirect_uri));
    let token = oauth
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .request_async(&client.http().oauth(&environment.token_endpoint()))
        .await
        .map_err(token_request_error)?;
    let id_token = token
        .extra_fields()
        .id_token
        .as_deref()
        .map(|jwt| IdToken::read(jwt, environment))
        .transpose()?;
    let access = Secret::new(
        oauth2::TokenResponse::access_token(&token)
            .secret()
            .as_str(),
    );
    let clock_offset = id_token
        .as_ref()
        .and_then(|t| t.issued_at)
        .map(|issued_at| ClockOffset::between(issued_at, client.wall_clock().unix_now()));
    let info = session::user_info(client.http(), environment, &access).await?;
    let session = Session::from_sign_in(&token, info, environment, clock_offset);
    if let Some(problem) = fresh_since.and_then(|since| {
        fresh_login_problem(id_token.as_ref(), since.on_network_clock(id_token.as_ref()))
    }) {
        // Not the login asked for: the sign-in it made is ended, not kept.
        let _ = client.sign_out(session).await;
        return Err(problem);
    }
    Ok(session)
}

/// Why a sign-in asked to be fresh is not, judged by its ID token: a password
/// typed before the sign-in began (`since`, on the network's clock when it can
/// be placed there, so a workstation clock set wrong does not refuse a real
/// fresh login; beyond [`AUTH_TIME_SLACK`]), or an answer that does
/// not say when it was typed — no ID token, or no `auth_time` in it, which
/// OpenID Connect requires whenever `max_age` is sent (Core §3.1.2.1). Failing
/// open there would let a network that ignores `max_age` skip the password.
fn fresh_login_problem(id_token: Option<&IdToken>, since: u64) -> Option<SignInError> {
    let not_fresh = |why: &str| SignInError::Authorization {
        error: "login_not_fresh".to_owned(),
        description: Some(why.to_owned()),
    };
    let Some(id_token) = id_token else {
        return Some(not_fresh(
            "a fresh login was asked for, and the network's answer had no ID token to say when your password was typed; it was refused",
        ));
    };
    let Some(typed) = id_token.auth_time else {
        return Some(not_fresh(
            "a fresh login was asked for, and the network's ID token did not say when your password was typed (auth_time); it was refused",
        ));
    };
    (typed + AUTH_TIME_SLACK.as_secs() < since).then(|| {
        not_fresh(
            "the network signed you in with an earlier login instead of asking for your password again; it was refused",
        )
    })
}

/// Mix-up defence (RFC 9207): an authorization response naming another issuer is
/// refused, and one naming none when the environment requires it. The code is
/// then never sent anywhere.
fn issuer_problem(environment: &crate::Environment, issuer: Option<&str>) -> Option<SignInError> {
    match issuer {
        Some(named) if named.trim_end_matches('/') != environment.issuer() => Some(SignInError::Authorization {
            error: "issuer_mismatch".to_owned(),
            description: Some(format!(
                "the sign-in answer came from {named}, not from {} (an authorization server mix-up): it was refused",
                environment.issuer()
            )),
        }),
        None if environment.requires_issuer() => Some(SignInError::Authorization {
            error: "issuer_missing".to_owned(),
            description: Some("the sign-in answer did not name its authorization server, which this network requires: it was refused".to_owned()),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod fresh_tests {
    use super::*;

    #[test]
    fn a_login_older_than_the_fresh_sign_in_is_refused() {
        let old = IdToken {
            auth_time: Some(1_000),
            issued_at: None,
        };
        let new = IdToken {
            auth_time: Some(1_990),
            issued_at: None,
        };

        assert!(matches!(
            fresh_login_problem(Some(&old), 2_000),
            Some(SignInError::Authorization { ref error, .. }) if error == "login_not_fresh"
        ));
        assert!(
            fresh_login_problem(Some(&new), 2_000).is_none(),
            "within the slack"
        );
    }

    #[test]
    fn a_fresh_sign_in_is_placed_on_the_network_clock_by_the_id_tokens_issue_time() {
        let since = FreshSince {
            wall: 5_000,
            started: std::time::Instant::now(),
        };
        let issued = IdToken {
            auth_time: Some(1_990),
            issued_at: Some(2_000),
        };

        assert_eq!(since.on_network_clock(Some(&issued)), 2_000);
    }

    #[test]
    fn a_fresh_sign_in_without_an_issue_time_is_placed_on_the_workstation_clock() {
        let since = FreshSince {
            wall: 5_000,
            started: std::time::Instant::now(),
        };

        assert_eq!(since.on_network_clock(None), 5_000);
    }

    #[test]
    fn a_fresh_sign_in_that_does_not_say_when_the_password_was_typed_is_not_fresh() {
        let silent = IdToken {
            auth_time: None,
            issued_at: None,
        };

        for problem in [
            fresh_login_problem(None, 2_000),
            fresh_login_problem(Some(&silent), 2_000),
        ] {
            assert!(
                matches!(problem, Some(SignInError::Authorization { ref error, .. }) if error == "login_not_fresh"),
                "{problem:?}"
            );
        }
    }
}

#[cfg(test)]
mod issuer_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn environment() -> crate::Environment {
        crate::Environment::new(
            "https://auth.example.org",
            "https://api.example.org",
            "aud",
            "app",
        )
        .unwrap()
    }

    #[test]
    fn an_answer_from_another_issuer_is_refused() {
        let problem = issuer_problem(&environment(), Some("https://evil.example.org"));

        assert!(
            matches!(problem, Some(SignInError::Authorization { ref error, .. }) if error == "issuer_mismatch")
        );
    }

    #[test]
    fn an_answer_from_the_environments_issuer_is_accepted() {
        assert!(issuer_problem(&environment(), Some("https://auth.example.org")).is_none());
    }

    #[test]
    fn a_missing_issuer_is_refused_only_where_required() {
        assert!(issuer_problem(&environment(), None).is_none());
        assert!(issuer_problem(&environment().with_required_issuer(true), None).is_some());
    }
}
