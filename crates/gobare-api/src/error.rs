//! Typed API errors (reference §2): `error.code` decides first, the HTTP status second.
//!
//! Every string taken from the server (message, request id, a proxy's HTML page) is
//! treated as hostile: it is made one safe line ([`crate::text::one_line`]) and capped before
//! it reaches an error, so printing an [`ApiError`] can never drive the terminal.

use crate::model::{ErrorCode, ErrorEnvelope};
use crate::text::one_line;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// What went wrong, at the level a caller decides on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiErrorKind {
    /// 400: the request was refused as malformed (also `context_length_exceeded`, 413).
    InvalidRequest,
    /// 401: missing, unknown, expired or revoked token. Terminal.
    Unauthorized,
    /// 403: the token lacks a scope (named in the message), or a withheld path.
    Forbidden,
    /// 404: no such object in this organization.
    NotFound,
    /// 405: the path exists, the verb does not.
    MethodNotAllowed,
    /// 409: session state forbids the call, or the same Idempotency-Key is in flight.
    Conflict,
    /// 429 `queue_full`: five messages already queued; wait for the queue to drain.
    QueueFull,
    /// 429 `rate_limit_exceeded` (or too many open streams): wait `Retry-After`.
    RateLimited,
    /// 429 `project_limit_exceeded`: concurrent-session ceiling. Never clears by waiting.
    ProjectLimit,
    /// 500 family: a server-side failure.
    Server,
    /// 502 `provider_error` / `provider_unauthorized`: the model provider failed.
    Provider,
    /// 503 (and uncoded 502/504 from a proxy): temporarily unreachable.
    Unavailable,
    /// The request never got an HTTP answer (connect, TLS, reset, timeout).
    Network,
    /// An answer arrived that could not be read as what the route promises.
    Decode,
    /// Refused before sending: an argument the API would reject (e.g. `limit` 0).
    InvalidArgument,
    /// The client could not be built as configured (bad URL, token over plain http).
    Config,
    /// An HTTP status the reference does not describe (e.g. a redirect).
    Unexpected,
}

/// One failed API call.
#[derive(Clone, thiserror::Error)]
#[error("{}", self.summary())]
pub struct ApiError {
    /// What went wrong, at the level a caller decides on.
    pub kind: ApiErrorKind,
    /// `error.code` from the body, when the body was the API's error envelope.
    pub code: Option<ErrorCode>,
    /// HTTP status, when an HTTP answer arrived.
    pub status: Option<u16>,
    /// Human text: the server's `error.message` (sanitized) or our own description.
    pub message: String,
    /// `error.request_id`, else the `x-request-id` header (sanitized).
    pub request_id: Option<Box<str>>,
    /// `Retry-After` in seconds. Absent means the server does not invite a retry.
    pub retry_after: Option<Duration>,
    /// A short sanitized excerpt of a body that was not the API's JSON (proxy pages).
    pub body_excerpt: Option<Box<str>>,
    #[source]
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// Longest server-supplied message kept in an error.
const MAX_MESSAGE_CHARS: usize = 500;
/// Longest excerpt kept from a non-JSON body.
const MAX_EXCERPT_CHARS: usize = 160;
/// Longest request id kept (real ones are 8 hex characters).
const MAX_REQUEST_ID_CHARS: usize = 64;

impl ApiError {
    /// An error that was decided locally, with no HTTP exchange.
    pub fn local(kind: ApiErrorKind, message: impl Into<String>) -> ApiError {
        ApiError {
            kind,
            code: None,
            status: None,
            message: message.into(),
            request_id: None,
            retry_after: None,
            body_excerpt: None,
            source: None,
        }
    }

    /// The request did not get an HTTP answer.
    pub(crate) fn network(err: reqwest::Error) -> ApiError {
        let mut e = ApiError::local(
            ApiErrorKind::Network,
            one_line(&crate::network_words::describe(&err), MAX_MESSAGE_CHARS),
        );
        e.source = Some(Arc::new(err));
        e
    }

    /// A success status whose body did not decode.
    pub(crate) fn decode(
        status: u16,
        request_id: Option<String>,
        what: impl fmt::Display,
        body: &[u8],
    ) -> ApiError {
        let mut e = ApiError::local(ApiErrorKind::Decode, format!("unreadable response: {what}"));
        e.status = Some(status);
        e.request_id = request_id.map(|r| sanitize_request_id(&r));
        e.body_excerpt = excerpt(body);
        e
    }

