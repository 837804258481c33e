//! What every mutation is sent with besides its input: `RequestMetadata`.

use async_graphql::{Enum, InputObject};

/// Who sent a request, for the network's records (and the sandbox's logs).
#[derive(Debug, Clone, InputObject)]
pub struct RequestMetadata {
    pub source: RequestSource,
    pub client: Option<String>,
    pub source_version: Option<String>,
    /// A tracing id, not an idempotency key.
    pub request_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum RequestSource {
    DirectApi,
    WebApp,
    EmbeddableComponent,
    McpConnector,
    LlmAgent,
}
