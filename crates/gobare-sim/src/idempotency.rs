//! `Idempotency-Key` (§4): keyed by (token, method, path, key), claimed when work starts,
//! stored only for successful answers, replayed verbatim.

use std::collections::HashMap;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::time::Instant;

use super::refusal::Refusal;
use super::state::{Shared, lock};

type Key = (String, String, String, String);

enum Entry {
    InFlight,
    Done {
        status: StatusCode,
        body: Bytes,
        at: Instant,
    },
}

#[derive(Default)]
pub struct IdempotencyStore {
    entries: HashMap<Key, Entry>,
}

/// The `Idempotency-Key` header of a request, if present and usable.
pub fn key_of(headers: &HeaderMap) -> Result<Option<String>, Refusal> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let s = v
        .to_str()
        .map_err(|_| Refusal::invalid("Idempotency-Key must be visible ASCII."))?;
    if s.is_empty() || s.len() > 255 {
        return Err(Refusal::invalid(
            "Idempotency-Key must be 1 to 255 characters.",
        ));
    }
    Ok(Some(s.to_string()))
}

pub async fn layer(State(state): State<Shared>, req: Request, next: Next) -> Response {
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return next.run(req).await;
    }
    let key = match key_of(req.headers()) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    let latency = state.config.write_latency;
    let Some(key) = key else {
        simulate_latency(latency).await;
        return next.run(req).await;
    };
    let id: Key = (
        state.token.clone(),
        req.method().to_string(),
        req.uri().path().to_string(),
        key,
    );
    let ttl = state.config.idempotency_ttl;
    {
        let mut db = lock(&state.idempotency);
        match db.entries.get(&id) {
            Some(Entry::InFlight) => {
                return Refusal::conflict(
                    "A request with this Idempotency-Key is already in flight; retry in a moment.",
                )
                .into_response();
            }
            Some(Entry::Done { status, body, at }) if at.elapsed() < ttl => {
                return replay(*status, body.clone());
            }
            _ => {
                db.entries.insert(id.clone(), Entry::InFlight);
            }
        }
    }
    simulate_latency(latency).await;
    let resp = next.run(req).await;
    let status = resp.status();
    if !status.is_success() {
        lock(&state.idempotency).entries.remove(&id);
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    lock(&state.idempotency).entries.insert(
        id,
        Entry::Done {
            status,
            body: body.clone(),
            at: Instant::now(),
        },
    );
    Response::from_parts(parts, Body::from(body))
}

async fn simulate_latency(latency: Duration) {
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
}

fn replay(status: StatusCode, body: Bytes) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}
