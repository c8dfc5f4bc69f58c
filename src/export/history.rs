//! Reading a session's history from the stream up to its current end, not following live.
//!
//! The stream has no "replay finished" marker and no "last seq" (reference §7.4), so the
//! end is inferred, in this order:
//!
//! 1. The session was read settled (idle or failed, nothing pending; `settled_at`) while
//!    the stream opened: its `updated_at` moves with every change, and a change after the
//!    stream opened comes on it too, so the history is whole once a persisted event stamped
//!    at or after `updated_at` has arrived. A short quiet (`SETTLED_QUIET`) then collects
//!    the events stamped in that same millisecond. Transient frames are not evidence of
//!    anything here: a server may interleave them with its replay.
//! 2. A session still working: the first live-only frame (a delta; transient frames are
//!    never replayed, §7.4).
//! 3. Otherwise (a working session, or one that changed without an event) a quiet spell of
//!    [`END_QUIET`] while connected, measured from the last persisted event: transient
//!    frames never count as progress.
//!
//! A quiet spell is the weakest of these: a stream that delivers part of a replay and then
//! stalls looks the same. So the newest turn the server had started when the stream opened
//! (`Ends::newest_turn_started`) is a known point the history must reach: a quiet end short
//! of it is an error, not a short history.
//!
//! A truncated replay is collected by the stream task itself (it reconnects from
//! `from_seq`); a quiet spell only counts while the stream is open.

use color_eyre::eyre::{Result, bail};
use gobare_api::model::{Session, SessionStatus};
use gobare_api::stream::{
    ConnectionState, FrameRun, RunFrames, StreamFrame, StreamUpdate, Updates,
};
use gobare_api::text;
use std::time::Duration;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::time::Instant;

/// How long an open stream stays silent before its history is taken to have ended, when
/// nothing else says so.
pub const END_QUIET: Duration = Duration::from_millis(500);

/// The quiet that ends a settled session's history once it reached the session's last
/// change: only events stamped in that same millisecond can still be on their way, in the
/// same replay burst.
pub(crate) const SETTLED_QUIET: Duration = Duration::from_millis(50);

/// Connections in a row that said nothing before the history is given up on (each ends
/// at the stream's idle timeout), here and by `follow`. The app reads the session after one;
/// giving up is final, so it waits for a second.
pub(crate) const SILENT_CONNECTIONS: u32 = 2;

/// Type name of the replay truncation notice: transient, but not a sign of being live.
const REPLAY_TRUNCATED: &str = "gobare.replay_truncated";

/// What ends a history read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ends {
    /// The quiet spell that ends it when nothing else does.
    pub(crate) quiet: Duration,
    /// The settled session's `updated_at`, read as the stream opened ([`settled_at`]).
    pub(crate) settled_at: Option<i64>,
    /// When the newest turn the server had started by the time the stream opened began
    /// (Unix ms): its `turn.started` was persisted before the stream opened, so a history
    /// that ends quietly before it ended early.
    pub(crate) newest_turn_started: Option<i64>,
}

impl Ends {
    /// The export's ends: [`END_QUIET`], and the session's `updated_at` when settled.
    pub fn for_session(session: Option<&Session>) -> Ends {
        Ends {
            quiet: END_QUIET,
            settled_at: session.and_then(settled_at),
            newest_turn_started: None,
        }
    }

    /// These ends, knowing that the newest turn started at `started_at` (Unix ms).
    pub(crate) fn reaching(self, started_at: Option<i64>) -> Ends {
        Ends {
            newest_turn_started: started_at,
            ..self
        }
    }
}

/// `ms` as "YYYY-MM-DD HH:MM:SS UTC".
fn utc(ms: i64) -> String {
    let (date, clock) = gobare_api::clock::utc_date_and_clock(ms);
    format!("{date} {clock} UTC")
}

/// How far a persisted event's stamp may sit before the turn record's `started_at` and still
/// be taken as that turn's start: the two are stamped by the service a moment apart.
const STAMP_SLACK_MS: i64 = 1_000;

