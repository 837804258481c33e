//! The link step in front of the sandbox's routes (run by `server.rs`'s front
//! middleware): for `POST /graphql` and `POST /oauth/token` while the link is
//! on, it tells the operation, takes the
//! seeded decision, waits half the latency, then either answers in place of
//! the network (502, 503, 429, the token outage's 503), closes the connection
//! (before the handler runs, or after it committed), marks the request for an
//! `UpstreamServiceError`, or lets it through; the other half of the latency is
//! spent on the way back. Every other request passes untouched.
//!
//! A closed connection is a response whose body fails on its first frame:
//! hyper then drops the connection with the status line still unsent, so the
//! client reads no byte of an answer (`tests/network_link.rs` checks it with a
//! raw socket).

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest as _, Request};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

use super::decide::{Decision, Fault};
use super::operation::Operation;
use super::state::{Injected, Link, UpstreamFault};
use crate::body_limit::MAX_BODY_BYTES;

/// The link's step for one request, run by the server's front middleware
/// (`server.rs`), inside its host check and outside the body limit. `classify`
/// tells a `/graphql` body's operation (the network's
/// `crate::network::classify_graphql`, handed in by the server).
pub(crate) async fn layer(
    link: Link,
    classify: fn(&[u8]) -> Operation,
    request: Request,
    next: Next,
) -> Response {
    if !link.is_active() || request.method() != Method::POST {
        return next.run(request).await;
    }
    let (op, request) = match request.uri().path() {
        "/oauth/token" => (Operation::Token, request),
        "/graphql" => {
            let (parts, body) = request.into_parts();
            // Read within the server's limit, which runs after this step: a
            // body over it is refused here as the limit would refuse it (413),
            // before the link decides anything, and the server answers it in
            // the endpoint's shape.
            let limited = Body::new(http_body_util::Limited::new(body, MAX_BODY_BYTES));
            let bytes = match Bytes::from_request(Request::new(limited), &()).await {
                Ok(bytes) => bytes,
                Err(rejection) => return rejection.into_response(),
            };
            let op = classify(&bytes);
            (op, Request::from_parts(parts, Body::from(bytes)))
        }
        _ => return next.run(request).await,
    };
    let (decision, outage, retry_after) = link.next(op);
    if decision.delayed {
        link.count(op, Injected::Latency);
    }
    tokio::time::sleep(decision.before).await;

    if let Some(left) = outage {
        link.count(op, Injected::TokenOutage);
        let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        return back(&decision, token_outage(seconds)).await;
    }
    let mut request = request;
    match decision.fault {
        Some(Fault::ResetBefore) => {
            link.count(op, Injected::ResetBefore);
            return reset();
        }
        Some(Fault::Http502) => {
            link.count(op, Injected::Http502);
            return back(&decision, gateway(StatusCode::BAD_GATEWAY)).await;
        }
        Some(Fault::Http503) => {
            link.count(op, Injected::Http503);
            return back(&decision, gateway(StatusCode::SERVICE_UNAVAILABLE)).await;
        }
        Some(Fault::Http429) => {
            link.count(op, Injected::Http429);
            return back(&decision, too_many_requests(op, retry_after)).await;
        }
        Some(Fault::Upstream) if op.is_mutation() => {
            request
                .extensions_mut()
                .insert(UpstreamFault::new(link.clone(), op));
        }
        Some(Fault::Upstream | Fault::ResetAfter) | None => {}
    }

    let response = next.run(request).await;
    if decision.fault == Some(Fault::ResetAfter) {
        // The handler ran to its end: its transaction committed (or it
        // answered without writing). The answer is lost on the way back.
        drop(response);
        tokio::time::sleep(decision.after).await;
        link.count(op, Injected::ResetAfter);
        return reset();
    }
    back(&decision, response).await
}

/// `response`, after the second half of the latency.
async fn back(decision: &Decision, response: Response) -> Response {
    tokio::time::sleep(decision.after).await;
    response
}

/// A response whose body fails at once: the connection is dropped with nothing sent.
fn reset() -> Response {
    let failing = futures::stream::once(async {
        Err::<Bytes, _>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "link: connection closed by the sandbox's fault layer",
        ))
    });
    Response::new(Body::from_stream(failing))
}

/// 502 or 503 as a gateway in front of the network answers it: plain text.
fn gateway(status: StatusCode) -> Response {
    let text = format!(
        "{} {}\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default()
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// 429 with `Retry-After`, in the endpoint's own error shape.
fn too_many_requests(op: Operation, retry_after: u32) -> Response {
    let message = format!("Too many requests: try again in {retry_after} s");
    let body = if op == Operation::Token {
        serde_json::json!({ "error": "too_many_requests", "error_description": message })
    } else {
        serde_json::json!({
            "errors": [{ "message": message, "extensions": { "code": "TOO_MANY_REQUESTS" } }]
        })
    };
    let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    response
}

/// The token endpoint during an outage: 503 with the seconds left as `Retry-After`.
fn token_outage(seconds: u64) -> Response {
    let mut response = gateway(StatusCode::SERVICE_UNAVAILABLE);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}
