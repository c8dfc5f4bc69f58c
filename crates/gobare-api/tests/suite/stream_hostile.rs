//! The real transport and stream task against small hostile servers (issue 15 items 1-5):
//! redirects, mistyped truncation notices, cursor jumps, reconnect hammering, refusals
//! that must not be retried. Each server is a function of the request number.

use crate::support::hostile::{HostileServer, persisted, persisted_with_id, refusal, sse};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use gobare_api::auth::Token;
use gobare_api::stream::{ConnectionState, StreamOptions, StreamTarget, StreamUpdate, spawn};
use std::time::{Duration, Instant, SystemTime};

fn options(server: &HostileServer, from: Option<u64>) -> StreamOptions {
    StreamOptions {
        api: server.base.clone(),
        token: Token::new("gbr_pat_hostile_secret"),
        target: StreamTarget::Session("s1".into()),
        from,
        // These servers free a slot at once; the release floor has a test of its own.
        slot_release: Duration::ZERO,
        ..StreamOptions::default()
    }
}

/// Every update until the task stops (it reports `Failed` first) or `limit` passes.
async fn updates_until_stopped(options: StreamOptions, limit: Duration) -> Vec<StreamUpdate> {
    let mut handle = spawn(options);
    let mut all = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    while let Ok(Some(u)) = tokio::time::timeout_at(deadline, handle.updates.recv()).await {
        all.push(u);
    }
    all
}

fn failure(updates: &[StreamUpdate]) -> Option<&str> {
    updates.iter().find_map(|u| match u {
        StreamUpdate::State(ConnectionState::Failed { reason }) => Some(reason.as_str()),
        _ => None,
    })
}

fn persisted_ids(updates: &[StreamUpdate]) -> Vec<u64> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Frame(f) => f.id,
            _ => None,
        })
        .collect()
}

fn count(updates: &[StreamUpdate], pick: fn(&StreamUpdate) -> bool) -> usize {
    updates.iter().filter(|u| pick(u)).count()
}

fn end_of_script() -> Response {
    refusal(404, "not_found", &[])
}

