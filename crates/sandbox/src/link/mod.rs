//! The link layer: the sandbox misbehaving like a real network on demand —
//! latency with jitter, transient faults (`UpstreamServiceError`, 502, 503, 429
//! with `Retry-After`), connections closed before the request is applied or
//! after it committed, and the token endpoint down for a while. Off by default;
//! it touches `POST /graphql` and `POST /oauth/token` only.
//!
//! - [`settings`]: what to do ([`LinkSettings`]), from flags, the fixture's
//!   `[link]` section or the control endpoint's `PUT /link`;
//! - [`operation`]: which operation a request is ([`Operation`]);
//! - [`decide`]: the seeded decision for one request;
//! - `layer`: the step that applies it, run by the server's front middleware;
//! - `state`: [`Link`], the running sandbox's handle: settings, counters of
//!   what was injected, and the token outage.
//!
//! This file only declares and re-exports: `layer` and `state` never import it. The control endpoint (`crate::control`) and
//! in-process tests (`Sandbox::link`) use it. Nothing here reads or writes
//! records: an `UpstreamServiceError` is answered by the Network API itself
//! when the request carries an [`UpstreamFault`].

pub mod decide;
mod layer;
pub mod operation;
pub mod settings;
mod state;

pub use self::decide::Fault;
pub(crate) use self::layer::layer;
pub use self::operation::Operation;
pub use self::settings::{FaultRates, Latency, LinkError, LinkSettings, OperationSettings};
pub use self::state::{Injected, Link, LinkCounters, LinkStatus, UpstreamFault};
