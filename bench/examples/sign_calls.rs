//! The network's share of the signing figure on its own, for a profiler: an
//! in-process sandbox signs ROUNDS batches of N drafts sent straight from
//! here ([`signing::sign_directly`], as many in flight as the app keeps),
//! then as many single signatures, and prints the median of each:
//!
//! ```sh
//! cargo build --release -p rxdesk-bench --examples
//! perf record -g target/release/examples/sign_calls sandbox 20 100 target/bench/sign-calls
//! ```
//!
//! `sandbox` signs on an on-disk sandbox in DIR (a fresh database each run:
//! DIR is emptied first), `memory` on an in-memory one (DIR unused). The
//! drafts are made by the demo fixture's backend before each batch, untimed;
//! the signatures are Ada's (a prescriber of the demo fixture), signed in
//! with PKCE through the sandbox's own sign-in form.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use rxdesk_bench::{felt, network, signing};
use rxdesk_e2e::services;
use url::Url;

// The allocator the sandbox runs with (`crates/sandbox/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The demo fixture's prescriber and the desktop application she signs in with.
const PRESCRIBER: (&str, &str) = ("ada@maple.example", "rxdesk-demo");
const ORGANIZATION: &str = "org_maple";
const APPLICATION: &str = "rxdesk-desktop";
/// Where the sign-in would send the browser; nothing listens there: the code
/// is read from the redirect itself.
const REDIRECT: &str = "http://127.0.0.1:9/callback";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, rounds, n, dir] = args.as_slice() else {
        bail!("usage: sign_calls sandbox|memory ROUNDS N DIR");
    };
    let rounds: usize = rounds.parse().context("ROUNDS is a number of batches")?;
    let n: usize = n.parse().context("N is a number of drafts per batch")?;
    let config = match mode.as_str() {
        "memory" => rxdesk_sandbox::Config::in_memory(),
        "sandbox" => {
            let dir = PathBuf::from(dir);
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            rxdesk_sandbox::Config {
                storage: rxdesk_sandbox::Storage::Data(dir),
                ..rxdesk_sandbox::Config::in_memory()
            }
        }
        other => bail!("no mode {other}: sandbox or memory"),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(config, rounds, n))
}

async fn run(config: rxdesk_sandbox::Config, rounds: usize, n: usize) -> Result<()> {
    let sandbox = rxdesk_sandbox::Sandbox::start(config)
        .await
        .context("the in-process sandbox did not start")?;
    let origin = sandbox.url().clone();
    let http = rxdesk_e2e::http_client();
    let machine = services::machine_token(&http, &origin, network::MAPLE_BACKEND).await?;
    let prescriber = prescriber_token(&origin).await?;
    // Every draft first, so that a profile's last part is the signatures alone.
    let started = std::time::Instant::now();
    let mut made = 0;
    let mut drafts = Vec::new();
    for _ in 0..rounds {
        let batch = felt::make_drafts(&http, &origin, &machine, n, &mut made).await?;
        let single = felt::make_drafts(&http, &origin, &machine, 1, &mut made).await?;
        drafts.push((batch, single));
    }
    let set_up = started.elapsed();
    let (mut batches, mut singles) = (Vec::new(), Vec::new());
    for (batch, single) in &drafts {
        batches.push(signing::sign_directly(&http, &origin, &prescriber, batch).await?);
        singles.push(signing::sign_directly(&http, &origin, &prescriber, single).await?);
    }
    let signed = started.elapsed() - set_up;
    sandbox.shutdown().await;
    println!(
        "set up (sign-in, drafts) {:.2} s, then signing {:.2} s",
        set_up.as_secs_f64(),
        signed.as_secs_f64()
    );
    let (batch, single) = (median(&mut batches), median(&mut singles));
    println!(
        "signing {n}: median {batch:.1} ms; one: median {single:.2} ms; {:.1}x, over {rounds} rounds",
        batch / single
    );
    Ok(())
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Ada's access token: the authorization code flow with PKCE, her password
/// posted to the sign-in form as a browser would (with its cookie), the code
/// taken from the redirect and exchanged at the token endpoint.
async fn prescriber_token(origin: &Url) -> Result<String> {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let (challenge, verifier) = oauth2::PkceCodeChallenge::new_random_sha256();
    let mut authorize = origin.join("/authorize")?;
    authorize
        .query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", APPLICATION)
        .append_pair("redirect_uri", REDIRECT)
        .append_pair("state", "bench")
        .append_pair("audience", services::AUDIENCE)
        // Ada works for two organizations; the drafts are Maple's.
        .append_pair("organization", ORGANIZATION)
        .append_pair("code_challenge", challenge.as_str())
        .append_pair("code_challenge_method", "S256");
    let page = browser.get(authorize).send().await?.error_for_status()?;
    let cookie = page
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|c| c.to_str().ok())
        .and_then(|c| c.split(';').next())
        .context("the sign-in page set no cookie")?
        .to_owned();
    let html = page.text().await?;
    let login = html
        .split("name=\"login\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .context("no login field on the sign-in page")?
        .to_owned();
    let signed_in = browser
        .post(origin.join("/authorize/login")?)
        .header(reqwest::header::COOKIE, cookie)
        .form(&[
            ("login", login.as_str()),
            ("email", PRESCRIBER.0),
            ("password", PRESCRIBER.1),
            ("action", "signin"),
        ])
        .send()
        .await?;
    let Some(location) = signed_in
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .map(str::to_owned)
    else {
        let status = signed_in.status();
        let page = signed_in.text().await?;
        bail!("the sign-in did not redirect ({status}): {page}");
    };
    let code = Url::parse(&location)?
        .query_pairs()
        .find_map(|(k, v)| (k == "code").then(|| v.into_owned()))
        .context("no code in the redirect")?;
    let tokens: serde_json::Value = browser
        .post(origin.join("/oauth/token")?)
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("client_id", APPLICATION),
            ("code_verifier", verifier.secret().as_str()),
        ])
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    tokens["access_token"]
        .as_str()
        .map(str::to_owned)
        .context("no access token in the token response")
}
