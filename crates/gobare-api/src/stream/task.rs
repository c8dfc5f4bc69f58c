//! The stream task: open, read, decide, report, wait, reopen. All decisions are delegated
//! to [`Resume`] and [`StreamBackoff`]; this file only sequences IO and time.

use super::backoff::StreamBackoff;
use super::resume::{FrameAction, Resume};
use super::runs::{self, FrameRun, RUN_FRAME_BYTES};
use super::transport::{ByteStream, Transport};
use super::{QueueSlot, StreamFrame, StreamOptions, StreamTarget, StreamUpdate, UpdateSender};
use crate::auth::Token;
use crate::schedule::Scheduler;
use crate::sse::{SseParser, SseRef};
use crate::stream::ConnectionState;
use bytes::Bytes;
use futures_util::StreamExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::{Instant, sleep, sleep_until, timeout};

/// The consumer dropped its receiver: stop quietly.
struct ConsumerGone;

/// How one open connection ended.
struct ConnectionEnd {
    reason: String,
    /// A new persisted event arrived: the only evidence that reconnecting helps, so the only
    /// thing that resets the backoff (deltas and truncation notices do not).
    progressed: bool,
    /// A frame or a ping arrived: the server spoke on this connection.
    heard: bool,
    /// The idle watchdog ended it.
    timed_out: bool,
}

/// The queue's budget in bytes, shared by the task and the frames it queued: each frame's
/// [`QueueSlot`] gives its share back when dropped. Atomics rather than a semaphore: a
/// semaphore's release takes a lock, once per frame.
#[derive(Debug)]
pub(crate) struct Budget {
    queued: AtomicUsize,
    max: usize,
    /// The share the task waits to take (0: it is not waiting). A give-back wakes it only
    /// once that fits: one wake-up per batch, not per frame taken off the queue.
    wanted: AtomicUsize,
    room: Notify,
}

impl Budget {
    fn new(max: usize) -> Self {
        Budget {
            queued: AtomicUsize::new(0),
            max: max.max(1),
            wanted: AtomicUsize::new(0),
            room: Notify::new(),
        }
    }

    fn fits(&self, queued: usize, share: usize) -> bool {
        queued == 0 || queued.saturating_add(share) <= self.max
    }

    pub(crate) fn give_back(&self, share: usize) {
        let queued = self.queued.fetch_sub(share, Ordering::SeqCst) - share;
        let wanted = self.wanted.load(Ordering::SeqCst);
        if wanted != 0 && self.fits(queued, wanted) {
            self.room.notify_one();
        }
    }

    /// Waits until `share` more fits (or the queue is empty: a batch larger than the whole
    /// budget waits for that), then takes it.
    async fn take(&self, share: usize) {
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            self.wanted.store(share, Ordering::SeqCst);
            if self.fits(self.queued.load(Ordering::SeqCst), share) {
                self.wanted.store(0, Ordering::SeqCst);
                self.queued.fetch_add(share, Ordering::SeqCst);
                return;
            }
            room.await;
        }
    }
}

struct Reporter<'a> {
    tx: &'a UpdateSender,
    token: Option<&'a Token>,
    budget: Arc<Budget>,
}

impl Reporter<'_> {
    fn send(&self, update: StreamUpdate) -> Result<(), ConsumerGone> {
        self.tx.send(update).map_err(|_| ConsumerGone)
    }

    /// Sends what one chunk completed once the queue has room for its frames; until then
    /// the socket is not read.
    async fn send_batch(&self, batch: &mut Batch) -> Result<(), ConsumerGone> {
        if batch.share > 0 {
            self.budget.take(batch.share).await;
            for &(at, share) in &batch.shares {
                let slot = match &mut batch.updates[at] {
                    StreamUpdate::Frame(frame) => &mut frame.slot,
                    StreamUpdate::Run(run) => &mut run.slot,
                    _ => continue,
                };
                *slot = QueueSlot::new(self.budget.clone(), share);
            }
        }
        batch.share = 0;
        batch.shares.clear();
        let updates = std::mem::take(&mut batch.updates);
        let count = std::mem::take(&mut batch.count);
        self.tx
            .send_counted(updates, count)
            .map_err(|_| ConsumerGone)
    }

    fn state(&self, state: ConnectionState) -> Result<(), ConsumerGone> {
        self.send(StreamUpdate::State(state))
    }

    /// Server text may echo anything; the token never leaves in a reason.
    fn redact(&self, reason: String) -> String {
        match self.token.map(Token::expose) {
            Some(secret) if reason.contains(secret) => reason.replace(secret, "<redacted>"),
            _ => reason,
        }
    }
}

