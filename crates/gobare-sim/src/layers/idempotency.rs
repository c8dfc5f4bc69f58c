//! `Idempotency-Key` (§4): keyed by (token, method, path, key), claimed when work starts,
//! stored only for successful answers, replayed verbatim.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::time::Instant;

use crate::lock::lock;
use crate::refusal::Refusal;

type Key = (String, String, String, String);

enum Entry {
    InFlight,
    Done {
        status: StatusCode,
        body: Bytes,
        at: Instant,
    },
}

/// The layer's state: the keys it has seen and how it treats writes.
pub(crate) struct Idempotency {
    /// The token requests carry: part of every key.
    token: String,
    /// How long a stored answer is replayed.
    ttl: Duration,
    /// Artificial processing time of every write (lets tests observe in-flight keys).
    write_latency: Duration,
    entries: Mutex<HashMap<Key, Entry>>,
}

impl Idempotency {
    pub(crate) fn new(token: String, ttl: Duration, write_latency: Duration) -> Arc<Self> {
        Arc::new(Idempotency {
            token,
            ttl,
            write_latency,
            entries: Mutex::new(HashMap::new()),
        })
    }
}

/// The `Idempotency-Key` header of a request, if present and usable.
pub(crate) fn key_of(headers: &HeaderMap) -> Result<Option<String>, Refusal> {
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

pub(crate) async fn layer(
    State(keys): State<Arc<Idempotency>>,
    req: Request,
    next: Next,
) -> Response {
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return next.run(req).await;
    }
    let key = match key_of(req.headers()) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    let Some(key) = key else {
        simulate_latency(keys.write_latency).await;
        return next.run(req).await;
    };
    let id: Key = (
        keys.token.clone(),
        req.method().to_string(),
        req.uri().path().to_string(),
        key,
    );
    {
        let mut entries = lock(&keys.entries);
        match entries.get(&id) {
            Some(Entry::InFlight) => {
                return Refusal::conflict(
                    "A request with this Idempotency-Key is already in flight; retry in a moment.",
                )
                .into_response();
            }
            Some(Entry::Done { status, body, at }) if at.elapsed() < keys.ttl => {
                return replay(*status, body.clone());
            }
            _ => {
                entries.insert(id.clone(), Entry::InFlight);
            }
        }
    }
    simulate_latency(keys.write_latency).await;
    let resp = next.run(req).await;
    let status = resp.status();
    if !status.is_success() {
        lock(&keys.entries).remove(&id);
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    lock(&keys.entries).insert(
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
