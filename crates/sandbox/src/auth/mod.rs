//! The OAuth authorization server. (Being built: see issue 2.)

pub mod claims;
pub mod keys;
pub mod limits;

use axum::Router;

use crate::state::AppState;

/// Routes of the authorization server.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
}
