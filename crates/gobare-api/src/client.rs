//! Typed calls to the Gobare `/v1` API (reference §1–§6): bearer auth, Idempotency-Key on
//! writes, error mapping through [`ApiError`], paging parameters. Retrying a write is
//! [`crate::retry::SendRetry`]'s.

use crate::auth::Token;
use crate::error::{ApiError, ApiErrorKind, RetryHint};
use crate::model::{
    Artifact, CreateSession, Health, Input, InputAccepted, InputBody, Item, List, PreviewPublished,
    Session, Turn, Usage,
};
use crate::schedule::{BucketName, RequestClass, Scheduler, WaitReason};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// Where the API lives when nothing else is configured (reference §1).
pub const DEFAULT_API: &str = "https://api.gobare.dev";
/// Largest success body read into memory (a page of 100 long items fits easily).
const MAX_SUCCESS_BODY: usize = 64 << 20;
/// Largest error body read; the envelope is tiny, anything longer is a proxy page.
const MAX_ERROR_BODY: usize = 64 << 10;
/// Attempts of one read that the server asks to retry later (429, 503 with `Retry-After`).
const READ_ATTEMPTS: u32 = 8;
/// The longest `Retry-After` a read waits out; a longer one is the caller's to report.
const MAX_READ_WAIT: Duration = Duration::from_secs(120);

/// How to build an [`ApiClient`].
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// API base, e.g. `https://api.gobare.dev`; a trailing slash or `/v1` is tolerated.
    pub api: Url,
    /// Sent as `Authorization: Bearer …`; `None` sends no credentials (the local simulator
    /// without auth).
    pub token: Option<Token>,
    /// Permit sending the token over plain `http://` to a host that is not loopback.
    pub allow_insecure_http: bool,
    /// Whole-request deadline for ordinary (non-stream) calls. `None` = no deadline.
    pub request_timeout: Option<Duration>,
    /// Deadline for establishing a connection. `None` = no deadline.
    pub connect_timeout: Option<Duration>,
    /// Attempts of a read the server asks to make again later (429, 503 with
    /// `Retry-After`), the first included; 1 hands the first refusal back.
    pub read_attempts: u32,
}

impl ClientOptions {
    /// Options for `api` with `token`: https only (plain http to loopback), 60 s per
    /// request, 10 s to connect.
    pub fn new(api: Url, token: Option<Token>) -> ClientOptions {
        ClientOptions {
            api,
            token,
            allow_insecure_http: false,
            request_timeout: Some(Duration::from_secs(60)),
            connect_timeout: Some(Duration::from_secs(10)),
            read_attempts: READ_ATTEMPTS,
        }
    }
}

/// A handle on the API. Cloning is cheap (one `Arc`); clones share the connection pool.
#[derive(Clone)]
pub struct ApiClient {
    inner: Arc<Inner>,
    /// Whom this handle's reads are for; every write is a person's action.
    class: RequestClass,
}

struct Inner {
    http: reqwest::Client,
    /// Normalized base without `/v1` (what the stream task takes).
    api: Url,
    token: Option<Token>,
    /// Each call's whole-request deadline (per request: the client itself has none, so
    /// the event stream can share it).
    request_timeout: Option<Duration>,
    /// What the answers' `x-ratelimit-*` headers said, shared by every clone.
    /// The process's scheduler for this API and token.
    schedule: Arc<Scheduler>,
    read_attempts: u32,
}

impl fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiClient")
            .field("api", &self.inner.api.as_str())
            .field("token", &self.inner.token)
            .finish()
    }
}

