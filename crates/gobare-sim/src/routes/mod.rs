//! The HTTP surface: the router, the layers every `/v1` request passes (request id, auth,
//! rate limits, idempotency) and the uniform error envelope for what no route answers.

mod body;
pub(crate) mod credentials;
mod inputs;
mod openapi;
mod org_refs;
mod query;
mod reads;
mod reply;
mod sessions;
mod spoiled_list;
mod streams;
mod workspace;

use std::sync::Arc;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use crate::refusal::{REQUEST_ID, Refusal, new_request_id};
use crate::state::Shared;
use crate::{layers::auth, layers::idempotency, layers::ratelimit};
use gobare_api::model::ErrorCode;

pub(crate) fn router(state: Shared) -> Router {
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/openapi.json", get(openapi::serve))
        .route("/v1/model-connectors", get(model_connectors))
        .route("/v1/model-credentials", get(credentials::list))
        .route("/v1/sessions", get(sessions::list).post(sessions::create))
        .route(
            "/v1/sessions/{session_id}",
            get(sessions::read)
                .patch(sessions::patch)
                .delete(sessions::delete),
        )
        .route("/v1/sessions/{session_id}/fork", post(sessions::fork))
        .route(
            "/v1/sessions/{session_id}/events",
            get(streams::session_events).post(inputs::post),
        )
        .route("/v1/events", get(streams::org_events))
        .route("/v1/sessions/{session_id}/turns", get(reads::turns))
        .route(
            "/v1/sessions/{session_id}/turns/{turn_id}",
            get(reads::turn),
        )
        .route("/v1/sessions/{session_id}/items", get(reads::items))
        .route("/v1/sessions/{session_id}/artifacts", get(reads::artifacts))
        .route(
            "/v1/sessions/{session_id}/artifacts/archive",
            get(reads::artifact_archive),
        )
        .route(
            "/v1/sessions/{session_id}/artifacts/{artifact_id}",
            get(reads::artifact).delete(reads::delete_artifact),
        )
        .route(
            "/v1/sessions/{session_id}/artifacts/{artifact_id}/content",
            get(reads::artifact_content),
        )
        .route("/v1/sessions/{session_id}/usage", get(workspace::usage))
        .route(
            "/v1/sessions/{session_id}/tools",
            get(workspace::read_tools).put(workspace::put_tools),
        )
        .route(
            "/v1/sessions/{session_id}/files",
            get(workspace::list_files).post(workspace::write_files),
        )
        .route(
            "/v1/sessions/{session_id}/files/content",
            get(workspace::file_content),
        )
        .route(
            "/v1/sessions/{session_id}/files/refresh",
            post(workspace::refresh_files),
        )
        .route(
            "/v1/sessions/{session_id}/preview",
            post(workspace::publish_preview).delete(workspace::unpublish_preview),
        )
        .fallback(unknown_path)
        .layer(middleware::from_fn_with_state(
            state.idempotency.clone(),
            idempotency::layer,
        ))
        .layer(middleware::from_fn_with_state(
            state.rate_limiter.clone(),
            ratelimit::layer,
        ))
        .layer(middleware::from_fn_with_state(
            auth::Tokens {
                full: Arc::<str>::from(state.token.as_str()),
                scoped: state.scoped_tokens.clone(),
            },
            auth::layer,
        ))
        .layer(middleware::from_fn(request_context))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            record_request,
        ))
        .with_state(state)
}

/// Notes every request, whatever becomes of it (`Simulator::requests`).
async fn record_request(State(state): State<Shared>, req: Request, next: Next) -> Response {
    let uri = req.uri();
    let line = match uri.query() {
        Some(query) => format!("{} {}?{query}", req.method(), uri.path()),
        None => format!("{} {}", req.method(), uri.path()),
    };
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("(no route)", MatchedPath::as_str);
    let route = format!("{} {route}", req.method());
    state.record_request(line, route);
    next.run(req).await
}

/// Gives every response its `x-request-id` (quoted by error bodies) and `Link`, and turns
/// any non-envelope error (framework 404/405/415…) into the envelope.
async fn request_context(req: Request, next: Next) -> Response {
    let id = new_request_id();
    let resp = REQUEST_ID.scope(id.clone(), next.run(req)).await;
    let mut resp = envelope_framework_errors(resp, &id);
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&id) {
        h.insert("x-request-id", v);
    }
    h.insert(
        header::LINK,
        HeaderValue::from_static("</v1/openapi.json>; rel=\"service-desc\""),
    );
    resp
}

fn envelope_framework_errors(resp: Response, id: &str) -> Response {
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if status.as_u16() < 400 || is_json {
        return resp;
    }
    let (code, message) = match status {
        StatusCode::NOT_FOUND => (ErrorCode::NotFound, "No such route."),
        StatusCode::METHOD_NOT_ALLOWED => (
            ErrorCode::MethodNotAllowed,
            "This path does not accept that method; see Allow.",
        ),
        s if s.is_client_error() => (ErrorCode::InvalidRequest, "The request is not valid."),
        _ => (ErrorCode::InternalError, "Internal error."),
    };
    let mut out = Refusal::new(code, message).into_response_with_id(id);
    // What the layers said of the request (`Allow`, `x-ratelimit-*`) stays; the body's
    // own headers are the envelope's.
    for (name, value) in resp.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

/// Spec routes (§6.1) this simulator leaves out: organization-level configuration a
/// terminal client never calls (of the credentials only the list is served, for the model
/// switch).
const NOT_SIMULATED: [&str; 5] = [
    "/v1/agents",
    "/v1/environment-templates",
    "/v1/environment-profiles",
    "/v1/model-credentials",
    "/v1/webhooks",
];

/// Every `/v1` answer is the envelope, unknown paths included (§2).
async fn unknown_path(uri: axum::http::Uri) -> Refusal {
    let path = uri.path();
    let left_out = NOT_SIMULATED.iter().any(|p| {
        path == *p
            || path
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    });
    if left_out {
        Refusal::not_found(format!(
            "No such route in the local simulator: it does not serve {path}."
        ))
    } else {
        Refusal::not_found("No such route.")
    }
}

async fn health(
    held: Option<axum::extract::Extension<crate::layers::scopes::TokenScopes>>,
    uri: axum::http::Uri,
) -> Result<impl IntoResponse, Refusal> {
    query::Query::parse(uri.query(), &[])?;
    let held = held.map(|e| e.0).unwrap_or_default();
    Ok(axum::Json(held.health()))
}

async fn model_connectors(uri: axum::http::Uri) -> Result<impl IntoResponse, Refusal> {
    query::Query::parse(uri.query(), &query::PAGING)?;
    Ok(axum::Json(json!({
        "object": "list",
        "data": [{"object": "model_connector", "id": "minimax", "display_name": "MiniMax",
                  "default_model": sessions::MODELS[0], "key_prefix": null, "key_url": null,
                  "protocol": "openai"}],
        "has_more": false,
        "last_id": "minimax",
    })))
}

pub(crate) use inputs::accept_message;
pub(crate) use sessions::create_session;
