//! Backpressure (§7.7) against a client that stops reading: past ~1 MiB unread the server
//! drops transient frames while persisted ones keep flowing, and past 8 MiB it closes the
//! connection.

use std::time::Duration;

use gobare_api::model::{Delta, EventPayload, Text};
use gobare_sim::SimConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{Api, WAIT};

/// Frame sizes: enough in all to overrun the socket buffers and the 8 MiB bound.
const DELTA_BYTES: usize = 1024;
const MESSAGE_BYTES: usize = 4096;
const PAIRS: usize = 4_000;

/// Opens the session stream on a raw socket with a small receive buffer and reads only
/// the response head: from then on the client reads nothing.
async fn stalled_stream(api: &Api, session: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut conn = socket.connect(api.sim.addr()).await.unwrap();
    let request = format!(
        "GET /v1/sessions/{session}/events HTTP/1.1\r\nhost: sim\r\nauthorization: Bearer {}\r\n\
         accept: text/event-stream\r\n\r\n",
        api.token
    );
    conn.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        assert_eq!(conn.read(&mut byte).await.unwrap(), 1, "the head arrives");
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    conn
}

/// Emits `PAIRS` transient deltas each followed by a persisted message, yielding now and
/// then so the stream's writer runs beside the emitter.
async fn emit_pairs(api: &Api, session: &str) {
    emit_pairs_yielding(api, session, true).await
}

/// As [`emit_pairs`]; without yielding, on a one-thread runtime the writer runs only after
/// the whole burst and finds it has fallen behind the live feed.
async fn emit_pairs_yielding(api: &Api, session: &str, yielding: bool) {
    let delta = "d".repeat(DELTA_BYTES);
    let message = "m".repeat(MESSAGE_BYTES);
    for i in 0..PAIRS {
        api.sim.emit(
            session,
            EventPayload::AgentText(Delta {
                delta: delta.clone(),
            }),
        );
        api.sim.emit(
            session,
            EventPayload::AgentMessage(Text {
                text: message.clone(),
            }),
        );
        if yielding && i % 4 == 0 {
            tokio::task::yield_now().await;
        }
    }
}

/// Reads until `done` holds for the last few KiB read, or the connection ends.
async fn read_until(conn: &mut tokio::net::TcpStream, done: impl Fn(&str) -> bool) -> String {
    let mut received = Vec::new();
    tokio::time::timeout(WAIT, async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
            let tail = &received[received.len().saturating_sub(4096)..];
            if done(&String::from_utf8_lossy(tail)) {
                break;
            }
        }
    })
    .await
    .expect("the stream ends or has everything");
    String::from_utf8_lossy(&received).into_owned()
}

/// The `id:` of every persisted frame in `text`, in order.
fn persisted_ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_client_loses_transient_frames_but_no_persisted_one() {
    let mut config = SimConfig::for_tests();
    config.stream_drop_transient_after = 64 * 1024;
    config.stream_close_after = 1 << 30;
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut conn = stalled_stream(&api, &id).await;
    emit_pairs(&api, &id).await;

    let last = api.sim.last_seq();
    let text = read_until(&mut conn, |t| t.contains(&format!("id: {last}\n"))).await;
    let ids = persisted_ids(&text);
    assert_eq!(ids.len(), PAIRS, "every persisted frame arrives");
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "in order, no gap");
    let deltas = text.matches("event: agent.text").count();
    assert!(
        deltas < PAIRS / 2,
        "only {deltas} of {PAIRS} transient frames arrive"
    );
    assert!(deltas > 0, "those written before the reader lagged arrive");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_client_is_closed_at_8_mib_unread() {
    stalled_client_is_closed(true).await
}

/// The writer falls behind the live feed (the burst outruns the broadcast buffer) and
/// catches up from the log: that catch-up is output the reader owes, so a reader that
/// stopped is still closed rather than waited on forever.
#[tokio::test(flavor = "current_thread")]
async fn a_stalled_client_is_closed_after_the_writer_catches_up_from_the_log() {
    stalled_client_is_closed(false).await
}

async fn stalled_client_is_closed(yielding: bool) {
    let config = SimConfig::for_tests();
    let close_after = config.stream_close_after;
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut conn = stalled_stream(&api, &id).await;
    assert_eq!(api.sim.open_streams(), 1);
    emit_pairs_yielding(&api, &id, yielding).await;
    // The writer gives up its slot when it closes the connection.
    let deadline = tokio::time::Instant::now() + WAIT;
    while api.sim.open_streams() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "never closed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // On the record: closed once, for what its reader left unread, at the second bound
    // (a write of at most a batch of frames more would have passed it).
    let closes = api.sim.lagging_closes();
    assert_eq!(closes.len(), 1, "{closes:?}");
    assert!(
        closes[0] <= close_after && closes[0] + 2 * 64 * 1024 > close_after,
        "closed with {} bytes unread (bound {close_after})",
        closes[0]
    );

    let text = read_until(&mut conn, |_| false).await;
    let emitted = PAIRS * (DELTA_BYTES + MESSAGE_BYTES);
    assert!(
        text.len() < emitted / 2,
        "{} of {emitted} bytes before the close",
        text.len()
    );
    let ids = persisted_ids(&text);
    // A writer that ran beside the emitter wrote some before the reader lagged; one that
    // ran only after the burst may be closed before the connection took anything.
    assert!(!yielding || !ids.is_empty());
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "what arrived is a gapless prefix; the cursor recovers the rest"
    );
    assert!((ids.len() as u64) < api.sim.last_seq());
}

/// A reader that pauses while the writer catches up on live frames from the log keeps its
/// connection as long as what it has not read stays under the closing bound (§7.7: the
/// connection is closed at 8 MiB unread, not after a time): after a pause longer than any
/// grace a timer would give, every persisted frame is still there to read.
#[tokio::test(flavor = "current_thread")]
async fn a_reader_paused_under_the_closing_bound_keeps_its_stream() {
    let mut config = SimConfig::for_tests();
    config.stream_drop_transient_after = 64 * 1024;
    config.stream_close_after = 1 << 30;
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut conn = stalled_stream(&api, &id).await;
    // Without yielding, the one-thread writer runs only after the burst: it has fallen
    // behind the live feed and catches up from the log.
    emit_pairs_yielding(&api, &id, false).await;
    // The pause is the stimulus: the reader takes nothing for longer than 2 s.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(api.sim.open_streams(), 1, "still open after the pause");
    assert!(api.sim.lagging_closes().is_empty());

    let last = api.sim.last_seq();
    let text = read_until(&mut conn, |t| t.contains(&format!("id: {last}\n"))).await;
    let ids = persisted_ids(&text);
    assert_eq!(ids.len(), PAIRS, "every persisted frame arrives");
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "in order, no gap");
}
