//! A fixed number of the API figure's patient Gets, for counting instructions
//! where the figure's timed runs are too noisy to tell a few per cent apart:
//!
//! ```sh
//! cargo build --release -p rxdesk-bench --examples
//! valgrind --tool=callgrind --callgrind-out-file=get.out \
//!   target/release/examples/api_calls sandbox 2000 target/bench/api-calls
//! ```
//!
//! `sandbox` sends the Gets to an on-disk sandbox in DIR (created on first
//! use, its signing key kept, so that runs differ only by their Gets), `memory`
//! to an in-memory sandbox (DIR unused), `floor`
//! to the smallest async-graphql server answering the same bytes
//! (`graphql_floor.rs`), `bare` to the bench's bare handler answering them;
//! 8 workers share N Gets.
//! Two runs with different N give the instructions of one Get as the
//! difference of their totals over the difference of N (set-up cancels out).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use rxdesk_bench::api;

const WORKERS: usize = 8;

// The allocator the bench's figure runs with (`src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, n, dir] = args.as_slice() else {
        bail!("usage: api_calls sandbox|memory|floor|bare N DIR");
    };
    let n: usize = n.parse().context("N is a number of Gets")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(mode, n, PathBuf::from(dir)))
}

async fn run(mode: &str, n: usize, dir: PathBuf) -> Result<()> {
    let http = api::load_client()?;
    let config = match mode {
        "memory" => rxdesk_sandbox::Config::in_memory(),
        _ => rxdesk_sandbox::Config {
            storage: rxdesk_sandbox::Storage::Data(dir),
            ..rxdesk_sandbox::Config::in_memory()
        },
    };
    let api::Server {
        sandbox,
        graphql,
        token,
        body,
        answer,
    } = api::Server::start(&http, config).await?;
    let url = match mode {
        "sandbox" | "memory" => graphql,
        "bare" => {
            let bare = api::bare_handler(answer).await?;
            url::Url::parse(&format!("http://{bare}/graphql"))?
        }
        "floor" => {
            let floor = rxdesk_bench::graphql_floor::serve(&http, &body, &answer).await?;
            url::Url::parse(&format!("http://{floor}/graphql"))?
        }
        other => bail!("no mode {other}: sandbox, memory, floor or bare"),
    };
    let mut workers = tokio::task::JoinSet::new();
    for w in 0..WORKERS {
        let share = n / WORKERS + usize::from(w < n % WORKERS);
        let (http, url, token, body) = (http.clone(), url.clone(), token.clone(), body.clone());
        workers.spawn(async move {
            for _ in 0..share {
                api::post_get(&http, &url, &token, &body).await?;
            }
            anyhow::Ok(())
        });
    }
    while let Some(done) = workers.join_next().await {
        done??;
    }
    sandbox.shutdown().await;
    println!("{n} Gets sent to {mode}");
    Ok(())
}
