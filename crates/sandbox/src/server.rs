//! Starting and stopping a sandbox: open storage, load the fixture and catalog,
//! bind the listener, serve the auth router and the Network API until shut down,
//! with the link layer (`crate::link`) in front of both and, when configured,
//! the control endpoint (`crate::control`) on its own listener, and the simulated
//! pharmacy and webhook worker (`crate::after_send`) beside them. Every request
//! body is limited to [`MAX_BODY_BYTES`] (`body_limit.rs`); a body over it is
//! answered in the shape of the endpoint it was sent to ([`reshape_too_large`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tower_http::limit::RequestBodyLimitLayer;
use url::Url;

use crate::after_send::{AfterSend, AfterSendError, TestClock};
use crate::auth::issuer::IssuerError;
use crate::auth::keys::{KeyError, SigningKeys};
use crate::body_limit::MAX_BODY_BYTES;
use crate::config::{Config, SettingsError, SettingsRule, Storage};
use crate::control::{ControlError, ControlState, ControlToken};
use crate::fixture::{FixtureError, Rule};
use crate::link::{Link, LinkError};
use crate::state::AppState;
use crate::store::{Db, StoreError};
use crate::webhooks::Webhooks;

/// Why a sandbox could not start. Each message names what to fix.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    Issuer(#[from] IssuerError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Control(#[from] ControlError),
    #[error("bad link settings: {0}")]
    Link(#[from] LinkError),
    /// A command-line flag about the time after Send is wrong (fixture entries
    /// are reported as [`StartError::Fixture`]).
    #[error("{0}")]
    Flag(SettingsError),
    #[error("the simulated pharmacy and webhooks cannot start: {0}")]
    AfterSend(#[from] AfterSendError),
}

/// A running sandbox. Dropping it without [`Sandbox::shutdown`] stops serving too
/// (the shutdown signal fires when the sender drops).
#[derive(Debug)]
pub struct Sandbox {
    addr: SocketAddr,
    url: Url,
    issuer: String,
    control_url: Option<Url>,
    /// The control endpoint's token and the file it was written to.
    control_token: Option<(ControlToken, PathBuf)>,
    /// An in-memory sandbox's private directory (its control token), removed
    /// when the sandbox is dropped.
    _private: Option<tempfile::TempDir>,
    link: Link,
    /// Set to `true` to stop every listener (dropping it does too).
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
    after_send: AfterSend,
}

impl Sandbox {
    /// Opens storage, loads the fixture and the catalog, binds `config.listen`
    /// and starts serving. Returns once the listener accepts connections.
    pub async fn start(config: Config) -> Result<Self, StartError> {
        let fixture = crate::fixture::load(&config.fixture)?;
        let catalog = Arc::new(crate::catalog::Catalog::build(&fixture)?);
        let organizations: Vec<String> =
            fixture.organizations.iter().map(|o| o.id.clone()).collect();
        let settings = crate::after_send::Settings::resolve(
            &fixture.fulfillment,
            &fixture.webhooks,
            &fixture.webhook_delivery,
            &config.after_send,
            &catalog,
            &organizations,
        )
        .map_err(|e| settings_error(&fixture.file, e))?;
        let (db, keys) = match &config.storage {
            Storage::Data(dir) => {
                private_dir(dir).map_err(|source| StartError::DataDir {
                    path: dir.clone(),
                    source,
                })?;
                (Db::open_file(dir)?, SigningKeys::load_or_create(dir)?)
            }
            Storage::InMemory => (Db::open_in_memory()?, SigningKeys::generate()?),
        };
        crate::fixture::apply(&db, &fixture).await?;
        crate::network::seed::patients(&db, &catalog, &fixture).await?;
        let after_send =
            AfterSend::start(db.clone(), Arc::clone(&catalog), organizations, settings).await?;
        // The flags' settings replace the fixture's `[link]` section whole.
        let link = Link::new(
            config
                .link
                .clone()
                .or_else(|| fixture.link.clone())
                .unwrap_or_default(),
        )?;
        let control = match config.control {
            Some(addr) => Some(crate::control::bind(addr).await?),
            None => None,
        };
        // The control token goes to the private directory: the data directory
        // (0700, beside the database), or for an in-memory sandbox a private
        // temporary directory of its own (0700 too).
        let mut private = None;
        let control_token = match (&control, &config.storage) {
            (None, _) => None,
            (Some(_), storage) => {
                let dir = match storage {
                    Storage::Data(dir) => dir.clone(),
                    Storage::InMemory => {
                        let made = tempfile::Builder::new()
                            .prefix("rxdesk-sandbox-")
                            .tempdir()
                            .map_err(|source| ControlError::TokenFile {
                                dir: std::env::temp_dir(),
                                source,
                            })?;
                        let path = made.path().to_owned();
                        private = Some(made);
                        private_dir(&path).map_err(|source| ControlError::TokenFile {
                            dir: path.clone(),
                            source,
                        })?;
                        path
                    }
                };
                let token = ControlToken::generate();
                let file = token
                    .write(&dir)
                    .map_err(|source| ControlError::TokenFile { dir, source })?;
                Some((token, file))
            }
        };
        let ended_sign_ins = crate::auth::sign_ins::EndedSignIns::load(&db).await?;

        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| StartError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: config.listen,
            source,
        })?;
        let origin = format!("http://{addr}");
        let url = Url::parse(&origin).map_err(|_| StartError::Bind {
            addr,
            source: std::io::Error::other("listening address is not a valid URL"),
        })?;
        // A data directory keeps the issuer of its first start, whatever the port now.
        let issuer = match &config.storage {
            Storage::Data(dir) => crate::auth::issuer::load_or_create(dir, &origin)?,
            Storage::InMemory => origin.clone(),
        };

        let state = AppState::new(crate::state::Shared {
            db,
            catalog,
            keys: Arc::new(keys),
            config: Arc::new(config),
            issuer: issuer.as_str().into(),
            origin: origin.into(),
            demo_accounts: fixture.demo_accounts().into(),
            login_limiter: Arc::default(),
            verified_tokens: Arc::default(),
            ended_sign_ins: Arc::new(ended_sign_ins),
        });
        let app = router(state.clone(), addr.ip().is_loopback(), link.clone());

        let (shutdown, stopped) = watch::channel(false);
        let mut tasks = Vec::new();
        let until_stopped = {
            let mut stopped = stopped.clone();
            async move {
                // Resolves on `true`, or when the sender is dropped.
                let _ = stopped.wait_for(|stop| *stop).await;
            }
        };
        tasks.push(tokio::spawn(async move {
            // The peer's address: the login limit counts per account and source.
            let served = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(until_stopped)
            .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "sandbox server stopped with an error");
            }
        }));
        let mut control_url = None;
        if let (Some((listener, control_addr)), Some((token, _))) = (control, &control_token) {
            let routes = crate::control::router(
                ControlState {
                    app: state,
                    link: link.clone(),
                    after_send: after_send.clone(),
                },
                token.clone(),
            );
            let mut stopped = stopped.clone();
            tasks.push(tokio::spawn(async move {
                let served = axum::serve(listener, routes)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.wait_for(|stop| *stop).await;
                    })
                    .await;
                if let Err(e) = served {
                    tracing::error!(error = %e, "control endpoint stopped with an error");
                }
            }));
            control_url = Url::parse(&format!("http://{control_addr}")).ok();
            tracing::info!(addr = %control_addr, "control endpoint started");
        }
        // The issuer differs from the address after a restart on another port.
        tracing::info!(%addr, %issuer, "sandbox started");
        Ok(Self {
            addr,
            url,
            issuer,
            control_url,
            control_token,
            _private: private,
            link,
            shutdown,
            tasks,
            after_send,
        })
    }

    /// The socket the sandbox listens on (with the real port when started on port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: both `{auth_url}` and `{base_url}` of the contract.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The issuer of its tokens and authorization responses (`iss`): the
    /// origin of the data directory's first start, kept across restarts on
    /// other ports; for an in-memory sandbox, [`Sandbox::url`] without its
    /// trailing slash.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// `http://127.0.0.1:PORT` of the control endpoint, when it was asked for
    /// (`Config::control`).
    pub fn control_url(&self) -> Option<&Url> {
        self.control_url.as_ref()
    }

    /// The control endpoint's token, made at this start: send it as
    /// `Authorization: Bearer <token>` on every control route. Never log it.
    pub fn control_token(&self) -> Option<&str> {
        self.control_token.as_ref().map(|(token, _)| token.expose())
    }

    /// The file holding the control token (`control.token`, mode `0600`): in the
    /// data directory, or for an in-memory sandbox in its private temporary
    /// directory (removed when it stops).
    pub fn control_token_file(&self) -> Option<&std::path::Path> {
        self.control_token.as_ref().map(|(_, file)| file.as_path())
    }

    /// The link layer: its settings, counters and token outage, changed at
    /// runtime as `PUT /link` does.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The test clock: read it, or advance it so that what the simulated
    /// pharmacy and webhook retries would do in that time happens now.
    pub fn clock(&self) -> TestClock {
        self.after_send.clock()
    }

    /// The webhook subscriptions and the delivery log.
    pub fn webhooks(&self) -> &Webhooks {
        self.after_send.webhooks()
    }

    /// Stops accepting connections, lets in-flight requests finish, stops the
    /// simulated pharmacy and the webhook worker, and waits.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
        self.after_send.stop().await;
    }
}

