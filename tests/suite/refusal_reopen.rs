#![cfg(unix)]
//! Issue 15 item 5 in the app: a stream open refused in a way waiting cannot fix stops the
//! stream, the status bar says why, and Ctrl+R opens it again. A small proxy in front of
//! the simulator refuses stream opens while told to and passes everything else through, so
//! the simulator's record shows which opens got through.

use crate::support::app::{launch, quit, status_line};
use crate::support::live::wait_live;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use futures_util::TryStreamExt;
use gobare_api::model::{EventPayload, Text};
use gobare_sim::{SimConfig, Simulator};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(30);
const CTRL_R: &str = "\x12";

struct Proxy {
    upstream: url::Url,
    http: reqwest::Client,
    /// Stream opens are answered 429 `project_limit_exceeded` while this is set.
    refusing: AtomicBool,
    refused: AtomicUsize,
}

async fn forward(
    State(proxy): State<Arc<Proxy>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let is_stream_open = method == Method::GET && uri.path().ends_with("/events");
    if is_stream_open && proxy.refusing.load(Ordering::SeqCst) {
        proxy.refused.fetch_add(1, Ordering::SeqCst);
        let body = serde_json::json!({"error": {
            "code": "project_limit_exceeded",
            "message": "the project runs too many sessions",
            "request_id": "req-limit-1",
        }});
        return Response::builder()
            .status(429)
            .header("content-type", "application/json")
            // A Retry-After does not make this one worth retrying: it never clears by waiting.
            .header("retry-after", "1")
            .body(Body::from(body.to_string()))
            .unwrap();
    }
    let target = proxy
        .upstream
        .join(uri.path_and_query().map_or("/", |p| p.as_str()))
        .unwrap();
    let mut request = proxy.http.request(method, target).body(body);
    for (name, value) in &headers {
        if name != "host" {
            request = request.header(name, value);
        }
    }
    let answer = request.send().await.expect("the simulator answers");
    let mut response = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        if name != "content-length" && name != "transfer-encoding" {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from_stream(
            answer.bytes_stream().map_err(axum::Error::new),
        ))
        .unwrap()
}

#[test]
fn a_stream_stopped_by_project_limit_says_why_and_ctrl_r_reopens_it() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sim = rt
        .block_on(Simulator::start(SimConfig::for_tests()))
        .unwrap();
    let session = sim.create_session(Some("limited"));
    let proxy = Arc::new(Proxy {
        upstream: sim.url(),
        http: reqwest::Client::new(),
        refusing: AtomicBool::new(true),
        refused: AtomicUsize::new(0),
    });
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new().fallback(forward).with_state(proxy.clone());
    rt.spawn(async move { axum::serve(listener, app).await.unwrap() });

    let home = tempfile::tempdir().unwrap();
    let mut pty = launch(&["attach", &session], &home)
        .api(&base, &sim.token())
        .spawn();
    // One frame says it all; a read between two writes of a frame may see half of it.
    pty.wait_for(
        "the status bar to say the stream failed, why, and what to press",
        |s| {
            let status = status_line(s);
            status.contains("✗ failed")
                && status.contains("429")
                && status.contains("project_limit_exceeded")
                && status.contains("Ctrl+R retries")
        },
        TIMEOUT,
    );

    // Not retried on its own: the first automatic retry would come within the backoff's
    // first step (1–2 s); give it 3 s and the proxy still saw only the one open.
    let quiet_until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < quiet_until {
        assert_eq!(
            proxy.refused.load(Ordering::SeqCst),
            1,
            "retried on its own"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(sim.stream_opens().is_empty(), "no open reached the server");
    assert!(pty.with_screen(status_line).contains("✗ failed"));

    proxy.refusing.store(false, Ordering::SeqCst);
    pty.send_keys(CTRL_R);
    wait_live(&pty, TIMEOUT);
    assert_eq!(sim.stream_opens().len(), 1, "Ctrl+R opened one stream");
    sim.emit(
        &session,
        EventPayload::AgentMessage(Text {
            text: "arrived after the reopen".into(),
        }),
    );
    pty.wait_for_text("arrived after the reopen", TIMEOUT);
    assert_eq!(proxy.refused.load(Ordering::SeqCst), 1);

    quit(&mut pty, TIMEOUT);
    rt.block_on(sim.shutdown());
}
