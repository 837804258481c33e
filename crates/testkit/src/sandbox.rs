//! An in-process sandbox on a free loopback port.

use rxdesk_sandbox::{Config, Sandbox};

/// An in-memory sandbox with the demo fixture.
pub async fn start_demo() -> Sandbox {
    start_with(Config::in_memory()).await
}

/// A sandbox with `config`; panics with the start error's message.
pub async fn start_with(config: Config) -> Sandbox {
    match Sandbox::start(config).await {
        Ok(sandbox) => sandbox,
        Err(e) => panic!("sandbox did not start: {e}"),
    }
}
