//! The reqwest transport and `spawn` against a tiny axum server on 127.0.0.1:0: headers
//! sent, status and content-type checks, JSON and non-JSON error bodies.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use gobare_api::auth::Token;
use gobare_api::model::ErrorCode;
use gobare_api::stream::ConnectionState;
use gobare_api::stream::transport::{HttpTransport, OpenError, Transport};
use gobare_api::stream::{StreamOptions, StreamTarget, StreamUpdate, spawn};
use std::sync::{Arc, Mutex};

type Seen = Arc<Mutex<Vec<HeaderMap>>>;

async fn events(State(seen): State<Seen>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    seen.lock().unwrap().push(headers);
    match id.as_str() {
        "ok" => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            "retry: 2000\n\nid: 5\nevent: agent.message\ndata: {\"type\":\"agent.message\",\"seq\":5,\"payload\":{\"text\":\"hi\"}}\n\n",
        )
            .into_response(),
        "gone" => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/json"), (header::HeaderName::from_static("x-request-id"), "hdr_1")],
            r#"{"error":{"code":"not_found","message":"No such session.","request_id":"req_404"}}"#,
        )
            .into_response(),
        "proxy" => (
            StatusCode::BAD_GATEWAY,
            [(header::CONTENT_TYPE, "text/html"), (header::RETRY_AFTER, "3"), (header::HeaderName::from_static("x-request-id"), "hdr_2")],
            "<html><body>Bad gateway</body></html>",
        )
            .into_response(),
        "empty" => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        _ => ([(header::CONTENT_TYPE, "application/json")], "{}").into_response(),
    }
}

async fn server() -> (url::Url, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/v1/sessions/{id}/events", get(events))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url::Url::parse(&format!("http://{addr}")).unwrap(), seen)
}

fn options(api: &url::Url, session: &str) -> StreamOptions {
    StreamOptions {
        api: api.clone(),
        token: Token::new("gbr_pat_secret"),
        target: StreamTarget::Session(session.into()),
        ..StreamOptions::default()
    }
}

#[tokio::test]
async fn sends_accept_auth_and_one_last_event_id() {
    let (api, seen) = server().await;
    let t = HttpTransport::new(&options(&api, "ok")).unwrap();
    let body: Vec<u8> = t
        .open(Some(4))
        .await
        .unwrap()
        .map(|c| c.unwrap().to_vec())
        .concat()
        .await;
    assert!(String::from_utf8(body).unwrap().contains("id: 5"));
    let _live_only = t.open(None).await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0]["accept"], "text/event-stream");
    assert_eq!(seen[0]["authorization"], "Bearer gbr_pat_secret");
    assert_eq!(seen[0].get_all("last-event-id").iter().count(), 1);
    assert_eq!(seen[0]["last-event-id"], "4");
    assert!(
        seen[1].get("last-event-id").is_none(),
        "None means live only"
    );
}

#[tokio::test]
async fn json_error_bodies_become_status_errors() {
    let (api, _) = server().await;
    let t = HttpTransport::new(&options(&api, "gone")).unwrap();
    let Err(e) = t.open(Some(0)).await else {
        panic!("404 opened")
    };
    let OpenError::Status {
        status,
        error,
        request_id,
        ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(*status, 404);
    assert_eq!(error.as_ref().unwrap().code, ErrorCode::NotFound);
    assert_eq!(request_id.as_deref(), Some("req_404"));
    assert!(e.is_terminal());
}

#[tokio::test]
async fn html_and_empty_error_bodies_and_wrong_content_type_are_survived() {
    let (api, _) = server().await;
    let proxy = HttpTransport::new(&options(&api, "proxy")).unwrap();
    match proxy.open(None).await {
        Err(OpenError::Status {
            status: 502,
            retry_after,
            error: None,
            request_id,
        }) => {
            assert_eq!(retry_after, Some(std::time::Duration::from_secs(3)));
            assert_eq!(request_id.as_deref(), Some("hdr_2"));
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let empty = HttpTransport::new(&options(&api, "empty")).unwrap();
    assert!(matches!(
        empty.open(None).await,
        Err(OpenError::Status {
            status: 503,
            error: None,
            ..
        })
    ));
    let json = HttpTransport::new(&options(&api, "json200")).unwrap();
    match json.open(None).await {
        Err(OpenError::NotEventStream {
            status: 200,
            content_type,
        }) => {
            assert_eq!(content_type, "application/json")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[tokio::test]
async fn spawn_delivers_frames_and_stops_on_404() {
    let (api, _) = server().await;
    let mut ok = spawn(options(&api, "ok"));
    let mut got = Vec::new();
    while let Some(u) = ok.updates.recv().await {
        let done = matches!(u, StreamUpdate::Frame(_));
        got.push(u);
        if done {
            break;
        }
    }
    assert_eq!(
        got[0],
        StreamUpdate::State(ConnectionState::Connecting { attempt: 1 })
    );
    assert_eq!(
        got[1],
        StreamUpdate::State(ConnectionState::Open { silent_before: 0 }),
        "open, not yet live: nothing has come"
    );
    assert_eq!(
        got[2],
        StreamUpdate::State(ConnectionState::Live),
        "live once a frame has come"
    );
    let StreamUpdate::Frame(f) = &got[3] else {
        panic!("{got:?}")
    };
    assert_eq!(f.id, Some(5));

    let mut gone = spawn(options(&api, "gone"));
    let mut last = None;
    while let Some(u) = gone.updates.recv().await {
        last = Some(u);
    }
    let Some(StreamUpdate::State(ConnectionState::Failed { reason })) = last else {
        panic!("{last:?}")
    };
    assert!(
        reason.contains("not_found")
            && reason.contains("No such session.")
            && reason.contains("req_404")
    );
    assert!(!reason.contains("gbr_pat_secret"));
}
