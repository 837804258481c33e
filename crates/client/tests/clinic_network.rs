//! Clinic networks: a TLS-inspecting proxy with a private certificate authority.
//! The client goes through the proxy the environment names (`HTTPS_PROXY`, …),
//! trusts a CA that is in the operating system's trust store (on Linux,
//! `SSL_CERT_FILE`), refuses one that is not with an error saying what to do,
//! and never sends loopback traffic (the local sandbox) to a proxy.
//!
//! The tests that trust their CA through `SSL_CERT_FILE` are ignored on
//! Windows, whose certificate check trusts only the Windows certificate store.
//!
//! Proxy and trust-store variables are process-global, so each test is two
//! halves: the parent starts a real sandbox (behind the request-counting proxy
//! of `support`, which presents the loopback `Host` the sandbox insists on), an
//! HTTPS front signed by a CA made here and a CONNECT proxy that notes tunnels; the child (this test re-run by
//! `support/clinic.rs::run_child` with the variables set) builds a client, gets
//! a machine token and pings the Network API, and reports the outcome.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/clinic.rs"]
mod clinic;
mod support;

use clinic::{ConnectProxy, NETWORK_HOST, OUTCOME, PrivateCa, TlsFront, is_child, run_child};
use rxdesk_client::{Client, Environment};
use rxdesk_sandbox::Sandbox;
use support::{Proxy, machine_network, maple_backend, sandbox};
use tempfile::TempDir;

/// Where the child's client goes (auth server and API alike).
const URL_VAR: &str = "RXDESK_CLINIC_NETWORK_URL";

/// The child half of every test: a client for the network at `URL_VAR`, a
/// machine token, `ping`; prints `ok: pong` or `KIND: MESSAGE`.
async fn child_pings() {
    let url = std::env::var(URL_VAR).unwrap();
    let environment = Environment::new(&url, &url, "rxdesk-sandbox", "rxdesk-desktop").unwrap();
    let outcome = match Client::new(environment) {
        Ok(client) => match machine_network(&client, maple_backend()).ping().await {
            Ok(pong) => format!("ok: {pong}"),
            Err(e) => format!("{}: {e}", e.kind()),
        },
        Err(e) => format!("no client: {e}"),
    };
    println!("{OUTCOME}{outcome}");
}

/// A sandbox behind HTTPS signed by a private CA, and a proxy that tunnels
/// every `CONNECT` to it: client → (proxy →) HTTPS front → counting forwarder
/// → sandbox.
struct ClinicNetwork {
    sandbox: Sandbox,
    forwarder: Proxy,
    front: TlsFront,
    proxy: ConnectProxy,
    ca: PrivateCa,
    dir: TempDir,
}

impl ClinicNetwork {
    async fn start() -> Self {
        let sandbox = sandbox().await;
        let ca = PrivateCa::generate("Clinic inspection CA");
        let (cert, key) = ca.issue(&[NETWORK_HOST, "localhost", "127.0.0.1"]);
        let forwarder = Proxy::start(sandbox.url()).await;
        let backend = forwarder.url.socket_addrs(|| None).unwrap()[0];
        let front = TlsFront::start(cert, key, backend).await;
        let proxy = ConnectProxy::start(front.addr()).await;
        Self {
            sandbox,
            forwarder,
            front,
            proxy,
            ca,
            dir: TempDir::new().unwrap(),
        }
    }

    /// A trust store holding the clinic's CA.
    fn store_with_the_clinic_ca(&self) -> String {
        let path = self.ca.write_bundle(&self.dir.path().join("clinic-ca.pem"));
        path.to_str().unwrap().to_owned()
    }

    /// A trust store holding only some other CA.
    fn store_without_the_clinic_ca(&self) -> String {
        let other = PrivateCa::generate("Some other CA");
        let path = other.write_bundle(&self.dir.path().join("other-ca.pem"));
        path.to_str().unwrap().to_owned()
    }

    /// The network by its name, which only the proxy resolves.
    fn url_by_name(&self) -> String {
        format!("https://{NETWORK_HOST}")
    }
}

#[cfg_attr(
    windows,
    ignore = "trusts its CA through SSL_CERT_FILE, which Windows' certificate check ignores"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_requests_tunnel_through_the_proxy_named_by_https_proxy() {
    if is_child() {
        return child_pings().await;
    }
    let network = ClinicNetwork::start().await;
    let store = network.store_with_the_clinic_ca();

    let outcome = run_child(
        "https_requests_tunnel_through_the_proxy_named_by_https_proxy",
        &[
            (URL_VAR, &network.url_by_name()),
            ("HTTPS_PROXY", &network.proxy.url()),
            ("SSL_CERT_FILE", &store),
        ],
    )
    .await;

    assert_eq!(outcome, "ok: pong");
    assert_eq!(network.forwarder.count("/oauth/token"), 1);
    assert_eq!(network.forwarder.count("/graphql"), 1);
    let tunnels = network.proxy.tunnels();
    assert!(!tunnels.is_empty(), "{:?}", network.proxy.seen());
    assert!(
        tunnels.iter().all(|t| t == &format!("{NETWORK_HOST}:443")),
        "{tunnels:?}"
    );
}

