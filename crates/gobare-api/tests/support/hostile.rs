//! A programmable stream server for hostile tests: every request is recorded (when, path,
//! `Last-Event-ID`) and answered by the test's own function of the request number. Real
//! HTTP on 127.0.0.1:0, so the client's reqwest transport is what is under test.

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use url::Url;

/// One request as the hostile server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) at: Instant,
    pub(crate) path: String,
    pub(crate) last_event_id: Option<String>,
}

type Answer = dyn Fn(usize, &Request) -> Response + Send + Sync;

struct Shared {
    answer: Box<Answer>,
    requests: Mutex<Vec<Request>>,
}

/// A running hostile server.
pub(crate) struct HostileServer {
    pub(crate) base: Url,
    shared: Arc<Shared>,
}

impl HostileServer {
    /// `answer(n, request)` answers the `n`th request (0-based).
    pub(crate) async fn start(
        answer: impl Fn(usize, &Request) -> Response + Send + Sync + 'static,
    ) -> HostileServer {
        let shared = Arc::new(Shared {
            answer: Box::new(answer),
            requests: Mutex::default(),
        });
        let app = Router::new().fallback(respond).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        HostileServer {
            base: Url::parse(&format!("http://{addr}")).unwrap(),
            shared,
        }
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The `Last-Event-ID` of each request, parsed.
    pub(crate) fn cursors(&self) -> Vec<Option<u64>> {
        self.requests()
            .iter()
            .map(|r| r.last_event_id.as_deref().map(|c| c.parse().unwrap()))
            .collect()
    }
}

async fn respond(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap) -> Response {
    let request = Request {
        at: Instant::now(),
        path: uri.path().to_string(),
        last_event_id: headers
            .get("last-event-id")
            .map(|v| v.to_str().unwrap_or("<binary>").to_string()),
    };
    let n = {
        let mut requests = shared.requests.lock().unwrap();
        requests.push(request.clone());
        requests.len() - 1
    };
    (shared.answer)(n, &request)
}

/// `200 text/event-stream` with `body`, then EOF.
pub(crate) fn sse(body: impl Into<String>) -> Response {
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(body.into()))
        .unwrap()
}

/// The API's JSON error envelope with `status`, `code`, a message, a request id and the
/// given headers.
pub(crate) fn refusal(status: u16, code: &str, headers: &[(&str, &str)]) -> Response {
    let body = serde_json::json!({"error": {
        "code": code,
        "message": format!("{code} says no"),
        "request_id": format!("req_{code}"),
    }});
    let mut response = Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json");
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response.body(Body::from(body.to_string())).unwrap()
}

/// One persisted frame of session `s1`: `id:` and the envelope's `seq` agree.
pub(crate) fn persisted(seq: u64) -> String {
    persisted_with_id(&seq.to_string(), seq)
}

/// A persisted frame of session `s1` whose `id:` line says `id` and whose envelope says `seq`.
pub(crate) fn persisted_with_id(id: &str, seq: u64) -> String {
    format!(
        "id: {id}\nevent: agent.message\ndata: {{\"object\":\"event\",\"type\":\"agent.message\",\"session_id\":\"s1\",\"seq\":{seq},\"payload\":{{\"text\":\"m{seq}\"}}}}\n\n"
    )
}
