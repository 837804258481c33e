//! The control endpoint: a second listener, on loopback only and separate from
//! the API, through which a test, a benchmark or a developer changes the running
//! sandbox (`docs/network-api.md`, "Control endpoint"). Off unless
//! `Config::control` (`--control ADDR`) is set. JSON in and out; a request whose
//! `Host` is not a loopback name is refused (421), as on the API.
//!
//! One file per concern, each with a `routes()` merged in [`router`]:
//! [`link`] (`GET`/`PUT /link`), [`clock`] (`GET /clock`, `POST /clock/advance`),
//! [`webhooks`] (the delivery log, subscriptions). Handlers get a [`ControlState`]
//! (`state.rs`) and refuse with the helpers of `reply.rs`; neither imports this file.

pub mod clock;
pub mod link;
mod reply;
mod state;
pub mod webhooks;

use std::net::SocketAddr;

use axum::Router;
use axum::middleware;
use tokio::net::TcpListener;
use tower_http::limit::RequestBodyLimitLayer;

pub(crate) use self::state::ControlState;

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

/// Every control route, behind the body limit and the loopback `Host` check.
pub(crate) fn router(state: ControlState) -> Router {
    Router::new()
        .merge(link::routes())
        .merge(clock::routes())
        .merge(webhooks::routes())
        .fallback(reply::not_found)
        .method_not_allowed_fallback(reply::method_not_allowed)
        .layer(RequestBodyLimitLayer::new(
            crate::body_limit::MAX_BODY_BYTES,
        ))
        .layer(middleware::from_fn(crate::host_check::loopback_host_only))
        .with_state(state)
}
