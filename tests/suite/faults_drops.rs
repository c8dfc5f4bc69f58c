#![cfg(unix)]
//! Random mid-frame drops during a session that keeps producing events (issue 6): every
//! persisted event exactly once, in order, in both `tail` (the binary) and the app's model
//! (`spawn` → `Session`). Reports the reconnect count and the shortest wait observed,
//! which is never below the server's `retry:` hint.
//!
//! The normal suite runs a small version; `--ignored` runs 1,000 drops over 20,000 events
//! (figures in docs/development.md, "Reliability").

use crate::support;

use crate::support::faults::{Consumed, RETRY_MS, options, tail_until};
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use gobare_api::stream::spawn_with_transport;
use gobare_api::stream::transport::{ByteStream, HttpTransport, OpenError, Transport};
use gobare_sim::Faults;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Our real HTTP transport, with the moments each connection ended and the next began
/// written down: the wait the task really took, measured where it happens (a consumer
/// that lags behind its queue would see the announcements bunched together).
struct Timed {
    http: HttpTransport,
    /// `(true, t)` an open began, `(false, t)` a connection ended (EOF, error, refusal).
    marks: Arc<Mutex<Vec<(bool, Instant)>>>,
}

impl Transport for Timed {
    fn open(&self, cursor: Option<u64>) -> BoxFuture<'_, Result<ByteStream, OpenError>> {
        let marks = self.marks.clone();
        marks.lock().unwrap().push((true, Instant::now()));
        Box::pin(async move {
            let end = move || marks.lock().unwrap().push((false, Instant::now()));
            match self.http.open(cursor).await {
                Err(e) => {
                    end();
                    Err(e)
                }
                Ok(body) => {
                    let on_error = end.clone();
                    let body = body
                        .inspect(move |chunk| {
                            if chunk.is_err() {
                                on_error();
                            }
                        })
                        .chain(
                            futures_util::stream::once(async move {
                                end();
                            })
                            .filter_map(|()| async { None }),
                        );
                    Ok(body.boxed())
                }
            }
        })
    }
}

/// Each gap between a connection's end and the next open.
fn waits(marks: &[(bool, Instant)]) -> Vec<Duration> {
    marks
        .windows(2)
        .filter_map(|w| match (w[0], w[1]) {
            ((false, ended), (true, opened)) => Some(opened - ended),
            _ => None,
        })
        .collect()
}

struct Figures {
    reconnects: usize,
    shortest_wait: Duration,
    tail_reconnects: usize,
    elapsed: Duration,
}

/// Seeds `initial` events, then keeps adding `batch` every `pace` up to `total` while
/// `tail` and the model follow from 0 through random drops of probability `p`.
async fn run(initial: usize, total: usize, batch: usize, pace: Duration, p: f64) -> Figures {
    let started = Instant::now();
    let sim = support::faults::sim().await;
    let id = sim.create_session(Some("drops"));
    let base = sim.last_seq();
    sim.seed_events(&id, initial);
    sim.set_faults(Faults {
        drop_probability: p,
        chunk_writes: Some((1, 700)),
        ..Faults::default()
    });
    let last = base + total as u64;

    let producer = async {
        let mut emitted = initial;
        while emitted < total {
            tokio::time::sleep(pace).await;
            let n = batch.min(total - emitted);
            sim.seed_events(&id, n);
            emitted += n;
        }
    };

    let model = async {
        let mut model = Consumed::new(&id);
        let opts = options(&sim, &id, Some(0));
        let marks = Arc::new(Mutex::new(Vec::new()));
        let timed = Timed {
            http: HttpTransport::new(&opts).unwrap(),
            marks: marks.clone(),
        };
        let mut handle = spawn_with_transport(opts, timed);
        model
            .until_seq(&mut handle.updates, last, Duration::from_secs(1800))
            .await;
        let waits = waits(&marks.lock().unwrap());
        (model, waits)
    };

    let tail = tail_until(
        &sim,
        &id,
        0,
        last,
        &["--verbose"],
        Duration::from_secs(1800),
    );
    let ((), (model, waits), tail) = tokio::join!(producer, model, tail);

    let expected: Vec<u64> = (base + 1..=last).collect();
    assert_eq!(
        model.applied, expected,
        "the model: every event once, in order"
    );
    assert_eq!(
        tail.persisted(),
        expected,
        "tail: every event once, in order"
    );
    assert_eq!(tail.code, Some(0));
    assert!(model.skipped.is_empty(), "{:?}", model.skipped);

    let shortest_wait = waits.iter().min().copied().unwrap_or_default();
    assert!(!waits.is_empty(), "the faults caused reconnects");
    assert!(
        shortest_wait >= Duration::from_millis(RETRY_MS),
        "a reconnect came sooner than the retry: hint"
    );
    // The client's own floor is stricter than the 1 ms hint.
    assert!(
        shortest_wait >= support::faults::MIN_RECONNECT,
        "{shortest_wait:?}"
    );
    let tail_reconnects = support::faults::announced_reconnects(&tail.stderr).len();
    sim.shutdown().await;
    Figures {
        reconnects: waits.len(),
        shortest_wait,
        tail_reconnects,
        elapsed: started.elapsed(),
    }
}

fn report(name: &str, f: &Figures) {
    eprintln!(
        "{name}: model reconnects {}, tail reconnects {}, shortest wait {:?}, elapsed {:?}",
        f.reconnects, f.tail_reconnects, f.shortest_wait, f.elapsed
    );
}

#[tokio::test]
async fn random_drops_during_a_live_session_lose_and_repeat_nothing() {
    // ~20 drops per client over 3,000 events.
    let f = run(1_000, 3_000, 100, Duration::from_millis(50), 0.006).await;
    report("small", &f);
    assert!(f.reconnects >= 5, "{}", f.reconnects);
}

/// `cargo test --release --test all -- --ignored --nocapture faults_drops`
#[tokio::test]
#[ignore = "long: about 1,000 drops, each waiting at least the 1 s reconnect floor (~20 min)"]
async fn a_thousand_random_drops_during_a_20k_event_session() {
    // 20,000 events, p = 0.05 per frame → about 1,000 mid-frame drops per client.
    let f = run(5_000, 20_000, 150, Duration::from_millis(100), 0.05).await;
    report("long", &f);
    assert!(f.reconnects >= 900, "{}", f.reconnects);
}