/// `session.updated_at` when nothing can add an event to the session without someone
/// acting on it: not working, no required action waiting.
pub(crate) fn settled_at(session: &Session) -> Option<i64> {
    let idle = matches!(session.status, SessionStatus::Idle | SessionStatus::Failed);
    (idle && session.required_actions.is_empty()).then_some(session.updated_at)
}

/// How the end of the history was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryEnd {
    /// The open stream was silent for [`END_QUIET`].
    Quiet,
    /// A live-only frame arrived while the session worked: everything persisted before it
    /// was delivered.
    LiveFrame,
    /// The history reached the settled session's last change (then `SETTLED_QUIET`).
    Settled,
}

/// What was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryRead {
    /// How the end was recognised.
    pub end: HistoryEnd,
    /// Persisted events handed to the sink.
    pub events: u64,
    /// The last one's seq.
    pub last_seq: Option<u64>,
}

/// Hands every persisted frame to `sink`, in order, until the history's end; warnings go
/// to `warn`. An error: the stream failed for good or an event could not be delivered
/// (an export with a hole in it would look complete).
pub(crate) async fn read(
    updates: &mut Updates,
    ends: Ends,
    mut sink: impl FnMut(StreamFrame) -> Result<()>,
    mut warn: impl FnMut(&str),
) -> Result<HistoryRead> {
    let mut history = History::new(updates, ends);
    while let Some(frame) = history.next(&mut warn).await? {
        sink(frame)?;
    }
    Ok(history.read())
}

/// A piece of the history: one persisted frame, or a chunk's persisted frames together
/// (a profile reading frame runs, [`gobare_api::stream::StreamProfile::RECORDED`]).
// Boxing the frame would cost an allocation per frame the general path delivers.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Piece {
    Frame(StreamFrame),
    Run(FrameRun),
}

/// A history read frame by frame, or piece by piece ([`read`] for a reader that never
/// waits between frames; one that does, the Markdown waiting for a turn's facts, lets the
/// stream's queue fill and its socket wait meanwhile, and none of that wait counts as the
/// stream's quiet).
pub(crate) struct History<'a> {
    updates: &'a mut Updates,
    /// A run [`History::next`] hands out a frame at a time.
    expanding: Option<RunFrames>,
    ends: Ends,
    live: bool,
    reached: bool,
    events: u64,
    last_seq: Option<u64>,
    /// The latest `created_at` of the persisted events handed out.
    latest_stamp: Option<i64>,
    /// How it ended, once it has.
    end: Option<HistoryEnd>,
    /// When the open stream's quiet spell ends: restarted on going live and by persisted
    /// events, never by a transient frame. Restarted when the queue runs dry rather than
    /// at each event (the same instant but for the queue's draining, which only makes the
    /// quiet later): reading the clock per event was 2 % of an export's CPU.
    quiet_until: Instant,
    restart_quiet: bool,
}