/// What one chunk completed, in order, with each frame's share of the queue budget.
#[derive(Default)]
struct Batch {
    updates: Vec<StreamUpdate>,
    /// The updates `updates` counts (a run counts its frames).
    count: usize,
    /// (index in `updates`, share) of each frame.
    shares: Vec<(usize, usize)>,
    share: usize,
    /// Data bytes of the current chunk that frames hold as slices of it.
    chunk_held: usize,
    /// The last frame (index in `shares`) holding a slice of the current chunk.
    last_holder: Option<usize>,
    /// Frames of the last run: the next run's list starts at most at that size (chunks of
    /// a replay hold alike numbers of frames), not grown from empty by copies.
    last_run_len: usize,
}

impl Batch {
    fn push(&mut self, update: StreamUpdate) {
        self.count += 1;
        self.updates.push(update);
    }

    /// A frame costs its data and [`super::FRAME_OVERHEAD_BYTES`]; `in_chunk`: its data is
    /// a slice of the chunk being read ([`Batch::end_chunk`] charges the rest of it).
    fn push_frame(&mut self, frame: StreamFrame, data_bytes: usize, in_chunk: bool) {
        let share = data_bytes.saturating_add(super::FRAME_OVERHEAD_BYTES);
        if in_chunk {
            self.chunk_held = self.chunk_held.saturating_add(data_bytes);
            self.last_holder = Some(self.shares.len());
        }
        self.shares.push((self.updates.len(), share));
        self.share = self.share.saturating_add(share);
        self.push(StreamUpdate::Frame(frame));
    }

    /// A run costs its data, its list and one [`super::FRAME_OVERHEAD_BYTES`]; it holds
    /// a slice of the current chunk.
    fn push_run(&mut self, run: FrameRun) {
        let data_bytes = run.line_bytes();
        let share = data_bytes
            .saturating_add(run.len() * RUN_FRAME_BYTES)
            .saturating_add(super::FRAME_OVERHEAD_BYTES);
        self.chunk_held = self.chunk_held.saturating_add(data_bytes);
        self.last_holder = Some(self.shares.len());
        self.shares.push((self.updates.len(), share));
        self.share = self.share.saturating_add(share);
        self.count += run.len();
        self.updates.push(StreamUpdate::Run(run));
    }

    /// A chunk that frames hold slices of stays in memory whole until the last of them is
    /// dropped: what their data does not count of it (the SSE field names, comments, other
    /// frames' lines) is charged to the last one, which frees it, as frames are taken in
    /// order. Without this, a chunk of padding around a tiny frame would be held for the
    /// tiny frame's share.
    fn end_chunk(&mut self, chunk_bytes: usize) {
        if let Some(holder) = self.last_holder.take() {
            let rest = chunk_bytes.saturating_sub(self.chunk_held);
            self.shares[holder].1 = self.shares[holder].1.saturating_add(rest);
            self.share = self.share.saturating_add(rest);
        }
        self.chunk_held = 0;
    }
}

pub(super) async fn run<T: Transport>(
    transport: T,
    options: StreamOptions,
    tx: UpdateSender,
    seed: u64,
    retry_now: Arc<Notify>,
) {
    let report = Reporter {
        tx: &tx,
        token: options.token.as_ref(),
        budget: Arc::new(Budget::new(options.max_queued_bytes)),
    };
    tokio::select! {
        _ = tx.closed() => {}
        _ = reconnect_loop(&transport, &options, &report, seed, &retry_now) => {}
    }
}

