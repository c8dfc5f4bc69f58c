//! The stream task over a scripted transport, on tokio's paused clock: reconnect timing,
//! cursors on every request, dedupe, truncation, terminal refusals.

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use gobare_api::auth::Token;
use gobare_api::model::{ErrorBody, ErrorCode};
use gobare_api::stream::ConnectionState;
use gobare_api::stream::transport::{ByteStream, OpenError, ReadError, Transport};
use gobare_api::stream::{StreamFrame, StreamHandle, StreamOptions, StreamUpdate, spawn_seeded};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

enum Step {
    Bytes(String),
    /// Nothing more arrives, and the connection stays open.
    Stall,
    Fail(&'static str),
    /// One byte of a line that never ends, every second, forever.
    Trickle,
}

enum Open {
    Body(Vec<Step>),
    Refuse(OpenError),
}

/// When each `open` happened and which cursor it carried.
type OpenRecord = Arc<Mutex<Vec<(Instant, Option<u64>)>>>;

/// Plays one scripted answer per `open`, recording when and with which cursor it was called.
/// When the script runs out it answers 404, which ends the task.
#[derive(Clone)]
struct Scripted {
    script: Arc<Mutex<VecDeque<Open>>>,
    requests: OpenRecord,
}

impl Scripted {
    fn new(script: Vec<Open>) -> Self {
        Scripted {
            script: Arc::new(Mutex::new(script.into())),
            requests: Arc::default(),
        }
    }

    fn cursors(&self) -> Vec<Option<u64>> {
        self.requests.lock().unwrap().iter().map(|r| r.1).collect()
    }

    fn times(&self) -> Vec<Instant> {
        self.requests.lock().unwrap().iter().map(|r| r.0).collect()
    }
}

impl Transport for Scripted {
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        self.requests.lock().unwrap().push((Instant::now(), cursor));
        let next = self
            .script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Open::Refuse(refusal(404, ErrorCode::NotFound, None)));
        Box::pin(async move {
            match next {
                Open::Refuse(e) => Err(e),
                Open::Body(steps) => {
                    let steps: VecDeque<Step> = steps.into();
                    let body = futures_util::stream::unfold(steps, |mut it| async {
                        match it.pop_front()? {
                            Step::Bytes(b) => Some((Ok(Bytes::from(b)), it)),
                            Step::Fail(m) => Some((Err(ReadError(m.into())), it)),
                            Step::Stall => futures_util::future::pending().await,
                            Step::Trickle => {
                                tokio::time::sleep(Duration::from_secs(1)).await;
                                it.push_front(Step::Trickle);
                                Some((Ok(Bytes::from_static(b"x")), it))
                            }
                        }
                    });
                    Ok(body.boxed())
                }
            }
        })
    }
}

fn refusal(status: u16, code: ErrorCode, retry_after: Option<u64>) -> OpenError {
    OpenError::Status {
        status,
        retry_after: retry_after.map(Duration::from_secs),
        error: Some(ErrorBody {
            code,
            message: "nope".into(),
            request_id: Some("req_42".into()),
        }),
        request_id: Some("req_42".into()),
    }
}

fn persisted(seq: u64) -> String {
    format!(
        "id: {seq}\nevent: agent.message\ndata: {{\"object\":\"event\",\"type\":\"agent.message\",\"seq\":{seq},\"payload\":{{\"text\":\"m{seq}\"}}}}\n\n"
    )
}

fn delta() -> String {
    "event: agent.text\ndata: {\"type\":\"agent.text\",\"seq\":null,\"payload\":{\"delta\":\"d\"}}\n\n"
        .into()
}

fn truncated(from: u64) -> String {
    format!(
        "event: gobare.replay_truncated\ndata: {{\"type\":\"gobare.replay_truncated\",\"seq\":null,\"from_seq\":{from}}}\n\n"
    )
}

fn body(parts: &[String]) -> Open {
    Open::Body(parts.iter().cloned().map(Step::Bytes).collect())
}