/// A key naming one logical write (reference §4). Reuse the same key for every retry of
/// that write; make a new one for the next.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// A fresh random key (UUID v4).
    #[allow(clippy::new_without_default)] // a Default would hide that every call is unique
    pub fn new() -> IdempotencyKey {
        IdempotencyKey(uuid::Uuid::new_v4().to_string())
    }

    /// A caller-chosen key: 1–255 visible ASCII characters.
    pub fn from_string(key: impl Into<String>) -> Result<IdempotencyKey, ApiError> {
        let key = key.into();
        let ok = (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic());
        if ok {
            Ok(IdempotencyKey(key))
        } else {
            Err(ApiError::local(
                ApiErrorKind::InvalidArgument,
                "an Idempotency-Key must be 1-255 visible ASCII characters",
            ))
        }
    }

    /// The key as sent in the `Idempotency-Key` header.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// List order (reference §3). The API's default is newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Oldest first.
    Asc,
    /// Newest first.
    Desc,
}

impl Order {
    fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }
}

/// Paging parameters shared by every list call. `None` fields are not sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// 1–100; checked before sending (the API answers 400 otherwise).
    limit: Option<u32>,
    /// `None` leaves the order to the API (newest first).
    order: Option<Order>,
    /// The previous page's `last_id`.
    after: Option<String>,
}

impl Page {
    /// The first page in `order`.
    pub fn ordered(order: Order) -> Page {
        Page {
            order: Some(order),
            ..Page::default()
        }
    }

    /// At most `limit` entries (1–100, checked when the call is made).
    pub fn with_limit(mut self, limit: u32) -> Page {
        self.limit = Some(limit);
        self
    }

    /// The page after the entry `last_id` (the previous page's `last_id`).
    pub fn after(mut self, last_id: impl Into<String>) -> Page {
        self.after = Some(last_id.into());
        self
    }

    fn query(&self) -> Result<Vec<(&'static str, String)>, ApiError> {
        let mut q = Vec::new();
        if let Some(limit) = self.limit {
            if !(1..=100).contains(&limit) {
                return Err(ApiError::local(
                    ApiErrorKind::InvalidArgument,
                    format!("limit must be between 1 and 100, got {limit}"),
                ));
            }
            q.push(("limit", limit.to_string()));
        }
        if let Some(order) = self.order {
            q.push(("order", order.as_str().to_string()));
        }
        if let Some(after) = &self.after {
            q.push(("after", after.clone()));
        }
        Ok(q)
    }
}

/// Filters of `GET /v1/sessions` (§6.3). `None` fields are not sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFilter {
    /// `idle`, `working`, `requires_action` or `failed`.
    pub status: Option<String>,
    /// A session id: that session and its whole subtree (unknown → 404, never empty).
    pub root: Option<String>,
    /// A label `(key, value)`: sessions whose `metadata[key]` is `value`, sent as
    /// `metadata=key:value`.
    pub label: Option<(String, String)>,
}

impl SessionFilter {
    fn query(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        let status = self.status.iter().map(|s| ("status", s.clone()));
        let label = self
            .label
            .iter()
            .map(|(k, v)| ("metadata", format!("{k}:{v}")));
        status
            .chain(self.root.iter().map(|r| ("root", r.clone())))
            .chain(label)
    }
}

impl ApiClient {
    /// Builds a client. Fails with [`ApiErrorKind::Config`] when the URL is unusable or
    /// would send the token over plain `http://` to a non-loopback host without
    /// `allow_insecure_http`.
    pub fn new(options: ClientOptions) -> Result<ApiClient, ApiError> {
        let api = normalize_api_base(&options.api)?;
        check_transport(&api, options.token.is_some(), options.allow_insecure_http)?;
        let http = crate::http::client(&api, options.connect_timeout).map_err(|e| {
            ApiError::local(ApiErrorKind::Config, format!("could not set up HTTP: {e}"))
        })?;
        let schedule = Scheduler::for_origin(&api, options.token.as_ref());
        Ok(ApiClient {
            inner: Arc::new(Inner {
                http,
                api,
                token: options.token,
                request_timeout: options.request_timeout,
                schedule,
                read_attempts: options.read_attempts.max(1),
            }),
            class: RequestClass::OnScreen,
        })
    }

    /// The same client, its reads made as `class` (a new client reads as
    /// [`RequestClass::OnScreen`]). Writes are always a person's action.
    pub fn with_class(&self, class: RequestClass) -> ApiClient {
        ApiClient {
            inner: self.inner.clone(),
            class,
        }
    }

