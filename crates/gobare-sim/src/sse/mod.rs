//! The event streams (§7): cursor parsing, stream caps, replay with truncation, live
//! frames, keep-alive pings, backpressure on a lagging reader, and injected faults.
//!
//! `backpressure` decides what a lagging reader loses.

pub(crate) mod backpressure;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::{Notify, broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use gobare_api::clock::unix_ms;
use gobare_api::model::{ErrorCode, Event, EventPayload, ReplayTruncated};

use crate::db::{Db, Frame};
use crate::faults::Faults;
use crate::lock::lock;
use crate::refusal::Refusal;
use crate::sse::backpressure::{Admit, Bounds};
use crate::state::Shared;

/// Which sessions a stream carries.
#[derive(Debug, Clone)]
pub(crate) enum Scope {
    Session(String),
    Org,
    Tree(String),
}

impl Scope {
    /// The one session this stream follows, if that is what it follows.
    fn session(&self) -> Option<&str> {
        match self {
            Scope::Session(id) => Some(id),
            Scope::Org | Scope::Tree(_) => None,
        }
    }
}

/// The resume cursor from `Last-Event-ID` or `?last_event_id=` (same effect; the query
/// wins if both are sent). Negative or non-numeric → 400.
pub(crate) fn cursor(headers: &HeaderMap, query: Option<&str>) -> Result<Option<u64>, Refusal> {
    let parse = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| {
            Refusal::invalid("last_event_id must be an integer greater than or equal to 0.")
        })
    };
    if let Some(q) = query {
        return parse(q).map(Some);
    }
    match headers.get("last-event-id") {
        Some(v) => parse(v.to_str().unwrap_or("-")).map(Some),
        None => Ok(None),
    }
}

/// Releases a stream slot when the stream ends (after the configured proxy lag).
struct Slot(Shared);

impl Drop for Slot {
    fn drop(&mut self) {
        let state = self.0.clone();
        let delay = state.config.stream_slot_release_delay;
        let release = move || {
            let mut open = lock(&state.open_streams);
            *open = open.saturating_sub(1);
        };
        if delay.is_zero() {
            release();
        } else if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                tokio::time::sleep(delay).await;
                release();
            });
        } else {
            release();
        }
    }
}

/// The `delay_stream_open_ms` fault: a server slow to start following.
pub(crate) async fn hold_open(state: &Shared) {
    let ms = state.faults().delay_stream_open_ms;
    if ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
}

/// Opens a stream: every refusal happens here, as JSON, before any byte is streamed.
pub(crate) fn open(state: &Shared, scope: Scope, cursor: Option<u64>) -> Result<Response, Refusal> {
    let faults = state.faults();
    if faults.refuse_share > 0.0 && rand::random::<f64>() < faults.refuse_share {
        let retry = faults.refuse_retry_after_secs.max(1);
        let err = if faults.refusal_status() == 429 {
            Refusal::new(ErrorCode::RateLimitExceeded, "Too many open event streams.")
        } else {
            Refusal::new(
                ErrorCode::SandboxUnavailable,
                "The workspace is unreachable right now.",
            )
        };
        return Err(err.retry_after(retry));
    }
    let slot = {
        let mut open = lock(&state.open_streams);
        let cap = state
            .config
            .streams_per_token
            .min(state.config.streams_per_org);
        if *open >= cap {
            let secs = state.config.stream_slot_release_delay.as_secs().max(1) + 4;
            return Err(Refusal::new(
                ErrorCode::RateLimitExceeded,
                format!("Too many open event streams ({cap} per token); close one or wait."),
            )
            .retry_after(secs));
        }
        *open += 1;
        Slot(state.clone())
    };
    lock(&state.stream_opens).push(cursor);

    let keep = {
        let scope = scope.clone();
        move |db: &Db, f: &Frame| match &scope {
            Scope::Session(id) => f.session_id == *id,
            Scope::Org => true,
            Scope::Tree(root) => db.in_tree(&f.session_id, root),
        }
    };
    // Subscribe and note the last seq under the db lock: emits happen under it too, so
    // the replay (up to that seq, read in pages) and the live feed meet without a gap.
    let (rx, upto) = {
        let db = state.db();
        (db.subscribe(), db.last_seq())
    };
    let (tx, body_rx) = mpsc::unbounded_channel::<Bytes>();
    let unread = Arc::new(AtomicUsize::new(0));
    let taken = Arc::new(Notify::new());
    let abort = CancellationToken::new();
    let writer = Writer {
        state: state.clone(),
        tx,
        unread: unread.clone(),
        taken: taken.clone(),
        abort: abort.clone(),
        bounds: Bounds {
            drop_transient_after: state.config.stream_drop_transient_after,
            close_after: state.config.stream_close_after,
        },
        frames_written: 0,
        last_seq: cursor.unwrap_or(0),
        _slot: slot,
    };
    tokio::spawn(writer.run(scope, cursor, upto, rx, keep));
    let mut resp = Body::from_stream(body(body_rx, unread, taken, abort)).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(resp)
}

