//! Webhooks at runtime: `GET /webhooks/deliveries[?subject=ord_…&limit=N]` (the
//! delivery log, newest first), `GET /webhooks/subscriptions`, `POST
//! /webhooks/subscriptions { organization, url, secret, events? }` (kept in memory)
//! and `DELETE /webhooks/subscriptions/{id}` (`docs/network-api.md`, "Webhooks").

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;

use super::reply;
use super::state::ControlState;
use crate::webhooks::{EventFilter, LogQuery, WebhookSecret};

pub(crate) fn routes() -> Router<ControlState> {
    Router::new()
        .route("/webhooks/deliveries", get(deliveries))
        .route(
            "/webhooks/subscriptions",
            get(subscriptions).post(subscribe),
        )
        .route("/webhooks/subscriptions/{id}", delete(unsubscribe))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LogParams {
    subject: Option<String>,
    limit: Option<u32>,
}

async fn deliveries(
    State(state): State<ControlState>,
    Query(params): Query<LogParams>,
) -> Response {
    let query = LogQuery {
        subject: params.subject,
        limit: params.limit,
    };
    match state.after_send.webhooks().log(query).await {
        Ok(log) => Json(log).into_response(),
        Err(e) => reply::error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn subscriptions(State(state): State<ControlState>) -> Response {
    Json(state.after_send.webhooks().subscriptions()).into_response()
}

/// A subscription to add. The secret is never shown again.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewSubscription {
    organization: String,
    url: String,
    secret: String,
    #[serde(default)]
    events: Vec<String>,
}

async fn subscribe(
    State(state): State<ControlState>,
    body: Result<Json<NewSubscription>, JsonRejection>,
) -> Response {
    let Json(new) = match body {
        Ok(body) => body,
        Err(rejection) => return reply::bad_json(&rejection),
    };
    let events = match EventFilter::parse(&new.events) {
        Ok(events) => events,
        Err(e) => return reply::error(StatusCode::UNPROCESSABLE_ENTITY, e),
    };
    match state.after_send.webhooks().subscribe(
        &new.organization,
        &new.url,
        events,
        WebhookSecret::new(new.secret),
    ) {
        Ok(info) => (StatusCode::CREATED, Json(info)).into_response(),
        Err(e) => reply::error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}

async fn unsubscribe(State(state): State<ControlState>, Path(id): Path<String>) -> Response {
    if state.after_send.webhooks().unsubscribe(&id) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        reply::error(StatusCode::NOT_FOUND, format!("no subscription {id}"))
    }
}
