//! What the client puts on the wire: paths, bearer auth, Idempotency-Key on writes only,
//! the send body, retries with the same key, and paging parameters.

use crate::support::{Reply, SECRET, Server};
use gobare_api::client::{IdempotencyKey, Order, Page, SessionFilter};
use gobare_api::error::ApiErrorKind;
use gobare_api::model::{CreateSession, Input};
use gobare_api::retry::SendRetry;
use serde_json::json;

fn accepted() -> Reply {
    Reply::json(
        202,
        json!({"object":"input.accepted","session_id":"s1","type":"input.message","queued":false,"queue_position":null}),
    )
}

fn session_json() -> serde_json::Value {
    let all: serde_json::Value =
        serde_json::from_str(include_str!("../../../../assets/event-payloads.json")).unwrap();
    all["session"].clone()
}

fn message() -> Input {
    Input::Message {
        content: "Summarise this repo.".into(),
    }
}

#[tokio::test]
async fn sends_carry_the_key_and_one_event_and_gets_do_not() {
    let server = Server::start(vec![
        Reply::json(
            200,
            json!({"object":"health","status":"ok","scopes":[],"usable":true}),
        ),
        accepted(),
        Reply::json(201, session_json()),
        Reply::json(
            200,
            json!({"object":"list","data":[],"has_more":false,"last_id":null}),
        ),
    ])
    .await;
    let client = server.client();
    client.health().await.unwrap();
    let send_key = IdempotencyKey::new();
    let reply = client.send("s1", &message(), &send_key).await.unwrap();
    assert_eq!(reply.queued, Some(false));
    let create_key = IdempotencyKey::from_string("create-1").unwrap();
    client
        .create_session(
            &CreateSession {
                title: Some("t".into()),
                ..CreateSession::default()
            },
            &create_key,
        )
        .await
        .unwrap();
    client.list_sessions(&Page::default()).await.unwrap();

    let seen = server.seen();
    let bearer = format!("Bearer {SECRET}");
    assert!(
        seen.iter()
            .all(|s| s.authorization.as_deref() == Some(&bearer))
    );

    assert_eq!(
        (seen[0].method.as_str(), seen[0].target.as_str()),
        ("GET", "/v1/health")
    );
    assert_eq!(seen[0].idempotency_key, None);

    assert_eq!(
        (seen[1].method.as_str(), seen[1].target.as_str()),
        ("POST", "/v1/sessions/s1/events")
    );
    assert_eq!(seen[1].idempotency_key.as_deref(), Some(send_key.as_str()));
    let body: serde_json::Value = serde_json::from_str(&seen[1].body).unwrap();
    assert_eq!(
        body,
        json!({"events":[{"type":"input.message","content":"Summarise this repo."}]})
    );

    assert_eq!(
        (seen[2].method.as_str(), seen[2].target.as_str()),
        ("POST", "/v1/sessions")
    );
    assert_eq!(seen[2].idempotency_key.as_deref(), Some("create-1"));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&seen[2].body).unwrap(),
        json!({"title":"t"})
    );

    assert_eq!(
        (seen[3].method.as_str(), seen[3].target.as_str()),
        ("GET", "/v1/sessions")
    );
    assert_eq!(seen[3].idempotency_key, None);
}

#[tokio::test]
async fn send_retry_reuses_the_same_key_across_a_retried_503() {
    let server = Server::start(vec![
        Reply::error(503, "sandbox_unavailable", None).header("retry-after", "0"),
        accepted(),
    ])
    .await;
    let (input, key) = (message(), IdempotencyKey::new());
    let client = server.client();
    let reply = SendRetry::default()
        .run(|| client.send("s1", &input, &key), |_, _, _| {})
        .await
        .0
        .unwrap();
    assert_eq!(reply.kind, "input.message");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert!(
        seen.iter()
            .all(|s| s.idempotency_key.as_deref() == Some(key.as_str()))
    );
    assert_eq!(seen[0].body, seen[1].body);
}