    /// Builds the error for a non-success HTTP answer.
    ///
    /// `header_request_id` is the `x-request-id` header, `retry_after_header` the raw
    /// `Retry-After` header; `body` may be the API's envelope, a proxy's HTML, or empty.
    pub fn from_response(
        status: u16,
        header_request_id: Option<&str>,
        retry_after_header: Option<&str>,
        body: &[u8],
    ) -> ApiError {
        let envelope = serde_json::from_slice::<ErrorEnvelope>(body).ok();
        let (code, message, body_request_id, body_excerpt) = match envelope {
            Some(env) => (
                Some(env.error.code),
                one_line(&env.error.message, MAX_MESSAGE_CHARS),
                env.error.request_id,
                None,
            ),
            None => (None, String::new(), None, excerpt(body)),
        };
        let kind = match &code {
            Some(c) => kind_for_code(c).unwrap_or_else(|| kind_for_status(status)),
            None => kind_for_status(status),
        };
        let message = if message.is_empty() {
            default_message(status, code.is_none() && !body.is_empty())
        } else {
            message
        };
        let request_id = body_request_id
            .as_deref()
            .filter(|r| !r.trim().is_empty())
            .or(header_request_id)
            .map(sanitize_request_id)
            .filter(|r| !r.is_empty());
        ApiError {
            kind,
            code,
            status: Some(status),
            message,
            request_id,
            retry_after: retry_after_header.and_then(|v| parse_retry_after(v, SystemTime::now())),
            body_excerpt,
            source: None,
        }
    }

    /// Whether trying the same call again can succeed.
    ///
    /// True for network failures, for codes the reference marks retryable (§2), for a
    /// `conflict` that carries `Retry-After` (an Idempotency-Key still in flight), and for
    /// uncoded 5xx/429 answers from something in front of the API. `queue_full` is
    /// retryable but only after the queue drains — see [`ApiError::retry_hint`].
    pub fn is_retryable(&self) -> bool {
        !matches!(self.retry_hint(), RetryHint::Never)
    }

    /// When a retry makes sense.
    pub fn retry_hint(&self) -> RetryHint {
        match self.kind {
            ApiErrorKind::ProjectLimit => return RetryHint::Never,
            ApiErrorKind::QueueFull => return RetryHint::WhenQueueDrains(self.retry_after),
            ApiErrorKind::Network => return RetryHint::Backoff,
            _ => {}
        }
        let retryable = match &self.code {
            Some(ErrorCode::Conflict) => self.retry_after.is_some(),
            Some(ErrorCode::Other(_)) | None => match self.status {
                Some(429) => self.retry_after.is_some(),
                Some(500 | 502 | 503 | 504) => true,
                _ => false,
            },
            Some(code) => code.is_retryable(),
        };
        match (retryable, self.retry_after) {
            (false, _) => RetryHint::Never,
            (true, Some(wait)) => RetryHint::After(wait),
            (true, None) if self.code.is_none() => RetryHint::Backoff,
            // A coded error without Retry-After: the reference says do not retry.
            (true, None) => RetryHint::Never,
        }
    }

    /// Replaces every occurrence of `secret` in server-supplied text. A server (or proxy)
    /// that echoes the Authorization header must not get the token into an error.
    pub(crate) fn redact(mut self, secret: &str) -> ApiError {
        if secret.is_empty() {
            return self;
        }
        let scrub = |s: &str| s.replace(secret, "<redacted>");
        self.message = scrub(&self.message);
        self.body_excerpt = self.body_excerpt.map(|e| scrub(&e).into_boxed_str());
        self.request_id = self.request_id.map(|r| scrub(&r).into_boxed_str());
        self
    }

    /// One line for a person: what happened, then code, status and request id.
    pub fn summary(&self) -> String {
        // A network message already says what happened ("cannot reach …").
        let mut line = match self.kind {
            ApiErrorKind::Network => self.message.clone(),
            kind => format!("{}: {}", kind.describe(), self.message),
        };
        let mut facts = Vec::new();
        if let Some(code) = &self.code {
            facts.push(format!("code {}", one_line(code.as_str(), 64)));
        }
        if let Some(status) = self.status {
            facts.push(format!("HTTP {status}"));
        }
        if let Some(id) = &self.request_id {
            facts.push(format!("request id {id}"));
        }
        if let Some(wait) = self.retry_after {
            facts.push(format!("retry after {}s", wait.as_secs()));
        }
        if !facts.is_empty() {
            line.push_str(" (");
            line.push_str(&facts.join(", "));
            line.push(')');
        }
        if let Some(body) = &self.body_excerpt {
            line.push_str(" — body: ");
            line.push_str(body);
        }
        line
    }
}

impl fmt::Debug for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiError")
            .field("kind", &self.kind)
            .field("code", &self.code)
            .field("status", &self.status)
            .field("message", &self.message)
            .field("request_id", &self.request_id)
            .field("retry_after", &self.retry_after)
            .field("body_excerpt", &self.body_excerpt)
            .field("source", &self.source.as_ref().map(|s| s.to_string()))
            .finish()
    }
}

