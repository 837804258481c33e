//! The DNS-rebinding guard of every loopback listener (the sandbox's API and
//! its control endpoint): only a request whose `Host` is a loopback name —
//! `127.0.0.1`, `localhost`, `[::1]`, any port — is served; any other is
//! refused with 421, so a web page that rebinds its own host name to 127.0.0.1
//! cannot reach them.

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

/// Turns away a request whose `Host` is not a loopback name (421).
pub(crate) async fn loopback_host_only(request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if is_loopback_name(host) {
        return next.run(request).await;
    }
    tracing::info!("request refused: Host is not a loopback name");
    (
        StatusCode::MISDIRECTED_REQUEST,
        "This sandbox answers only to 127.0.0.1, localhost or [::1].",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::is_loopback_name;

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
