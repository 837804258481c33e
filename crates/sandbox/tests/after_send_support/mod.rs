//! Plumbing of the after-Send tests (the simulated pharmacy and webhooks): a real
//! webhook receiver on loopback (axum) that records every request and answers what
//! the test tells it to, a sandbox subscribed to it, waits for conditions (never a
//! fixed sleep), and reading events back. No assertions about the behaviour under
//! test live here beyond "this setup step worked".
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use rxdesk_sandbox::webhooks::{DeliveryRecord, EventFilter, LogQuery, WebhookSecret};
use rxdesk_sandbox::{AfterSendFlags, Config, FixtureSource, Sandbox};
use serde_json::Value;
use tokio::sync::Notify;

use crate::network_support;

/// The shared secret of the tests' subscriptions.
pub const SECRET: &str = "whsec-test-7f3a";
/// One step of the simulated pharmacy in `network.toml` (an hour: real time never
/// reaches one in a test; the tests advance the test clock).
pub const STEP: Duration = Duration::from_secs(3600);
/// The organization of the tests' tokens.
pub const MAPLE_ORG: &str = "org_maple";

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn event(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    }
}

#[derive(Debug, Default)]
struct Recorded {
    requests: Mutex<Vec<Received>>,
    /// Answers to give, in order; `200` once they run out.
    answers: Mutex<VecDeque<u16>>,
    arrived: Notify,
}

/// A webhook receiver on 127.0.0.1.
#[derive(Debug)]
pub struct Receiver {
    addr: SocketAddr,
    recorded: Arc<Recorded>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn record(
    State(recorded): State<Arc<Recorded>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let answer = recorded.answers.lock().unwrap().pop_front().unwrap_or(200);
    recorded
        .requests
        .lock()
        .unwrap()
        .push(Received { headers, body });
    recorded.arrived.notify_waiters();
    StatusCode::from_u16(answer).unwrap()
}

impl Receiver {
    /// A receiver answering `200` to everything.
    pub async fn start() -> Self {
        Self::answering(&[]).await
    }

    /// A receiver answering `answers` in order, then `200`.
    pub async fn answering(answers: &[u16]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::serve(listener, answers)
    }

    /// A receiver on `addr` (a port a subscription already names).
    pub async fn on(addr: SocketAddr) -> Self {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        Self::serve(listener, &[])
    }

    fn serve(listener: tokio::net::TcpListener, answers: &[u16]) -> Self {
        let addr = listener.local_addr().unwrap();
        let recorded = Arc::new(Recorded::default());
        recorded.answers.lock().unwrap().extend(answers);
        let app = Router::new()
            .route("/webhooks", post(record))
            .with_state(Arc::clone(&recorded));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            addr,
            recorded,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/webhooks", self.addr)
    }

    pub fn requests(&self) -> Vec<Received> {
        self.recorded.requests.lock().unwrap().clone()
    }

    /// Every event received, in arrival order.
    pub fn events(&self) -> Vec<Value> {
        self.requests().iter().map(Received::event).collect()
    }

    /// Waits until `done` holds for the events received (10 s at most).
    pub async fn wait_until(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let arrived = self.recorded.arrived.notified();
            let events = self.events();
            if done(&events) {
                return events;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                panic!(
                    "timed out waiting for {what}; received: {:#?}",
                    types_and_subjects(&self.events())
                );
            }
        }
    }

    /// Waits until the events about `subject` include every type of `types`.
    pub async fn wait_for_types(&self, subject: &str, types: &[&str]) -> Vec<Value> {
        self.wait_until(&format!("{types:?} about {subject}"), |events| {
            let got = types_about(events, subject);
            types.iter().all(|t| got.contains(&(*t).to_owned()))
        })
        .await
    }
}

/// An address on which nothing listens (a refused connection).
pub async fn unused_addr() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

/// The flags subscribing Maple's events (all types) to `url` with [`SECRET`].
pub fn subscribed(url: &str) -> AfterSendFlags {
    AfterSendFlags {
        webhooks: vec![(MAPLE_ORG.to_owned(), url.to_owned())],
        webhook_secret: Some(WebhookSecret::new(SECRET)),
        ..AfterSendFlags::default()
    }
}

/// An in-memory sandbox with `network.toml` and these flags.
pub async fn start_with(after_send: AfterSendFlags) -> Sandbox {
    crate::support::start_with(Config {
        fixture: FixtureSource::File(network_support::fixture_path()),
        after_send,
        ..Config::in_memory()
    })
    .await
}

/// An in-memory sandbox with `network.toml` whose Maple events go to `receiver`.
pub async fn start_subscribed(receiver: &Receiver) -> Sandbox {
    start_with(subscribed(&receiver.url())).await
}

/// Subscribes `receiver` to Maple's events at runtime.
pub fn subscribe(sandbox: &Sandbox, receiver: &Receiver) {
    sandbox
        .webhooks()
        .subscribe(
            MAPLE_ORG,
            &receiver.url(),
            EventFilter::All,
            WebhookSecret::new(SECRET),
        )
        .unwrap();
}

/// Moves the test clock `steps` pharmacy steps forward.
pub async fn advance(sandbox: &Sandbox, steps: u32) {
    sandbox.clock().advance(STEP * steps).await.unwrap();
}

/// The delivery log (all of it).
pub async fn log(sandbox: &Sandbox) -> Vec<DeliveryRecord> {
    sandbox.webhooks().log(LogQuery::default()).await.unwrap()
}

/// Waits until `done` holds for the delivery log (10 s at most; the log has no
/// push, so this looks every 20 ms).
pub async fn wait_for_log(
    sandbox: &Sandbox,
    what: &str,
    done: impl Fn(&[DeliveryRecord]) -> bool,
) -> Vec<DeliveryRecord> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let entries = log(sandbox).await;
        if done(&entries) {
            return entries;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}; log: {entries:#?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The types of the events about `subject`, in arrival order.
pub fn types_about(events: &[Value], subject: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["subject"] == subject)
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

/// The events of type `kind` about `subject`.
pub fn of_type<'a>(events: &'a [Value], subject: &str, kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["subject"] == subject && e["type"] == kind)
        .collect()
}

/// The `fulfillment.state`s told about `subject`, in arrival order.
pub fn fulfillment_states(events: &[Value], subject: &str) -> Vec<String> {
    of_type(events, subject, "photon:order:fulfillment")
        .iter()
        .map(|e| {
            e["data"]["fulfillment"]["state"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn types_and_subjects(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| format!("{} {}", e["type"], e["subject"]))
        .collect()
}