async fn reconnect_loop<T: Transport>(
    transport: &T,
    options: &StreamOptions,
    report: &Reporter<'_>,
    seed: u64,
    retry_now: &Notify,
) -> Result<(), ConsumerGone> {
    let mut resume = resume_for(options);
    let mut backoff = StreamBackoff::new(options.max_backoff, seed);
    let mut cursor = resume.first_request();
    let schedule = Scheduler::for_origin(&options.api, options.token.as_ref());
    let mut silent_in_a_row = 0;
    loop {
        report.state(ConnectionState::Connecting {
            attempt: backoff.failures() + 1,
        })?;
        let (slot, permit) = schedule
            .open_stream(options.class, options.slot_release)
            .await;
        let opened = timeout(options.idle_timeout, transport.open(cursor)).await;
        drop(permit);
        let mut was_open = false;
        let (reason, retry_after) = match opened {
            Err(_) => {
                backoff.record_failure();
                (
                    format!("no response within {}", secs(options.idle_timeout)),
                    None,
                )
            }
            Ok(Err(e)) if e.is_terminal() => {
                let reason = report.redact(e.to_string());
                tracing::debug!(%reason, "event stream refused; not retrying");
                report.state(ConnectionState::Failed { reason })?;
                return Ok(());
            }
            Ok(Err(e)) => {
                backoff.record_failure();
                (e.to_string(), e.retry_after())
            }
            Ok(Ok(body)) => {
                was_open = true;
                let _open = super::slots::Held::take();
                report.state(ConnectionState::Open {
                    silent_before: silent_in_a_row,
                })?;
                let end = read(body, options, &mut resume, &mut backoff, report, retry_now).await?;
                // Only a connection the watchdog ended for saying nothing counts: one cut
                // by the network is no evidence of a server that is silent.
                if end.heard {
                    silent_in_a_row = 0;
                } else if end.timed_out {
                    silent_in_a_row += 1;
                }
                if end.progressed {
                    backoff.reset();
                } else {
                    backoff.record_failure();
                }
                (end.reason, None)
            }
        };
        drop(slot);
        cursor = resume.reconnect_request();
        let mut wait = backoff.next_wait(retry_after);
        // The service still holds the closed connection's slot for a while (§5).
        let floor = if was_open {
            options.slot_release
        } else {
            Duration::ZERO
        };
        wait = wait.max(floor);
        let reason = report.redact(reason);
        tracing::debug!(
            cursor = ?cursor,
            wait_ms = wait.as_millis() as u64,
            failures = backoff.failures(),
            %reason,
            "event stream reconnecting"
        );
        report.state(ConnectionState::Retrying {
            in_ms: wait.as_millis() as u64,
            attempt: backoff.failures() + 1,
            reason,
        })?;
        let started = Instant::now();
        tokio::select! {
            _ = sleep(wait) => {}
            _ = retry_now.notified() => {
                sleep_until(started + backoff.earliest(retry_after).max(floor)).await;
            }
        }
    }
}

/// The cursor and decisions of a stream opened with `options`.
fn resume_for(options: &StreamOptions) -> Resume {
    let session = match &options.target {
        StreamTarget::Session(id) => Some(id.clone()),
        StreamTarget::Org { .. } => None,
    };
    Resume::new(options.from, options.replay_if_dropped_before_first_event)
        .with_decode_persisted(options.profile.decode_persisted)
        .with_keep_data(options.profile.keep_data)
        .with_read_created_at(options.profile.read_created_at)
        .with_session(session)
}

/// Reads one connection until EOF, error, silence or truncation.
async fn read(
    mut body: ByteStream,
    options: &StreamOptions,
    resume: &mut Resume,
    backoff: &mut StreamBackoff,
    report: &Reporter<'_>,
    retry_now: &Notify,
) -> Result<ConnectionEnd, ConsumerGone> {
    let mut parser = SseParser::new(options.max_frame_bytes);
    let mut batch = Batch::default();
    let mut progressed = false;
    // Silence is measured from the last complete line, not the last byte. One timer for
    // the connection, moved only when it fires: re-arming it per chunk (a chunk per frame
    // on a replay) was a timer-wheel update per event.
    let mut last_line = Instant::now();
    let watchdog = sleep_until(last_line + options.idle_timeout);
    tokio::pin!(watchdog);
    let mut in_grace = false;
    let mut heard = false;
    loop {
        let next = tokio::select! {
            biased;
            next = body.next() => Some(next),
            () = &mut watchdog => None,
            // Asked to reconnect while nothing has come: a connection that never spoke is
            // worth nothing, and a new one may (a proxy that buffers, a stuck replay).
            () = retry_now.notified(), if !heard => {
                return Ok(ConnectionEnd {
                    reason: "reconnecting as asked: nothing received on this connection".into(),
                    progressed,
                    heard,
                    timed_out: false,
                });
            }
        };
        let Some(next) = next else {
            let quiet_until = last_line + options.idle_timeout;
            if quiet_until > Instant::now() {
                watchdog.as_mut().reset(quiet_until);
                continue;
            }
            if !in_grace {
                // The deadline may have passed while the process was stopped (SIGSTOP):
                // what the socket holds then was never read. Read it before judging.
                in_grace = true;
                let grace = Instant::now() + watchdog_grace(options.idle_timeout);
                watchdog.as_mut().reset(grace);
                continue;
            }
            return Ok(ConnectionEnd {
                reason: silence_reason(options.idle_timeout, parser.any_byte_seen()),
                progressed,
                heard,
                timed_out: true,
            });
        };
        let chunk = match next {
            None => {
                return Ok(ConnectionEnd {
                    reason: "the server closed the stream".into(),
                    progressed,
                    heard,
                    timed_out: false,
                });
            }
            Some(Err(e)) => {
                return Ok(ConnectionEnd {
                    reason: e.to_string(),
                    progressed,
                    heard,
                    timed_out: false,
                });
            }
            Some(Ok(chunk)) => chunk,
        };
        let lines_before = parser.lines_seen();
        let ended = read_chunk(
            &mut parser,
            &chunk,
            options,
            resume,
            backoff,
            &mut batch,
            &mut progressed,
        );
        if parser.lines_seen() != lines_before {
            last_line = Instant::now();
            in_grace = false;
        }
        if !heard && parser.heard() {
            heard = true;
            report.state(ConnectionState::Live)?;
        }
        report.send_batch(&mut batch).await?;
        if let Some(reason) = ended {
            return Ok(ConnectionEnd {
                reason,
                progressed,
                heard,
                timed_out: false,
            });
        }
    }
}

