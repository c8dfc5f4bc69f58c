//! Which requests need the token, and the layer that checks it (§1).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gobare_api::model::ErrorCode;

use crate::layers::scopes::{self, TokenScopes};
use crate::lock::lock;
use crate::refusal::Refusal;

/// The tokens the server accepts: its own, holding every scope, and any minted with a
/// chosen few.
#[derive(Clone)]
pub(crate) struct Tokens {
    pub(crate) full: Arc<str>,
    pub(crate) scoped: Arc<Mutex<HashMap<String, Vec<String>>>>,
}

/// `GET /v1/openapi.json` and `GET /v1/model-connectors` need no token (§1).
fn is_anonymous(path: &str) -> bool {
    path == "/v1/openapi.json" || path == "/v1/model-connectors"
}

/// Whether a request to `path` must carry the token (and so is rate limited).
pub(crate) fn is_authenticated(path: &str) -> bool {
    path.starts_with("/v1/") && !is_anonymous(path)
}

/// The token a request carries in `Authorization: Bearer`, if any.
pub(crate) fn presented_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Refuses an authenticated request whose `Authorization: Bearer` is no known token, or
/// whose token lacks the scope the route needs; passes the token's scopes on to the routes
/// that decide by what is sent.
pub(crate) async fn layer(State(tokens): State<Tokens>, mut req: Request, next: Next) -> Response {
    if !is_authenticated(req.uri().path()) {
        return next.run(req).await;
    }
    let presented = presented_token(req.headers());
    let held = match presented {
        Some(t) if t == &*tokens.full => Some(TokenScopes(None)),
        Some(t) => lock(&tokens.scoped)
            .get(t)
            .cloned()
            .map(|s| TokenScopes(Some(s))),
        None => None,
    };
    if let Some(held) = held {
        let uri = req.uri();
        if let Some(scope) = scopes::for_route(req.method(), uri.path(), uri.query())
            && let Err(refusal) = held.require(scope)
        {
            return refusal.into_response();
        }
        req.extensions_mut().insert(held);
        return next.run(req).await;
    }
    match presented {
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
