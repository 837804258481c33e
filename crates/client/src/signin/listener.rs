//! The loopback redirect listener of browser sign-in (RFC 8252 §7.3): bound to
//! `127.0.0.1` (else `[::1]`), it reads one HTTP request line per connection and
//! answers with plain HTML and no external resources. Only `GET /callback` with
//! the expected `state` ends the wait; stray paths get 404 and a wrong `state` an
//! error page, and the wait goes on. The listener closes when [`Listener::wait`]
//! returns, whatever the outcome. OAuth itself lives in the parent module.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use url::Url;

/// Path the authorization server redirects to.
pub(crate) const CALLBACK_PATH: &str = "/callback";
/// Largest request head we read.
const MAX_HEAD: usize = 8 * 1024;
/// How long a connection may take to send its request line.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// What the wait ended with.
#[derive(Debug)]
pub(crate) enum Ended {
    /// A callback with the right `state` and a `code` (and the `iss` it named,
    /// if any); answer it with [`Responder`].
    Code {
        code: String,
        issuer: Option<String>,
        responder: Responder,
    },
    /// A callback with the right `state` and an `error` (already answered).
    Error {
        error: String,
        description: Option<String>,
    },
    TimedOut,
    Cancelled,
}

/// A bound, not yet waiting, listener.
#[derive(Debug)]
pub(crate) struct Listener {
    listener: TcpListener,
    addr: SocketAddr,
    redirect_uri: Url,
}

impl Listener {
    /// Binds `127.0.0.1:port` (port 0: any free port), or `[::1]:port` when IPv4
    /// loopback is unavailable. Never a non-loopback address.
    pub(crate) async fn bind(port: Option<u16>) -> io::Result<Self> {
        let port = port.unwrap_or(0);
        let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
            Ok(l) => l,
            Err(v4) => TcpListener::bind((Ipv6Addr::LOCALHOST, port))
                .await
                .map_err(|_| v4)?,
        };
        let addr = listener.local_addr()?;
        let redirect_uri =
            Url::parse(&format!("http://{addr}{CALLBACK_PATH}")).map_err(io::Error::other)?;
        Ok(Self {
            listener,
            addr,
            redirect_uri,
        })
    }

    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/callback` (or `http://[::1]:PORT/callback`).
    pub(crate) fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// Serves until a callback with `state`, the deadline or a cancel. Consumes
    /// the listener: the port is released when this returns.
    pub(crate) async fn wait(
        self,
        state: &str,
        deadline: Instant,
        mut cancel: watch::Receiver<bool>,
    ) -> Ended {
        let (tx, mut rx) = mpsc::channel::<(Request, TcpStream)>(16);
        let cancelled = async move {
            if cancel.wait_for(|c| *c).await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::pin!(cancelled);
        let timeout = tokio::time::sleep_until(deadline);
        tokio::pin!(timeout);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let tx = tx.clone();
                        tokio::spawn(async move {
                            if let Some(pair) = read_request(stream).await {
                                let _ = tx.send(pair).await;
                            }
                        });
                    }
                    // Out of file descriptors or the like: breathe, do not spin.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                },
                Some((request, stream)) = rx.recv() => {
                    match route(&request, state) {
                        Route::Code { code, issuer } => {
                            return Ended::Code {
                                code,
                                issuer,
                                responder: Responder { stream },
                            };
                        }
                        Route::Error { error, description } => {
                            let page = error_page(&error, description.as_deref());
                            let _ = Responder { stream }.send(400, "Bad Request", &page).await;
                            return Ended::Error { error, description };
                        }
                        Route::Reply { status, reason, page } => {
                            tokio::spawn(async move {
                                let _ = Responder { stream }.send(status, reason, &page).await;
                            });
                        }
                    }
                }
                () = &mut timeout => return Ended::TimedOut,
                () = &mut cancelled => return Ended::Cancelled,
            }
        }
    }
}

/// The browser connection of the valid callback, waiting for its page.
#[derive(Debug)]
pub(crate) struct Responder {
    stream: TcpStream,
}

impl Responder {
    /// "Signed in — you can close this tab and return to Rx Desk".
    pub(crate) async fn signed_in(self) {
        let page = page(
            "Signed in",
            "Signed in — you can close this tab and return to Rx Desk.",
        );
        let _ = self.send(200, "OK", &page).await;
    }

    /// What went wrong, for the person in front of the browser.
    pub(crate) async fn failed(self, what: &str) {
        let page = page(
            "Sign-in failed",
            &format!("{what}. Return to Rx Desk and try again."),
        );
        let _ = self.send(500, "Internal Server Error", &page).await;
    }

    async fn send(mut self, status: u16, reason: &str, body: &str) -> io::Result<()> {
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\n\
             Content-Type: text/html; charset=utf-8\r\n\
             Content-Length: {}\r\n\
             Cache-Control: no-store\r\n\
             Content-Security-Policy: default-src 'none'\r\n\
             Referrer-Policy: no-referrer\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        self.stream.write_all(head.as_bytes()).await?;
        self.stream.write_all(body.as_bytes()).await?;
        self.stream.flush().await?;
        self.stream.shutdown().await
    }
}