/// Reads one chunk, adding what to report to `batch`. `Some(reason)`: the connection must
/// end here (see [`on_item`]).
fn read_chunk(
    parser: &mut SseParser,
    chunk: &Bytes,
    options: &StreamOptions,
    resume: &mut Resume,
    backoff: &mut StreamBackoff,
    batch: &mut Batch,
    progressed: &mut bool,
) -> Option<String> {
    let mut ended = None;
    if !(options.profile.frame_runs && resume.takes_agreeing_frames()) {
        parser.feed_shared(chunk, &mut |item| {
            if ended.is_none() {
                ended = on_item(item, chunk, options, resume, backoff, batch, progressed);
            }
        });
        batch.end_chunk(chunk.len());
        return ended;
    }
    // Runs of frames in the usual shape, and the general path for whatever is not (up to
    // the next frame's start), in turns.
    let mut at = 0;
    while at < chunk.len() && ended.is_none() {
        if parser.between_frames() {
            // At most a frame per 64 bytes left in the chunk (about the least a run's frame
            // takes: its `id:` line and an envelope's head), so a live frame's run does not
            // hold a replay chunk's worth of list.
            let mut frames = Vec::with_capacity(batch.last_run_len.min((chunk.len() - at) / 64));
            let (end, lines) = runs::scan(chunk, at, parser.max_frame_bytes(), resume, &mut frames);
            if !frames.is_empty() {
                parser.count_lines(lines);
                *progressed = true;
                batch.last_run_len = frames.len();
                batch.push_run(FrameRun::new(chunk.clone(), frames));
            }
            at = end;
            if at == chunk.len() {
                break;
            }
        }
        at = parser.feed_shared_to_frame_end(chunk, at, &mut |item| {
            if ended.is_none() {
                ended = on_item(item, chunk, options, resume, backoff, batch, progressed);
            }
        });
    }
    batch.end_chunk(chunk.len());
    ended
}

/// Decides about one parsed item, adding what to report to `batch`. `Some(reason)`: the
/// connection must end here (a replay truncation), with nothing after it read.
fn on_item(
    item: SseRef<'_>,
    chunk: &[u8],
    options: &StreamOptions,
    resume: &mut Resume,
    backoff: &mut StreamBackoff,
    batch: &mut Batch,
    progressed: &mut bool,
) -> Option<String> {
    match item {
        SseRef::Retry(ms) => backoff.set_hint(ms),
        SseRef::Oversized { bytes, id } => {
            let reason = format!(
                "frame of {bytes} bytes exceeds the {} byte limit",
                options.max_frame_bytes
            );
            // A persisted event is not a droppable frame: name it.
            let update = match id.and_then(|id| id.trim().parse::<u64>().ok()) {
                Some(seq) => StreamUpdate::Lost { seq, reason },
                None => StreamUpdate::Skipped { reason },
            };
            batch.push(update);
        }
        SseRef::Frame(frame) => {
            let bytes = frame.data.len();
            match resume.on_frame_ref(frame) {
                FrameAction::Deliver(f) => {
                    *progressed |= f.id.is_some();
                    report_anomaly(resume, batch);
                    let in_chunk = f.data.shares(chunk);
                    batch.push_frame(f, bytes, in_chunk);
                }
                FrameAction::Duplicate { seq } => {
                    tracing::debug!(seq, cursor = ?resume.cursor(), "dropped duplicate event");
                }
                FrameAction::Skip { reason } => batch.push(StreamUpdate::Skipped { reason }),
                FrameAction::Truncated { notice, from_seq } => {
                    // The live frames behind this notice would jump the gap: drop them
                    // with the connection and collect the rest first.
                    report_anomaly(resume, batch);
                    batch.push(StreamUpdate::Frame(notice));
                    return Some(match (from_seq, resume.reconnect_request()) {
                        (Some(_), Some(s)) => {
                            format!("replay truncated; collecting events after seq {s}")
                        }
                        (Some(_), None) => "replay truncated; reconnecting".into(),
                        (None, _) => "replay truncated (no from_seq); reconnecting".into(),
                    });
                }
            }
        }
    }
    None
}

