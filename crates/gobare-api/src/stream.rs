//! The resumable event stream task (reference §7): connect, resume from the cursor, honour
//! `retry:` and `Retry-After`, back off with jitter, idle watchdog, replay truncation, dedupe.
//!
//! The decisions are pure and tested on their own: `resume` (cursor, dedupe, truncation),
//! [`backoff`] (when to retry). [`transport`] is the only IO; `task` sequences the two.

pub mod backoff;
mod resume;
mod runs;
pub mod slots;
mod task;
pub mod transport;

use crate::auth::Token;
pub use crate::frame_data::FrameData;
use crate::model::{DecodeError, Event};
pub use runs::{FrameRun, RunFrames};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
#[cfg(feature = "fuzzing")]
pub(crate) use task::compare;
use tokio::sync::{Notify, mpsc};

/// Which stream to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamTarget {
    /// `GET /v1/sessions/{id}/events`
    Session(String),
    /// `GET /v1/events[?root=]`
    Org {
        /// A session id: that session and its subtree only; `None` = the whole organization.
        root: Option<String>,
    },
}

/// How to open the stream.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// API base, e.g. `https://api.gobare.dev` (no trailing slash, no `/v1`).
    pub api: url::Url,
    /// Sent as `Authorization: Bearer …`.
    pub token: Option<Token>,
    /// Which stream.
    pub target: StreamTarget,
    /// `None` = live only; `Some(0)` = everything; `Some(n)` = after `n` (§7.4).
    pub from: Option<u64>,
    /// Reconnect after this long without a complete line (a trickle of bytes is not life).
    /// Default 45 s.
    pub idle_timeout: Duration,
    /// Upper bound of the backoff between failed attempts. Default 30 s.
    pub max_backoff: Duration,
    /// Largest accepted frame; larger frames are skipped and reported. Default 16 MiB.
    pub max_frame_bytes: usize,
    /// §11.1 gap caveat: when `from` is `None` and the stream drops before any persisted
    /// event arrived, reconnect with cursor `0` (full replay) instead of live-only.
    pub replay_if_dropped_before_first_event: bool,
    /// What the consumer does with the frames, which decides how much of each frame the
    /// stream reads for it ([`StreamProfile`]). Default [`StreamProfile::EVENTS`].
    pub profile: StreamProfile,
    /// Most frame bytes queued for the consumer at once, each frame counted as its data plus
    /// [`FRAME_OVERHEAD_BYTES`]. Default 32 MiB. Past it the task
    /// stops reading the socket until the consumer catches up: the socket backs up, and a
    /// server that closes a slow stream is resumed losslessly from the exact cursor.
    pub max_queued_bytes: usize,
    /// Whom the stream is for, when the scheduler lets its opens out (the token's five
    /// slots and the `general` bucket are shared with every request). Default on screen.
    pub class: crate::schedule::RequestClass,
    /// How long after a connection ends its slot is still held by the service (§5: ~4.5 s
    /// behind its proxy): a reconnect waits at least this long, however short the `retry:`
    /// hint, so a token's streams are not refused for slots they themselves still hold.
    /// Default [`crate::schedule::SLOT_RELEASE`].
    pub slot_release: Duration,
}

/// What a stream's consumer does with its frames, and so how much of each frame the stream
/// reads for it: each consumer names its profile, and the switches behind it are the
/// stream's business (each was measured as a large share of some consumer's CPU or memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamProfile {
    /// Decode every persisted frame into [`StreamFrame::event`]. Off, frames with a numeric
    /// `id:` carry `Err(DecodeError(resume::NOT_DECODED))` instead, for the consumer to
    /// decode where it uses them ([`StreamFrame::decode_in_place`]) or never. Transient
    /// frames are always decoded (replay truncation is detected from them).
    decode_persisted: bool,
    /// Keep [`StreamFrame::data`] beside a decoded event. Off, the raw JSON is freed on the
    /// stream task, so a replay that outruns its consumer queues half the bytes (frames
    /// that failed to decode keep it).
    keep_data: bool,
    /// Read each persisted envelope's `created_at` into [`StreamFrame::created_at`]. Off
    /// together with decoding, an envelope in the reference's layout whose head agrees with
    /// its frame (seq and `id:` line, session, a persisted type) is taken without checking
    /// that its payload is JSON, which could change nothing else the stream reads.
    read_created_at: bool,
    /// Hand over the persisted frames of a chunk that are in the server's usual shape
    /// together, as a [`FrameRun`] ([`StreamUpdate::Run`]), when frames are not decoded.
    frame_runs: bool,
}

