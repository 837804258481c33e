//! The control endpoint's refusals, all JSON `{ "error": "…" }`: a value that
//! cannot be used, a body that is not the expected JSON, an unknown route, a
//! method the route does not take.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};

/// A refusal in the control endpoint's shape.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "error": message.into() });
    (status, axum::Json(body)).into_response()
}

/// A JSON body that could not be read (`400`, `415`, `422`), said in that shape.
pub(crate) fn bad_json(rejection: &JsonRejection) -> Response {
    error(rejection.status(), rejection.body_text())
}

pub(super) async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "this control route does not take that method (see docs/network-api.md, \"Control endpoint\")",
    )
}

pub(super) async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such control route (see docs/network-api.md, \"Control endpoint\")",
    )
}
