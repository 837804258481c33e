//! The test clock: `GET /clock` reads it, `POST /clock/advance { "seconds": N }`
//! moves it N seconds forward and answers once every pharmacy step that became due
//! has been taken (`docs/network-api.md`, "The test clock").

use std::time::Duration;

use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use super::reply;
use super::state::ControlState;
use crate::clock::ClockReading;

pub(crate) fn routes() -> Router<ControlState> {
    Router::new()
        .route("/clock", get(read))
        .route("/clock/advance", post(advance))
}

/// The clock as JSON: `{ "now": RFC 3339, "nowMs", "offsetMs" }`.
fn shown(reading: ClockReading) -> Response {
    Json(serde_json::json!({
        "now": reading.now(),
        "nowMs": reading.now_ms,
        "offsetMs": reading.offset_ms,
    }))
    .into_response()
}

async fn read(State(state): State<ControlState>) -> Response {
    match state.after_send.clock().read().await {
        Ok(reading) => shown(reading),
        Err(e) => reply::error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// `{ "seconds": N }`: a whole number of seconds, at least 1.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    seconds: u64,
}

async fn advance(
    State(state): State<ControlState>,
    body: Result<Json<Advance>, JsonRejection>,
) -> Response {
    let Json(Advance { seconds }) = match body {
        Ok(body) => body,
        Err(rejection) => return reply::bad_json(&rejection),
    };
    if seconds == 0 {
        return reply::error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "`seconds` must be at least 1: the clock only moves forward",
        );
    }
    match state
        .after_send
        .clock()
        .advance(Duration::from_secs(seconds))
        .await
    {
        Ok(reading) => shown(reading),
        Err(e) => reply::error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