impl StreamProfile {
    /// Decoded events with their JSON: `follow`, `wait`, tests.
    pub const EVENTS: StreamProfile = StreamProfile {
        decode_persisted: true,
        keep_data: true,
        read_created_at: true,
        frame_runs: false,
    };
    /// Decoded events whose JSON is freed on the stream's thread: a consumer that reads only
    /// the event (the fleet's org stream, a todos replay).
    pub const EVENTS_ONLY: StreamProfile = StreamProfile {
        keep_data: false,
        ..StreamProfile::EVENTS
    };
    /// Frames as sent with their `created_at`, in runs, each decoded by the consumer where it
    /// writes it: the export's history (and `diff`'s).
    pub const RECORDED: StreamProfile = StreamProfile {
        decode_persisted: false,
        keep_data: true,
        read_created_at: true,
        frame_runs: true,
    };
    /// Frames as sent, in runs, nothing read from them: `tail`, which prints `data:` as it
    /// came.
    pub const PRINTED: StreamProfile = StreamProfile {
        read_created_at: false,
        ..StreamProfile::RECORDED
    };

    /// Frames in runs, decoded by the consumer where it applies them, so each event is made
    /// and freed on one thread (freeing events the stream's thread had made was about a
    /// quarter of a long catch-up's CPU); no `created_at` (the event has its own); the JSON
    /// kept only when `keep_json` (to log it): the session front.
    pub const fn applied_by_consumer(keep_json: bool) -> StreamProfile {
        StreamProfile {
            decode_persisted: false,
            keep_data: keep_json,
            read_created_at: false,
            frame_runs: true,
        }
    }

    /// Whether frames come in runs ([`StreamUpdate::Run`]).
    pub fn frame_runs(self) -> bool {
        self.frame_runs
    }

    /// Whether the stream reads each persisted frame's `created_at`.
    pub fn reads_created_at(self) -> bool {
        self.read_created_at
    }
}

/// What one queued frame costs beyond its `data:` bytes: the update itself and its decoded
/// event's small allocations. Counting data alone let a flood of tiny frames queue five
/// times the budget in memory.
pub const FRAME_OVERHEAD_BYTES: usize = std::mem::size_of::<StreamUpdate>() + 256;

/// The state of the event stream as its consumer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionState {
    /// Opening the stream (first attempt or after a wait).
    Connecting {
        /// 1 for the first attempt, counting up while attempts fail.
        attempt: u32,
    },
    /// The connection is open but nothing has come on it yet (not a frame, not a ping):
    /// a server, or a proxy holding the connection, that says nothing is not live.
    Open {
        /// Connections in a row before this one that opened and ended having heard
        /// nothing (each after the idle timeout): 2 means the stream has said nothing for
        /// about two idle timeouts, and a consumer should read the session another way.
        silent_before: u32,
    },
    /// The stream is open and the server has spoken on it (a frame or a ping).
    Live,
    /// Waiting before the next attempt; `reason` is for people (sanitize before display).
    Retrying {
        /// The wait before the next attempt.
        in_ms: u64,
        /// The number of the next attempt.
        attempt: u32,
        /// Why the last attempt ended.
        reason: String,
    },
    /// Stopped for good: a refusal retrying cannot fix (401/403/404, a redirect, 429/503
    /// without `Retry-After`, `project_limit_exceeded`, `workspace_recovery_failed`). A new
    /// stream is the only way on.
    Failed {
        /// Why; for people (sanitize before display).
        reason: String,
    },
}

