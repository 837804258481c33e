//! The largest request body any endpoint accepts. `server.rs` enforces it on every
//! route; `graphql` names it in the GraphQL-shaped answer to a body over it. It
//! lives here, below both, so neither imports the other for it.

/// Largest request body any endpoint accepts (forms, JSON, GraphQL documents).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
