//! Where an export of a settled session ends, against a server of its own that replays the
//! history slowly with transient frames (`agent.text`, `agent.thinking`) between the
//! persisted events: the export reads up to the session's `updated_at`, never stopping at
//! the first transient frame.

use crate::support::cli::{Home, read_logs};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;
use std::time::Duration;

const SESSION: &str = "5b2e8c41-7d3a-4f60-9e1b-2c4d6a8f0e13";
const EVENTS: u64 = 12;
const FIRST_AT: i64 = 1_796_226_076_000;
/// Between two persisted events of the replay: slow, but well inside the export's quiet
/// spell, so only a wrong reading of the transient frames could end it early.
const PACE: Duration = Duration::from_millis(40);

fn created_at(seq: u64) -> i64 {
    FIRST_AT + seq as i64 * 1_000
}

fn frame(id: Option<u64>, data: serde_json::Value) -> Bytes {
    let id = id.map(|id| format!("id: {id}\n")).unwrap_or_default();
    Bytes::from(format!("{id}data: {data}\n\n"))
}

/// Persisted message `seq`, then a reply fragment and a reasoning fragment.
fn frames(seq: u64) -> Vec<Bytes> {
    let persisted = json!({"object": "event", "type": "agent.message", "session_id": SESSION,
        "seq": seq, "created_at": created_at(seq), "payload": {"text": format!("message {seq}")}});
    let delta = |kind: &str| {
        json!({"object": "event", "type": kind, "session_id": SESSION, "seq": null,
               "created_at": created_at(seq), "payload": {"delta": "…"}})
    };
    vec![
        frame(Some(seq), persisted),
        frame(None, delta("agent.text")),
        frame(None, delta("agent.thinking")),
    ]
}

/// The replay, paced, then an open connection with nothing more on it.
fn replay() -> Body {
    let paced = futures_util::stream::unfold(1, |seq| async move {
        if seq > EVENTS {
            return None;
        }
        if seq > 1 {
            tokio::time::sleep(PACE).await;
        }
        let chunk: Bytes = frames(seq).concat().into();
        Some((Ok::<_, std::io::Error>(chunk), seq + 1))
    });
    Body::from_stream(futures_util::StreamExt::chain(
        paced,
        futures_util::stream::pending(),
    ))
}

async fn server() -> url::Url {
    let session = json!({"object": "session", "id": SESSION, "title": "slow replay",
        "status": "idle", "created_at": FIRST_AT, "updated_at": created_at(EVENTS),
        "agent": {}, "environment": {"type": "sandbox", "state": "paused"}, "preview": {},
        "required_actions": []});
    let empty = json!({"object": "list", "data": [], "has_more": false});
    let lists = empty.clone();
    let app = Router::new()
        .route(
            "/v1/sessions/{id}",
            get(move || async move { axum::Json(session) }),
        )
        .route(
            "/v1/sessions/{id}/turns",
            get(move || async move { axum::Json(empty) }),
        )
        .route(
            "/v1/sessions/{id}/artifacts",
            get(move || async move { axum::Json(lists) }),
        )
        .route(
            "/v1/sessions/{id}/events",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/event-stream")], replay()).into_response()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url::Url::parse(&format!("http://{addr}/")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_frames_in_a_slow_replay_do_not_end_a_settled_export() {
    let api = server().await;
    let home = Home::new();
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        home.tokio_command(&["--api", api.as_str(), "export", SESSION])
            .env("GOBARE_TOKEN", "gbr_pat_replay_end_test")
            .output(),
    )
    .await
    .expect("the export ends")
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let md = String::from_utf8(out.stdout).unwrap();
    for seq in 1..=EVENTS {
        assert!(
            md.contains(&format!("\nmessage {seq}\n")),
            "message {seq} in\n{md}"
        );
    }
    assert!(
        md.contains(&format!(
            "*{EVENTS} events exported, through seq {EVENTS}.*"
        )),
        "{md}"
    );
    let logs = read_logs(&home.log_dir());
    assert!(logs.contains("end=Settled"), "{logs}");
}