/// What the stream task reports to its consumer, in order.
// Frames dominate the traffic; boxing them would cost an allocation per frame for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum StreamUpdate {
    /// The connection changed state.
    State(ConnectionState),
    /// One frame with `data:`. Persisted events arrive exactly once, in increasing `seq`.
    Frame(StreamFrame),
    /// Persisted frames in order, as a run: only with a [`StreamProfile`] that hands frames
    /// over in runs ([`StreamProfile::RECORDED`]). Each is what would otherwise come as a
    /// [`StreamUpdate::Frame`] ([`FrameRun::frames`], [`FrameRun::into_frames`]).
    Run(FrameRun),
    /// A frame that was dropped (too large, undecodable, another session's); counted by
    /// the UI.
    Skipped {
        /// What was wrong with the frame.
        reason: String,
    },
    /// The server sent something inconsistent about the cursor and the stream corrected it
    /// (an `id:` line that disagrees with the envelope's `seq`, a truncation point beyond
    /// what was delivered). Nothing was lost; worth telling people.
    Anomaly {
        /// What was wrong; for people (sanitize before display).
        reason: String,
    },
    /// A persisted event arrived but could not be delivered (larger than
    /// [`StreamOptions::max_frame_bytes`]). The consumer must say so: its history now has a
    /// hole at `seq`, which a later event's cursor moves past.
    Lost {
        /// The lost event's `id:`.
        seq: u64,
        /// Why it could not be delivered.
        reason: String,
    },
}

/// One dispatched frame.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamFrame {
    /// The `id:` line (the cursor) for persisted events; `None` for transient ones.
    pub id: Option<u64>,
    /// The `data:` payload exactly as the server sent it: when the frame was read in place,
    /// a slice of the chunk it arrived in, which it keeps alive (counted in the queue
    /// budget).
    pub data: FrameData,
    /// The decoded envelope, unless the stream's [`StreamProfile`] leaves persisted frames
    /// for the consumer to decode ([`StreamFrame::decode_in_place`]).
    pub event: Result<Event, DecodeError>,
    /// The envelope's `created_at` (Unix ms), read with the cursor whether or not the
    /// event is decoded (`None` for persisted frames when the [`StreamProfile`] does not
    /// read it: [`StreamProfile::reads_created_at`]).
    pub created_at: Option<i64>,
    /// This frame's share of [`StreamOptions::max_queued_bytes`], given back when the frame
    /// is dropped. Build frames with `QueueSlot::default()` (no share).
    pub slot: QueueSlot,
}

impl StreamFrame {
    /// Decodes a persisted frame handed over undecoded (its [`StreamProfile`] does not
    /// decode) as the stream task would have: the envelope parsed from `data`, its seq the
    /// frame's. Anything else is left as it is. A consumer decoding on its own thread frees
    /// each event where it was made, which glibc's allocator does far more cheaply than a
    /// free of memory another thread allocated.
    pub fn decode_in_place(&mut self) {
        let undecoded = matches!(&self.event, Err(e) if e.0 == resume::NOT_DECODED);
        if let (true, Some(seq)) = (undecoded, self.id) {
            self.event = decode_persisted(&self.data, seq);
        }
    }
}

/// A persisted frame's envelope as the stream task decodes it: parsed from `data`, its
/// seq the frame's `id:`.
fn decode_persisted(data: &str, seq: u64) -> Result<Event, DecodeError> {
    Event::parse(data).map(|mut event| {
        event.seq = Some(seq);
        event
    })
}

/// A frame's share of the stream's queue budget; dropping it gives the share back. A clone
/// holds none, and slots never make two frames unequal.
#[derive(Debug, Default)]
pub struct QueueSlot {
    share: Option<(Arc<task::Budget>, usize)>,
}

impl QueueSlot {
    pub(crate) fn new(budget: Arc<task::Budget>, share: usize) -> Self {
        QueueSlot {
            share: Some((budget, share)),
        }
    }

