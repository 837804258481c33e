//! The control endpoint: a second listener, on loopback only and separate from
//! the API, through which a test, a benchmark or a developer changes the running
//! sandbox (`docs/network-api.md`, "Control endpoint"). Off unless
//! `Config::control` (`--control ADDR`) is set. JSON in and out; a request whose
//! `Host` is not a loopback name is refused (421), as on the API; one without the
//! start's token as `Authorization: Bearer` is refused (401, `token.rs`).
//!
//! One file per concern, each with a `routes()` merged in [`router`]:
//! [`link`] (`GET`/`PUT /link`), [`clock`] (`GET /clock`, `POST /clock/advance`),
//! [`webhooks`] (the delivery log, subscriptions). Handlers get a [`ControlState`]
//! (`state.rs`) and refuse with the helpers of `reply.rs`; neither imports this file.

pub mod clock;
pub mod link;
mod reply;
mod state;
mod token;
pub mod webhooks;

use std::net::SocketAddr;

use axum::Router;
use axum::middleware;
use tokio::net::TcpListener;
use tower_http::limit::RequestBodyLimitLayer;

pub(crate) use self::state::ControlState;
pub(crate) use self::token::ControlToken;
pub use self::token::TOKEN_FILE;

/// Why the control endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error(
        "the control endpoint listens on loopback only (127.0.0.1 or [::1]); {0} is not a loopback address"
    )]
    NotLoopback(SocketAddr),
    #[error("cannot listen for the control endpoint on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The token file (or the in-memory sandbox's private directory for it)
    /// could not be written.
    #[error("cannot write the control endpoint's token file in {dir}: {source}")]
    TokenFile {
        dir: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// Binds the control listener on `addr`, which must be a loopback address.
pub(crate) async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), ControlError> {
    if !addr.ip().is_loopback() {
        return Err(ControlError::NotLoopback(addr));
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ControlError::Bind { addr, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| ControlError::Bind { addr, source })?;
    Ok((listener, bound))
}

/// Every control route, behind the loopback `Host` check, then the token check,
/// then the body limit.
pub(crate) fn router(state: ControlState, token: ControlToken) -> Router {
    Router::new()
        .merge(link::routes())
        .merge(clock::routes())
        .merge(webhooks::routes())
        .fallback(reply::not_found)
        .method_not_allowed_fallback(reply::method_not_allowed)
        .layer(RequestBodyLimitLayer::new(
            crate::body_limit::MAX_BODY_BYTES,
        ))
        .layer(middleware::from_fn_with_state(token, token::require))
        .layer(middleware::from_fn(crate::host_check::loopback_host_only))
        .with_state(state)
}