fn report_anomaly(resume: &mut Resume, batch: &mut Batch) {
    if let Some(reason) = resume.take_anomaly() {
        tracing::warn!(%reason, "event stream anomaly");
        batch.push(StreamUpdate::Anomaly { reason });
    }
}

/// How long the watchdog keeps reading after its deadline before it judges the stream
/// dead: enough for a process just resumed from a stop to drain its socket.
fn watchdog_grace(idle: Duration) -> Duration {
    (idle / 8).min(Duration::from_millis(500))
}

fn silence_reason(idle: Duration, any_byte: bool) -> String {
    if any_byte {
        format!("no data for {}", secs(idle))
    } else {
        format!("no byte received within {} of opening", secs(idle))
    }
}

/// `45s`, or `0.4s` for a sub-second timeout (whole seconds alone would print `0s`).
fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// One connection read from given chunks without IO, with runs or by the general path
/// alone: the proptest below and the `stream_runs` fuzz target (through
/// [`crate::fuzzing`]) compare the two.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod compare {
    use super::*;

    /// What a connection reported, runs read back as frames.
    #[derive(Debug)]
    pub(crate) struct Read {
        pub(crate) updates: Vec<StreamUpdate>,
        /// Why it ended, if a frame ended it.
        pub(crate) ended: Option<String>,
        /// The parser's lines seen after each chunk read whole.
        pub(crate) lines: Vec<u64>,
        pub(crate) cursor: Option<u64>,
        pub(crate) request: Option<u64>,
        /// How many runs were handed over.
        pub(crate) runs: usize,
    }

    /// `chunks` read as [`read`] reads them, with `resume`'s decisions.
    pub(crate) fn read_all(chunks: &[Bytes], options: &StreamOptions, mut resume: Resume) -> Read {
        let mut parser = SseParser::new(options.max_frame_bytes);
        let mut backoff = StreamBackoff::new(Duration::from_secs(1), 1);
        let mut batch = Batch::default();
        let mut progressed = false;
        let mut lines = Vec::new();
        let mut ended = None;
        for chunk in chunks {
            ended = read_chunk(
                &mut parser,
                chunk,
                options,
                &mut resume,
                &mut backoff,
                &mut batch,
                &mut progressed,
            );
            if ended.is_some() {
                break;
            }
            lines.push(parser.lines_seen());
        }
        let mut runs = 0;
        let mut updates = Vec::new();
        for item in batch.updates {
            match item {
                StreamUpdate::Run(run) => {
                    runs += 1;
                    let in_place: Vec<StreamFrame> = run.frames().collect();
                    let events: Vec<_> = run.events().collect();
                    let expanded: Vec<StreamFrame> = run.into_frames().collect();
                    assert_eq!(in_place, expanded, "a run's frames in place and expanded");
                    let decoded_events: Vec<_> = expanded
                        .iter()
                        .map(|frame| {
                            let mut frame = frame.clone();
                            frame.decode_in_place();
                            (frame.id.unwrap_or_default(), frame.event)
                        })
                        .collect();
                    assert_eq!(
                        events, decoded_events,
                        "a run's events, read with their heads, and decoded whole"
                    );
                    updates.extend(expanded.into_iter().map(StreamUpdate::Frame));
                }
                update => updates.push(update),
            }
        }
        Read {
            updates,
            ended,
            lines,
            cursor: resume.cursor(),
            request: resume.reconnect_request(),
            runs,
        }
    }

    /// Reads `chunks` with `options` (runs on, frames not decoded, for runs to be taken)
    /// both ways. `Ok`: the runs handed over; the connection reported the same frames (in
    /// order, with the same data and `created_at`), skips, anomalies, truncation and cursor
    /// as by the general path alone, and counted the same lines. `Err`: what differed.
    pub(crate) fn runs_agree(chunks: &[Bytes], options: &StreamOptions) -> Result<usize, String> {
        let runs = read_all(chunks, options, resume_for(options));
        let general = read_all(
            chunks,
            options,
            resume_for(options).without_agreeing_heads(),
        );
        let differs = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
            Err(format!(
                "{what} differ:\n  runs:    {a:?}\n  general: {b:?}"
            ))
        };
        if general.runs != 0 {
            return Err(format!("the general path read {} runs", general.runs));
        }
        if runs.updates != general.updates {
            return differs("updates", &runs.updates, &general.updates);
        }
        if runs.ended != general.ended {
            return differs("ends", &runs.ended, &general.ended);
        }
        if (runs.cursor, runs.request) != (general.cursor, general.request) {
            return differs(
                "cursors (and requests)",
                &(runs.cursor, runs.request),
                &(general.cursor, general.request),
            );
        }
        // A connection that ended mid-chunk counted lines it never reads on.
        if runs.ended.is_none() && runs.lines != general.lines {
            return differs("lines seen", &runs.lines, &general.lines);
        }
        Ok(runs.runs)
    }

    /// Reads `chunks` twice: decoded by the stream (no runs), and undecoded in runs then
    /// decoded by the consumer ([`StreamFrame::decode_in_place`]), `options` giving the
    /// rest. `Ok`: the same frames (seq and event), skips, anomalies, truncation, end and
    /// cursor both ways. `Err`: what differed.
    pub(crate) fn decoding_later_agrees(
        chunks: &[Bytes],
        options: &StreamOptions,
    ) -> Result<(), String> {
        let by_stream = StreamOptions {
            profile: crate::stream::StreamProfile {
                decode_persisted: true,
                frame_runs: false,
                ..options.profile
            },
            ..options.clone()
        };
        let later = StreamOptions {
            profile: crate::stream::StreamProfile {
                decode_persisted: false,
                frame_runs: true,
                ..options.profile
            },
            ..options.clone()
        };
        let seen = |options: &StreamOptions, decode: bool| {
            let mut read = read_all(chunks, options, resume_for(options));
            for update in &mut read.updates {
                if let StreamUpdate::Frame(frame) = update {
                    if decode {
                        frame.decode_in_place();
                    }
                    // What a consumer reads of a frame; its data is the same bytes either way.
                    frame.data = Default::default();
                    frame.created_at = None;
                }
            }
            (read.updates, read.ended, read.cursor, read.request)
        };
        let (stream, later) = (seen(&by_stream, false), seen(&later, true));
        if stream != later {
            return Err(format!(
                "decoded by the stream: {stream:?}\ndecoded later:        {later:?}"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame_data::FrameData;

    fn frame() -> StreamFrame {
        StreamFrame {
            id: Some(1),
            data: FrameData::default(),
            event: Err(crate::model::DecodeError("not decoded".into())),
            created_at: None,
            slot: QueueSlot::default(),
        }
    }

    mod runs_read_as_the_general_path {
        use super::*;
        use proptest::prelude::*;

        const OWN: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";
        const NOTICE: &str = "gobare.replay_truncated";

        /// One frame of the generated stream: (seq step, type, session, `id:` line, `event:`
        /// line, payload, line end, a line before it).
        type FrameSpec = (
            u64,
            &'static str,
            Option<&'static str>,
            &'static str,
            Option<&'static str>,
            &'static str,
            &'static str,
            &'static str,
        );

        fn frame_spec() -> impl Strategy<Value = FrameSpec> {
            (
                prop::sample::select(vec![1u64, 1, 1, 1, 0, 2, 1000]),
                prop::sample::select(vec![
                    "agent.message",
                    "agent.message",
                    "agent.message",
                    "agent.message",
                    "tool.call",
                    "agent.text",
                    "agent.message",
                    "agent.message",
                    "agent.message",
                    NOTICE,
                ]),
                prop::sample::select(vec![Some(OWN), Some(OWN), Some("sess_other"), None]),
                prop::sample::select(vec![
                    "same", "same", "same", "next", "none", "nospace", "back", "junk", "big",
                ]),
                prop::sample::select(vec![
                    None,
                    None,
                    Some("same"),
                    Some("same"),
                    Some("same"),
                    Some("agent.text"),
                    Some("x\u{1}y"),
                    Some(""),
                    None,
                    None,
                    None,
                    None,
                    Some(NOTICE),
                ]),
                prop::sample::select(vec![
                    r#"{"text":"hi"}"#,
                    r#"{"text":"hi"}"#,
                    r#"{"text":"\u00e9 ok"}"#,
                    r#"{"text":"é"}"#,
                    r#"{"from_seq":3,"note":"n"}"#,
                    "]",
                    "{\"text\":\"a\u{7}\"}",
                    r#"{"text":"x"},"session_id":"sess_other""#,
                    r#"{"delta":"d"}"#,
                    r#"{"text":"\ud800 lone"}"#,
                    r#"{"text":"\ud83d\ude00 pair"}"#,
                    r#"{"text":5}"#,
                ]),
                prop::sample::select(vec!["\n", "\n", "\n", "\n", "\r\n", "\r"]),
                prop::sample::select(vec![
                    "",
                    "",
                    "",
                    ": ping\n",
                    "retry: 5\n",
                    "other: 1\n",
                    "\n",
                    "data: x\n",
                    "id: 3\n",
                ]),
            )
        }

        /// The wire bytes of `frames`, seqs counted from `seq`.
        fn stream_bytes(frames: &[FrameSpec], mut seq: u64) -> Vec<u8> {
            let mut out = Vec::new();
            for &(step, kind, session, id, event, payload, end, before) in frames {
                seq = seq
                    .saturating_add(step)
                    .saturating_sub(u64::from(step == 0));
                let persisted = kind != "agent.text" && kind != NOTICE;
                let mut json = format!(r#"{{"object":"event","type":"{kind}""#);
                if let Some(session) = session {
                    json.push_str(&format!(r#","session_id":"{session}""#));
                }
                if persisted {
                    json.push_str(&format!(r#","seq":{seq}"#));
                } else {
                    json.push_str(r#","seq":null"#);
                }
                json.push_str(&format!(
                    r#","created_at":1700000000000,"payload":{payload}}}"#
                ));
                out.extend_from_slice(before.as_bytes());
                let id = match id {
                    "same" => Some(format!("id: {seq}")),
                    "next" => Some(format!("id: {}", seq + 1)),
                    "back" => Some(format!("id: {}", seq.saturating_sub(5))),
                    "nospace" => Some(format!("id:{seq}")),
                    "junk" => Some("id: 1x".to_string()),
                    "big" => Some("id: 99999999999999999999".to_string()),
                    _ => None,
                };
                for line in
                    id.into_iter().chain(event.map(|event| {
                        format!("event: {}", if event == "same" { kind } else { event })
                    }))
                {
                    out.extend_from_slice(line.as_bytes());
                    out.extend_from_slice(end.as_bytes());
                }
                out.extend_from_slice(format!("data: {json}{end}{end}").as_bytes());
            }
            out
        }

        /// The options the proptests draw: which stream, from where, the frame bound and
        /// whether `created_at` is read; each test sets how frames are decoded and handed over.
        fn generated_options(
            session: Option<&str>,
            from: Option<u64>,
            max_frame_bytes: usize,
            read_created_at: bool,
        ) -> StreamOptions {
            StreamOptions {
                target: match session {
                    Some(id) => StreamTarget::Session(id.into()),
                    None => StreamTarget::Org { root: None },
                },
                from,
                profile: crate::stream::StreamProfile {
                    read_created_at,
                    ..crate::stream::StreamProfile::EVENTS
                },
                max_frame_bytes,
                ..StreamOptions::default()
            }
        }

        fn cut(bytes: &[u8], cuts: &[prop::sample::Index]) -> Vec<Bytes> {
            let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            at.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in at {
                chunks.push(Bytes::copy_from_slice(&bytes[from..cut]));
                from = cut;
            }
            chunks.push(Bytes::copy_from_slice(&bytes[from..]));
            chunks
        }

        prop_compose! {
            /// A generated stream (its bytes), where to cut it, and the options it is read
            /// with ([`generated_options`]): what both proptests below draw.
            fn any_stream_and_options()(
                frames in prop::collection::vec(frame_spec(), 0..24),
                cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
                first_seq in prop::sample::select(vec![0u64, 5]),
                from in prop::sample::select(vec![None, Some(0u64), Some(3)]),
                session in prop::sample::select(vec![Some(OWN), None]),
                max_frame_bytes in prop_oneof![Just(1usize << 20), 120usize..260],
                read_created_at in any::<bool>(),
            ) -> (Vec<u8>, Vec<prop::sample::Index>, StreamOptions) {
                let options = generated_options(session, from, max_frame_bytes, read_created_at);
                (stream_bytes(&frames, first_seq), cuts, options)
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]
            /// Any stream, any chunking, `created_at` read or not: read with runs, a
            /// connection reports the frames (in order, with the same data and `created_at`),
            /// skips, anomalies, truncation and cursor that the general path reports, and
            /// counts the same lines.
            #[test]
            fn any_stream_and_chunking(
                (stream, cuts, options) in any_stream_and_options(),
                bom in any::<bool>(),
            ) {
                let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
                bytes.extend(stream);
                let chunks = cut(&bytes, &cuts);
                let options = StreamOptions {
                    profile: crate::stream::StreamProfile {
                        decode_persisted: false,
                        frame_runs: true,
                        ..options.profile
                    },
                    ..options
                };
                if let Err(differs) = compare::runs_agree(&chunks, &options) {
                    return Err(TestCaseError::fail(differs));
                }
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]
            /// Any stream, any chunking: frames handed over undecoded in runs and decoded by
            /// the consumer read as the stream's own decoding reads them (the app's way).
            #[test]
            fn decoding_later_reads_as_the_stream_decoding(
                (stream, cuts, options) in any_stream_and_options(),
                keep_data in any::<bool>(),
            ) {
                let chunks = cut(&stream, &cuts);
                let options = StreamOptions {
                    profile: crate::stream::StreamProfile { keep_data, ..options.profile },
                    ..options
                };
                if let Err(differs) = compare::decoding_later_agrees(&chunks, &options) {
                    return Err(TestCaseError::fail(differs));
                }
            }
        }

        /// The server's usual stream is read as runs, a frame split over two chunks by the
        /// general path between them.
        #[test]
        fn the_usual_stream_is_read_as_runs() {
            let frames: Vec<FrameSpec> = (0..10)
                .map(|_| {
                    (
                        1,
                        "agent.message",
                        Some(OWN),
                        "same",
                        Some("same"),
                        r#"{"text":"hi"}"#,
                        "\n",
                        "",
                    )
                })
                .collect();
            let bytes = stream_bytes(&frames, 0);
            let options = StreamOptions {
                target: StreamTarget::Session(OWN.into()),
                from: Some(0),
                profile: crate::stream::StreamProfile::PRINTED,
                ..StreamOptions::default()
            };
            let chunks = vec![
                Bytes::copy_from_slice(&bytes[..bytes.len() / 2]),
                Bytes::copy_from_slice(&bytes[bytes.len() / 2..]),
            ];
            let read = compare::read_all(&chunks, &options, resume_for(&options));
            assert_eq!(
                (read.updates.len(), read.ended, read.cursor, read.runs),
                (10, None, Some(10), 2)
            );
            let mut read = resume_for(&options);
            let mut frames = Vec::new();
            let (end, lines) = runs::scan(&chunks[1], 0, 1 << 20, &mut read, &mut frames);
            assert_eq!(
                (end, lines, frames.len()),
                (0, 0, 0),
                "starts inside a frame"
            );
        }
    }

    /// What the data of the frames holding slices of a chunk does not count of it is
    /// charged to the last of them; a chunk no frame holds charges nothing.
    #[test]
    fn a_held_chunk_is_charged_whole() {
        let o = super::super::FRAME_OVERHEAD_BYTES;
        let mut batch = Batch::default();
        batch.push_frame(frame(), 10, true);
        batch.push_frame(frame(), 20, false);
        batch.push_frame(frame(), 30, true);
        batch.end_chunk(1_000);
        let shares: Vec<usize> = batch.shares.iter().map(|&(_, share)| share).collect();
        assert_eq!(shares, vec![10 + o, 20 + o, 30 + o + 960]);
        assert_eq!(batch.share, 60 + 3 * o + 960);
        // The next chunk starts its own count.
        batch.push_frame(frame(), 40, true);
        batch.end_chunk(100);
        assert_eq!(batch.shares[3].1, 40 + o + 60);
        let mut unheld = Batch::default();
        unheld.push_frame(frame(), 10, false);
        unheld.end_chunk(1_000);
        assert_eq!(unheld.share, 10 + o);
    }
}
