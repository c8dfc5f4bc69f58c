//! Token buckets per §5 (`general` 120/min, `sessions` 10/min, each per token), continuous
//! refill, with the `x-ratelimit-*` headers on every authenticated response.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::time::Instant;

use gobare_api::model::ErrorCode;

use crate::config::RateLimits;
use crate::layers::auth;
use crate::layers::forced_refusals::Forced;
use crate::lock::lock;
use crate::refusal::Refusal;

struct Bucket {
    capacity: f64,
    tokens: f64,
    per_sec: f64,
    at: Instant,
}

impl Bucket {
    fn new(per_minute: u32) -> Self {
        let capacity = f64::from(per_minute.max(1));
        Bucket {
            capacity,
            tokens: capacity,
            per_sec: capacity / 60.0,
            at: Instant::now(),
        }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let secs = now.duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + secs * self.per_sec).min(self.capacity);
        self.at = now;
    }

    fn secs_until(&self, tokens: f64) -> u64 {
        let missing = (tokens - self.tokens).max(0.0);
        (missing / self.per_sec).ceil() as u64
    }
}

struct Buckets {
    general: Bucket,
    sessions: Bucket,
}

impl Buckets {
    fn new(limits: &RateLimits) -> Self {
        Buckets {
            general: Bucket::new(limits.general_per_minute),
            sessions: Bucket::new(limits.sessions_per_minute),
        }
    }
}

/// The layer's state: both buckets of each token that was presented, and whether an
/// empty one refuses. Only tokens the auth layer accepted reach it, so the map holds at
/// most one entry per known token.
pub(crate) struct RateLimiter {
    by_token: Mutex<HashMap<String, Buckets>>,
    limits: RateLimits,
    /// Refusals asked for ahead ([`crate::Simulator::refuse_next`]), with their record.
    pub(crate) forced: Mutex<Forced>,
}

impl RateLimiter {
    pub(crate) fn new(limits: &RateLimits) -> Arc<Self> {
        Arc::new(RateLimiter {
            by_token: Mutex::new(HashMap::new()),
            limits: limits.clone(),
            forced: Mutex::new(Forced::default()),
        })
    }
}

/// Whether one request is let through, and what the `x-ratelimit-*` headers report.
struct Admission {
    resource: &'static str,
    limit: u64,
    remaining: u64,
    reset: u64,
    allowed: bool,
    retry_after: u64,
}

pub(crate) async fn layer(
    State(limiter): State<Arc<RateLimiter>>,
    req: Request,
    next: Next,
) -> Response {
    if !auth::is_authenticated(req.uri().path()) {
        return next.run(req).await;
    }
    let forced_retry_after = lock(&limiter.forced).admit(&request_line(&req));
    let is_create = req.method() == Method::POST && req.uri().path() == "/v1/sessions";
    let token = auth::presented_token(req.headers()).unwrap_or_default();
    let admission = {
        let mut by_token = lock(&limiter.by_token);
        let buckets = match by_token.get_mut(token) {
            Some(buckets) => buckets,
            None => by_token
                .entry(token.to_string())
                .or_insert_with(|| Buckets::new(&limiter.limits)),
        };
        let enforce = limiter.limits.enforce;
        let (bucket, resource) = if is_create {
            (&mut buckets.sessions, "sessions")
        } else {
            (&mut buckets.general, "general")
        };
        bucket.refill();
        let allowed = forced_retry_after.is_none() && (bucket.tokens >= 1.0 || !enforce);
        let retry_after = forced_retry_after.unwrap_or_else(|| bucket.secs_until(1.0).max(1));
        if allowed && bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
        }
        Admission {
            resource,
            limit: bucket.capacity as u64,
            remaining: bucket.tokens.floor() as u64,
            reset: bucket.secs_until(bucket.capacity),
            allowed,
            retry_after,
        }
    };
    let mut resp = if admission.allowed {
        next.run(req).await
    } else {
        Refusal::new(
            ErrorCode::RateLimitExceeded,
            "Too many requests; slow down.",
        )
        .retry_after(admission.retry_after)
        .into_response()
    };
    let h = resp.headers_mut();
    h.insert("x-ratelimit-limit", HeaderValue::from(admission.limit));
    h.insert(
        "x-ratelimit-remaining",
        HeaderValue::from(admission.remaining),
    );
    h.insert("x-ratelimit-reset", HeaderValue::from(admission.reset));
    h.insert(
        "x-ratelimit-resource",
        HeaderValue::from_static(admission.resource),
    );
    resp
}

/// `METHOD /path?query`, as [`crate::Simulator::requests`] records it.
fn request_line(req: &Request) -> String {
    let path = req
        .uri()
        .path_and_query()
        .map_or(req.uri().path(), |p| p.as_str());
    format!("{} {path}", req.method())
}
