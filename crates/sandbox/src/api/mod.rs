//! The GraphQL API. (Being built: see issue 3.)

use axum::Router;

use crate::state::AppState;

/// Routes of the GraphQL API.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
}