impl<'a> History<'a> {
    pub(crate) fn new(updates: &'a mut Updates, ends: Ends) -> History<'a> {
        History {
            updates,
            expanding: None,
            ends,
            live: false,
            reached: false,
            events: 0,
            last_seq: None,
            latest_stamp: None,
            end: None,
            quiet_until: Instant::now(),
            restart_quiet: false,
        }
    }

    /// What was read; call once [`History::next`] gave `None` (before, its end reads as
    /// [`HistoryEnd::Quiet`]).
    pub(crate) fn read(&self) -> HistoryRead {
        HistoryRead {
            end: self.end.unwrap_or(HistoryEnd::Quiet),
            events: self.events,
            last_seq: self.last_seq,
        }
    }

    /// Whether nothing is queued: [`History::next`] would wait.
    pub(crate) fn drained(&self) -> bool {
        self.expanding.as_ref().is_none_or(|run| run.len() == 0) && self.updates.is_empty()
    }

    /// The next persisted frame; `None` at the history's end (then always `None`).
    pub(crate) async fn next(
        &mut self,
        warn: &mut impl FnMut(&str),
    ) -> Result<Option<StreamFrame>> {
        loop {
            if let Some(frame) = self.expanding.as_mut().and_then(Iterator::next) {
                return Ok(Some(frame));
            }
            self.expanding = None;
            match self.next_piece(warn).await? {
                Some(Piece::Frame(frame)) => return Ok(Some(frame)),
                Some(Piece::Run(run)) => self.expanding = Some(run.into_frames()),
                None => return Ok(None),
            }
        }
    }

    /// The next persisted frame or run of them; `None` at the history's end (then always
    /// `None`). Not to be mixed with [`History::next`] (whose run in hand it would pass).
    pub(crate) async fn next_piece(
        &mut self,
        warn: &mut impl FnMut(&str),
    ) -> Result<Option<Piece>> {
        if self.end.is_some() {
            return Ok(None);
        }
        loop {
            // What is already queued is taken without a timer: arming one per frame was a
            // timer-wheel entry per event on a replay.
            let queued = match self.updates.try_recv() {
                Ok(update) => Some(Some(update)),
                Err(TryRecvError::Disconnected) => Some(None),
                Err(TryRecvError::Empty) => None,
            };
            let next = if let Some(next) = queued {
                next
            } else if self.live {
                if self.restart_quiet {
                    self.restart_quiet = false;
                    let quiet = if self.reached {
                        SETTLED_QUIET
                    } else {
                        self.ends.quiet
                    };
                    self.quiet_until = Instant::now() + quiet;
                }
                match tokio::time::timeout_at(self.quiet_until, self.updates.recv()).await {
                    Ok(next) => next,
                    Err(_) if self.reached => return Ok(self.end(HistoryEnd::Settled)),
                    Err(_) => {
                        self.check_reached_newest_turn()?;
                        return Ok(self.end(HistoryEnd::Quiet));
                    }
                }
            } else {
                self.updates.recv().await
            };
            let Some(update) = next else {
                bail!("the event stream stopped before the end of the history");
            };
            match update {
                StreamUpdate::Run(run) => {
                    let Some(last) = run.seqs().last() else {
                        continue;
                    };
                    self.last_seq = Some(last);
                    self.events += run.len() as u64;
                    let latest = run.created_ats().flatten().max();
                    self.latest_stamp = self.latest_stamp.max(latest);
                    if let Some(change) = self.ends.settled_at {
                        self.reached |= latest.is_some_and(|at| at >= change);
                    }
                    self.restart_quiet = true;
                    return Ok(Some(Piece::Run(run)));
                }
                StreamUpdate::Frame(frame) if frame.id.is_some() => {
                    self.last_seq = frame.id;
                    self.events += 1;
                    self.latest_stamp = self.latest_stamp.max(frame.created_at);
                    self.reached |= self
                        .ends
                        .settled_at
                        .zip(frame.created_at)
                        .is_some_and(|(change, at)| at >= change);
                    self.restart_quiet = true;
                    return Ok(Some(Piece::Frame(frame)));
                }
                StreamUpdate::Frame(frame) => {
                    let truncation = frame
                        .event
                        .as_ref()
                        .is_ok_and(|e| e.kind == REPLAY_TRUNCATED);
                    // A settled session's end is its last change: a transient frame in its
                    // replay says nothing about how much of it is still to come.
                    if !truncation && self.ends.settled_at.is_none() {
                        return Ok(self.end(HistoryEnd::LiveFrame));
                    }
                }
                StreamUpdate::State(ConnectionState::Live) => {
                    self.live = true;
                    self.restart_quiet = true;
                }
                StreamUpdate::State(ConnectionState::Failed { reason }) => {
                    bail!("the event stream failed: {}", text::one_line(&reason, 500))
                }
                StreamUpdate::State(ConnectionState::Open { silent_before })
                    if silent_before >= SILENT_CONNECTIONS =>
                {
                    bail!(
                        "the event stream connected {} times and sent nothing, not even a \
                         keep-alive (a buffering proxy?); {} events were read, and the \
                         history may go on past them",
                        silent_before + 1,
                        self.events
                    )
                }
                StreamUpdate::State(_) => self.live = false,
                StreamUpdate::Lost { seq, reason } => bail!(
                    "event {seq} could not be read ({}); stopping rather than export a gap",
                    text::one_line(&reason, 300)
                ),
                StreamUpdate::Skipped { reason } | StreamUpdate::Anomaly { reason } => {
                    warn(&text::one_line(&reason, 300));
                }
            }
        }
    }

    /// A quiet end must lie past the newest turn the server had started when the stream
    /// opened ([`Ends::newest_turn_started`]).
    fn check_reached_newest_turn(&self) -> Result<()> {
        let Some(started) = self.ends.newest_turn_started else {
            return Ok(());
        };
        if self
            .latest_stamp
            .is_some_and(|at| at + STAMP_SLACK_MS >= started)
        {
            return Ok(());
        }
        let reached = match (self.last_seq, self.latest_stamp) {
            (Some(seq), Some(at)) => format!("it went quiet after event {seq} ({}), ", utc(at)),
            _ => "it went quiet before any event, ".to_string(),
        };
        bail!(
            "the event stream did not reach the session's end: {reached}but the server says its \
             newest turn started at {}; {} events were read. Try again (a proxy that buffers \
             the stream can cause this)",
            utc(started),
            self.events
        )
    }

    fn end(&mut self, end: HistoryEnd) -> Option<Piece> {
        self.end = Some(end);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Event;

    fn frame(id: Option<u64>, data: &str) -> StreamUpdate {
        let event = Event::parse(data);
        StreamUpdate::Frame(StreamFrame {
            id,
            data: data.into(),
            created_at: event.as_ref().ok().and_then(|e| e.created_at),
            event,
            slot: Default::default(),
        })
    }

    fn persisted(seq: u64) -> StreamUpdate {
        stamped(seq, 1_000)
    }

    /// Persisted event `seq`, created at `at` (Unix ms).
    fn stamped(seq: u64, at: i64) -> StreamUpdate {
        frame(
            Some(seq),
            &format!(
                r#"{{"type":"agent.message","seq":{seq},"created_at":{at},"payload":{{"text":"m{seq}"}}}}"#
            ),
        )
    }

    const QUIET_ONLY: Ends = Ends {
        quiet: END_QUIET,
        settled_at: None,
        newest_turn_started: None,
    };

    const DELTA: &str = r#"{"type":"agent.text","seq":null,"payload":{"delta":"d"}}"#;
    const TRUNCATED: &str = r#"{"type":"gobare.replay_truncated","seq":null,"from_seq":2}"#;

    async fn read_all(updates: Vec<StreamUpdate>) -> (Result<HistoryRead>, Vec<u64>, Vec<String>) {
        read_with(QUIET_ONLY, updates).await
    }

    async fn read_with(
        ends: Ends,
        updates: Vec<StreamUpdate>,
    ) -> (Result<HistoryRead>, Vec<u64>, Vec<String>) {
        let (tx, mut rx) = gobare_api::stream::channel();
        for u in updates {
            tx.send(u).unwrap();
        }
        // The sender stays open: the end must come from the frames or the quiet spell.
        let out = read_from(&mut rx, ends).await;
        drop(tx);
        out
    }

    /// [`read`] over `rx`: what it returned, the seqs it passed on, its warnings.
    async fn read_from(
        rx: &mut Updates,
        ends: Ends,
    ) -> (Result<HistoryRead>, Vec<u64>, Vec<String>) {
        let mut seqs = Vec::new();
        let mut warnings = Vec::new();
        let read = read(
            rx,
            ends,
            |f| {
                seqs.push(f.id.unwrap());
                Ok(())
            },
            |w| warnings.push(w.to_string()),
        )
        .await;
        (read, seqs, warnings)
    }

    #[tokio::test(start_paused = true)]
    async fn ends_after_a_quiet_spell_while_open() {
        let started = tokio::time::Instant::now();
        let (read, seqs, _) = read_all(vec![
            StreamUpdate::State(ConnectionState::Connecting { attempt: 1 }),
            StreamUpdate::State(ConnectionState::Live),
            persisted(1),
            persisted(2),
        ])
        .await;
        let read = read.unwrap();
        assert_eq!(read.end, HistoryEnd::Quiet);
        assert_eq!((read.events, read.last_seq), (2, Some(2)));
        assert_eq!(seqs, [1, 2]);
        assert_eq!(started.elapsed(), END_QUIET);
    }

    #[tokio::test(start_paused = true)]
    async fn a_settled_session_ends_a_short_quiet_after_its_last_change() {
        let settled = Ends {
            quiet: END_QUIET,
            newest_turn_started: None,
            settled_at: Some(2_000),
        };
        let started = tokio::time::Instant::now();
        let (read, seqs, _) = read_with(
            settled,
            vec![
                StreamUpdate::State(ConnectionState::Live),
                stamped(1, 1_000),
                stamped(2, 2_000),
                stamped(3, 2_000),
            ],
        )
        .await;
        let read = read.unwrap();
        assert_eq!(read.end, HistoryEnd::Settled);
        assert_eq!(seqs, [1, 2, 3], "the same millisecond's events too");
        assert_eq!(started.elapsed(), SETTLED_QUIET);

        // Not reached yet (the change was not an event): the long quiet decides.
        let started = tokio::time::Instant::now();
        let (read, seqs, _) = read_with(
            settled,
            vec![
                StreamUpdate::State(ConnectionState::Live),
                stamped(1, 1_000),
                stamped(2, 1_999),
            ],
        )
        .await;
        assert_eq!(read.unwrap().end, HistoryEnd::Quiet);
        assert_eq!(seqs, [1, 2]);
        assert_eq!(started.elapsed(), END_QUIET);
    }

    #[tokio::test(start_paused = true)]
    async fn reaching_the_last_change_while_reconnecting_waits_for_the_stream() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(stamped(1, 2_000)).unwrap();
        tx.send(StreamUpdate::State(ConnectionState::Connecting {
            attempt: 2,
        }))
        .unwrap();
        let feeder = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(3)).await;
            tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
            tx.send(stamped(2, 2_000)).unwrap();
            tx
        });
        let ends = Ends {
            quiet: END_QUIET,
            newest_turn_started: None,
            settled_at: Some(2_000),
        };
        let (read, seqs, _) = read_from(&mut rx, ends).await;
        let read = read.unwrap();
        assert_eq!(seqs, [1, 2]);
        assert_eq!(read.end, HistoryEnd::Settled);
        drop(feeder.await.unwrap());
    }

    #[test]
    fn only_an_idle_or_failed_session_with_nothing_pending_is_settled() {
        let session = |status: &str, actions: serde_json::Value| -> Session {
            serde_json::from_value(serde_json::json!({
                "id": "s", "status": status, "created_at": 1, "updated_at": 7,
                "required_actions": actions,
            }))
            .unwrap()
        };
        let none = serde_json::json!([]);
        let one = serde_json::json!([{"type": "approval", "turn_id": "t", "call_id": "c"}]);
        assert_eq!(settled_at(&session("idle", none.clone())), Some(7));
        assert_eq!(settled_at(&session("failed", none.clone())), Some(7));
        assert_eq!(settled_at(&session("working", none.clone())), None);
        assert_eq!(settled_at(&session("requires_action", none.clone())), None);
        assert_eq!(settled_at(&session("hibernating", none)), None);
        assert_eq!(settled_at(&session("idle", one)), None);
        assert_eq!(Ends::for_session(None).settled_at, None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_delta_marks_the_end_at_once_but_a_truncation_notice_does_not() {
        let started = tokio::time::Instant::now();
        let (read, seqs, _) = read_all(vec![
            StreamUpdate::State(ConnectionState::Live),
            persisted(1),
            persisted(2),
            frame(None, TRUNCATED),
            StreamUpdate::State(ConnectionState::Connecting { attempt: 1 }),
            StreamUpdate::State(ConnectionState::Live),
            persisted(3),
            frame(None, DELTA),
            persisted(4),
        ])
        .await;
        let read = read.unwrap();
        assert_eq!(read.end, HistoryEnd::LiveFrame);
        assert_eq!(seqs, [1, 2, 3], "nothing after the live frame");
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    const THINKING: &str = r#"{"type":"agent.thinking","seq":null,"payload":{"delta":"t"}}"#;

    /// A server that interleaves transient frames with a slow replay of a settled session:
    /// every persisted event up to the last change is read, whatever came between them.
    #[tokio::test(start_paused = true)]
    async fn transient_frames_in_a_settled_replay_are_not_its_end() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        let feeder = tokio::spawn(async move {
            for seq in 1..=6 {
                tx.send(stamped(seq, 1_000 + seq as i64 * 200)).unwrap();
                tx.send(frame(None, DELTA)).unwrap();
                tx.send(frame(None, THINKING)).unwrap();
                tokio::time::sleep(END_QUIET / 2).await;
            }
            tx
        });
        let ends = Ends {
            quiet: END_QUIET,
            newest_turn_started: None,
            settled_at: Some(2_200),
        };
        let (read, seqs, _) = read_from(&mut rx, ends).await;
        let read = read.unwrap();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
        assert_eq!(read.end, HistoryEnd::Settled);
        drop(feeder.await.unwrap());
    }

    /// Deltas that keep coming after the last persisted event do not hold the end back:
    /// the quiet spell runs from the last persisted event.
    #[tokio::test(start_paused = true)]
    async fn transient_frames_never_count_as_progress() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(stamped(1, 1_000)).unwrap();
        let started = tokio::time::Instant::now();
        let feeder = tokio::spawn(async move {
            for _ in 0..20 {
                tokio::time::sleep(END_QUIET / 5).await;
                if tx.send(frame(None, DELTA)).is_err() {
                    break;
                }
            }
        });
        let ends = Ends {
            quiet: END_QUIET,
            newest_turn_started: None,
            settled_at: Some(5_000),
        };
        let (read, seqs, _) = read_from(&mut rx, ends).await;
        assert_eq!(read.unwrap().end, HistoryEnd::Quiet);
        assert_eq!(seqs, [1]);
        assert_eq!(started.elapsed(), END_QUIET);
        drop(rx);
        feeder.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn silence_while_reconnecting_is_not_the_end() {
        let (tx, mut rx) = gobare_api::stream::channel();
        tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
        tx.send(persisted(1)).unwrap();
        tx.send(StreamUpdate::State(ConnectionState::Retrying {
            in_ms: 5_000,
            attempt: 2,
            reason: "dropped".into(),
        }))
        .unwrap();
        let feeder = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            tx.send(StreamUpdate::State(ConnectionState::Live)).unwrap();
            tx.send(persisted(2)).unwrap();
            tx
        });
        let (read, seqs, _) = read_from(&mut rx, QUIET_ONLY).await;
        let read = read.unwrap();
        assert_eq!(seqs, [1, 2], "waited out the reconnect");
        assert_eq!(read.end, HistoryEnd::Quiet);
        drop(feeder.await.unwrap());
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_stream_or_a_lost_event_is_an_error_and_skips_are_warnings() {
        let (failed, _, _) = read_all(vec![StreamUpdate::State(ConnectionState::Failed {
            reason: "HTTP 404 not_found".into(),
        })])
        .await;
        assert!(failed.unwrap_err().to_string().contains("HTTP 404"));

        let (lost, seqs, warnings) = read_all(vec![
            StreamUpdate::State(ConnectionState::Live),
            StreamUpdate::Skipped {
                reason: "another session's frame".into(),
            },
            persisted(1),
            StreamUpdate::Lost {
                seq: 2,
                reason: "too large".into(),
            },
        ])
        .await;
        assert!(lost.unwrap_err().to_string().contains("event 2"));
        assert_eq!(seqs, [1]);
        assert_eq!(warnings, ["another session's frame"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_end_short_of_the_newest_turn_is_an_error_not_a_short_history() {
        let ends = QUIET_ONLY.reaching(Some(10_000));
        let stalled = vec![
            StreamUpdate::State(ConnectionState::Live),
            stamped(1, 1_000),
            stamped(2, 2_000),
        ];
        let (read, seqs, _) = read_with(ends, stalled).await;
        let error = read.unwrap_err().to_string();
        assert!(error.contains("did not reach the session's end"), "{error}");
        assert!(error.contains("after event 2"), "{error}");
        assert_eq!(seqs, [1, 2]);

        let whole = vec![
            StreamUpdate::State(ConnectionState::Live),
            stamped(1, 1_000),
            stamped(2, 9_500),
        ];
        let (read, seqs, _) = read_with(ends, whole).await;
        assert_eq!(read.unwrap().end, HistoryEnd::Quiet);
        assert_eq!(seqs, [1, 2]);
    }
}