#[tokio::test]
async fn send_retry_surfaces_queue_full_and_project_limit_at_once() {
    for code in ["queue_full", "project_limit_exceeded"] {
        let server = Server::start(vec![
            Reply::error(429, code, None).header("retry-after", "0"),
            accepted(),
        ])
        .await;
        let client = server.client();
        let (input, key) = (message(), IdempotencyKey::new());
        let err = SendRetry::default()
            .run(|| client.send("s1", &input, &key), |_, _, _| {})
            .await
            .0
            .unwrap_err();
        assert_eq!(err.status, Some(429), "{code}");
        assert_eq!(server.seen().len(), 1, "{code} must not be retried");
    }
}

#[tokio::test]
async fn send_retry_gives_up_without_retry_after_and_after_max_attempts() {
    let server = Server::start(vec![Reply::error(500, "internal_error", None), accepted()]).await;
    let client = server.client();
    let (input, key) = (message(), IdempotencyKey::new());
    let err = SendRetry::default()
        .run(|| client.send("s1", &input, &key), |_, _, _| {})
        .await
        .0
        .unwrap_err();
    assert_eq!(err.kind, ApiErrorKind::Server);
    assert_eq!(server.seen().len(), 1, "no Retry-After means do not retry");

    let busy = || Reply::error(503, "sandbox_unavailable", None).header("retry-after", "0");
    let server = Server::start(vec![busy(), busy(), busy(), accepted()]).await;
    let policy = SendRetry {
        max_attempts: 3,
        ..SendRetry::default()
    };
    let client = server.client();
    let (input, key) = (message(), IdempotencyKey::new());
    let err = policy
        .run(|| client.send("s1", &input, &key), |_, _, _| {})
        .await
        .0
        .unwrap_err();
    assert_eq!(err.kind, ApiErrorKind::Unavailable);
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn limit_is_validated_before_anything_is_sent() {
    let server = Server::start(vec![]).await;
    let client = server.client();
    for limit in [0, 101] {
        let e = client
            .list_items("s1", &Page::default().with_limit(limit))
            .await
            .unwrap_err();
        assert_eq!(e.kind, ApiErrorKind::InvalidArgument);
        assert_eq!(e.status, None);
        let e = client
            .list_sessions(&Page::default().with_limit(limit))
            .await
            .unwrap_err();
        assert_eq!(e.kind, ApiErrorKind::InvalidArgument);
    }
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn a_filtered_session_page_sends_its_filters_and_skips_only_an_odd_session() {
    let mut good = session_json();
    good["id"] = json!("good-1");
    let mut other = session_json();
    other["id"] = json!("good-2");
    let server = Server::start(vec![Reply::json(
        200,
        json!({"object":"list","has_more":true,"last_id":"good-2",
               "data":[good, {"object":"session","id":7,"status":[]}, other]}),
    )])
    .await;
    let client = server.client();
    let filter = SessionFilter {
        status: Some("requires_action".into()),
        root: Some("root-1".into()),
        label: None,
    };
    let page = client
        .list_sessions_where(&Page::default().with_limit(100), &filter)
        .await
        .unwrap();
    let ids: Vec<&str> = page.data.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["good-1", "good-2"]);
    assert!(page.has_more);
    assert_eq!(page.last_id.as_deref(), Some("good-2"));
    let seen = &server.seen()[0];
    assert_eq!(
        seen.query_param("status").as_deref(),
        Some("requires_action")
    );
    assert_eq!(seen.query_param("root").as_deref(), Some("root-1"));
    assert_eq!(seen.query_param("limit").as_deref(), Some("100"));
}

#[tokio::test]
async fn an_unplaceable_cursor_gives_an_empty_last_page() {
    let server = Server::start(vec![Reply::json(
        200,
        json!({"object":"list","data":[],"has_more":false,"last_id":null}),
    )])
    .await;
    let client = server.client();
    let one = client
        .list_items("s1", &Page::ordered(Order::Asc).after("deleted-row"))
        .await
        .unwrap();
    assert!(one.data.is_empty() && !one.has_more);
    assert_eq!(
        server.seen()[0].query_param("after").as_deref(),
        Some("deleted-row")
    );
}

#[tokio::test]
async fn list_paths_and_paging_reach_the_server() {
    let empty = || {
        Reply::json(
            200,
            json!({"object":"list","data":[],"has_more":false,"last_id":null}),
        )
    };
    let server = Server::start(vec![empty(), empty(), empty()]).await;
    let client = server.client();
    client
        .list_sessions(&Page::ordered(Order::Desc).with_limit(5))
        .await
        .unwrap();
    client
        .list_turns("s1", &Page::default().with_limit(1))
        .await
        .unwrap();
    client
        .list_artifacts("s1", &Page::default(), Some("turn_1"))
        .await
        .unwrap();

    let seen = server.seen();
    let s = &seen[0];
    assert_eq!(s.query_param("order").as_deref(), Some("desc"));
    assert_eq!(s.query_param("limit").as_deref(), Some("5"));
    assert_eq!(seen[1].target, "/v1/sessions/s1/turns?limit=1");
    assert_eq!(seen[2].target, "/v1/sessions/s1/artifacts?turn_id=turn_1");
}

#[tokio::test]
async fn base_url_with_trailing_slash_or_v1_reaches_the_same_routes() {
    let ok = || Reply::json(200, json!({"object":"health","status":"ok"}));
    let server = Server::start(vec![ok(), ok()]).await;
    for suffix in ["/", "/v1/"] {
        let url = url::Url::parse(&format!(
            "{}{}",
            server.base.as_str().trim_end_matches('/'),
            suffix
        ))
        .unwrap();
        let client =
            gobare_api::client::ApiClient::new(gobare_api::client::ClientOptions::new(url, None))
                .unwrap();
        client.health().await.unwrap();
    }
    let seen = server.seen();
    assert!(seen.iter().all(|s| s.target == "/v1/health"), "{seen:?}");
    assert!(
        seen.iter().all(|s| s.authorization.is_none()),
        "no token, no header"
    );
}

#[tokio::test(start_paused = true)]
async fn send_retry_waits_exactly_retry_after() {
    let server = Server::start(vec![
        Reply::error(429, "rate_limit_exceeded", None).header("retry-after", "30"),
        accepted(),
    ])
    .await;
    // No deadlines: with the clock paused, an idle wait on the socket would fire them.
    let mut options = gobare_api::client::ClientOptions::new(
        server.base.clone(),
        gobare_api::auth::Token::new(SECRET),
    );
    options.request_timeout = None;
    options.connect_timeout = None;
    let client = gobare_api::client::ApiClient::new(options).unwrap();
    let started = tokio::time::Instant::now();
    let (input, key) = (message(), IdempotencyKey::new());
    SendRetry::default()
        .run(|| client.send("s1", &input, &key), |_, _, _| {})
        .await
        .0
        .unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_secs(30) && waited < std::time::Duration::from_secs(31),
        "{waited:?}"
    );
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn one_odd_item_never_empties_the_items_page() {
    let item = |id: serde_json::Value, created_at: serde_json::Value, text: &str| {
        json!({"object":"item","id":id,"session_id":"s1","type":"message","created_at":created_at,
               "role":"user","content":text,"detail":{}})
    };
    let page = json!({"object":"list","has_more":false,"last_id":"i4","data":[
        item(json!("i1"), json!(1_789_319_090_000_i64), "plain"),
        item(json!(42), json!(1_789_319_090_001_i64), "numeric id"),
        item(json!("i3"), json!("2026-09-13T17:04:50.002Z"), "date-string created_at"),
        {"object":"item","id":{"nested":true},"type":"message","content":"unreadable id"},
        ["not", "an", "item"],
        item(json!("i4"), json!(null), "null created_at"),
    ]});
    let server = Server::start(vec![Reply::json(200, page)]).await;
    let list = server
        .client()
        .list_items("s1", &Page::default())
        .await
        .unwrap();
    let got: Vec<(&str, i64, &str)> = list
        .data
        .iter()
        .map(|i| (i.id.as_str(), i.created_at, i.content.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("i1", 1_789_319_090_000, "plain"),
            ("42", 1_789_319_090_001, "numeric id"),
            ("i3", 1_789_319_090_002, "date-string created_at"),
            ("i4", 0, "null created_at"),
        ],
        "the readable items are all kept, in order; only the unreadable ones are left out"
    );
    assert_eq!(list.last_id.as_deref(), Some("i4"), "paging still works");
}