/// What the connection takes from the writer. Bytes leave `unread` as the connection
/// takes them; an abort (the reader fell too far behind) discards what is still queued
/// and fails the body, which closes the connection.
fn body(
    rx: mpsc::UnboundedReceiver<Bytes>,
    unread: Arc<AtomicUsize>,
    taken: Arc<Notify>,
    abort: CancellationToken,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::unfold(Some(rx), move |rx| {
        let unread = unread.clone();
        let taken = taken.clone();
        let abort = abort.clone();
        async move {
            let mut rx = rx?;
            tokio::select! {
                biased;
                _ = abort.cancelled() => Some((
                    Err(std::io::Error::other("the reader fell 8 MiB behind")),
                    None,
                )),
                bytes = rx.recv() => {
                    let bytes = bytes?;
                    unread.fetch_sub(bytes.len(), Ordering::AcqRel);
                    taken.notify_one();
                    Some((Ok(bytes), Some(rx)))
                }
            }
        }
    })
}

/// Frames a replay reads from the store at a time.
const REPLAY_PAGE: usize = 2_000;

/// The most bytes of waiting persisted frames put in one write.
const BATCH_WRITE_BYTES: usize = 64 * 1024;

struct Writer {
    state: Shared,
    tx: mpsc::UnboundedSender<Bytes>,
    /// Bytes sent to the connection and not yet taken by it.
    unread: Arc<AtomicUsize>,
    /// Signalled each time the connection takes bytes.
    taken: Arc<Notify>,
    /// Cancelled when the reader falls past `bounds.close_after`.
    abort: CancellationToken,
    bounds: Bounds,
    frames_written: u64,
    last_seq: u64,
    _slot: Slot,
}

/// How waiting persisted frames meet a slow reader.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// A replay the client asked for: it comes at the reader's pace and never counts
    /// against it.
    Reader,
    /// Live frames the writer fell behind on: the reader's unread output like any live
    /// frame, buffered up to the closing bound (§7.7) however long the reader pauses.
    Live,
}

/// The writer stopped: the client went away, a fault closed it, or shutdown.
struct Closed;

impl Writer {
    async fn run(
        mut self,
        scope: Scope,
        cursor: Option<u64>,
        upto: u64,
        mut rx: broadcast::Receiver<Arc<Frame>>,
        keep: impl Fn(&Db, &Frame) -> bool + Send + 'static,
    ) {
        let _ = self.go(scope, cursor, upto, &mut rx, keep).await;
    }

