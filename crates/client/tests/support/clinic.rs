//! A clinic network on loopback, for `clinic_network.rs`: a private certificate
//! authority made in the test ([`PrivateCa`]), an HTTPS front signed by it that
//! forwards to a real sandbox ([`TlsFront`]), a CONNECT proxy that notes every
//! request it gets and tunnels to that front whatever host is asked for, the
//! way a clinic's proxy resolves the network's name ([`ConnectProxy`]), and
//! [`run_child`], which re-runs one test of this binary in a child process with
//! its own environment (proxy and trust-store variables are process-global).
//! No assertions about the client live here.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The name the clinic's network is reached by: it resolves nowhere but in the
/// proxy, so a request that arrives proves it went through the proxy.
pub const NETWORK_HOST: &str = "network.clinic.test";

/// The variable that makes a test its own child half.
pub const CHILD_VAR: &str = "RXDESK_CLINIC_NETWORK_CHILD";

/// The line prefix under which a child reports its outcome on stdout.
pub const OUTCOME: &str = "clinic-network-outcome: ";

/// Every variable that steers the client's proxy or trust store: a child starts
/// without any of them, whatever the machine running the tests has set.
const NETWORK_VARS: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
    "REQUEST_METHOD",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// A certificate authority of our own, as a clinic's TLS-inspecting proxy has.
pub struct PrivateCa {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl PrivateCa {
    pub fn generate(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Self {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// Writes the CA certificate as a PEM bundle (what `SSL_CERT_FILE` names).
    pub fn write_bundle(&self, path: &Path) -> PathBuf {
        std::fs::write(path, &self.pem).unwrap();
        path.to_owned()
    }

    /// A server certificate for `names` (DNS names or IP addresses) and its key.
    pub fn issue(&self, names: &[&str]) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "Prescribing network");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (cert.der().clone(), key)
    }
}

/// HTTPS on loopback in front of a plain-HTTP server: TLS ends here, the bytes
/// go on unchanged. It notes the protocol each connection agreed (ALPN).
pub struct TlsFront {
    addr: SocketAddr,
    agreed: Arc<Mutex<Vec<String>>>,
}

impl TlsFront {
    /// Offers HTTP/1.1 only (ALPN not used): what a backend that reads
    /// HTTP/1.1 itself needs.
    pub async fn start(
        cert: CertificateDer<'static>,
        key: PrivateKeyDer<'static>,
        backend: SocketAddr,
    ) -> Self {
        Self::start_offering(cert, key, backend, &[]).await
    }

    /// Offers these ALPN protocols (`b"h2"`, `b"http/1.1"`); the backend must
    /// speak whatever is agreed on the bytes it gets.
    pub async fn start_offering(
        cert: CertificateDer<'static>,
        key: PrivateKeyDer<'static>,
        backend: SocketAddr,
        alpn: &[&[u8]],
    ) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let agreed = Arc::new(Mutex::new(Vec::new()));
        let noted = Arc::clone(&agreed);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let noted = Arc::clone(&noted);
                tokio::spawn(async move {
                    // A client that refuses our certificate ends here.
                    let Ok(mut tls) = acceptor.accept(socket).await else {
                        return;
                    };
                    let protocol = tls.get_ref().1.alpn_protocol().map_or_else(
                        || "none".to_owned(),
                        |p| String::from_utf8_lossy(p).into_owned(),
                    );
                    noted.lock().unwrap().push(protocol);
                    let Ok(mut upstream) = TcpStream::connect(backend).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut upstream).await;
                });
            }
        });
        Self { addr, agreed }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The protocol each TLS connection so far agreed, in order (`"none"`
    /// without ALPN).
    pub fn connections(&self) -> Vec<String> {
        self.agreed.lock().unwrap().clone()
    }
}

/// An HTTP proxy that only tunnels (`CONNECT`), always to `target`, and notes
/// the request line of every connection it gets; anything but `CONNECT` is
/// answered 502.
pub struct ConnectProxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let noted = seen.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let noted = noted.clone();
                tokio::spawn(async move { tunnel(socket, target, &noted).await });
            }
        });
        Self { addr, seen }
    }

    /// `http://127.0.0.1:PORT`, as `HTTPS_PROXY` would name it.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request line of every connection so far (`CONNECT host:443`, …).
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// The `host:port` of every tunnel asked for so far.
    pub fn tunnels(&self) -> Vec<String> {
        self.seen()
            .iter()
            .filter_map(|line| line.strip_prefix("CONNECT "))
            .map(str::to_owned)
            .collect()
    }
}

async fn tunnel(mut socket: TcpStream, target: SocketAddr, seen: &Mutex<Vec<String>>) {
    let Some(head) = read_head(&mut socket).await else {
        return;
    };
    let request_line = head.lines().next().unwrap_or_default();
    let mut words = request_line.split_whitespace();
    let (method, authority) = (words.next().unwrap_or_default(), words.next());
    seen.lock()
        .unwrap()
        .push(format!("{method} {}", authority.unwrap_or_default()));
    if method != "CONNECT" {
        let _ = socket
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    }
    let Ok(mut upstream) = TcpStream::connect(target).await else {
        let _ = socket.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
        return;
    };
    if socket
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut socket, &mut upstream).await;
}

/// The request head (up to the blank line), at most 8 KiB.
async fn read_head(socket: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 || head.len() > 8192 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(head).ok()
}

/// Runs the test `name` of this test binary in a child process with `CHILD_VAR`
/// set, none of the machine's proxy or trust-store variables, and `vars`; gives
/// back what the child reported under [`OUTCOME`]. Panics with the child's
/// output when it fails or reports nothing.
pub async fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([name, "--exact", "--nocapture", "--test-threads=1"]);
    for var in NETWORK_VARS {
        command.env_remove(var);
    }
    command.env(CHILD_VAR, "1").envs(vars.iter().copied());
    let run = tokio::task::spawn_blocking(move || command.output());
    let output = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the child test did not finish in 30 s")
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let outcome = stdout
        .lines()
        .find_map(|line| line.split_once(OUTCOME))
        .map(|(_, outcome)| outcome.to_owned());
    match outcome {
        Some(outcome) if output.status.success() => outcome,
        _ => panic!(
            "the child test {name} failed or reported nothing ({})\n--- stdout\n{stdout}\n--- stderr\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// True in the child half of a test (see [`run_child`]).
pub fn is_child() -> bool {
    std::env::var_os(CHILD_VAR).is_some()
}
