//! Shared plumbing of the client's integration tests: a test browser (a
//! [`UrlOpener`] through which a person walks the sign-in pages), a counting
//! proxy in front of the sandbox (counts requests per path; can fail or corrupt
//! the next answers), the client's log capture and the usual draft. What every
//! crate's tests share (starting a sandbox, the demo accounts, the crypto
//! provider, the sign-in page reader, the log capture itself) lives in
//! `rxdesk-testkit` and is re-exported here under the names the tests use. No
//! assertions about the client live here.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rxdesk_client::network::Network;
use rxdesk_client::{BackendCredentials, Client, Environment, Session, UrlOpener};
use rxdesk_testkit::demo::{BIRCH_BACKEND, MAPLE_BACKEND};
use rxdesk_testkit::logs::CapturedLogs;
use rxdesk_testkit::person::walk_and_land;
use tokio::sync::oneshot;
use url::Url;

pub use rxdesk_testkit::demo::{ADA, AZITHROMYCIN, BEN, BIRCH, MAPLE, MO, PASSWORD};
pub use rxdesk_testkit::install_crypto;
pub use rxdesk_testkit::person::{Act, Landing};
pub use rxdesk_testkit::{start_demo as sandbox, start_with as sandbox_with};

/// A new draft of azithromycin (the usual five-day pack) for `patient`: the
/// draft most tests make, sign and send.
pub fn azithromycin_draft(patient: &str) -> rxdesk_client::network::documents::PrescriptionInput {
    use rxdesk_client::network::documents::{
        DispenseInput, PatientReferenceInput, PrescriptionInput, TreatmentReferenceInput,
    };
    PrescriptionInput {
        patient: Some(PatientReferenceInput {
            id: Some(cynic::Id::new(patient)),
        }),
        treatment: Some(TreatmentReferenceInput {
            id: Some(cynic::Id::new(AZITHROMYCIN)),
            ..Default::default()
        }),
        instructions: Some("Take 2 tablets on day 1, then 1 daily".into()),
        dispense: Some(DispenseInput {
            quantity: Some(6.0),
            unit: Some("tablet".into()),
            days_supply: Some(5),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub fn client_for(url: &Url) -> Client {
    Client::new(Environment::sandbox(url).unwrap()).unwrap()
}

pub fn maple_backend() -> BackendCredentials {
    BackendCredentials::new(MAPLE_BACKEND.0, MAPLE_BACKEND.1)
}

pub fn birch_backend() -> BackendCredentials {
    BackendCredentials::new(BIRCH_BACKEND.0, BIRCH_BACKEND.1)
}

/// The Network API as a backend, with its own machine-token cache.
pub fn machine_network(client: &Client, credentials: BackendCredentials) -> Network {
    client.machine_network(client.machine_tokens(credentials))
}

/// A browser's cookie jar, to be kept from one sign-in to the next.
pub fn cookie_jar() -> reqwest::Client {
    rxdesk_testkit::browser()
}

/// A [`UrlOpener`] that behaves like a person with a browser.
#[derive(Debug, Clone)]
pub struct TestBrowser {
    act: Act,
    landing: Arc<Mutex<Option<oneshot::Sender<Landing>>>>,
    /// The same browser as earlier sign-ins (its cookies), or a fresh one.
    jar: Option<reqwest::Client>,
}

impl TestBrowser {
    pub fn new(act: Act) -> (Self, oneshot::Receiver<Landing>) {
        let (tx, rx) = oneshot::channel();
        (
            Self {
                act,
                landing: Arc::new(Mutex::new(Some(tx))),
                jar: None,
            },
            rx,
        )
    }

    /// The same browser as the other sign-ins using `jar`: what the network
    /// remembers of it counts.
    pub fn with_cookies(mut self, jar: &reqwest::Client) -> Self {
        self.jar = Some(jar.clone());
        self
    }

    pub fn signing_in(
        email: &str,
        organization: Option<&str>,
    ) -> (Self, oneshot::Receiver<Landing>) {
        Self::new(Act::SignIn {
            email: email.to_owned(),
            organization: organization.map(str::to_owned),
        })
    }

    async fn browse(self, url: Url) {
        let browser = self.jar.clone().unwrap_or_else(cookie_jar);
        let landing = walk_and_land(&browser, &url, &self.act).await;
        if let Some(tx) = self.landing.lock().unwrap().take() {
            let _ = tx.send(landing);
        }
    }
}

impl UrlOpener for TestBrowser {
    fn open(&self, url: &Url) -> std::io::Result<()> {
        tokio::spawn(self.clone().browse(url.clone()));
        Ok(())
    }
}

/// Signs `email` in through the test browser and returns the session.
pub async fn sign_in(client: &Client, email: &str, organization: Option<&str>) -> Session {
    let (browser, _landing) = TestBrowser::signing_in(email, organization);
    client.sign_in().opener(browser).run().await.unwrap()
}

/// Per path: the content type and body of the last request.
type LastRequests = Arc<Mutex<HashMap<String, (String, Vec<u8>)>>>;

/// A tiny HTTP proxy in front of a sandbox: forwards everything and counts
/// requests per path. It is also a **fake bad link**, standing in for faults the
/// sandbox cannot make itself: it can answer the next GraphQL requests with 503
/// or 429 (with `Retry-After`, refusing any request that comes back earlier),
/// lose the next answers (the request is applied by the sandbox, the connection
/// then breaks before the answer arrives), break the next connections before
/// anything is forwarded, never answer at all, take the token endpoint down for
/// a while, or replace the next token responses' `access_token` with garbage.
/// In front of the token endpoint it is also a **fake network** that leaves out
/// what the sandbox always sends: the next answers' ID token, or its `auth_time`.
#[derive(Debug, Clone)]
pub struct Proxy {
    pub url: Url,
    faults: Arc<Faults>,
}

/// What the proxy does to the next requests, and what it saw.
#[derive(Debug, Default)]
struct Faults {
    counts: Mutex<HashMap<String, usize>>,
    forwarded: Mutex<HashMap<String, usize>>,
    last: LastRequests,
    fail_graphql: AtomicUsize,
    corrupt_tokens: AtomicUsize,
    drop_id_tokens: AtomicUsize,
    drop_auth_times: AtomicUsize,
    token_delay_ms: AtomicUsize,
    lose_answers: AtomicUsize,
    lost: Mutex<Vec<serde_json::Value>>,
    lost_requests: Mutex<Vec<serde_json::Value>>,
    break_before: AtomicUsize,
    silent: std::sync::atomic::AtomicBool,
    rate_limit: Mutex<Option<RateLimit>>,
    token_down_until: Mutex<Option<std::time::Instant>>,
}

#[derive(Debug, Clone)]
struct RateLimit {
    remaining: usize,
    header: String,
    /// Requests before this instant are answered 429 too (and counted early).
    not_before: std::time::SystemTime,
    early: usize,
}

#[derive(Clone)]
struct ProxyState {
    upstream: Url,
    http: reqwest::Client,
    faults: Arc<Faults>,
}

/// How a `Retry-After` is written.
#[derive(Debug, Clone, Copy)]
pub enum RetryAfter {
    Seconds(u64),
    /// An HTTP-date this many seconds from now (whole seconds, as the format has).
    DateIn(u64),
}

impl Proxy {
    pub async fn start(upstream: &Url) -> Self {
        let faults = Arc::new(Faults::default());
        let state = ProxyState {
            upstream: upstream.clone(),
            http: {
                install_crypto();
                reqwest::Client::builder()
            }
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
            faults: faults.clone(),
        };
        let app = axum::Router::new().fallback(forward).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            url: Url::parse(&format!("http://{addr}")).unwrap(),
            faults,
        }
    }

    /// Hold every token response this long (so callers pile up behind it).
    pub fn delay_tokens(&self, delay: std::time::Duration) {
        self.faults
            .token_delay_ms
            .store(delay.as_millis() as usize, Ordering::SeqCst);
    }

    /// Requests seen on `path` (`/oauth/token`, `/graphql`, …), failed ones included.
    pub fn count(&self, path: &str) -> usize {
        self.faults
            .counts
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    /// Requests on `path` that reached the sandbox.
    pub fn forwarded(&self, path: &str) -> usize {
        self.faults
            .forwarded
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    /// The content type and body of the last request on `path`.
    pub fn last_request(&self, path: &str) -> (String, Vec<u8>) {
        self.faults
            .last
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .unwrap_or_default()
    }

    /// Answer the next `n` GraphQL requests with 503 without forwarding them.
    pub fn fail_next_graphql(&self, n: usize) {
        self.faults.fail_graphql.store(n, Ordering::SeqCst);
    }

    /// Forward the next `n` GraphQL requests, then break the connection instead
    /// of answering: the sandbox applied them, the client never hears so.
    pub fn lose_next_answers(&self, n: usize) {
        self.faults.lose_answers.store(n, Ordering::SeqCst);
    }

    /// The GraphQL requests whose answers were lost, as the client sent them.
    pub fn lost_requests(&self) -> Vec<serde_json::Value> {
        self.faults.lost_requests.lock().unwrap().clone()
    }

    /// The last GraphQL request, as the client sent it.
    pub fn last_graphql(&self) -> serde_json::Value {
        serde_json::from_slice(&self.last_request("/graphql").1).unwrap()
    }

    /// The GraphQL answers lost so far, as the sandbox gave them.
    pub fn lost_answers(&self) -> Vec<serde_json::Value> {
        self.faults.lost.lock().unwrap().clone()
    }

    /// Break the connection of the next `n` GraphQL requests without forwarding them.
    pub fn break_next_requests(&self, n: usize) {
        self.faults.break_before.store(n, Ordering::SeqCst);
    }

    /// From now on, never answer a GraphQL request (a dead link).
    pub fn go_silent(&self) {
        self.faults.silent.store(true, Ordering::SeqCst);
    }

    /// Answer the next `n` GraphQL requests 429 with this `Retry-After`; any
    /// request before the time it names is answered 429 too.
    pub fn rate_limit_next(&self, n: usize, retry_after: RetryAfter) {
        let now = std::time::SystemTime::now();
        let (header, not_before) = match retry_after {
            RetryAfter::Seconds(s) => (s.to_string(), now + std::time::Duration::from_secs(s)),
            RetryAfter::DateIn(s) => {
                let header = httpdate::fmt_http_date(now + std::time::Duration::from_secs(s));
                let at = httpdate::parse_http_date(&header).unwrap();
                (header, at)
            }
        };
        *self.faults.rate_limit.lock().unwrap() = Some(RateLimit {
            remaining: n,
            header,
            not_before,
            early: 0,
        });
    }

    /// GraphQL requests that came back before the `Retry-After` had passed.
    pub fn early_requests(&self) -> usize {
        self.faults
            .rate_limit
            .lock()
            .unwrap()
            .as_ref()
            .map_or(0, |r| r.early)
    }

    /// The token endpoint answers 503 for `outage`, from now.
    pub fn take_tokens_down_for(&self, outage: std::time::Duration) {
        *self.faults.token_down_until.lock().unwrap() = Some(std::time::Instant::now() + outage);
    }

    /// Replace the `access_token` of the next `n` token responses with garbage.
    pub fn corrupt_next_tokens(&self, n: usize) {
        self.faults.corrupt_tokens.store(n, Ordering::SeqCst);
    }

    /// Leave the `id_token` out of the next `n` successful token responses.
    pub fn drop_next_id_tokens(&self, n: usize) {
        self.faults.drop_id_tokens.store(n, Ordering::SeqCst);
    }

    /// Take `auth_time` out of the ID token of the next `n` successful token
    /// responses (its payload rewritten; the client does not check the
    /// signature of an ID token it got straight from the token endpoint).
    pub fn drop_next_auth_times(&self, n: usize) {
        self.faults.drop_auth_times.store(n, Ordering::SeqCst);
    }

    /// A client whose auth and API both go through this proxy.
    pub fn client(&self) -> Client {
        client_for(&self.url)
    }
}

fn take_one(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// A response whose body fails at once: the server closes the connection
/// before the client has the answer.
fn broken_connection() -> axum::response::Response {
    let body = futures::stream::once(async {
        Err::<axum::body::Bytes, _>(std::io::Error::other("connection lost"))
    });
    axum::response::Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(axum::body::Body::from_stream(body))
        .unwrap()
}

/// The 429 to give now, if a rate limit is on.
fn rate_limited(faults: &Faults) -> Option<axum::response::Response> {
    let mut guard = faults.rate_limit.lock().unwrap();
    let limit = guard.as_mut()?;
    let early = std::time::SystemTime::now() < limit.not_before;
    if limit.remaining == 0 && !early {
        return None;
    }
    if limit.remaining > 0 {
        limit.remaining -= 1;
    } else {
        limit.early += 1;
    }
    Some(
        axum::response::Response::builder()
            .status(429)
            .header("retry-after", limit.header.clone())
            .body(axum::body::Body::from("slow down"))
            .unwrap(),
    )
}

/// `jwt` with `auth_time` taken out of its payload (header and signature kept).
fn without_auth_time(jwt: &str) -> String {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let parts: Vec<&str> = jwt.split('.').collect();
    let mut claims: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    assert!(
        claims
            .as_object_mut()
            .unwrap()
            .remove("auth_time")
            .is_some(),
        "the sandbox's ID token had no auth_time to take out"
    );
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{}.{payload}.{}", parts[0], parts[2])
}

async fn forward(
    axum::extract::State(state): axum::extract::State<ProxyState>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let faults = &state.faults;
    let path = request.uri().path().to_owned();
    *faults
        .counts
        .lock()
        .unwrap()
        .entry(path.clone())
        .or_default() += 1;
    if path == "/graphql" {
        if faults.silent.load(Ordering::SeqCst) {
            return std::future::pending().await;
        }
        if take_one(&faults.fail_graphql) {
            return (axum::http::StatusCode::SERVICE_UNAVAILABLE, "try later").into_response();
        }
        if take_one(&faults.break_before) {
            return broken_connection();
        }
        if let Some(response) = rate_limited(faults) {
            return response;
        }
    }
    if path == "/oauth/token" {
        let down = *faults.token_down_until.lock().unwrap();
        if down.is_some_and(|until| std::time::Instant::now() < until) {
            return (
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "token service down",
            )
                .into_response();
        }
    }
    let mut url = state.upstream.clone();
    url.set_path(&path);
    url.set_query(request.uri().query());
    let method = request.method().clone();
    let headers = request.headers().clone();
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap();
    let content_type = headers
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    faults
        .last
        .lock()
        .unwrap()
        .insert(path.clone(), (content_type, body.to_vec()));
    let sent = body.clone();
    let mut upstream = state.http.request(method, url).body(body);
    for (name, value) in &headers {
        if !matches!(
            name.as_str(),
            "host" | "content-length" | "connection" | "transfer-encoding"
        ) {
            upstream = upstream.header(name, value);
        }
    }
    *faults
        .forwarded
        .lock()
        .unwrap()
        .entry(path.clone())
        .or_default() += 1;
    let response = upstream.send().await.unwrap();
    if path == "/oauth/token" {
        let delay = faults.token_delay_ms.load(Ordering::SeqCst) as u64;
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    }
    let status = response.status();
    let response_headers = response.headers().clone();
    let mut bytes = response.bytes().await.unwrap().to_vec();
    if path == "/graphql" && take_one(&faults.lose_answers) {
        faults
            .lost
            .lock()
            .unwrap()
            .push(serde_json::from_slice(&bytes).unwrap());
        faults
            .lost_requests
            .lock()
            .unwrap()
            .push(serde_json::from_slice(&sent).unwrap());
        return broken_connection();
    }
    if path == "/oauth/token" && status.is_success() && take_one(&faults.corrupt_tokens) {
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        json["access_token"] = serde_json::json!("garbage.not-a.token");
        bytes = serde_json::to_vec(&json).unwrap();
    }
    if path == "/oauth/token" && status.is_success() && take_one(&faults.drop_id_tokens) {
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        json.as_object_mut().unwrap().remove("id_token");
        bytes = serde_json::to_vec(&json).unwrap();
    }
    if path == "/oauth/token" && status.is_success() && take_one(&faults.drop_auth_times) {
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let jwt = json["id_token"].as_str().unwrap().to_owned();
        json["id_token"] = serde_json::json!(without_auth_time(&jwt));
        bytes = serde_json::to_vec(&json).unwrap();
    }
    let mut out = axum::response::Response::builder().status(status);
    for (name, value) in &response_headers {
        if !matches!(
            name.as_str(),
            "content-length" | "connection" | "transfer-encoding"
        ) {
            out = out.header(name, value);
        }
    }
    out.body(axum::body::Body::from(bytes)).unwrap()
}

/// Everything `rxdesk_client` logs (all levels, span opens and closes) while the
/// guard lives, on this thread (use a current-thread runtime).
#[derive(Debug, Clone, Default)]
pub struct LogCapture(CapturedLogs);

impl LogCapture {
    pub fn install(&self) -> tracing::subscriber::DefaultGuard {
        self.0.install_on_this_thread("rxdesk_client=trace")
    }

    pub fn text(&self) -> String {
        self.0.text()
    }
}
