//! Error mapping over real HTTP: `error.code` first, status second, Retry-After, request
//! ids, and bodies that are not the API's JSON.

use crate::support::{Reply, Server};
use gobare_api::error::{ApiError, ApiErrorKind, RetryHint};
use gobare_api::model::ErrorCode;
use std::time::Duration;

async fn health_error(reply: Reply) -> ApiError {
    let server = Server::start(vec![reply]).await;
    server.client_reading_once().health().await.unwrap_err()
}

#[tokio::test]
async fn every_documented_code_maps_to_its_kind_and_retry_rule() {
    use ApiErrorKind as K;
    // (status, code, Retry-After sent, kind, retryable)
    let table = [
        (400, "invalid_request", None, K::InvalidRequest, false),
        (
            400,
            "context_length_exceeded",
            None,
            K::InvalidRequest,
            false,
        ),
        (401, "authentication_error", None, K::Unauthorized, false),
        (403, "permission_denied", None, K::Forbidden, false),
        (404, "not_found", None, K::NotFound, false),
        (405, "method_not_allowed", None, K::MethodNotAllowed, false),
        (409, "conflict", None, K::Conflict, false),
        (409, "conflict", Some("1"), K::Conflict, true),
        (429, "queue_full", Some("5"), K::QueueFull, true),
        (429, "rate_limit_exceeded", Some("5"), K::RateLimited, true),
        (429, "project_limit_exceeded", None, K::ProjectLimit, false),
        (500, "internal_error", Some("1"), K::Server, true),
        (500, "sandbox_error", Some("1"), K::Server, true),
        (500, "workspace_recovery_failed", None, K::Server, false),
        (500, "bridge_incompatible", None, K::Server, false),
        (502, "provider_error", Some("2"), K::Provider, true),
        (502, "provider_unauthorized", None, K::Provider, false),
        (503, "sandbox_unavailable", Some("3"), K::Unavailable, true),
        (
            503,
            "directory_unavailable",
            Some("3"),
            K::Unavailable,
            true,
        ),
    ];
    let replies = table
        .iter()
        .map(|(status, code, retry, ..)| {
            let r = Reply::error(*status, code, Some("req42"));
            match retry {
                Some(secs) => r.header("retry-after", secs),
                None => r,
            }
        })
        .collect();
    let server = Server::start(replies).await;
    let client = server.client_reading_once();
    for (status, code, retry, kind, retryable) in table {
        let e = client.health().await.unwrap_err();
        assert_eq!(e.kind, kind, "{code}");
        assert_eq!(e.code, Some(ErrorCode::from(code)), "{code}");
        assert_eq!(e.status, Some(status), "{code}");
        assert_eq!(e.is_retryable(), retryable, "{code}");
        assert_eq!(
            e.retry_after,
            retry.map(|s| Duration::from_secs(s.parse().unwrap())),
            "{code}"
        );
        let line = e.to_string();
        assert!(line.contains(code) && line.contains("req42"), "{line}");
        assert!(!line.contains('\n'), "one line: {line}");
    }
}

#[tokio::test]
async fn the_three_429s_are_told_apart() {
    let rate =
        health_error(Reply::error(429, "rate_limit_exceeded", None).header("retry-after", "7"))
            .await;
    assert_eq!(rate.kind, ApiErrorKind::RateLimited);
    assert_eq!(rate.retry_hint(), RetryHint::After(Duration::from_secs(7)));

    let queue = health_error(Reply::error(429, "queue_full", None)).await;
    assert_eq!(queue.kind, ApiErrorKind::QueueFull);
    assert_eq!(queue.retry_hint(), RetryHint::WhenQueueDrains(None));

    let project =
        health_error(Reply::error(429, "project_limit_exceeded", None).header("retry-after", "7"))
            .await;
    assert_eq!(project.kind, ApiErrorKind::ProjectLimit);
    assert_eq!(
        project.retry_hint(),
        RetryHint::Never,
        "never, even with a header"
    );
}

#[tokio::test]
async fn status_decides_when_the_code_is_unknown_or_absent() {
    let e = health_error(Reply::error(503, "tea_kettle_overheated", None)).await;
    assert_eq!(e.kind, ApiErrorKind::Unavailable);
    assert_eq!(
        e.code,
        Some(ErrorCode::Other("tea_kettle_overheated".into()))
    );
    let e = health_error(Reply::raw(401, "text/plain", "")).await;
    assert_eq!(e.kind, ApiErrorKind::Unauthorized);
    assert_eq!(e.code, None);
}

