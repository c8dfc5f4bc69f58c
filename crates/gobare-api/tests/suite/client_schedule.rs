//! Every request through the scheduler: a read the server refuses for now (429 or 503 with
//! `Retry-After`) is read again after the wait asked for, a write is left to its caller's
//! retry under its key, and the headers' budget paces what this process sends.

use crate::support::{Reply, Server};
use gobare_api::client::IdempotencyKey;
use gobare_api::error::ApiErrorKind;
use gobare_api::model::Input;
use gobare_api::schedule::RequestClass;
use serde_json::json;
use std::time::{Duration, Instant};

fn session_json() -> serde_json::Value {
    let all: serde_json::Value =
        serde_json::from_str(include_str!("../../../../assets/event-payloads.json")).unwrap();
    all["session"].clone()
}

fn limited(remaining: u32) -> impl Fn(Reply) -> Reply {
    move |reply: Reply| {
        reply
            .header("x-ratelimit-limit", "120")
            .header("x-ratelimit-remaining", &remaining.to_string())
            .header("x-ratelimit-reset", "60")
            .header("x-ratelimit-resource", "general")
    }
}

#[tokio::test]
async fn a_read_refused_for_now_is_read_again_after_each_wait_asked_for() {
    let server = Server::start(vec![
        Reply::error(429, "rate_limit_exceeded", Some("r1")).header("retry-after", "1"),
        Reply::error(503, "sandbox_unavailable", Some("r2")).header("retry-after", "1"),
        Reply::json(200, session_json()),
    ])
    .await;
    let client = server.client().with_class(RequestClass::Bulk);
    let started = Instant::now();
    let session = client
        .get_session("s1")
        .await
        .expect("read after the waits");
    assert_eq!(session.object, "session");
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "both Retry-After waits honoured: {:?}",
        started.elapsed()
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 3, "one read, two retries");
    assert!(seen.iter().all(|s| s.target == "/v1/sessions/s1"));
}

#[tokio::test]
async fn a_write_refused_for_now_is_left_to_the_retry_under_its_key() {
    let server = Server::start(vec![
        Reply::error(429, "rate_limit_exceeded", Some("r1")).header("retry-after", "1"),
        Reply::json(
            202,
            json!({"object":"input.accepted","session_id":"s1","type":"input.message","queued":false,"queue_position":null}),
        ),
    ])
    .await;
    let client = server.client();
    let err = client
        .send(
            "s1",
            &Input::Message {
                content: "hi".into(),
            },
            &IdempotencyKey::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ApiErrorKind::RateLimited);
    assert_eq!(server.seen().len(), 1, "a write is never repeated here");
}

#[tokio::test]
async fn reads_keep_the_last_quarter_of_the_bucket_for_a_persons_action() {
    // The answers say 30 of 120 are left: a read waits for the refill (2 a second), while
    // a person's send goes at once.
    let with = limited(30);
    let server = Server::start(vec![
        with(Reply::json(200, session_json())),
        with(Reply::json(
            202,
            json!({"object":"input.accepted","session_id":"s1","type":"input.message","queued":false,"queue_position":null}),
        )),
        with(Reply::json(200, session_json())),
    ])
    .await;
    let client = server.client();
    client.get_session("s1").await.unwrap();
    let started = Instant::now();
    client
        .send(
            "s1",
            &Input::Message {
                content: "now".into(),
            },
            &IdempotencyKey::new(),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "the action did not wait: {:?}",
        started.elapsed()
    );
    let started = Instant::now();
    client.get_session("s1").await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "a read leaves the last 30 to the person: {:?}",
        started.elapsed()
    );
    let figures = client.scheduler().figures();
    assert_eq!(figures.lowest_general, Some(30));
    assert_eq!(figures.sent[RequestClass::Action as usize], 1);
    assert_eq!(figures.sent[RequestClass::OnScreen as usize], 2);
}
