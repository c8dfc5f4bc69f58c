//! Opening the stream: the one place that does IO. [`Transport`] is what the stream task
//! needs; [`HttpTransport`] is the real one (reqwest), tests script their own.

use super::{StreamOptions, StreamTarget};
use crate::auth::Token;
use crate::error::parse_retry_after;
use crate::model::{ErrorCode, ErrorEnvelope};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::{StreamExt, TryStreamExt};
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, RETRY_AFTER,
};
use std::time::{Duration, SystemTime};

/// The body of an open stream: chunks until EOF, or a read error.
pub type ByteStream = BoxStream<'static, Result<Bytes, ReadError>>;

/// Reading the body failed (network error mid-stream).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("read failed: {0}")]
pub struct ReadError(pub String);

/// Why the stream could not be opened.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OpenError {
    /// The server answered with a non-2xx status (§2, §7.1).
    #[error("{}", describe_status(*status, error, request_id))]
    Status {
        /// The HTTP status.
        status: u16,
        /// `Retry-After` in seconds, when sent.
        retry_after: Option<Duration>,
        /// The JSON error envelope, when the body was one.
        error: Option<crate::model::ErrorBody>,
        /// `error.request_id`, else the `x-request-id` header.
        request_id: Option<String>,
    },
    /// A 2xx whose content type is not `text/event-stream` (a proxy page, say).
    #[error("HTTP {status} with content type {content_type:?}, not an event stream")]
    NotEventStream {
        /// The HTTP status.
        status: u16,
        /// What the server said it sent instead.
        content_type: String,
    },
    /// The server answered with a redirect. The stream never follows one: another origin's
    /// events would be taken for the session's own and move its cursor.
    #[error(
        "HTTP {status}: the server redirected the event stream elsewhere; a stream never \
         follows a redirect (check the API address)"
    )]
    Redirected {
        /// The HTTP status (3xx).
        status: u16,
    },
    /// Could not connect or send.
    #[error("{0}")]
    Network(String),
}

impl OpenError {
    /// Refusals that retrying cannot fix: 4xx but 408 and 429; 429 and 503 without
    /// `Retry-After` (§13.6: no header, no retry); 429 `project_limit_exceeded` (it never
    /// clears by waiting, §14.18); `workspace_recovery_failed`; any redirect.
    pub fn is_terminal(&self) -> bool {
        match self {
            OpenError::Status {
                status,
                retry_after,
                error,
                ..
            } => {
                let code = error.as_ref().map(|e| &e.code);
                match status {
                    _ if code == Some(&ErrorCode::ProjectLimitExceeded)
                        || code == Some(&ErrorCode::WorkspaceRecoveryFailed) =>
                    {
                        true
                    }
                    429 | 503 => retry_after.is_none(),
                    408 => false,
                    s => (400..500).contains(s),
                }
            }
            OpenError::Redirected { .. } => true,
            OpenError::NotEventStream { .. } | OpenError::Network(_) => false,
        }
    }

    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            OpenError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

fn describe_status(
    status: u16,
    error: &Option<crate::model::ErrorBody>,
    request_id: &Option<String>,
) -> String {
    let mut s = match error {
        Some(e) => format!("HTTP {status} {}: {}", e.code, e.message),
        None => format!("HTTP {status} (no API error body)"),
    };
    if let Some(id) = request_id {
        s.push_str(&format!(" (request {id})"));
    }
    s
}

/// Opens the stream at a cursor.
pub trait Transport: Send + Sync + 'static {
    /// `cursor` goes out as `Last-Event-ID`; `None` asks for live frames only.
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>>;
}

/// The largest error body read before giving up on it (hostile servers, proxies).
const MAX_ERROR_BODY: usize = 64 << 10;

/// How long opening a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The real transport: `GET` with `Accept: text/event-stream`, bearer auth, `Last-Event-ID`.
pub struct HttpTransport {
    client: reqwest::Client,
    url: url::Url,
    token: Option<Token>,
    /// Hears each answer's `x-ratelimit-*` (an open is a request on `general`).
    schedule: std::sync::Arc<crate::schedule::Scheduler>,
}

impl HttpTransport {
    /// Builds the client. No overall timeout: the stream lives for hours and the task
    /// watches for silence instead (§7.8 item 6). Redirects are not followed: see
    /// [`OpenError::Redirected`].
    pub fn new(options: &StreamOptions) -> Result<Self, OpenError> {
        let client = crate::http::client(&options.api, Some(CONNECT_TIMEOUT))
            .map_err(|e| OpenError::Network(format!("cannot build HTTP client: {e}")))?;
        Self::with_client(options, client)
    }

    /// Opens on `client` (shared with the API calls: one trust store, one pool; it
    /// must have no whole-request deadline).
    pub(crate) fn with_client(
        options: &StreamOptions,
        client: reqwest::Client,
    ) -> Result<Self, OpenError> {
        Ok(HttpTransport {
            client,
            url: stream_url(&options.api, &options.target)?,
            token: options.token.clone(),
            schedule: crate::schedule::Scheduler::for_origin(&options.api, options.token.as_ref()),
        })
    }