/// Options whose reconnects follow the hints and the backoff alone: the slot's release
/// floor has a test of its own.
fn options(from: Option<u64>) -> StreamOptions {
    StreamOptions {
        from,
        max_backoff: Duration::from_secs(30),
        token: Token::new("gbr_pat_secret"),
        slot_release: Duration::ZERO,
        ..StreamOptions::default()
    }
}

/// Runs the task to its end (the script's final 404), returning every update.
async fn run(options: StreamOptions, transport: &Scripted) -> Vec<StreamUpdate> {
    let mut h: StreamHandle = spawn_seeded(options, transport.clone(), 1);
    let mut all = Vec::new();
    while let Some(u) = h.updates.recv().await {
        all.push(u);
    }
    all
}

fn frames(updates: &[StreamUpdate]) -> Vec<&StreamFrame> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Frame(f) => Some(f),
            _ => None,
        })
        .collect()
}

fn persisted_ids(updates: &[StreamUpdate]) -> Vec<u64> {
    frames(updates).iter().filter_map(|f| f.id).collect()
}

fn retrying(updates: &[StreamUpdate]) -> Vec<(u64, String)> {
    updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::State(ConnectionState::Retrying { in_ms, reason, .. }) => {
                Some((*in_ms, reason.clone()))
            }
            _ => None,
        })
        .collect()
}

fn gaps(t: &Scripted) -> Vec<Duration> {
    t.times().windows(2).map(|w| w[1] - w[0]).collect()
}

#[tokio::test(start_paused = true)]
async fn watchdog_abandons_a_silent_stream_after_45s_and_resumes_from_the_cursor() {
    let t = Scripted::new(vec![
        Open::Body(vec![
            Step::Bytes(persisted(5)),
            Step::Bytes(": ping\n\n".into()),
            Step::Stall,
        ]),
        body(&[persisted(6)]),
    ]);
    let updates = run(options(Some(0)), &t).await;
    assert_eq!(t.cursors(), vec![Some(0), Some(5), Some(6)]);
    let g = gaps(&t);
    // 45 s of silence, then the 2 s default hint.
    assert!(
        g[0] >= Duration::from_secs(47) && g[0] < Duration::from_secs(48),
        "{g:?}"
    );
    assert!(retrying(&updates)[0].1.contains("no data for 45s"));
    assert_eq!(persisted_ids(&updates), vec![5, 6]);
}