/// A broken after-Send setting: a fixture entry is a broken fixture (file, entry,
/// rule); a flag is named as such.
fn settings_error(file: &str, error: SettingsError) -> StartError {
    if error.from_flag {
        return StartError::Flag(error);
    }
    let rule = match error.rule {
        SettingsRule::Unknown { what, reference } => Rule::UnknownReference { what, reference },
        SettingsRule::Invalid(message) => Rule::InvalidValue(message),
    };
    StartError::Fixture(FixtureError {
        file: file.to_owned(),
        entry: error.entry,
        rule,
    })
}

fn router(state: AppState, loopback: bool, link: Link) -> Router {
    let router = Router::new()
        .merge(crate::auth::router())
        .merge(crate::network::router())
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            Front { loopback, link },
            front,
        ));
    router.with_state(state)
}

/// What [`front`] needs: whether the listener is on loopback, and the link.
#[derive(Clone)]
struct Front {
    loopback: bool,
    link: Link,
}

/// Everything in front of the routes but the body limit, in one middleware,
/// in this order:
/// 1. on loopback (the default, and the desktop app's built-in sandbox) only a
///    loopback name may address the sandbox: a web page that rebinds its own
///    host name to 127.0.0.1 (DNS rebinding) is turned away before anything
///    else runs (`host_check.rs`);
/// 2. a body over the limit is answered in the endpoint's shape
///    ([`reshape_too_large`]), whoever refused it;
/// 3. the link layer (`crate::link`) decides the request's fate, then the
///    body limit and the routes run.
///
/// One middleware, not three: each of axum's `from_fn` layers costs every
/// request a cloned, boxed inner service and a boxed future. As three layers
/// they cost a Network API Get some 3–5 % more CPU (`bench/examples/api_calls.rs`).
async fn front(
    axum::extract::State(front): axum::extract::State<Front>,
    request: Request,
    next: Next,
) -> Response {
    if front.loopback && !crate::host_check::names_only_loopback(&request) {
        return crate::host_check::misdirected();
    }
    let in_shape = too_large_in_shape(&request);
    let response =
        crate::link::layer(front.link, crate::network::classify_graphql, request, next).await;
    reshape_too_large(in_shape, response)
}

/// Creates `dir` (and its parents) readable by its owner only (`0700` on Unix),
/// and tightens it when it already exists.
fn private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The answer `request`'s endpoint gives a body over the limit, if it has its
/// own shape for one.
fn too_large_in_shape(request: &Request) -> Option<fn() -> Response> {
    match request.uri().path() {
        "/graphql" => Some(crate::graphql::body_too_large),
        "/oauth/token" | "/oauth/revoke" => Some(crate::auth::body_too_large),
        _ => None,
    }
}

/// Rewrites a plain-text 413 into the error shape of the endpoint: the limit
/// layer refuses a too-large `Content-Length` before any handler runs, and
/// axum's `Bytes` extractor refuses a chunked body that runs over, both as
/// `text/plain`. `/graphql` answers with a GraphQL error (`REQUEST_TOO_LARGE`),
/// the token and revocation endpoints with an RFC 6749 `invalid_request`; the
/// HTML sign-in forms keep the plain-text answer. `in_shape` is what
/// [`too_large_in_shape`] read from the request.
fn reshape_too_large(in_shape: Option<fn() -> Response>, response: Response) -> Response {
    match in_shape {
        Some(in_shape)
            if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json(&response) =>
        {
            in_shape()
        }
        _ => response,
    }
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}
