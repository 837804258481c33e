//! The DNS-rebinding guard of every loopback listener (the sandbox's API and
//! its control endpoint): only a request whose host is a loopback name —
//! `127.0.0.1`, `localhost`, `[::1]`, any port — is served; any other is
//! refused with 421, so a web page that rebinds its own host name to 127.0.0.1
//! cannot reach them. The host is the `Host` header (HTTP/1.1) or the
//! request's authority (HTTP/2's `:authority`, or an absolute URI); when a
//! request names both, both must be loopback names.

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

/// The names a loopback sandbox answers to.
fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or(v6, |(name, _)| name),
        None => host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                name
            } else {
                host
            }
        }),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The host names `request` gives: its authority, its `Host` header, or both.
fn named_hosts(request: &Request) -> Vec<&str> {
    let authority = request.uri().authority().map(|a| a.as_str());
    let header = request
        .headers()
        .get(header::HOST)
        .map(|v| v.to_str().unwrap_or_default());
    authority.into_iter().chain(header).collect()
}

/// Whether every host `request` names is a loopback name (and it names one).
pub(crate) fn names_only_loopback(request: &Request) -> bool {
    let hosts = named_hosts(request);
    !hosts.is_empty() && hosts.iter().all(|host| is_loopback_name(host))
}

/// Turns away a request whose host is not a loopback name (421).
pub(crate) async fn loopback_host_only(request: Request, next: Next) -> Response {
    if names_only_loopback(&request) {
        return next.run(request).await;
    }
    misdirected()
}

/// The refusal of a request whose host is not a loopback name (421).
pub(crate) fn misdirected() -> Response {
    tracing::info!("request refused: its host is not a loopback name");
    (
        StatusCode::MISDIRECTED_REQUEST,
        "This sandbox answers only to 127.0.0.1, localhost or [::1].",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn request(uri: &str, host: Option<&str>) -> Request {
        let mut builder = Request::builder().uri(uri);
        if let Some(host) = host {
            builder = builder.header(header::HOST, host);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn an_http2_request_is_judged_by_its_authority() {
        assert!(names_only_loopback(&request(
            "https://localhost:9/graphql",
            None
        )));
        assert!(!names_only_loopback(&request(
            "https://attacker.example/graphql",
            None
        )));
    }

    #[test]
    fn a_request_naming_no_host_or_any_other_host_is_refused() {
        assert!(!names_only_loopback(&request("/graphql", None)));
        assert!(!names_only_loopback(&request(
            "/graphql",
            Some("attacker.example")
        )));
        assert!(!names_only_loopback(&request(
            "http://127.0.0.1:8/graphql",
            Some("attacker.example")
        )));
        assert!(names_only_loopback(&request(
            "/graphql",
            Some("127.0.0.1:8")
        )));
    }

    #[test]
    fn loopback_names_are_recognised_with_or_without_a_port() {
        for host in [
            "127.0.0.1:8080",
            "localhost",
            "LOCALHOST:1",
            "[::1]:9",
            "[::1]",
            "127.0.0.1",
        ] {
            assert!(is_loopback_name(host), "{host}");
        }
        for host in [
            "attacker.example:8080",
            "",
            "10.0.0.1:80",
            "127.0.0.1.evil.example",
        ] {
            assert!(!is_loopback_name(host), "{host}");
        }
    }
}