    /// Moves up to `share` of this slot's share into a new slot.
    pub(crate) fn split_off(&mut self, share: usize) -> QueueSlot {
        match &mut self.share {
            Some((budget, own)) => {
                let moved = share.min(*own);
                *own -= moved;
                QueueSlot::new(budget.clone(), moved)
            }
            None => QueueSlot::default(),
        }
    }
}

impl Drop for QueueSlot {
    fn drop(&mut self) {
        if let Some((budget, share)) = self.share.take() {
            budget.give_back(share);
        }
    }
}

impl Clone for QueueSlot {
    fn clone(&self) -> Self {
        QueueSlot::default()
    }
}

impl PartialEq for QueueSlot {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A running stream task. Dropping the handle stops it.
///
/// The channel is bounded by bytes, not frames ([`StreamOptions::max_queued_bytes`]): the
/// socket is read on its own task and does not stall behind a busy UI for a moment's
/// burst, but a flood that outruns the consumer for long waits in the socket, not in memory.
pub struct StreamHandle {
    /// What the task reports, in order; closes when the task stops.
    pub updates: Updates,
    retry_now: Arc<Notify>,
}

/// The receiving end of a stream's updates. The task hands over what one chunk of the
/// socket completed at once (one wake-up per chunk, not per frame); they are taken here
/// one by one, in order.
#[derive(Debug)]
pub struct Updates {
    rx: mpsc::UnboundedReceiver<Batch>,
    ready: std::vec::IntoIter<StreamUpdate>,
    /// Updates in `ready` (a run counts its frames).
    ready_updates: usize,
    /// Updates in `rx`'s batches.
    queued: Arc<AtomicUsize>,
}

/// What one message of the channel holds: updates and how many they count (a run counts
/// its frames).
type Batch = (Vec<StreamUpdate>, usize);

impl StreamUpdate {
    /// How many updates it counts as: a run, its frames.
    pub fn count(&self) -> usize {
        match self {
            StreamUpdate::Run(run) => run.len(),
            _ => 1,
        }
    }
}

/// The sending end of [`Updates`] (the stream task's, or a test's).
#[derive(Debug, Clone)]
pub struct UpdateSender {
    tx: mpsc::UnboundedSender<Batch>,
    queued: Arc<AtomicUsize>,
}

/// The receiving [`Updates`] is gone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the receiver of the stream's updates is gone")]
pub struct Closed;

/// A channel of updates, as a stream task has.
pub fn channel() -> (UpdateSender, Updates) {
    let (tx, rx) = mpsc::unbounded_channel();
    let queued = Arc::new(AtomicUsize::new(0));
    (
        UpdateSender {
            tx,
            queued: queued.clone(),
        },
        Updates {
            rx,
            ready: Vec::new().into_iter(),
            ready_updates: 0,
            queued,
        },
    )
}

impl UpdateSender {
    /// Sends one update.
    pub fn send(&self, update: StreamUpdate) -> Result<(), Closed> {
        self.send_all(vec![update])
    }

    /// Sends updates at once, in order (nothing when empty).
    pub fn send_all(&self, updates: Vec<StreamUpdate>) -> Result<(), Closed> {
        let n = updates.iter().map(StreamUpdate::count).sum();
        self.send_counted(updates, n)
    }

    /// Sends updates at once, in order; `n`: the updates they count.
    pub(crate) fn send_counted(&self, items: Vec<StreamUpdate>, n: usize) -> Result<(), Closed> {
        if items.is_empty() {
            return if self.tx.is_closed() {
                Err(Closed)
            } else {
                Ok(())
            };
        }
        self.queued.fetch_add(n, Ordering::Relaxed);
        self.tx.send((items, n)).map_err(|_| {
            self.queued.fetch_sub(n, Ordering::Relaxed);
            Closed
        })
    }

    /// Resolves once the receiver is gone.
    pub async fn closed(&self) {
        self.tx.closed().await;
    }
}

impl Updates {
    /// The next update; `None` once the sender is gone and everything was taken. Cancel
    /// safe: an update is never lost to a dropped call.
    pub async fn recv(&mut self) -> Option<StreamUpdate> {
        loop {
            if let Some(update) = self.next_ready() {
                return Some(update);
            }
            let batch = self.rx.recv().await?;
            self.take(batch);
        }
    }

