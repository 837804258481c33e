//! `GET /link` (the link's settings, remaining token outage and counters) and
//! `PUT /link` (new settings, validated; counters and sequences start again).

use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use axum::routing::get;
use axum::{Json, Router};

use super::reply;
use super::state::ControlState;
use crate::link::LinkSettings;

pub(crate) fn routes() -> Router<ControlState> {
    Router::new().route("/link", get(show).put(replace))
}

async fn show(State(state): State<ControlState>) -> Response {
    Json(state.link.status()).into_response()
}

async fn replace(
    State(state): State<ControlState>,
    settings: Result<Json<LinkSettings>, JsonRejection>,
) -> Response {
    let Json(settings) = match settings {
        Ok(settings) => settings,
        Err(rejection) => return reply::bad_json(&rejection),
    };
    match state.link.set(settings) {
        Ok(()) => Json(state.link.status()).into_response(),
        Err(e) => reply::error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}