/// How and when a failed call may be tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryHint {
    /// Do not retry (client error, terminal error, or no `Retry-After` on a coded error).
    Never,
    /// Retry after this long (the server's `Retry-After`).
    After(Duration),
    /// No HTTP answer, or an uncoded proxy 5xx: back off and retry.
    Backoff,
    /// `queue_full`: retry once the session's queue drains (a person should decide).
    WhenQueueDrains(Option<Duration>),
}

impl ApiErrorKind {
    fn describe(self) -> &'static str {
        match self {
            ApiErrorKind::InvalidRequest => "request refused",
            ApiErrorKind::Unauthorized => "authentication failed",
            ApiErrorKind::Forbidden => "permission denied",
            ApiErrorKind::NotFound => "not found",
            ApiErrorKind::MethodNotAllowed => "method not allowed",
            ApiErrorKind::Conflict => "conflict",
            ApiErrorKind::QueueFull => "message queue full",
            ApiErrorKind::RateLimited => "rate limited",
            ApiErrorKind::ProjectLimit => "session limit reached",
            ApiErrorKind::Server => "server error",
            ApiErrorKind::Provider => "model provider error",
            ApiErrorKind::Unavailable => "service unavailable",
            ApiErrorKind::Network => "network error",
            ApiErrorKind::Decode => "bad response",
            ApiErrorKind::InvalidArgument => "invalid argument",
            ApiErrorKind::Config => "configuration error",
            ApiErrorKind::Unexpected => "unexpected response",
        }
    }
}

fn kind_for_code(code: &ErrorCode) -> Option<ApiErrorKind> {
    Some(match code {
        ErrorCode::InvalidRequest | ErrorCode::ContextLengthExceeded => {
            ApiErrorKind::InvalidRequest
        }
        ErrorCode::AuthenticationError => ApiErrorKind::Unauthorized,
        ErrorCode::PermissionDenied => ApiErrorKind::Forbidden,
        ErrorCode::NotFound => ApiErrorKind::NotFound,
        ErrorCode::MethodNotAllowed => ApiErrorKind::MethodNotAllowed,
        ErrorCode::Conflict => ApiErrorKind::Conflict,
        ErrorCode::QueueFull => ApiErrorKind::QueueFull,
        ErrorCode::RateLimitExceeded => ApiErrorKind::RateLimited,
        ErrorCode::ProjectLimitExceeded => ApiErrorKind::ProjectLimit,
        ErrorCode::InternalError
        | ErrorCode::SandboxError
        | ErrorCode::WorkspaceRecoveryFailed
        | ErrorCode::BridgeIncompatible => ApiErrorKind::Server,
        ErrorCode::ProviderError | ErrorCode::ProviderUnauthorized => ApiErrorKind::Provider,
        ErrorCode::SandboxUnavailable | ErrorCode::DirectoryUnavailable => {
            ApiErrorKind::Unavailable
        }
        ErrorCode::Other(_) => return None,
    })
}

fn kind_for_status(status: u16) -> ApiErrorKind {
    match status {
        400 | 413 | 414 | 422 => ApiErrorKind::InvalidRequest,
        401 => ApiErrorKind::Unauthorized,
        403 => ApiErrorKind::Forbidden,
        404 => ApiErrorKind::NotFound,
        405 => ApiErrorKind::MethodNotAllowed,
        409 => ApiErrorKind::Conflict,
        429 => ApiErrorKind::RateLimited,
        502..=504 => ApiErrorKind::Unavailable,
        500..=599 => ApiErrorKind::Server,
        400..=499 => ApiErrorKind::InvalidRequest,
        _ => ApiErrorKind::Unexpected,
    }
}

/// The message when the body carried none: a non-JSON body means the answer did not come
/// from `/v1` (reference §2: every `/v1` answer is the JSON envelope).
fn default_message(status: u16, foreign_body: bool) -> String {
    if foreign_body {
        format!("HTTP {status} that is not a Gobare API answer (a proxy, or the wrong --api?)")
    } else {
        format!("HTTP {status} with no error details")
    }
}

/// `Retry-After` (RFC 9110): delta-seconds (what the reference uses; a decimal is read too)
/// or an HTTP date, measured from `now` (a date already past means "now"). Bounded so a
/// hostile value cannot overflow or park the client for days; garbage reads as absent.
pub(crate) fn parse_retry_after(raw: &str, now: SystemTime) -> Option<Duration> {
    const MAX: Duration = Duration::from_secs(24 * 3600);
    let v = raw.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs).min(MAX));
    }
    if let Some(secs) = v.parse::<f64>().ok().filter(|s| s.is_finite()) {
        return (secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(MAX.as_secs_f64())));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or_default().min(MAX))
}

