//! Which requests need the token, and the layer that checks it (§1).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gobare_api::model::ErrorCode;

use crate::refusal::Refusal;

/// `GET /v1/openapi.json` and `GET /v1/model-connectors` need no token (§1).
fn is_anonymous(path: &str) -> bool {
    path == "/v1/openapi.json" || path == "/v1/model-connectors"
}

/// Whether a request to `path` must carry the token (and so is rate limited).
pub(crate) fn is_authenticated(path: &str) -> bool {
    path.starts_with("/v1/") && !is_anonymous(path)
}

/// Refuses an authenticated request whose `Authorization: Bearer` is not `token`.
pub(crate) async fn layer(State(token): State<Arc<str>>, req: Request, next: Next) -> Response {
    if !is_authenticated(req.uri().path()) {
        return next.run(req).await;
    }
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match presented {
        Some(t) if t == &*token => next.run(req).await,
        Some(_) => Refusal::new(
            ErrorCode::AuthenticationError,
            "The token is unknown, expired or revoked.",
        )
        .into_response(),
        None => Refusal::new(
            ErrorCode::AuthenticationError,
            "Send the token as \"Authorization: Bearer <token>\".",
        )
        .into_response(),
    }
}
