//! Reconnect frequency under hostile servers (issue 15 item 4), on tokio's paused clock:
//! each scenario answers every `open` the same way for ten virtual minutes and the test
//! counts the requests. `cargo test -p gobare-api --test all stream_rates -- --nocapture`
//! prints the figures.

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use gobare_api::auth::Token;
use gobare_api::model::{ErrorBody, ErrorCode};
use gobare_api::stream::transport::{ByteStream, OpenError, Transport};
use gobare_api::stream::{StreamOptions, StreamUpdate, spawn_seeded};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// What every `open` after the first gets (the first always sets `retry: 0`).
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// 429 `rate_limit_exceeded` with `Retry-After: 0`.
    RateLimitedRetryAfterZero,
    /// A stream with `retry: 0` and one delta, then EOF.
    OneDeltaThenClose,
    /// A stream with `retry: 0` and a truncation notice at the cursor, then EOF.
    TruncationNoticeThenClose,
    /// A stream with `retry: 0` and one new persisted event, then EOF (real progress).
    OneNewEventThenClose,
}

#[derive(Clone)]
struct Answers {
    hostile: Hostile,
    opens: Arc<Mutex<Vec<Instant>>>,
    next_seq: Arc<AtomicU64>,
}

impl Transport for Answers {
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        let n = {
            let mut opens = self.opens.lock().unwrap();
            opens.push(Instant::now());
            opens.len()
        };
        let at = cursor.unwrap_or(0);
        let body = if n == 1 {
            Some("retry: 0\n\n".to_string())
        } else {
            match self.hostile {
                Hostile::RateLimitedRetryAfterZero => None,
                Hostile::OneDeltaThenClose => Some(
                    "retry: 0\n\nevent: agent.text\ndata: {\"type\":\"agent.text\",\"seq\":null,\"payload\":{\"delta\":\"d\"}}\n\n".into(),
                ),
                Hostile::TruncationNoticeThenClose => Some(format!(
                    "retry: 0\n\nevent: gobare.replay_truncated\ndata: {{\"type\":\"gobare.replay_truncated\",\"seq\":null,\"from_seq\":{at}}}\n\n"
                )),
                Hostile::OneNewEventThenClose => {
                    let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
                    Some(format!(
                        "retry: 0\n\nid: {seq}\nevent: agent.message\ndata: {{\"type\":\"agent.message\",\"seq\":{seq},\"payload\":{{\"text\":\"m\"}}}}\n\n"
                    ))
                }
            }
        };
        Box::pin(async move {
            match body {
                Some(b) => Ok(futures_util::stream::iter([Ok(Bytes::from(b))]).boxed()),
                None => Err(OpenError::Status {
                    status: 429,
                    retry_after: Some(Duration::ZERO),
                    error: Some(ErrorBody {
                        code: ErrorCode::RateLimitExceeded,
                        message: "slow down".into(),
                        request_id: Some("req_rl".into()),
                    }),
                    request_id: Some("req_rl".into()),
                }),
            }
        })
    }
}

const MINUTES: u64 = 10;

/// Requests per minute over the last `MINUTES - 1` virtual minutes (the first minute holds
/// the ramp of the backoff, if any).
async fn steady_rate(hostile: Hostile) -> f64 {
    let answers = Answers {
        hostile,
        opens: Arc::default(),
        next_seq: Arc::new(AtomicU64::new(1)),
    };
    let options = StreamOptions {
        from: Some(0),
        token: Token::new("gbr_pat_secret"),
        ..StreamOptions::default()
    };
    let started = Instant::now();
    let mut handle = spawn_seeded(options, answers.clone(), 3);
    let end = started + Duration::from_secs(60 * MINUTES);
    while let Ok(Some(update)) = tokio::time::timeout_at(end, handle.updates.recv()).await {
        if let StreamUpdate::State(gobare_api::stream::ConnectionState::Failed { reason }) = update
        {
            panic!("{hostile:?}: the stream stopped: {reason}");
        }
    }
    let after_first_minute = started + Duration::from_secs(60);
    let steady = answers
        .opens
        .lock()
        .unwrap()
        .iter()
        .filter(|t| **t >= after_first_minute)
        .count();
    steady as f64 / (MINUTES - 1) as f64
}

/// The general bucket is 120 requests a minute (§7.8 item 7); a stream that makes no
/// progress must stay far below it, and even one that makes progress on every connection
/// must leave most of it to the rest of the client.
#[tokio::test(start_paused = true)]
async fn reconnects_per_minute_under_hostile_servers() {
    let mut figures = Vec::new();
    for hostile in [
        Hostile::RateLimitedRetryAfterZero,
        Hostile::OneDeltaThenClose,
        Hostile::TruncationNoticeThenClose,
        Hostile::OneNewEventThenClose,
    ] {
        let rate = steady_rate(hostile).await;
        eprintln!("reconnect rate under {hostile:?}: {rate:.1} requests/min");
        figures.push((hostile, rate));
    }
    for (hostile, rate) in figures {
        let ceiling = match hostile {
            Hostile::OneNewEventThenClose => 60.0,
            _ => 4.0,
        };
        assert!(rate <= ceiling, "{hostile:?}: {rate:.1}/min > {ceiling}");
    }
}