fn sanitize_request_id(raw: &str) -> Box<str> {
    raw.chars()
        .filter(|c| c.is_ascii_graphic())
        .take(MAX_REQUEST_ID_CHARS)
        .collect::<String>()
        .into_boxed_str()
}

/// A short, single-line, tag-free excerpt of a body that was not the API's JSON.
fn excerpt(body: &[u8]) -> Option<Box<str>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let head = &body[..body.len().min(8 * 1024)];
    let text = String::from_utf8_lossy(head);
    let mut plain = String::with_capacity(text.len());
    let mut in_tag = false;
    for ch in text.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                plain.push(' ');
            }
            _ if !in_tag => plain.push(ch),
            _ => {}
        }
    }
    let clean = one_line(&plain, MAX_EXCERPT_CHARS);
    (!clean.is_empty()).then(|| clean.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(code: &str, rid: Option<&str>) -> Vec<u8> {
        let mut e = serde_json::json!({"error":{"code":code,"message":"msg for people"}});
        if let Some(r) = rid {
            e["error"]["request_id"] = r.into();
        }
        e.to_string().into_bytes()
    }

    #[test]
    fn code_wins_over_status() {
        // A 400 status with a code that says otherwise is decided by the code.
        let e = ApiError::from_response(400, None, None, &envelope("queue_full", None));
        assert_eq!(e.kind, ApiErrorKind::QueueFull);
        let e = ApiError::from_response(500, None, None, &envelope("not_found", None));
        assert_eq!(e.kind, ApiErrorKind::NotFound);
    }

    #[test]
    fn unknown_code_falls_back_to_status() {
        let e = ApiError::from_response(403, None, None, &envelope("brand_new_code", None));
        assert_eq!(e.kind, ApiErrorKind::Forbidden);
        assert_eq!(e.code, Some(ErrorCode::Other("brand_new_code".into())));
        assert!(!e.is_retryable());
    }

    #[test]
    fn retry_after_parses_seconds_and_http_dates() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2026 07:28:00 GMT").unwrap();
        let p = |v| parse_retry_after(v, now);
        assert_eq!(p(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(p("0"), Some(Duration::ZERO));
        assert_eq!(p("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(p("-1"), None);
        assert_eq!(p("NaN"), None);
        assert_eq!(p("soon"), None);
        assert_eq!(p("99999999999999"), Some(Duration::from_secs(24 * 3600)));
        // A date: the time from now until then; a past date is "now"; far future is capped.
        assert_eq!(
            p("Wed, 21 Oct 2026 07:28:30 GMT"),
            Some(Duration::from_secs(30))
        );
        assert_eq!(p("Wed, 21 Oct 2026 07:00:00 GMT"), Some(Duration::ZERO));
        assert_eq!(
            p("Fri, 01 Jan 2100 00:00:00 GMT"),
            Some(Duration::from_secs(24 * 3600))
        );
    }

    #[test]
    fn the_three_429s_recover_differently() {
        let wait = Some("3");
        let rate = ApiError::from_response(429, None, wait, &envelope("rate_limit_exceeded", None));
        let queue = ApiError::from_response(429, None, wait, &envelope("queue_full", None));
        let project =
            ApiError::from_response(429, None, wait, &envelope("project_limit_exceeded", None));
        assert_eq!(rate.retry_hint(), RetryHint::After(Duration::from_secs(3)));
        assert_eq!(
            queue.retry_hint(),
            RetryHint::WhenQueueDrains(Some(Duration::from_secs(3)))
        );
        assert_eq!(project.retry_hint(), RetryHint::Never);
        assert!(!project.is_retryable());
    }

    #[test]
    fn coded_retryable_error_without_retry_after_is_not_retried() {
        let e = ApiError::from_response(500, None, None, &envelope("internal_error", None));
        assert_eq!(e.retry_hint(), RetryHint::Never);
        let e = ApiError::from_response(500, None, Some("2"), &envelope("internal_error", None));
        assert_eq!(e.retry_hint(), RetryHint::After(Duration::from_secs(2)));
    }

    #[test]
    fn conflict_is_retryable_only_with_retry_after() {
        let e = ApiError::from_response(409, None, None, &envelope("conflict", None));
        assert!(!e.is_retryable());
        let e = ApiError::from_response(409, None, Some("1"), &envelope("conflict", None));
        assert_eq!(e.retry_hint(), RetryHint::After(Duration::from_secs(1)));
    }

    #[test]
    fn request_id_is_kept_printable() {
        let e = ApiError::from_response(
            500,
            None,
            None,
            &envelope("internal_error", Some("ab\x1b]0;pwned\x07cd")),
        );
        assert_eq!(e.request_id.as_deref(), Some("ab]0;pwnedcd"));
    }
}
