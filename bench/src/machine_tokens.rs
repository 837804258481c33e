//! Machine-token requests during API calls: the client (`rxdesk_client`'s
//! `MachineTokens` + `Network`) makes 10,000 patient Gets from 64 concurrent
//! tasks against an in-process sandbox behind a counting reverse proxy, which
//! counts every `POST /oauth/token` it forwards. The contract: one token per
//! 24 h, so exactly one request per run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rxdesk_client::{BackendCredentials, Client, Environment};
use rxdesk_e2e::services;
use url::Url;

use crate::network;
use crate::plan::Plan;
use crate::report::Figure;
use crate::stats::Target;

/// Concurrent callers of the figure.
pub const CALLERS: usize = 64;

pub async fn figure(plan: &Plan) -> Result<Figure> {
    let sandbox = rxdesk_sandbox::Sandbox::start(rxdesk_sandbox::Config::in_memory())
        .await
        .context("the in-process sandbox did not start")?;
    let http = rxdesk_e2e::http_client();
    let setup_token = services::machine_token(&http, sandbox.url(), network::MAPLE_BACKEND).await?;
    let patient =
        network::add_patient(&http, sandbox.url(), &setup_token, ("Tomasz", "Tokencount")).await?;

    let mut requests = Vec::new();
    let mut rates = Vec::new();
    for _ in 0..plan.runs {
        let proxy = Proxy::start(sandbox.url().clone()).await?;
        let client = Client::new(Environment::sandbox(&proxy.url)?)?;
        let (id, secret) = network::MAPLE_BACKEND;
        let api =
            client.machine_network(client.machine_tokens(BackendCredentials::new(id, secret)));
        let started = Instant::now();
        let mut callers = tokio::task::JoinSet::new();
        for caller in 0..CALLERS {
            let (api, patient) = (api.clone(), patient.clone());
            // Calls spread evenly: the first callers take one more when it does not divide.
            let calls =
                plan.token_calls / CALLERS + usize::from(caller < plan.token_calls % CALLERS);
            callers.spawn(async move {
                for _ in 0..calls {
                    api.get_patient(&patient).await?;
                }
                anyhow::Ok(())
            });
        }
        while let Some(done) = callers.join_next().await {
            done??;
        }
        rates.push(plan.token_calls as f64 / started.elapsed().as_secs_f64());
        let graphql = proxy.count("/graphql");
        if graphql != plan.token_calls {
            bail!(
                "{graphql} API calls reached the network, not {}",
                plan.token_calls
            );
        }
        requests.push(proxy.count("/oauth/token") as f64);
    }
    sandbox.shutdown().await;
    rates.sort_by(f64::total_cmp);
    Ok(Figure::measured(
        "machine_tokens",
        &format!(
            "machine-token requests during {} API calls by {CALLERS} concurrent callers",
            plan.token_calls
        ),
        "requests",
        &requests,
        ("the contract: one per 24 h", None),
        Target::Exactly(1.0),
    )?
    .with_note(format!(
        "counted by a reverse proxy in front of the sandbox; the calls ran at {:.0} Gets/s (median run)",
        rates[rates.len() / 2]
    )))
}

/// A reverse proxy on a loopback port forwarding everything to `upstream`,
/// counting requests per path.
#[derive(Debug)]
pub struct Proxy {
    pub url: Url,
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

#[derive(Clone)]
struct Forward {
    upstream: Url,
    http: reqwest::Client,
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

impl Proxy {
    pub async fn start(upstream: Url) -> Result<Self> {
        let counts = Arc::new(Mutex::new(HashMap::new()));
        rxdesk_e2e::install_crypto();
        let state = Forward {
            upstream,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .pool_max_idle_per_host(CALLERS)
                .build()?,
            counts: Arc::clone(&counts),
        };
        let app = axum::Router::new().fallback(forward).with_state(state);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let url = Url::parse(&format!("http://{}/", listener.local_addr()?))?;
        tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                eprintln!("bench: the counting proxy stopped: {e}");
            }
        });
        Ok(Self { url, counts })
    }

    /// Requests forwarded to `path` so far.
    pub fn count(&self, path: &str) -> usize {
        self.counts
            .lock()
            .map_or(0, |c| c.get(path).copied().unwrap_or(0))
    }
}

async fn forward(State(state): State<Forward>, request: Request) -> Response {
    match try_forward(&state, request).await {
        Ok(response) => response,
        Err(e) => (StatusCode::BAD_GATEWAY, format!("proxy: {e:#}")).into_response(),
    }
}

async fn try_forward(state: &Forward, request: Request) -> Result<Response> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    if let Ok(mut counts) = state.counts.lock() {
        *counts.entry(path.clone()).or_default() += 1;
    }
    let mut url = state.upstream.join(&path)?;
    url.set_query(parts.uri.query());
    let body: Bytes = axum::body::to_bytes(body, 1 << 20).await?;
    let mut upstream = state.http.request(parts.method, url).body(body);
    for name in ["content-type", "authorization", "accept"] {
        if let Some(value) = parts.headers.get(name) {
            upstream = upstream.header(name, value);
        }
    }
    let answer = upstream.send().await?;
    let status = answer.status();
    let content_type = answer.headers().get("content-type").cloned();
    let bytes = answer.bytes().await?;
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    if let Some(value) = content_type {
        response
            .headers_mut()
            .insert("content-type", HeaderValue::from_bytes(value.as_bytes())?);
    }
    Ok(response)
}