    /// Whom this handle's reads are for.
    pub fn class(&self) -> RequestClass {
        self.class
    }

    /// The scheduler every request of this client passes through.
    pub fn scheduler(&self) -> &Arc<Scheduler> {
        &self.inner.schedule
    }

    /// The normalized API base (without `/v1`).
    pub(crate) fn base(&self) -> &Url {
        &self.inner.api
    }

    /// The HTTP client under the calls, for the event stream to share
    /// ([`crate::stream::spawn_sharing`]).
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// The request-rate budget as the server last reported it.
    pub fn rate_budget(&self) -> crate::rate_budget::RateBudget<'_> {
        crate::rate_budget::RateBudget::of(&self.inner.schedule)
    }

    /// `GET /v1/health`: which scopes the token holds (reference §1.3).
    pub async fn health(&self) -> Result<Health, ApiError> {
        self.get(&["health"], Vec::new()).await
    }

    /// `GET /v1/sessions/{id}`.
    pub async fn get_session(&self, session_id: &str) -> Result<Session, ApiError> {
        self.get(&["sessions", session_id], Vec::new()).await
    }

    /// `GET /v1/sessions`, org-wide, one page.
    pub async fn list_sessions(&self, page: &Page) -> Result<List<Session>, ApiError> {
        self.get(&["sessions"], page.query()?).await
    }

    /// `GET /v1/sessions` narrowed by `filter`, one page. A session that cannot be read
    /// (a missing id, a wrong type) is left out and recorded in [`List::unreadable`], never
    /// the whole page: one odd session must not hide the others and what they wait for.
    pub async fn list_sessions_where(
        &self,
        page: &Page,
        filter: &SessionFilter,
    ) -> Result<List<Session>, ApiError> {
        let mut query = page.query()?;
        query.extend(filter.query());
        let raw: List<serde_json::Value> = self.get(&["sessions"], query).await?;
        Ok(crate::unreadable::readable_page(raw, "session"))
    }

    /// `POST /v1/sessions`. Always keyed: a retried create must not make two sessions.
    pub async fn create_session(
        &self,
        request: &CreateSession,
        key: &IdempotencyKey,
    ) -> Result<Session, ApiError> {
        self.write(&["sessions"], request, key).await
    }

    /// `GET /v1/sessions/{id}/turns` (newest first unless `page.order` says otherwise).
    pub async fn list_turns(&self, session_id: &str, page: &Page) -> Result<List<Turn>, ApiError> {
        self.get(&["sessions", session_id, "turns"], page.query()?)
            .await
    }

    /// [`ApiClient::list_turns`] read turn by turn: a turn that cannot be read is left out
    /// and recorded in [`List::unreadable`] (for a reader that counts and says what it
    /// skipped, rather than losing the page).
    pub async fn list_readable_turns(
        &self,
        session_id: &str,
        page: &Page,
    ) -> Result<List<Turn>, ApiError> {
        let raw: List<serde_json::Value> = self
            .get(&["sessions", session_id, "turns"], page.query()?)
            .await?;
        Ok(crate::unreadable::readable_page(raw, "turn"))
    }

    /// `GET /v1/sessions/{id}/turns/{turn_id}`.
    pub async fn get_turn(&self, session_id: &str, turn_id: &str) -> Result<Turn, ApiError> {
        self.get(&["sessions", session_id, "turns", turn_id], Vec::new())
            .await
    }

    /// `GET /v1/sessions/{id}/usage`; `crew` adds `?root=<id>`: the session and every
    /// session below it.
    pub async fn get_usage(&self, session_id: &str, crew: bool) -> Result<Usage, ApiError> {
        let q = if crew {
            vec![("root", session_id.to_string())]
        } else {
            Vec::new()
        };
        self.get(&["sessions", session_id, "usage"], q).await
    }

    /// `POST /v1/sessions/{id}/preview`: publishes the preview at a public URL (the
    /// server picks the subdomain). Returns the `preview` object.
    pub async fn publish_preview(
        &self,
        session_id: &str,
        key: &IdempotencyKey,
    ) -> Result<PreviewPublished, ApiError> {
        let body = serde_json::Map::new();
        self.write(&["sessions", session_id, "preview"], &body, key)
            .await
    }

    /// `DELETE /v1/sessions/{id}/preview`: takes the public URL down (200 also when it was
    /// not published).
    pub async fn unpublish_preview(&self, session_id: &str) -> Result<(), ApiError> {
        let url = self.url(&["sessions", session_id, "preview"], &[])?;
        let _: serde_json::Value = self.execute(Method::DELETE, url, None, None).await?;
        Ok(())
    }

    /// `PATCH /v1/sessions/{id}` with `{"title": …}` (`None` clears it).
    pub async fn set_title(
        &self,
        session_id: &str,
        title: Option<&str>,
        key: &IdempotencyKey,
    ) -> Result<Session, ApiError> {
        let url = self.url(&["sessions", session_id], &[])?;
        let body = serde_json::to_vec(&serde_json::json!({ "title": title }))
            .map_err(|e| ApiError::local(ApiErrorKind::InvalidArgument, e.to_string()))?;
        self.execute(Method::PATCH, url, Some(body), Some(key))
            .await
    }

    /// `DELETE /v1/sessions/{id}`: the sandbox goes at once, and with it what the server
    /// keeps of the session.
    pub async fn delete_session(
        &self,
        session_id: &str,
        key: &IdempotencyKey,
    ) -> Result<(), ApiError> {
        let url = self.url(&["sessions", session_id], &[])?;
        let _: serde_json::Value = self.execute(Method::DELETE, url, None, Some(key)).await?;
        Ok(())
    }

    /// `POST /v1/sessions/{id}/fork` (no body): the new session.
    pub async fn fork_session(
        &self,
        session_id: &str,
        key: &IdempotencyKey,
    ) -> Result<Session, ApiError> {
        let url = self.url(&["sessions", session_id, "fork"], &[])?;
        self.execute(Method::POST, url, None, Some(key)).await
    }

    /// `GET /v1/sessions/{id}/items`: one page of the transcript.
    /// Items are read one by one ([`Item::page_from`]): one odd item never fails the page.
    pub async fn list_items(&self, session_id: &str, page: &Page) -> Result<List<Item>, ApiError> {
        let raw: List<serde_json::Value> = self
            .get(&["sessions", session_id, "items"], page.query()?)
            .await?;
        Ok(Item::page_from(raw).0)
    }

    /// `GET /v1/sessions/{id}/artifacts`, optionally for one turn.
    pub async fn list_artifacts(
        &self,
        session_id: &str,
        page: &Page,
        turn_id: Option<&str>,
    ) -> Result<List<Artifact>, ApiError> {
        let mut q = page.query()?;
        if let Some(t) = turn_id {
            q.push(("turn_id", t.to_string()));
        }
        self.get(&["sessions", session_id, "artifacts"], q).await
    }

    /// `POST /v1/sessions/{id}/events` with `{"events":[input]}` (reference §6.4).
    pub async fn send(
        &self,
        session_id: &str,
        input: &Input,
        key: &IdempotencyKey,
    ) -> Result<InputAccepted, ApiError> {
        let body = InputBody {
            events: vec![input.clone()],
        };
        self.write(&["sessions", session_id, "events"], &body, key)
            .await
    }

    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        query: Vec<(&'static str, String)>,
    ) -> Result<T, ApiError> {
        let url = self.url(segments, &query)?;
        self.execute(Method::GET, url, None, None).await
    }

    /// A `POST` with a JSON body, keyed (every write is, reference §4).
    pub(crate) async fn write<B: Serialize, T: DeserializeOwned>(
        &self,
        segments: &[&str],
        body: &B,
        key: &IdempotencyKey,
    ) -> Result<T, ApiError> {
        let url = self.url(segments, &[])?;
        let body = serde_json::to_vec(body)
            .map_err(|e| ApiError::local(ApiErrorKind::InvalidArgument, e.to_string()))?;
        self.execute(Method::POST, url, Some(body), Some(key)).await
    }

    pub(crate) fn url(&self, segments: &[&str], query: &[(&str, String)]) -> Result<Url, ApiError> {
        for s in segments {
            if s.is_empty() || *s == "." || *s == ".." {
                return Err(ApiError::local(
                    ApiErrorKind::InvalidArgument,
                    format!("{s:?} is not a valid id"),
                ));
            }
        }
        let mut url = self.inner.api.clone();
        {
            let mut path = url.path_segments_mut().map_err(|()| {
                ApiError::local(ApiErrorKind::Config, "the API URL cannot take a path")
            })?;
            path.pop_if_empty().push("v1").extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url)
    }

    pub(crate) async fn execute<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        key: Option<&IdempotencyKey>,
    ) -> Result<T, ApiError> {
        let mut response = self
            .answer(method, url, body, key, "application/json", (None, None))
            .await?;
        let status = response.status();
        let request_id = header_text(&response, "x-request-id");
        let (bytes, truncated) = read_capped(&mut response, MAX_SUCCESS_BODY)
            .await
            .map_err(|e| self.scrub(ApiError::network(e)))?;
        if truncated {
            return Err(ApiError::decode(
                status.as_u16(),
                request_id,
                format!("body larger than {MAX_SUCCESS_BODY} bytes"),
                &[],
            ));
        }
        serde_json::from_slice(&crate::json::without_lone_surrogates(&bytes))
            .map_err(|e| self.scrub(ApiError::decode(status.as_u16(), request_id, e, &bytes)))
    }

    /// Sends one request and returns a success answer with its body unread; any other
    /// status becomes the [`ApiError`] its body describes. `timeout` replaces the
    /// client's whole-request deadline for this request.
    pub(crate) async fn answer(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        key: Option<&IdempotencyKey>,
        accept: &'static str,
        (timeout, headers_timeout): (Option<Duration>, Option<Duration>),
    ) -> Result<reqwest::Response, ApiError> {
        let is_read = method == Method::GET;
        let class = if is_read {
            self.class
        } else {
            RequestClass::Action
        };
        let bucket = BucketName::of(&method, url.path());
        let mut attempts = 0;
        // Only reads are attempted again here, and a read has no body.
        let mut body = body;
        loop {
            attempts += 1;
            let err = match self
                .answer_once(
                    method.clone(),
                    url.clone(),
                    body.take(),
                    key,
                    accept,
                    (timeout, headers_timeout),
                    class,
                    bucket,
                )
                .await
            {
                Ok(response) => return Ok(response),
                Err(err) => err,
            };
            // A read changes nothing on the server: wait as asked and read again. A write
            // is retried by its caller, under its key (`retry::SendRetry`).
            let wait = match err.retry_hint() {
                RetryHint::After(wait) if is_read && attempts < self.inner.read_attempts => wait,
                _ => return Err(err),
            };
            if wait > MAX_READ_WAIT {
                return Err(err);
            }
            tracing::info!(
                attempt = attempts,
                wait_ms = wait.as_millis() as u64,
                path = url.path(),
                error = %err,
                "read refused; retrying after the wait asked for"
            );
            let until = tokio::time::Instant::now() + wait;
            self.inner
                .schedule
                .say_wait(class, until, WaitReason::RateLimit);
            tokio::time::sleep_until(until).await;
        }
    }

    /// One attempt of [`ApiClient::answer`], let out by the scheduler.
    #[allow(clippy::too_many_arguments)]
    async fn answer_once(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
        key: Option<&IdempotencyKey>,
        accept: &'static str,
        (timeout, headers_timeout): (Option<Duration>, Option<Duration>),
        class: RequestClass,
        bucket: BucketName,
    ) -> Result<reqwest::Response, ApiError> {
        let path = url.path().to_string();
        let mut request = self
            .inner
            .http
            .request(method.clone(), url)
            .header(ACCEPT, accept);
        if let Some(timeout) = timeout.or(self.inner.request_timeout) {
            request = request.timeout(timeout);
        }
        if let Some(token) = &self.inner.token {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                    ApiError::local(
                        ApiErrorKind::Config,
                        "the token contains characters that cannot go in an HTTP header",
                    )
                })?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        if let Some(key) = key {
            request = request.header("Idempotency-Key", key.as_str());
        }
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, "application/json").body(body);
        }

        let permit = self.inner.schedule.admit(class, bucket).await;
        let sent = request.send();
        let sent = match headers_timeout {
            Some(limit) => tokio::time::timeout(limit, sent).await.map_err(|_| {
                ApiError::local(
                    ApiErrorKind::Network,
                    format!("no answer in {} s", limit.as_secs()),
                )
            })?,
            None => sent.await,
        };
        let mut response = sent.map_err(|e| self.scrub(ApiError::network(e)))?;
        let status = response.status();
        self.inner.schedule.observe(response.headers());
        drop(permit);
        let request_id = header_text(&response, "x-request-id");
        tracing::debug!(%method, %path, class = class.name(), status = status.as_u16(), request_id = request_id.as_deref().unwrap_or("-"), "api call");

        if status.is_success() {
            return Ok(response);
        }

        let retry_after = header_text(&response, RETRY_AFTER.as_str());
        // A body cut short by the network still says something; keep what arrived.
        let bytes = match read_capped(&mut response, MAX_ERROR_BODY).await {
            Ok((bytes, _)) => bytes,
            Err(_) => Vec::new(),
        };
        let err = ApiError::from_response(
            status.as_u16(),
            request_id.as_deref(),
            retry_after.as_deref(),
            &bytes,
        );
        if err.kind == ApiErrorKind::RateLimited {
            self.inner
                .schedule
                .refused(bucket, err.retry_after.unwrap_or(Duration::from_secs(1)));
        }
        if status == StatusCode::UNAUTHORIZED {
            tracing::warn!(%path, "token refused");
        }
        Err(self.scrub(err))
    }

    /// Server text is hostile: make sure an echoed token never survives into an error.
    pub(crate) fn scrub(&self, err: ApiError) -> ApiError {
        match &self.inner.token {
            Some(token) => err.redact(token.expose()),
            None => err,
        }
    }
}