#[tokio::test(start_paused = true)]
async fn retry_hint_is_honoured_and_defaults_to_2s() {
    let t = Scripted::new(vec![
        body(&[persisted(1)]),
        body(&["retry: 8000\n\n".into(), persisted(2)]),
        body(&[persisted(3)]),
    ]);
    let updates = run(options(None), &t).await;
    let g = gaps(&t);
    assert!(g[0] >= Duration::from_secs(2), "{g:?}");
    assert!(g[1] >= Duration::from_secs(8), "{g:?}");
    assert!(
        g[2] >= Duration::from_secs(8),
        "the 404 follows the hint too: {g:?}"
    );
    assert_eq!(retrying(&updates)[1].0, 8000);
    assert_eq!(t.cursors(), vec![None, Some(1), Some(2), Some(3)]);
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_honoured_on_429_and_503() {
    let t = Scripted::new(vec![
        Open::Refuse(refusal(429, ErrorCode::RateLimitExceeded, Some(7))),
        Open::Refuse(refusal(503, ErrorCode::SandboxUnavailable, Some(11))),
        body(&[persisted(9)]),
    ]);
    let updates = run(options(Some(4)), &t).await;
    let g = gaps(&t);
    assert!(
        g[0] >= Duration::from_secs(7) && g[0] < Duration::from_secs(8),
        "{g:?}"
    );
    assert!(
        g[1] >= Duration::from_secs(11) && g[1] < Duration::from_secs(12),
        "{g:?}"
    );
    let r = retrying(&updates);
    assert_eq!((r[0].0, r[1].0), (7000, 11000));
    assert!(r[0].1.contains("rate_limit_exceeded") && r[0].1.contains("req_42"));
    assert_eq!(t.cursors(), vec![Some(4), Some(4), Some(4), Some(9)]);
}

#[tokio::test(start_paused = true)]
async fn refusals_401_403_404_stop_without_retry() {
    for (status, code) in [
        (401, ErrorCode::AuthenticationError),
        (403, ErrorCode::PermissionDenied),
        (404, ErrorCode::NotFound),
    ] {
        let mut e = refusal(status, code.clone(), None);
        if let OpenError::Status { error: Some(b), .. } = &mut e {
            b.message = "token gbr_pat_secret lacks sessions:read".into(); // hostile echo
        }
        let t = Scripted::new(vec![Open::Refuse(e)]);
        let updates = run(options(Some(1)), &t).await;
        assert_eq!(t.cursors().len(), 1, "{status} was retried");
        let StreamUpdate::State(ConnectionState::Failed { reason }) = updates.last().unwrap()
        else {
            panic!("{updates:?}")
        };
        assert!(
            reason.contains(code.as_str()) && reason.contains("req_42"),
            "{reason}"
        );
        assert!(reason.contains("lacks sessions:read"), "{reason}");
        assert!(!format!("{updates:?}").contains("gbr_pat_secret"));
    }
}

#[tokio::test(start_paused = true)]
async fn backoff_grows_is_capped_and_resets_after_a_frame() {
    let mut script: Vec<Open> = (0..8)
        .map(|_| Open::Refuse(refusal(500, ErrorCode::InternalError, None)))
        .collect();
    script.push(body(&[persisted(1)]));
    script.push(Open::Refuse(refusal(500, ErrorCode::InternalError, None)));
    let t = Scripted::new(script);
    let mut opts = options(Some(0));
    opts.max_backoff = Duration::from_secs(10);
    let updates = run(opts, &t).await;
    let waits: Vec<u64> = retrying(&updates).iter().map(|r| r.0).collect();
    // Failure n waits in [step/2, step] with step = min(1 s * 2^(n-1), cap), floored by the
    // 2 s hint.
    for (i, w) in waits.iter().take(8).enumerate() {
        let step = (1000u64 << i).min(10_000);
        assert!(
            *w >= (step / 2).max(2000) && *w <= step.max(2000),
            "wait {i}: {waits:?}"
        );
    }
    assert!(waits[..8].iter().all(|w| *w <= 10_000));
    assert!(waits[5..8].iter().all(|w| *w >= 5000), "{waits:?}");
    // The connection that delivered seq 1 reset the count: back to the hint.
    assert_eq!(waits[8], 2000);
    assert_eq!(
        waits[9], 2000,
        "first failure after a reset waits at most 1 s -> the hint"
    );
}

#[tokio::test(start_paused = true)]
async fn connections_that_deliver_nothing_back_off() {
    let script: Vec<Open> = (0..6).map(|_| body(&[": ping\n\n".into()])).collect();
    let t = Scripted::new(script);
    let updates = run(options(None), &t).await;
    let waits: Vec<u64> = retrying(&updates).iter().map(|r| r.0).collect();
    assert!(
        waits[5] >= 8000,
        "empty connections must count as failures: {waits:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn truncation_reconnects_from_from_seq_until_complete() {
    let t = Scripted::new(vec![
        body(&[persisted(1), persisted(2), truncated(2), persisted(900)]),
        body(&[persisted(3), persisted(4), truncated(4) + &persisted(901)]),
        body(&[persisted(5), persisted(900), persisted(901), delta()]),
    ]);
    let updates = run(options(Some(0)), &t).await;
    assert_eq!(t.cursors(), vec![Some(0), Some(2), Some(4), Some(901)]);
    assert_eq!(persisted_ids(&updates), vec![1, 2, 3, 4, 5, 900, 901]);
    let notices = frames(&updates)
        .iter()
        .filter(|f| f.id.is_none() && f.data.contains("replay_truncated"))
        .count();
    assert_eq!(notices, 2);
    assert!(retrying(&updates)[0].1.contains("after seq 2"));
}

#[tokio::test(start_paused = true)]
async fn duplicates_at_or_below_the_cursor_are_dropped() {
    let t = Scripted::new(vec![
        body(&[persisted(9), persisted(10), persisted(11)]),
        body(&[persisted(11), persisted(12), persisted(12), persisted(13)]),
    ]);
    let updates = run(options(Some(10)), &t).await;
    assert_eq!(persisted_ids(&updates), vec![11, 12, 13]);
    assert_eq!(t.cursors(), vec![Some(10), Some(11), Some(13)]);
}

#[tokio::test(start_paused = true)]
async fn none_and_zero_are_distinct_on_the_first_request() {
    for from in [None, Some(0)] {
        let t = Scripted::new(vec![body(&[delta()])]);
        run(options(from), &t).await;
        assert_eq!(t.cursors(), vec![from, from]);
    }
}

#[tokio::test(start_paused = true)]
async fn gap_caveat_option_replays_from_zero_after_an_early_drop() {
    let t = Scripted::new(vec![body(&[delta()]), body(&[persisted(3)])]);
    let mut opts = options(None);
    opts.replay_if_dropped_before_first_event = true;
    run(opts, &t).await;
    assert_eq!(t.cursors(), vec![None, Some(0), Some(3)]);
}

#[tokio::test(start_paused = true)]
async fn transient_frames_never_move_the_cursor() {
    let t = Scripted::new(vec![
        body(&[persisted(4), delta(), delta_claiming_a_seq()]),
        Open::Body(vec![Step::Bytes(delta()), Step::Fail("connection reset")]),
    ]);
    let updates = run(options(Some(3)), &t).await;
    assert_eq!(t.cursors(), vec![Some(3), Some(4), Some(4)]);
    assert_eq!(frames(&updates).len(), 4);
    assert!(retrying(&updates)[1].1.contains("connection reset"));
}

/// A delta whose envelope claims a seq but which has no `id:` line.
fn delta_claiming_a_seq() -> String {
    "data: {\"type\":\"agent.text\",\"seq\":77,\"payload\":{\"delta\":\"x\"}}\n\n".into()
}

#[tokio::test(start_paused = true)]
async fn oversized_and_undecodable_frames() {
    let big = format!("id: 6\ndata: {}\n\n", "x".repeat(5000));
    let t = Scripted::new(vec![body(&[
        big,
        "data: not json\n\n".into(),
        "id: 7\ndata: also not json\n\n".into(),
    ])]);
    let mut opts = options(Some(5));
    opts.max_frame_bytes = 1024;
    let updates = run(opts, &t).await;
    let skipped: Vec<_> = updates
        .iter()
        .filter(|u| matches!(u, StreamUpdate::Skipped { .. }))
        .collect();
    // The undecodable transient frame is skipped; the oversized persisted one is named.
    assert_eq!(skipped.len(), 1, "{updates:?}");
    let lost: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::Lost { seq, reason } => Some((*seq, reason.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(lost.len(), 1, "{updates:?}");
    assert_eq!(lost[0].0, 6);
    assert!(lost[0].1.contains("1024 byte limit"), "{}", lost[0].1);
    let f = frames(&updates);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].id, Some(7));
    assert!(f[0].event.is_err());
    // The undecodable persisted frame still advanced the cursor.
    assert_eq!(t.cursors(), vec![Some(5), Some(7)]);
}

#[tokio::test(start_paused = true)]
async fn states_are_reported_in_order() {
    let t = Scripted::new(vec![body(&[persisted(1)])]);
    let updates = run(options(None), &t).await;
    let states: Vec<_> = updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::State(s) => Some(std::mem::discriminant(s)),
            _ => None,
        })
        .collect();
    use ConnectionState::*;
    let want = [
        Connecting { attempt: 1 },
        Open { silent_before: 0 },
        Live,
        Retrying {
            in_ms: 0,
            attempt: 1,
            reason: String::new(),
        },
        Connecting { attempt: 1 },
        Failed {
            reason: String::new(),
        },
    ]
    .map(|s| std::mem::discriminant(&s));
    assert_eq!(states, want);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_receiver_stops_the_task() {
    let t = Scripted::new((0..5).map(|_| body(&[persisted(1)])).collect());
    let mut h = spawn_seeded(options(None), t.clone(), 1);
    while let Some(u) = h.updates.recv().await {
        if matches!(u, StreamUpdate::Frame(_)) {
            break;
        }
    }
    drop(h);
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert_eq!(t.cursors().len(), 1);
}

/// Ctrl+R while reconnecting: the task's own backoff is cut short, but the server's
/// `Retry-After` and the `retry:` hint are still waited out; a press while nothing is
/// waiting leaves no credit that would skip a later wait.
#[tokio::test(start_paused = true)]
async fn retry_now_cuts_only_our_own_backoff() {
    let mut script: Vec<Open> = (0..5)
        .map(|_| Open::Refuse(refusal(500, ErrorCode::InternalError, None)))
        .collect();
    script.push(Open::Refuse(refusal(
        503,
        ErrorCode::SandboxUnavailable,
        Some(20),
    )));
    script.push(body(&[persisted(1)]));
    let t = Scripted::new(script);
    let mut h: StreamHandle = spawn_seeded(options(Some(0)), t.clone(), 1);
    // A press before anything waits: no effect later.
    h.retry_now();
    let mut retries = 0;
    while let Some(u) = h.updates.recv().await {
        if let StreamUpdate::State(ConnectionState::Retrying { .. }) = u {
            retries += 1;
            // Let the task reach its wait, then ask for now from the 5th wait on (the
            // backoff has grown past the 2 s hint by then) and on the Retry-After wait.
            tokio::task::yield_now().await;
            if retries >= 5 {
                h.retry_now();
            }
        }
        if matches!(u, StreamUpdate::Frame(_)) {
            break;
        }
    }
    let g = gaps(&t);
    assert_eq!(g.len(), 6, "{g:?}");
    // Waits 1–4 ran their course: at least the 2 s hint, growing.
    assert!(g[..4].iter().all(|w| *w >= Duration::from_secs(2)), "{g:?}");
    assert!(g[3] >= Duration::from_secs(4), "backoff grew: {g:?}");
    // Wait 5 (a backoff of 8–16 s) was cut to the hint.
    assert_eq!(g[4], Duration::from_secs(2), "{g:?}");
    // Wait 6 was the server's Retry-After: 20 s, whatever the user pressed.
    assert_eq!(g[5], Duration::from_secs(20), "{g:?}");
}

#[tokio::test(start_paused = true)]
async fn a_comment_line_trickled_forever_does_not_keep_a_dead_stream_live() {
    let t = Scripted::new(vec![
        Open::Body(vec![
            Step::Bytes(persisted(1)),
            Step::Bytes(": keep".into()),
            Step::Trickle,
        ]),
        body(&[persisted(2)]),
    ]);
    // Bytes every second, but never a line end: counting bytes would never end this.
    let updates = tokio::time::timeout(Duration::from_secs(600), run(options(Some(0)), &t))
        .await
        .expect("the watchdog gave up on the trickle");
    assert_eq!(persisted_ids(&updates), vec![1, 2]);
    assert!(retrying(&updates)[0].1.contains("no data for 45s"));
    let g = gaps(&t);
    // 45 s without a line, the watchdog's short grace, then the 2 s default hint.
    assert!(
        g[0] >= Duration::from_secs(47) && g[0] < Duration::from_secs(48),
        "{g:?}"
    );
}

/// One connection whose bytes the test hands over, reporting each poll of the body; later
/// opens are refused (404), which ends the task.
struct Gated {
    body: Mutex<
        Option<(
            tokio::sync::mpsc::UnboundedReceiver<String>,
            tokio::sync::mpsc::UnboundedSender<()>,
        )>,
    >,
}

impl Transport for Gated {
    fn open(&self, _cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        let next = self.body.lock().unwrap().take();
        Box::pin(async move {
            let Some((mut rx, polled)) = next else {
                return Err(refusal(404, ErrorCode::NotFound, None));
            };
            let body = futures_util::stream::poll_fn(move |cx| {
                let _ = polled.send(());
                rx.poll_recv(cx).map(|b| b.map(|b| Ok(Bytes::from(b))))
            });
            Ok(body.boxed())
        })
    }
}

#[tokio::test(start_paused = true)]
async fn after_a_stop_the_watchdog_reads_what_is_buffered_before_judging() {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (polled_tx, mut polled) = tokio::sync::mpsc::unbounded_channel();
    let gated = Gated {
        body: Mutex::new(Some((rx, polled_tx))),
    };
    tx.send(persisted(1)).unwrap();
    let mut h = spawn_seeded(options(Some(0)), gated, 1);
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|u| matches!(u, StreamUpdate::Frame(f) if f.id == Some(1)))
    {
        seen.push(h.updates.recv().await.unwrap());
    }
    // The task is back waiting on the body. Then the process is stopped for longer than
    // the idle timeout: the clock jumps with nothing running.
    while polled.try_recv().is_ok() {}
    tokio::time::advance(Duration::from_secs(60)).await;
    // What arrived during the stop is read before silence is judged...
    assert!(
        polled.recv().await.is_some(),
        "the connection was judged dead without reading it again: {:?}",
        std::iter::from_fn(|| h.updates.try_recv().ok()).collect::<Vec<_>>()
    );
    tx.send(persisted(2)).unwrap();
    drop(tx);
    while let Some(u) = h.updates.recv().await {
        seen.push(u);
    }
    // ...so the connection was kept: event 2 came on it, and the only drop is its end.
    assert_eq!(persisted_ids(&seen), vec![1, 2]);
    let retries = retrying(&seen);
    assert_eq!(retries.len(), 1, "{seen:?}");
    assert!(retries[0].1.contains("closed"), "{seen:?}");
}