/// Item 1: a redirect (to another origin, or to plain http elsewhere) is a refusal with a
/// clear message; the other origin never sees a request and nothing of it is applied.
#[tokio::test]
async fn a_redirect_is_refused_and_never_followed() {
    let elsewhere = HostileServer::start(|_, _| sse(persisted(999))).await;
    let other_origin = elsewhere.base.join("/v1/sessions/s1/events").unwrap();
    for (status, location) in [
        (302, other_origin.to_string()),
        (307, other_origin.to_string()),
        (
            301,
            "http://gobare.example/v1/sessions/s1/events".to_string(),
        ),
        (308, "/v1/sessions/s1/events?again=1".to_string()),
    ] {
        let server = HostileServer::start(move |_, _| {
            (
                StatusCode::from_u16(status).unwrap(),
                [("location", location.clone())],
            )
                .into_response()
        })
        .await;
        let updates =
            updates_until_stopped(options(&server, Some(0)), Duration::from_secs(10)).await;
        let reason = failure(&updates).unwrap_or_else(|| panic!("{status}: {updates:?}"));
        assert!(
            reason.contains(&format!("HTTP {status}")) && reason.contains("redirect"),
            "{reason}"
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{status}: retried");
        assert_eq!(requests[0].path, "/v1/sessions/s1/events");
        assert!(persisted_ids(&updates).is_empty());
    }
    assert!(elsewhere.requests().is_empty(), "a redirect was followed");
}

/// Item 1, defence in depth: a frame naming another session is dropped and never becomes
/// the cursor the next request (and the app's stored cursor) carries.
#[tokio::test]
async fn events_of_another_session_never_become_the_cursor() {
    let server = HostileServer::start(|n, _| match n {
        0 => sse(format!(
            "retry: 0\n\nid: 90\ndata: {{\"type\":\"agent.message\",\"session_id\":\"s2\",\"seq\":90,\"payload\":{{\"text\":\"x\"}}}}\n\n{}",
            persisted(3)
        )),
        _ => end_of_script(),
    })
    .await;
    let updates = updates_until_stopped(options(&server, Some(0)), Duration::from_secs(10)).await;
    assert_eq!(persisted_ids(&updates), vec![3]);
    assert_eq!(server.cursors(), vec![Some(0), Some(3)]);
    assert_eq!(
        count(&updates, |u| matches!(u, StreamUpdate::Skipped { .. })),
        1
    );
}

/// Item 2: each mistyped notice is still the notice; the live frame behind it (seq 900) is
/// never delivered and the stream collects the gap from `from_seq` first.
#[tokio::test]
async fn mistyped_truncation_notices_are_still_recognised() {
    let notices = [
        "event: gobare.replay_truncated\ndata: {\"type\":\"gobare.replay_truncated\",\"seq\":null,\"from_seq\":5,\"note\":{\"n\":1}}\n\n",
        "data: {\"type\":\"gobare.replay_truncated\",\"session_id\":7,\"internal_type\":8,\"seq\":null,\"from_seq\":5}\n\n",
        "data: {\"type\":\"gobare.replay_truncated\",\"seq\":null,\"payload\":\"cut\",\"from_seq\":5}\n\n",
        "id: 950\nevent: gobare.replay_truncated\ndata: {\"type\":\"gobare.replay_truncated\",\"seq\":null,\"from_seq\":5}\n\n",
        "event: gobare.replay_truncated\ndata: {\"seq\":null,\"from_seq\":5}\n\n",
    ];
    let runs = notices.into_iter().map(|notice| async move {
        let server = HostileServer::start(move |n, _| match n {
            0 => sse(format!(
                "retry: 0\n\n{}{notice}{}",
                persisted(7),
                persisted(900)
            )),
            1 => sse(format!("retry: 0\n\n{}{}", persisted(6), persisted(901))),
            _ => end_of_script(),
        })
        .await;
        let updates =
            updates_until_stopped(options(&server, Some(4)), Duration::from_secs(15)).await;
        (notice, server.cursors(), persisted_ids(&updates))
    });
    for (notice, cursors, ids) in futures_util::future::join_all(runs).await {
        assert_eq!(cursors, vec![Some(4), Some(5), Some(901)], "{notice}");
        assert_eq!(ids, vec![7, 901], "{notice}");
    }
}

/// Item 3: the cursor moves only to a persisted frame's own seq, and never beyond what was
/// delivered.
#[tokio::test]
async fn cursor_jumps_are_refused() {
    let server = HostileServer::start(|n, _| match n {
        0 => sse(format!(
            "retry: 0\n\n{}{}event: agent.text\nid: 700\ndata: {{\"type\":\"agent.text\",\"seq\":700,\"payload\":{{\"delta\":\"d\"}}}}\n\n{}event: gobare.replay_truncated\ndata: {{\"type\":\"gobare.replay_truncated\",\"seq\":null,\"from_seq\":10000}}\n\n",
            // An id: that disagrees with the seq: the seq wins.
            persisted_with_id("1000", 6),
            // Nothing could follow this one.
            persisted(u64::MAX),
            persisted(7),
        )),
        _ => end_of_script(),
    })
    .await;
    let updates = updates_until_stopped(options(&server, Some(5)), Duration::from_secs(10)).await;
    assert_eq!(persisted_ids(&updates), vec![6, 7]);
    // The truncation claimed 10000; the stream resumes after the last event it delivered.
    assert_eq!(server.cursors(), vec![Some(5), Some(7)]);
    let anomalies: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Anomaly { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(anomalies.len(), 2, "{anomalies:?}");
    assert!(anomalies[0].contains("1000") && anomalies[1].contains("10000"));
    // The delta was delivered as a delta, offering no seq to consumers that keep their own.
    let delta = updates
        .iter()
        .find_map(|u| match u {
            StreamUpdate::Frame(f) if f.data.contains("agent.text") => Some(f),
            _ => None,
        })
        .expect("delta delivered");
    assert_eq!(delta.id, None);
    assert_eq!(delta.event.as_ref().unwrap().seq, None);
}

/// Item 4 over real HTTP: after `retry: 0`, a server answering `429 Retry-After: 0`, or
/// streams of one delta without progress, get a handful of requests in five seconds, not
/// one every 250 ms.
#[tokio::test]
async fn zero_waits_from_the_server_do_not_make_the_client_hammer() {
    let rate_limited = HostileServer::start(|n, _| match n {
        0 => sse("retry: 0\n\n"),
        _ => refusal(429, "rate_limit_exceeded", &[("retry-after", "0")]),
    })
    .await;
    let deltas = HostileServer::start(|_, _| {
        sse("retry: 0\n\nevent: agent.text\ndata: {\"type\":\"agent.text\",\"seq\":null,\"payload\":{\"delta\":\"d\"}}\n\n")
    })
    .await;
    let window = Duration::from_secs(5);
    let (a, b) = tokio::join!(
        updates_until_stopped(options(&rate_limited, Some(0)), window),
        updates_until_stopped(options(&deltas, Some(0)), window),
    );
    assert_eq!(failure(&a), None);
    assert_eq!(failure(&b), None);
    for (name, server) in [("429 Retry-After: 0", &rate_limited), ("deltas", &deltas)] {
        let n = server.requests().len();
        eprintln!("{name}: {n} requests in {window:?}");
        // Floor 1 s, then backoff 0.5-1 s, 1-2 s, 2-4 s: at most 4 in five seconds.
        assert!((2..=4).contains(&n), "{name}: {n} requests in {window:?}");
    }
}

/// Item 5: refusals that waiting cannot fix stop at once, with the error's code, message
/// and request id.
#[tokio::test]
async fn refusals_that_must_not_be_retried_stop_with_code_message_and_request_id() {
    // (status, code, Retry-After)
    let cases = [
        (429, "project_limit_exceeded", Some("1")),
        (429, "rate_limit_exceeded", None),
        (503, "sandbox_unavailable", None),
        (500, "workspace_recovery_failed", Some("1")),
    ];
    for (status, code, retry_after) in cases {
        let server = HostileServer::start(move |_, _| match retry_after {
            Some(secs) => refusal(status, code, &[("retry-after", secs)]),
            None => refusal(status, code, &[]),
        })
        .await;
        let updates =
            updates_until_stopped(options(&server, Some(0)), Duration::from_secs(10)).await;
        let reason = failure(&updates).unwrap_or_else(|| panic!("{code}: {updates:?}"));
        assert!(
            reason.contains(&format!("HTTP {status}"))
                && reason.contains(code)
                && reason.contains(&format!("{code} says no"))
                && reason.contains(&format!("req_{code}")),
            "{reason}"
        );
        assert_eq!(server.requests().len(), 1, "{code} was retried");
        assert_eq!(
            count(&updates, |u| matches!(
                u,
                StreamUpdate::State(ConnectionState::Retrying { .. })
            )),
            0
        );
    }
}

/// Item 5: `Retry-After` as an HTTP date is waited out (a date is whole seconds, so the
/// wait is at least two of the three).
#[tokio::test]
async fn retry_after_as_an_http_date_is_honoured() {
    let server = HostileServer::start(|n, _| match n {
        0 => {
            let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3));
            refusal(503, "sandbox_unavailable", &[("retry-after", at.as_str())])
        }
        1 => sse(persisted(1)),
        _ => end_of_script(),
    })
    .await;
    let started = Instant::now();
    let updates = updates_until_stopped(options(&server, Some(0)), Duration::from_secs(20)).await;
    assert_eq!(persisted_ids(&updates), vec![1]);
    let requests = server.requests();
    let gap = requests[1].at - requests[0].at;
    assert!(
        gap >= Duration::from_secs(2) && gap <= Duration::from_secs(4),
        "{gap:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}