fn header_text(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

async fn read_capped(
    response: &mut reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut buf = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = cap - buf.len();
        if chunk.len() > room {
            buf.extend_from_slice(&chunk[..room]);
            return Ok((buf, true));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok((buf, false))
}

/// Accepts `https://host`, `https://host/`, `https://host/prefix/` and a trailing `/v1`
/// (the client adds `/v1` itself). Refuses credentials, queries and fragments in the URL,
/// which would otherwise end up in logs and error messages.
pub fn normalize_api_base(raw: &Url) -> Result<Url, ApiError> {
    let config = |msg: String| ApiError::local(ApiErrorKind::Config, msg);
    if !matches!(raw.scheme(), "http" | "https") {
        return Err(config(format!(
            "the API URL must start with https:// (got {}://)",
            raw.scheme()
        )));
    }
    if raw.host().is_none() {
        return Err(config("the API URL has no host".into()));
    }
    if !raw.username().is_empty() || raw.password().is_some() {
        return Err(config(
            "the API URL must not contain a user name or password; use GOBARE_TOKEN or --token-file"
                .into(),
        ));
    }
    if raw.query().is_some() || raw.fragment().is_some() {
        return Err(config(
            "the API URL must not contain a query or fragment".into(),
        ));
    }
    let mut url = raw.clone();
    let trimmed = url.path().trim_end_matches('/');
    let trimmed = trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_string();
    url.set_path(if trimmed.is_empty() { "/" } else { &trimmed });
    Ok(url)
}

/// Refuses to send a token in clear text over the network: plain `http://` is allowed
/// only to a loopback host (the local simulator) or with `allow_insecure_http`.
pub fn check_transport(
    api: &Url,
    sends_token: bool,
    allow_insecure_http: bool,
) -> Result<(), ApiError> {
    if api.scheme() == "https" || !sends_token || allow_insecure_http || is_loopback(api) {
        return Ok(());
    }
    Err(ApiError::local(
        ApiErrorKind::Config,
        format!(
            "refusing to send the token over plain http:// to {}; use https://, or pass \
             --allow-insecure-http if this network is trusted",
            api.host_str().unwrap_or("?")
        ),
    ))
}

/// `localhost`, `*.localhost`, 127.0.0.0/8 and `::1` (also an IPv4-mapped loopback).
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => {
            IpAddr::V6(ip).is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn base_url_tolerates_trailing_slash_and_v1() {
        for raw in [
            "https://api.gobare.dev",
            "https://api.gobare.dev/",
            "https://api.gobare.dev/v1",
            "https://api.gobare.dev/v1/",
        ] {
            assert_eq!(
                normalize_api_base(&url(raw)).unwrap().as_str(),
                "https://api.gobare.dev/"
            );
        }
        assert_eq!(
            normalize_api_base(&url("https://h/gw/")).unwrap().as_str(),
            "https://h/gw"
        );
    }

    #[test]
    fn urls_with_credentials_or_odd_schemes_are_refused() {
        for raw in [
            "https://u:p@h/",
            "ftp://h/",
            "https://h/?x=1",
            "https://h/#f",
        ] {
            let e = normalize_api_base(&url(raw)).unwrap_err();
            assert_eq!(e.kind, ApiErrorKind::Config, "{raw}");
            assert!(!e.to_string().contains("u:p"));
        }
    }

    #[test]
    fn endpoint_urls_get_v1_and_escape_ids() {
        let client = ApiClient::new(ClientOptions::new(url("https://h/gw/"), None)).unwrap();
        let u = client
            .url(&["sessions", "a/b?c", "items"], &[("after", "x&y".into())])
            .unwrap();
        assert_eq!(
            u.as_str(),
            "https://h/gw/v1/sessions/a%2Fb%3Fc/items?after=x%26y"
        );
        let root = ApiClient::new(ClientOptions::new(url("https://h"), None)).unwrap();
        assert_eq!(
            root.url(&["health"], &[]).unwrap().as_str(),
            "https://h/v1/health"
        );
        assert!(root.url(&["sessions", ".."], &[]).is_err());
        assert!(root.url(&["sessions", ""], &[]).is_err());
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        for raw in [
            "http://localhost:1/",
            "http://LOCALHOST./",
            "http://sim.localhost/",
            "http://127.0.0.1/",
            "http://127.9.9.9/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
        ] {
            assert!(is_loopback(&url(raw)), "{raw}");
        }
        for raw in [
            "http://10.0.0.1/",
            "http://localhost.evil.com/",
            "http://[::2]/",
        ] {
            assert!(!is_loopback(&url(raw)), "{raw}");
        }
    }

    #[test]
    fn idempotency_keys_are_unique_and_validated() {
        assert_ne!(IdempotencyKey::new(), IdempotencyKey::new());
        assert_eq!(IdempotencyKey::new().as_str().len(), 36);
        assert!(IdempotencyKey::from_string("run-1").is_ok());
        assert!(IdempotencyKey::from_string("").is_err());
        assert!(IdempotencyKey::from_string("a b").is_err());
        assert!(IdempotencyKey::from_string("k".repeat(256)).is_err());
    }

    #[test]
    fn page_limit_is_checked_before_sending() {
        assert!(Page::default().with_limit(0).query().is_err());
        assert!(Page::default().with_limit(101).query().is_err());
        let q = Page::ordered(Order::Asc)
            .with_limit(100)
            .after("i_1")
            .query()
            .unwrap();
        assert_eq!(
            q,
            vec![
                ("limit", "100".to_string()),
                ("order", "asc".to_string()),
                ("after", "i_1".to_string())
            ]
        );
    }
}