#[cfg_attr(
    windows,
    ignore = "trusts its CA through SSL_CERT_FILE, which Windows' certificate check ignores"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_ca_in_the_os_store_is_trusted() {
    if is_child() {
        return child_pings().await;
    }
    let network = ClinicNetwork::start().await;
    let store = network.store_with_the_clinic_ca();

    let outcome = run_child(
        "a_private_ca_in_the_os_store_is_trusted",
        &[
            (
                URL_VAR,
                &format!("https://localhost:{}", network.front.addr().port()),
            ),
            ("SSL_CERT_FILE", &store),
        ],
    )
    .await;

    assert_eq!(outcome, "ok: pong");
}

#[cfg_attr(
    windows,
    ignore = "Windows' certificate check reads no SSL_CERT_FILE, and Wine's reports a \
              revocation-check failure where Windows reports an unknown authority"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ca_missing_from_the_os_store_is_refused_once_saying_what_to_do() {
    if is_child() {
        return child_pings().await;
    }
    let network = ClinicNetwork::start().await;
    let store = network.store_without_the_clinic_ca();

    let outcome = run_child(
        "a_ca_missing_from_the_os_store_is_refused_once_saying_what_to_do",
        &[
            (URL_VAR, &network.url_by_name()),
            ("HTTPS_PROXY", &network.proxy.url()),
            ("SSL_CERT_FILE", &store),
        ],
    )
    .await;

    assert!(
        outcome.starts_with(
            "untrusted: the server's certificate is not trusted: \
             its certificate authority is not in this computer's trust store"
        ),
        "{outcome}"
    );
    assert!(outcome.contains("ask its IT to install"), "{outcome}");
    assert!(!outcome.contains("maple-backend-secret"), "{outcome}");
    // It will fail again: tried once, never retried.
    assert_eq!(network.proxy.tunnels().len(), 1);
    assert_eq!(network.forwarder.count("/oauth/token"), 0);
}

#[cfg_attr(
    windows,
    ignore = "trusts its CA through SSL_CERT_FILE, which Windows' certificate check ignores"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_requests_never_go_through_the_proxy() {
    if is_child() {
        return child_pings().await;
    }
    let network = ClinicNetwork::start().await;
    let store = network.store_with_the_clinic_ca();
    let proxy = network.proxy.url();
    let every_proxy_variable = [
        ("HTTPS_PROXY", proxy.as_str()),
        ("HTTP_PROXY", proxy.as_str()),
        ("ALL_PROXY", proxy.as_str()),
        ("SSL_CERT_FILE", store.as_str()),
    ];
    let plain_sandbox = network.sandbox.url().as_str().to_owned();
    let https_localhost = format!("https://localhost:{}", network.front.addr().port());

    let mut outcomes = Vec::new();
    for url in [&plain_sandbox, &https_localhost] {
        let mut vars = every_proxy_variable.to_vec();
        vars.push((URL_VAR, url));
        outcomes.push(run_child("loopback_requests_never_go_through_the_proxy", &vars).await);
    }

    assert_eq!(outcomes, ["ok: pong", "ok: pong"]);
    assert_eq!(network.proxy.seen(), Vec::<String>::new());
}

/// How many calls the child of the HTTP/2 test makes at once.
const PARALLEL_CALLS: usize = 20;

/// The child half of the HTTP/2 test: a machine token, then
/// [`PARALLEL_CALLS`] pings at once; prints `ok: N pongs` or the first error.
async fn child_pings_in_parallel() {
    let url = std::env::var(URL_VAR).unwrap();
    let environment = Environment::new(&url, &url, "rxdesk-sandbox", "rxdesk-desktop").unwrap();
    let client = Client::new(environment).unwrap();
    let network = machine_network(&client, maple_backend());
    let answers = futures::future::join_all((0..PARALLEL_CALLS).map(|_| network.ping())).await;
    let outcome = match answers.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(pongs) => format!("ok: {} pongs", pongs.len()),
        Err(e) => format!("{}: {e}", e.kind()),
    };
    println!("{OUTCOME}{outcome}");
}

#[cfg_attr(
    windows,
    ignore = "trusts its CA through SSL_CERT_FILE, which Windows' certificate check ignores"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_share_one_http2_connection_where_the_network_offers_it() {
    if is_child() {
        return child_pings_in_parallel().await;
    }
    // The sandbox itself behind HTTPS offering HTTP/2 (it reads either on its
    // plain listener); the client trusts the CA through the OS store.
    let sandbox = sandbox().await;
    let ca = PrivateCa::generate("Clinic CA");
    let (cert, key) = ca.issue(&["localhost", "127.0.0.1"]);
    let backend = sandbox.url().socket_addrs(|| None).unwrap()[0];
    let front = TlsFront::start_offering(cert, key, backend, &[b"h2", b"http/1.1"]).await;
    let dir = TempDir::new().unwrap();
    let store = ca.write_bundle(&dir.path().join("clinic-ca.pem"));
    let url = format!("https://localhost:{}", front.addr().port());

    let outcome = run_child(
        "calls_in_flight_share_one_http2_connection_where_the_network_offers_it",
        &[(URL_VAR, &url), ("SSL_CERT_FILE", store.to_str().unwrap())],
    )
    .await;

    assert_eq!(outcome, format!("ok: {PARALLEL_CALLS} pongs"));
    // The token request and every ping: one connection, HTTP/2 — not one
    // connection (and handshake) per call in flight.
    assert_eq!(front.connections(), ["h2"]);
}