    async fn open_inner(&self, cursor: Option<u64>) -> Result<ByteStream, OpenError> {
        let mut req = self
            .client
            .get(self.url.clone())
            .header(ACCEPT, "text/event-stream")
            .header(CACHE_CONTROL, "no-cache");
        if let Some(token) = &self.token {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
                .map_err(|_| OpenError::Network("token is not a valid header value".into()))?;
            value.set_sensitive(true);
            req = req.header(AUTHORIZATION, value);
        }
        if let Some(c) = cursor {
            req = req.header("last-event-id", c.to_string());
        }
        let resp = req
            .send()
            .await
            .map_err(|e| OpenError::Network(crate::network_words::describe(&e)))?;
        let status = resp.status().as_u16();
        if resp.status().is_redirection() {
            return Err(OpenError::Redirected { status });
        }
        let headers = resp.headers().clone();
        self.schedule.observe(&headers);
        let request_id = headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if resp.status().is_success() {
            let content_type = headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            if !is_event_stream(&content_type) {
                return Err(OpenError::NotEventStream {
                    status,
                    content_type,
                });
            }
            return Ok(resp
                .bytes_stream()
                .map_err(|e| ReadError(e.without_url().to_string()))
                .boxed());
        }
        let retry_after = headers
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let body = read_capped(resp).await;
        let error = serde_json::from_slice::<ErrorEnvelope>(&body)
            .ok()
            .map(|e| e.error);
        let request_id = error
            .as_ref()
            .and_then(|e| e.request_id.clone())
            .or(request_id);
        Err(OpenError::Status {
            status,
            retry_after,
            error,
            request_id,
        })
    }
}

impl Transport for HttpTransport {
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        Box::pin(self.open_inner(cursor))
    }
}

/// `{api}/v1/sessions/{id}/events` or `{api}/v1/events[?root=]`, ids percent-encoded.
fn stream_url(api: &url::Url, target: &StreamTarget) -> Result<url::Url, OpenError> {
    let mut url = api.clone();
    url.set_query(None);
    url.set_fragment(None);
    {
        let mut segs = url
            .path_segments_mut()
            .map_err(|_| OpenError::Network(format!("API base {api} cannot take a path")))?;
        segs.pop_if_empty();
        match target {
            StreamTarget::Session(id) => {
                segs.extend(["v1", "sessions", id.as_str(), "events"]);
            }
            StreamTarget::Org { .. } => {
                segs.extend(["v1", "events"]);
            }
        }
    }
    if let StreamTarget::Org { root: Some(root) } = target {
        url.query_pairs_mut().append_pair("root", root);
    }
    Ok(url)
}

fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/event-stream"))
}

async fn read_capped(mut resp: reqwest::Response) -> Vec<u8> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        let room = MAX_ERROR_BODY - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_for_both_targets() {
        let api = url::Url::parse("https://api.gobare.dev").unwrap();
        let s = stream_url(&api, &StreamTarget::Session("a/b c".into())).unwrap();
        assert_eq!(
            s.as_str(),
            "https://api.gobare.dev/v1/sessions/a%2Fb%20c/events"
        );
        let o = stream_url(&api, &StreamTarget::Org { root: None }).unwrap();
        assert_eq!(o.as_str(), "https://api.gobare.dev/v1/events");
        let r = stream_url(
            &api,
            &StreamTarget::Org {
                root: Some("x&y".into()),
            },
        )
        .unwrap();
        assert_eq!(r.as_str(), "https://api.gobare.dev/v1/events?root=x%26y");
        let prefixed = url::Url::parse("http://h:1/gw/").unwrap();
        let p = stream_url(&prefixed, &StreamTarget::Org { root: None }).unwrap();
        assert_eq!(p.as_str(), "http://h:1/gw/v1/events");
    }

    #[test]
    fn content_type_parsing() {
        assert!(is_event_stream("text/event-stream"));
        assert!(is_event_stream("Text/Event-Stream; charset=utf-8"));
        assert!(!is_event_stream("application/json"));
        assert!(!is_event_stream(""));
    }

    #[test]
    fn terminal_refusals() {
        let st = |status, code: Option<ErrorCode>, retry_after: Option<u64>| OpenError::Status {
            status,
            retry_after: retry_after.map(Duration::from_secs),
            error: code.map(|code| crate::model::ErrorBody {
                code,
                message: "m".into(),
                request_id: None,
            }),
            request_id: None,
        };
        for s in [400, 401, 403, 404] {
            assert!(st(s, None, None).is_terminal(), "{s}");
        }
        // No Retry-After on 429/503: the server does not invite a retry (§13.6).
        assert!(st(429, Some(ErrorCode::RateLimitExceeded), None).is_terminal());
        assert!(st(503, None, None).is_terminal());
        // Codes that waiting never fixes, whatever the headers say.
        assert!(st(429, Some(ErrorCode::ProjectLimitExceeded), Some(1)).is_terminal());
        assert!(st(500, Some(ErrorCode::WorkspaceRecoveryFailed), Some(1)).is_terminal());
        assert!(OpenError::Redirected { status: 302 }.is_terminal());
        // Retryable: with Retry-After, a timeout, other 5xx (backed off), the network.
        assert!(!st(429, Some(ErrorCode::RateLimitExceeded), Some(0)).is_terminal());
        assert!(!st(503, Some(ErrorCode::SandboxUnavailable), Some(3)).is_terminal());
        for s in [408, 500, 502, 504] {
            assert!(!st(s, None, None).is_terminal(), "{s}");
        }
        assert!(!st(500, Some(ErrorCode::InternalError), None).is_terminal());
        assert!(!OpenError::Network("x".into()).is_terminal());
    }
}