/// The request line of one connection.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    method: String,
    target: String,
}

/// Reads the request head (bounded in size and time) and keeps its first line.
async fn read_request(mut stream: TcpStream) -> Option<(Request, TcpStream)> {
    let mut buf = Vec::with_capacity(1024);
    let read = async {
        let mut chunk = [0u8; 1024];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_HEAD {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        Some(())
    };
    tokio::time::timeout(READ_TIMEOUT, read).await.ok()??;
    let request = parse_request_line(&buf)?;
    Some((request, stream))
}

fn parse_request_line(head: &[u8]) -> Option<Request> {
    let end = head.iter().position(|b| *b == b'\r' || *b == b'\n')?;
    let line = std::str::from_utf8(&head[..end]).ok()?;
    let mut parts = line.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !version.starts_with("HTTP/1.") {
        return None;
    }
    Some(Request {
        method: method.to_owned(),
        target: target.to_owned(),
    })
}

/// What to do with one request.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Code {
        code: String,
        issuer: Option<String>,
    },
    Error {
        error: String,
        description: Option<String>,
    },
    Reply {
        status: u16,
        reason: &'static str,
        page: String,
    },
}

fn route(request: &Request, expected_state: &str) -> Route {
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target.as_str(), ""));
    if path != CALLBACK_PATH {
        return Route::Reply {
            status: 404,
            reason: "Not Found",
            page: page("Not found", "Nothing here."),
        };
    }
    if request.method != "GET" {
        return Route::Reply {
            status: 405,
            reason: "Method Not Allowed",
            page: page("Not allowed", "The sign-in callback takes GET only."),
        };
    }
    let mut code = None;
    let mut state = None;
    let mut error = None;
    let mut description = None;
    let mut issuer = None;
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match key.as_ref() {
            "iss" => issuer = Some(value.into_owned()),
            "code" => code = Some(value.into_owned()),
            "state" => state = Some(value.into_owned()),
            "error" => error = Some(value.into_owned()),
            "error_description" => description = Some(value.into_owned()),
            _ => {}
        }
    }
    if !state
        .as_deref()
        .is_some_and(|s| constant_time_eq(s, expected_state))
    {
        return Route::Reply {
            status: 400,
            reason: "Bad Request",
            page: page(
                "Not this sign-in",
                "This answer does not belong to the sign-in Rx Desk is waiting for, so it was ignored. Return to Rx Desk.",
            ),
        };
    }
    match (code, error) {
        (_, Some(error)) => Route::Error { error, description },
        (Some(code), None) if !code.is_empty() => Route::Code { code, issuer },
        _ => Route::Reply {
            status: 400,
            reason: "Bad Request",
            page: page(
                "Sign-in incomplete",
                "The answer carried neither a code nor an error.",
            ),
        },
    }
}

fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn error_page(error: &str, description: Option<&str>) -> String {
    let what = if error == "access_denied" {
        "Sign-in was cancelled or denied".to_owned()
    } else {
        format!("The sign-in server answered {error}")
    };
    let detail = description.map(|d| format!(": {d}")).unwrap_or_default();
    page(
        "Not signed in",
        &format!("{what}{detail}. Return to Rx Desk to try again."),
    )
}

/// A self-contained HTML page: no scripts, styles or images from anywhere.
fn page(title: &str, message: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Rx Desk — {}</title></head>\
         <body><h1>{}</h1><p>{}</p></body></html>\n",
        escape(title),
        escape(title),
        escape(message)
    )
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn get(target: &str) -> Request {
        Request {
            method: "GET".into(),
            target: target.into(),
        }
    }

    #[test]
    fn parses_the_request_line() {
        let head = b"GET /callback?code=a&state=b HTTP/1.1\r\nHost: x\r\n\r\n";

        assert_eq!(
            parse_request_line(head),
            Some(get("/callback?code=a&state=b"))
        );
    }

    #[test]
    fn rejects_a_garbage_request_line() {
        assert_eq!(parse_request_line(b"hello\r\n\r\n"), None);
    }

    #[test]
    fn stray_paths_are_not_found() {
        let r = route(&get("/favicon.ico"), "s");

        assert!(matches!(r, Route::Reply { status: 404, .. }));
    }

    #[test]
    fn a_wrong_state_is_ignored_with_an_error_page() {
        let r = route(&get("/callback?code=c&state=other"), "s");

        assert!(matches!(r, Route::Reply { status: 400, .. }));
    }

    #[test]
    fn an_error_with_the_right_state_ends_the_wait() {
        let r = route(
            &get("/callback?error=access_denied&error_description=User+cancelled&state=s"),
            "s",
        );

        assert_eq!(
            r,
            Route::Error {
                error: "access_denied".into(),
                description: Some("User cancelled".into())
            }
        );
    }

    #[test]
    fn the_code_with_the_right_state_is_accepted() {
        assert_eq!(
            route(&get("/callback?code=abc&state=s"), "s"),
            Route::Code {
                code: "abc".into(),
                issuer: None
            }
        );
    }

    #[test]
    fn pages_escape_server_text() {
        let html = error_page("invalid_request", Some("<script>alert(1)</script>"));

        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
    }
}
