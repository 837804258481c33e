//! The control endpoint: a second listener, on loopback only and separate from
//! the API, through which a test, a benchmark or a developer changes the running
//! sandbox (`docs/network-api.md`, "Control endpoint"). Off unless
//! `Config::control` (`--control ADDR`) is set. JSON in and out; a request whose
//! `Host` is not a loopback name is refused (421), as on the API.
//!
//! One file per concern, each with a `routes()` merged in [`router`]:
//! [`link`] (`GET`/`PUT /link`). Handlers get a [`ControlState`].

pub mod link;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tower_http::limit::RequestBodyLimitLayer;

use crate::state::AppState;

/// What every control handler can reach.
#[derive(Debug, Clone)]
pub(crate) struct ControlState {
    /// The sandbox's shared state (database, catalog, configuration).
    #[allow(dead_code, reason = "for the control routes that act on records")]
    pub app: AppState,
    /// The link layer's handle.
    pub link: crate::link::Link,
}

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
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(RequestBodyLimitLayer::new(
            crate::body_limit::MAX_BODY_BYTES,
        ))
        .layer(middleware::from_fn(crate::server::loopback_host_only))
        .with_state(state)
}

/// A refusal in the control endpoint's shape: `{ "error": "…" }`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "error": message.into() });
    (status, axum::Json(body)).into_response()
}

/// A JSON body that could not be read, said in the control endpoint's shape.
pub(crate) fn bad_json(rejection: &JsonRejection) -> Response {
    error(rejection.status(), rejection.body_text())
}

async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "this control route does not take that method (see docs/network-api.md, \"Control endpoint\")",
    )
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such control route (see docs/network-api.md, \"Control endpoint\")",
    )
}