    /// The next update if one is queued.
    pub fn try_recv(&mut self) -> Result<StreamUpdate, mpsc::error::TryRecvError> {
        loop {
            if let Some(update) = self.next_ready() {
                return Ok(update);
            }
            let batch = self.rx.try_recv()?;
            self.take(batch);
        }
    }

    fn take(&mut self, (items, n): Batch) {
        self.queued.fetch_sub(n, Ordering::Relaxed);
        self.ready = items.into_iter();
        self.ready_updates = n;
    }

    /// The next update of what was taken from the channel.
    fn next_ready(&mut self) -> Option<StreamUpdate> {
        let update = self.ready.next()?;
        self.ready_updates -= update.count();
        Some(update)
    }

    /// How many updates are waiting to be taken.
    pub fn len(&self) -> usize {
        self.queued.load(Ordering::Relaxed) + self.ready_updates
    }

    /// Whether none is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl StreamHandle {
    fn new(updates: Updates, retry_now: Arc<Notify>) -> Self {
        StreamHandle { updates, retry_now }
    }

    /// While waiting to reconnect: cut the backoff short (the user asked). The server's
    /// `Retry-After` and `retry:` hint are still waited out; at any other time, nothing.
    pub fn retry_now(&self) {
        // `notify_waiters` keeps no permit: a press while live must not skip a later wait.
        self.retry_now.notify_waiters();
    }
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            api: url::Url::parse("https://api.gobare.dev").expect("static url"),
            token: None,
            target: StreamTarget::Org { root: None },
            from: None,
            idle_timeout: Duration::from_secs(45),
            max_backoff: Duration::from_secs(30),
            max_frame_bytes: 16 << 20,
            replay_if_dropped_before_first_event: false,
            profile: StreamProfile::EVENTS,
            max_queued_bytes: 32 << 20,
            class: crate::schedule::RequestClass::OnScreen,
            slot_release: crate::schedule::SLOT_RELEASE,
        }
    }
}

/// Starts the stream task on the current tokio runtime.
pub fn spawn(options: StreamOptions) -> StreamHandle {
    match transport::HttpTransport::new(&options) {
        Ok(http) => spawn_with_transport(options, http),
        Err(e) => failed(e),
    }
}

/// Like [`spawn`], on `client`'s HTTP client: the stream shares its connection pool and
/// trust store, so a command that called the API first neither sets up TLS nor connects
/// again. For one-shot commands; the app keeps the stream on a client of its own.
pub fn spawn_sharing(options: StreamOptions, client: &crate::client::ApiClient) -> StreamHandle {
    // A client set up for plain http has no trust store: it serves only its own scheme.
    if client.base().scheme() != options.api.scheme() {
        return spawn(options);
    }
    match transport::HttpTransport::with_client(&options, client.http().clone()) {
        Ok(http) => spawn_with_transport(options, http),
        Err(e) => failed(e),
    }
}

/// A stream that failed before it could open.
fn failed(e: transport::OpenError) -> StreamHandle {
    let (tx, updates) = channel();
    let _ = tx.send(StreamUpdate::State(ConnectionState::Failed {
        reason: e.to_string(),
    }));
    StreamHandle::new(updates, Arc::default())
}

/// Starts the stream task over any [`transport::Transport`] (tests script one).
pub fn spawn_with_transport<T: transport::Transport>(
    options: StreamOptions,
    transport: T,
) -> StreamHandle {
    spawn_seeded(options, transport, rand::random())
}

/// Like [`spawn_with_transport`] with a fixed jitter seed (reproducible tests).
pub fn spawn_seeded<T: transport::Transport>(
    options: StreamOptions,
    transport: T,
    jitter_seed: u64,
) -> StreamHandle {
    let (tx, updates) = channel();
    let retry_now = Arc::new(Notify::new());
    tokio::spawn(task::run(
        transport,
        options,
        tx,
        jitter_seed,
        retry_now.clone(),
    ));
    StreamHandle::new(updates, retry_now)
}