    async fn go(
        &mut self,
        scope: Scope,
        cursor: Option<u64>,
        upto: u64,
        rx: &mut broadcast::Receiver<Arc<Frame>>,
        keep: impl Fn(&Db, &Frame) -> bool,
    ) -> Result<(), Closed> {
        let retry = format!("retry: {}\n\n", self.state.config.retry_ms);
        self.write_raw(retry).await?;
        self.hold_replay().await?;

        let cap = self.state.config.replay_cap;
        let mut truncated = false;
        if let Some(mut after) = cursor {
            // In pages, each read under the lock on its own: a long replay neither holds
            // the database nor all its frames in memory at once.
            let mut written = 0;
            loop {
                let want = REPLAY_PAGE.min(cap - written + 1);
                let page = {
                    let db = self.state.db();
                    db.replay(after, upto, want, scope.session(), |f| keep(&db, f))
                };
                let room = cap - written;
                truncated = page.len() > room;
                self.write_persisted(page.iter().take(room).map(|f| &**f), Pace::Reader)
                    .await?;
                written += page.len().min(room);
                match page.last() {
                    Some(last) if page.len() == want && !truncated => {
                        after = last.seq.unwrap_or(after);
                    }
                    _ => break,
                }
            }
        }
        if truncated {
            let from_seq = if cap == 0 {
                cursor.unwrap_or(0)
            } else {
                self.last_seq
            };
            // The org stream's frame belongs to no session: it names none.
            let session_id = match &scope {
                Scope::Session(id) | Scope::Tree(id) => Some(id.as_str()),
                Scope::Org => None,
            };
            self.write_frame(&truncation_frame(session_id, from_seq, cap))
                .await?;
            // Live frames follow; the skipped ones stay skipped (the client reconnects
            // with last_event_id=from_seq to collect them).
            self.last_seq = self.state.db().last_seq().max(self.last_seq);
        }

        // A zero period would panic `interval`; nothing useful pings faster than 1 ms.
        let period = self
            .state
            .config
            .ping_interval
            .max(Duration::from_millis(1));
        let mut ping = tokio::time::interval(period);
        ping.tick().await;
        let shutdown = self.state.shutdown.clone();
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return Err(Closed),
                _ = self.tx.closed() => return Err(Closed),
                _ = ping.tick() => self.write_transient(": ping\n\n".to_string()).await?,
                received = rx.recv() => match received {
                    Ok(frame) => {
                        // Only a tree's membership is the database's to say: the other
                        // scopes do without its lock (a busy fleet sends thousands a second).
                        let wanted = match &scope {
                            Scope::Session(id) => frame.session_id == *id,
                            Scope::Org => true,
                            Scope::Tree(_) => keep(&self.state.db(), &frame),
                        };
                        let fresh = frame.seq.is_none_or(|s| s > self.last_seq);
                        if wanted && fresh {
                            self.write_frame(&frame).await?;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Transient frames are lost; persisted ones come from the log.
                        let missed = {
                            let db = self.state.db();
                            db.replay(self.last_seq, u64::MAX, usize::MAX, scope.session(), |f| {
                                keep(&db, f)
                            })
                        };
                        self.write_persisted(missed.iter().map(|f| &**f), Pace::Live)
                            .await?;
                    }
                    Err(broadcast::error::RecvError::Closed) => return Err(Closed),
                },
            }
        }
    }

    /// The `delay_replay_ms` fault: the response is open, the replay comes later (the
    /// feed subscribed at the open keeps what is emitted meanwhile).
    async fn hold_replay(&self) -> Result<(), Closed> {
        let ms = self.state.faults().delay_replay_ms;
        if ms == 0 {
            return Ok(());
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
            _ = self.tx.closed() => Err(Closed),
            _ = self.state.shutdown.cancelled() => Err(Closed),
        }
    }

    /// Persisted frames already waiting (a replay, a lagging reader's catch-up), written
    /// [`BATCH_WRITE_BYTES`] at a time as a buffered server writes them: the client must
    /// accept chunk boundaries anywhere (§7.2). The faults still apply frame by frame, and
    /// `write_each_frame` writes them one at a time.
    async fn write_persisted<'f>(
        &mut self,
        frames: impl Iterator<Item = &'f Frame>,
        pace: Pace,
    ) -> Result<(), Closed> {
        let mut batch = String::new();
        for frame in frames {
            let faults = self.state.faults();
            if !self.encode(frame, &mut batch, &faults) {
                self.write_raw(batch).await?;
                return Err(Closed);
            }
            if batch.len() >= BATCH_WRITE_BYTES || faults.write_each_frame {
                self.wait_for_reader(pace).await?;
                self.write_raw(std::mem::take(&mut batch)).await?;
                if pace == Pace::Live {
                    // The connection takes what its reader reads between batches: what
                    // stays unread is the reader's lag, not the size of this catch-up.
                    tokio::task::yield_now().await;
                }
            }
        }
        if !batch.is_empty() {
            self.wait_for_reader(pace).await?;
            self.write_raw(batch).await?;
        }
        Ok(())
    }

    /// Under [`Pace::Reader`], waits until the reader has taken enough that unread bytes
    /// are under the first backpressure bound. Live frames do not wait: `write_raw`
    /// closes the connection once they would pass the second bound (§7.7).
    async fn wait_for_reader(&self, pace: Pace) -> Result<(), Closed> {
        if pace == Pace::Live {
            return Ok(());
        }
        while self.unread.load(Ordering::Acquire) > self.bounds.drop_transient_after {
            tokio::select! {
                _ = self.taken.notified() => {}
                _ = self.tx.closed() => return Err(Closed),
                _ = self.state.shutdown.cancelled() => return Err(Closed),
            }
        }
        Ok(())
    }

    async fn write_frame(&mut self, frame: &Frame) -> Result<(), Closed> {
        let mut text = String::new();
        if !self.encode(frame, &mut text, &self.state.faults()) {
            self.write_raw(text).await?;
            return Err(Closed);
        }
        if frame.seq.is_none() {
            return self.write_transient(text).await;
        }
        self.write_raw(text).await
    }

    /// A frame the reader can do without: dropped while it lags (§7.7).
    async fn write_transient(&mut self, text: String) -> Result<(), Closed> {
        let unread = self.unread.load(Ordering::Acquire);
        if self.bounds.admit(unread, text.len(), true) == Admit::Drop {
            return Ok(());
        }
        self.write_raw(text).await
    }

    /// Appends `frame` to `out`; `false` when a fault cuts it in half (the connection then
    /// goes away after that half).
    fn encode(&mut self, frame: &Frame, out: &mut String, faults: &Faults) -> bool {
        use std::fmt::Write as _;
        let start = out.len();
        out.reserve(frame.json.len() + 48);
        if let Some(seq) = frame.seq {
            let _ = writeln!(out, "id: {seq}");
            self.last_seq = self.last_seq.max(seq);
        }
        let _ = write!(out, "event: {}\ndata: {}\n\n", frame.kind, frame.json);
        self.frames_written += 1;
        let drop_now = faults
            .drop_every_n_frames
            .is_some_and(|n| n > 0 && self.frames_written.is_multiple_of(n))
            || (faults.drop_probability > 0.0 && rand::random::<f64>() < faults.drop_probability);
        if !drop_now {
            return true;
        }
        // Half a frame, then the connection goes away.
        let cut = start + (out.len() - start) / 2;
        let cut = (start..=cut)
            .rev()
            .find(|i| out.is_char_boundary(*i))
            .unwrap_or(start);
        out.truncate(cut);
        false
    }

    async fn write_raw(&mut self, text: String) -> Result<(), Closed> {
        loop {
            let faults = self.state.faults();
            if !faults.stall {
                break;
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                _ = self.tx.closed() => return Err(Closed),
                _ = self.state.shutdown.cancelled() => return Err(Closed),
            }
        }
        let faults = self.state.faults();
        let text = if faults.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        };
        let bytes = Bytes::from(text);
        let unread = self.unread.load(Ordering::Acquire);
        if self.bounds.admit(unread, bytes.len(), false) == Admit::Close {
            lock(&self.state.lagging_closes).push(unread);
            self.abort.cancel();
            return Err(Closed);
        }
        self.unread.fetch_add(bytes.len(), Ordering::AcqRel);
        match faults.chunk_writes {
            Some((min, max)) if min > 0 && max >= min => {
                let mut rest = bytes;
                while !rest.is_empty() {
                    let n =
                        (min + rand::random::<u32>() as usize % (max - min + 1)).min(rest.len());
                    let chunk = rest.split_to(n);
                    self.tx.send(chunk).map_err(|_| Closed)?;
                }
                Ok(())
            }
            _ => self.tx.send(bytes).map_err(|_| Closed),
        }
    }
}

fn truncation_frame(session_id: Option<&str>, from_seq: u64, cap: usize) -> Frame {
    let event = Event {
        kind: "gobare.replay_truncated".into(),
        internal_type: Some("gobare.replay_truncated".into()),
        session_id: session_id.map(Into::into),
        seq: None,
        created_at: Some(unix_ms()),
        payload: EventPayload::ReplayTruncated(ReplayTruncated {
            from_seq: Some(from_seq),
            note: Some(format!("More than {cap} events were waiting.")),
        }),
    };
    // The prose form carries a longer note at the top level (§7.6).
    let note = format!(
        "More than {cap} events were waiting. Live frames follow from here; reconnect with \
         last_event_id={from_seq} to collect the rest first."
    );
    Frame {
        seq: None,
        kind: "gobare.replay_truncated".into(),
        session_id: session_id.unwrap_or_default().to_string(),
        json: crate::envelope::envelope_json_with_note(&event, Some(&note)),
    }
}