#[tokio::test]
async fn retry_after_header_is_read_as_seconds_and_garbage_is_ignored() {
    let e =
        health_error(Reply::error(503, "sandbox_unavailable", None).header("retry-after", " 12 "))
            .await;
    assert_eq!(e.retry_after, Some(Duration::from_secs(12)));
    let e =
        health_error(Reply::error(503, "sandbox_unavailable", None).header("retry-after", "later"))
            .await;
    assert_eq!(e.retry_after, None);
    assert_eq!(e.retry_hint(), RetryHint::Never, "no header: do not retry");
}

#[tokio::test]
async fn request_id_comes_from_the_body_first_then_the_header() {
    let e = health_error(
        Reply::error(500, "internal_error", Some("from-body"))
            .header("x-request-id", "from-header"),
    )
    .await;
    assert_eq!(e.request_id.as_deref(), Some("from-body"));
    let e = health_error(
        Reply::error(500, "internal_error", None).header("x-request-id", "from-header"),
    )
    .await;
    assert_eq!(e.request_id.as_deref(), Some("from-header"));
    assert!(e.to_string().contains("request id from-header"));
}

#[tokio::test]
async fn a_proxy_html_page_becomes_a_short_sanitized_excerpt() {
    let page = format!(
        "<html><head><title>502 Bad Gateway</title></head><body>\n<h1>Bad \x1b[31mGateway</h1>{}</body></html>",
        "<p>padding</p>".repeat(2000)
    );
    let e =
        health_error(Reply::raw(502, "text/html", &page).header("x-request-id", "edge-1")).await;
    assert_eq!(e.kind, ApiErrorKind::Unavailable);
    assert_eq!(e.code, None);
    assert_eq!(e.request_id.as_deref(), Some("edge-1"));
    assert_eq!(e.retry_hint(), RetryHint::Backoff);
    let excerpt = e.body_excerpt.clone().unwrap();
    assert!(excerpt.starts_with("502 Bad Gateway Bad"), "{excerpt}");
    assert!(excerpt.chars().count() <= 161, "{excerpt}");
    assert!(!excerpt.contains('<') && !excerpt.contains('\x1b'));
    let line = e.to_string();
    assert!(line.contains("not a Gobare API answer"), "{line}");
    assert!(line.len() < 400, "{line}");
}

#[tokio::test]
async fn an_empty_error_body_is_survived() {
    let e = health_error(Reply::raw(503, "application/json", "")).await;
    assert_eq!(e.kind, ApiErrorKind::Unavailable);
    assert_eq!(e.body_excerpt, None);
    assert!(e.to_string().contains("HTTP 503"), "{e}");
}

#[tokio::test]
async fn hostile_messages_cannot_reach_the_terminal_raw() {
    let body = serde_json::json!({"error":{"code":"invalid_request",
        "message":"bad\u{1b}]0;owned\u{07}\nnext line","request_id":"r"}});
    let e = health_error(Reply::json(400, body)).await;
    let line = e.to_string();
    assert!(
        !line.contains('\x1b') && !line.contains('\x07') && !line.contains('\n'),
        "{line}"
    );
}

#[tokio::test]
async fn a_success_body_that_does_not_decode_is_a_decode_error() {
    let e = health_error(Reply::raw(200, "application/json", "{\"status\": ")).await;
    assert_eq!(e.kind, ApiErrorKind::Decode);
    assert_eq!(e.status, Some(200));
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn no_answer_at_all_is_a_retryable_network_error() {
    // Bind then drop a listener: the port is free and refuses connections.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = url::Url::parse(&format!("http://127.0.0.1:{port}")).unwrap();
    let client =
        gobare_api::client::ApiClient::new(gobare_api::client::ClientOptions::new(url, None))
            .unwrap();
    let e = client.health().await.unwrap_err();
    assert_eq!(e.kind, ApiErrorKind::Network);
    assert_eq!(e.status, None);
    assert_eq!(e.retry_hint(), RetryHint::Backoff);
    assert!(
        e.to_string().starts_with(&format!(
            "cannot reach 127.0.0.1:{port} (connection refused)"
        )),
        "{e}"
    );
}