/// A connection that has frames ready on every read (`total` of them), counting how many
/// the task has taken off it.
struct Flood {
    frame: String,
    total: usize,
    taken: Arc<std::sync::atomic::AtomicUsize>,
}

impl Transport for Flood {
    fn open(&self, _cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        let (frame, total, taken) = (self.frame.clone(), self.total, self.taken.clone());
        Box::pin(async move {
            let body = futures_util::stream::iter(0..total).map(move |_| {
                taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(Bytes::from(frame.clone()))
            });
            Ok(body.chain(futures_util::stream::pending()).boxed())
        })
    }
}

#[tokio::test(start_paused = true)]
async fn the_queue_is_bounded_by_bytes_and_the_socket_waits() {
    let data = format!(
        "{{\"type\":\"agent.text\",\"seq\":null,\"payload\":{{\"delta\":\"{}\"}}}}",
        "x".repeat(60)
    );
    let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let flood = Flood {
        frame: format!("data: {data}\n\n"),
        total: 100_000,
        taken: taken.clone(),
    };
    let mut opts = options(None);
    opts.max_queued_bytes = 10 * (data.len() + gobare_api::stream::FRAME_OVERHEAD_BYTES);
    let mut h = spawn_seeded(opts, flood, 1);
    let read =
        |taken: &std::sync::atomic::AtomicUsize| taken.load(std::sync::atomic::Ordering::SeqCst);
    // On the paused clock this sleep ends only once every task is idle: the stream task
    // is then waiting for room, not reading.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let queued_then = read(&taken);
    // Ten frames fit; one more is in hand waiting for room.
    assert!(
        queued_then <= 11,
        "read {queued_then} frames with room for 10"
    );
    let mut frames = 0;
    while frames < 5 {
        if let StreamUpdate::Frame(_) = h.updates.recv().await.unwrap() {
            frames += 1; // dropped here, giving its share back
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = read(&taken);
    assert!(
        after > queued_then && after <= queued_then + 5,
        "{queued_then} then {after}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_closed_stream_is_reopened_no_sooner_than_its_slot_is_freed() {
    let t = Scripted::new(vec![body(&[persisted(1)]), body(&[persisted(2)])]);
    let updates = run(
        StreamOptions {
            slot_release: gobare_api::schedule::SLOT_RELEASE,
            ..options(Some(0))
        },
        &t,
    )
    .await;
    assert_eq!(persisted_ids(&updates), vec![1, 2]);
    let g = gaps(&t);
    // The server's hint is 2 s, but the service holds the closed slot ~4.5 s (§5).
    assert!(g.iter().all(|g| *g >= Duration::from_secs(5)), "{g:?}");
    assert!(g[0] < Duration::from_millis(5_500), "{g:?}");
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_says_nothing_is_open_not_live_and_silent_ones_are_counted() {
    let t = Scripted::new(vec![
        Open::Body(vec![Step::Bytes("retry: 2000\n\n".into()), Step::Stall]),
        Open::Body(vec![Step::Stall]),
        Open::Body(vec![Step::Stall]),
        body(&[persisted(3)]),
    ]);
    let updates = run(options(Some(0)), &t).await;
    let states: Vec<&ConnectionState> = updates
        .iter()
        .filter_map(|u| match u {
            StreamUpdate::State(s @ (ConnectionState::Open { .. } | ConnectionState::Live)) => {
                Some(s)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        vec![
            &ConnectionState::Open { silent_before: 0 },
            &ConnectionState::Open { silent_before: 1 },
            &ConnectionState::Open { silent_before: 2 },
            &ConnectionState::Open { silent_before: 3 },
            &ConnectionState::Live,
        ],
        "a retry: line is not speech; each silent connection counts"
    );
    assert_eq!(persisted_ids(&updates), vec![3]);
}

#[tokio::test(start_paused = true)]
async fn asked_to_reconnect_a_silent_connection_ends_it_at_once() {
    let t = Scripted::new(vec![Open::Body(vec![Step::Stall]), body(&[persisted(1)])]);
    let mut h = spawn_seeded(options(Some(0)), t.clone(), 1);
    loop {
        match h.updates.recv().await {
            Some(StreamUpdate::State(ConnectionState::Open { .. })) => break,
            Some(_) => {}
            None => panic!("ended before opening"),
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    h.retry_now();
    let mut ids = Vec::new();
    while let Some(u) = h.updates.recv().await {
        if let StreamUpdate::Frame(f) = u {
            ids.extend(f.id);
        }
    }
    assert_eq!(ids, vec![1]);
    let g = gaps(&t);
    assert!(
        g[0] < Duration::from_secs(10),
        "not the 45 s watchdog: {g:?}"
    );
}

/// One receive call for every profile: a profile that takes frames in runs gets a chunk's
/// persisted frames (past the first, which the general path reads) as a `StreamUpdate::Run`
/// from `recv`, counting as its frames; any other profile gets every frame one by one.
#[tokio::test(start_paused = true)]
async fn recv_hands_a_chunk_as_a_run_only_to_a_profile_that_takes_runs() {
    let chunk = [persisted(1), persisted(2), persisted(3), persisted(4)].concat();
    let read = |profile| {
        let t = Scripted::new(vec![body(std::slice::from_ref(&chunk))]);
        let options = StreamOptions {
            profile,
            ..options(Some(0))
        };
        async move { run(options, &t).await }
    };
    // Persisted seqs in the order handed over, and how many runs carried them.
    let seqs = |updates: &[StreamUpdate]| {
        let mut seqs = Vec::new();
        let mut runs = 0;
        for update in updates {
            match update {
                StreamUpdate::Run(run) => {
                    runs += 1;
                    assert_eq!(update.count(), run.len());
                    seqs.extend(run.seqs());
                }
                StreamUpdate::Frame(frame) => seqs.extend(frame.id),
                _ => assert_eq!(update.count(), 1),
            }
        }
        (seqs, runs)
    };
    let printed = read(gobare_api::stream::StreamProfile::PRINTED).await;
    let (printed_seqs, printed_runs) = seqs(&printed);
    assert_eq!(printed_seqs, vec![1, 2, 3, 4], "{printed:?}");
    assert!(printed_runs >= 1, "{printed:?}");

    let events = read(gobare_api::stream::StreamProfile::EVENTS).await;
    assert_eq!(seqs(&events), (vec![1, 2, 3, 4], 0), "{events:?}");
}
