//! The Markdown export's writing on a thread of its own: the runtime's thread reads the
//! socket, splits the stream and reads the turn lists; this one decodes each event,
//! writes it and frees it, so the two halves of an export run on two cores at once.
//!
//! Frames cross in batches of the stream's runs (one wake-up per batch, no frame made per
//! event on the reading side) over a channel bounded in batches and bytes, deep enough that
//! the history's closing quiet passes while the writer works through it ([`BATCHES_QUEUED`]);
//! memory stays flat and a slow disk makes the socket wait: the
//! reading side then waits to hand a batch over, not for the stream, so that wait is never
//! taken for the history's quiet end. A turn whose facts have not arrived yet when it
//! closes has its closing line held while the writer goes on ([`super::held_output`]);
//! past [`HELD_BYTES`], at the history's end, or where a turn must be read alone, they are
//! waited for on this thread ([`Handle::block_on`] on the feed; the runtime's thread
//! never blocks, so the reads it waits for go on).

use super::facts_feed::{TurnFactsFeed, Wanted};
use super::history::{HistoryRead, Piece};
use super::markdown::MarkdownWriter;
use super::turn_facts::TurnFacts;
use gobare_api::model::{DecodeError, Event};
use gobare_api::text;
use std::io::{self, Write};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, oneshot};

/// Frames in one batch, about (a run of a chunk's frames is not split): small enough that
/// the writer starts early.
pub(crate) const BATCH_FRAMES: usize = 256;
/// A batch is handed over once its frames hold this many bytes: with [`BATCHES_QUEUED`],
/// what the writer's channel holds is bounded in bytes (the frames in it no longer count
/// against the stream's queue budget).
pub(crate) const BATCH_BYTES: usize = 256 << 10;
/// Batches queued for the writer at most: up to 16 MiB of frames, as sent. Against a fast
/// server the writer (decoding and writing) is the slower half, and the history's end is a
/// quiet spell after its last event ([`super::history::SETTLED_QUIET`]): a backlog about
/// that long (~55,000 events at ~1.1 M/s) lets the writer go on through the whole spell
/// instead of waiting it out. Measured on 200,000 events: 8 batches 232 ms, 32 216 ms,
/// 64 204 ms, 96 228 ms (docs/perf.md).
const BATCHES_QUEUED: usize = 64;
/// Bytes of Markdown held after closing lines that wait for their turn's facts, at most:
/// past this the writer waits for the facts. The turn lists are read on the runtime's
/// thread beside the history, and against a fast server they come later than the events
/// that need them: 200,000 events held 4–7 MB at most (of 17 MB written), and not waiting
/// took the export from 191 to 158 ms (docs/perf.md).
const HELD_BYTES: usize = 16 << 20;

/// What the reading side hands the writer.
enum ToWriter {
    /// Frames to write, undecoded: each event is made and freed on the writer's thread.
    Pieces(Vec<Piece>),
    /// The history's end: the writer finishes the document.
    End(HistoryRead),
}

/// The writer's thread, fed by [`MarkdownThread::send_pieces`]. Dropped before
/// [`MarkdownThread::finish`] (an interrupted export), it stops the writer and waits for
/// it, so that the output's temporary file is removed before the process can exit.
pub(crate) struct MarkdownThread<W> {
    frames: Option<mpsc::Sender<ToWriter>>,
    /// Warnings raised on the writer's thread, for the caller's `warn`.
    warnings: mpsc::UnboundedReceiver<String>,
    /// Closed to stop a writer waiting for turn facts.
    stop: Option<oneshot::Sender<()>>,
    written: Option<oneshot::Receiver<io::Result<W>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<W: Write + Send + 'static> MarkdownThread<W> {
    /// Starts writing with `md`, its turn facts brought by `feed`.
    pub(crate) fn start(md: MarkdownWriter<W>, feed: TurnFactsFeed) -> io::Result<Self> {
        let (frames, rx) = mpsc::channel(BATCHES_QUEUED);
        let (warn_tx, warnings) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let (done, written) = oneshot::channel();
        let runtime = Handle::current();
        let thread = std::thread::Builder::new()
            .name("export-writer".into())
            .spawn(move || {
                let warn = |w: &str| {
                    let _ = warn_tx.send(w.to_string());
                };
                let mut writing = Writing {
                    feed,
                    runtime,
                    stopped,
                    warn: &warn,
                };
                let (written, facts) = match writing.write_all(md, rx) {
                    Ok((out, facts)) => (Ok(out), Some(facts)),
                    Err(e) => (Err(e), None),
                };
                let _ = done.send(written);
                // Freed once the output is handed on: a long session's turn facts take
                // milliseconds to free, which committing the file need not wait for.
                drop(facts);
            })?;
        Ok(MarkdownThread {
            frames: Some(frames),
            warnings,
            stop: Some(stop),
            written: Some(written),
            thread: Some(thread),
        })
    }

    /// Hands `pieces` over; `false` when the writer has stopped (its error comes from
    /// [`MarkdownThread::finish`]).
    pub(crate) async fn send_pieces(&mut self, pieces: Vec<Piece>) -> bool {
        self.send(ToWriter::Pieces(pieces)).await
    }

    /// Hands the history's end over: the writer finishes the document.
    pub(crate) async fn send_end(&mut self, read: HistoryRead) -> bool {
        self.send(ToWriter::End(read)).await
    }

    async fn send(&self, batch: ToWriter) -> bool {
        match &self.frames {
            Some(frames) => frames.send(batch).await.is_ok(),
            None => false,
        }
    }

    /// Hands the writer's warnings so far to `warn`.
    pub(crate) fn pass_warnings(&mut self, warn: &impl Fn(&str)) {
        while let Ok(w) = self.warnings.try_recv() {
            warn(&w);
        }
    }

    /// Waits for the writer to end (after [`ToWriter::End`], or at its error) and hands
    /// the output back.
    pub(crate) async fn finish(mut self, warn: &impl Fn(&str)) -> io::Result<W> {
        self.frames = None;
        let written = match self.written.take() {
            Some(written) => written.await,
            None => return Err(io::Error::other("the export's writer was already finished")),
        };
        // It has sent its result: all that is left is freeing what it held, on its own
        // (not waited for; a writer that never sent one is joined on drop).
        self.thread = None;
        self.pass_warnings(warn);
        written.unwrap_or_else(|_| Err(io::Error::other("the export's writer stopped")))
    }
}

impl<W> Drop for MarkdownThread<W> {
    fn drop(&mut self) {
        self.frames = None;
        self.stop = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer's side: how it reaches the turn facts, and where its warnings go.
struct Writing<'a> {
    feed: TurnFactsFeed,
    runtime: Handle,
    /// Closed when the reading side gave up: a wait for facts ends.
    stopped: oneshot::Receiver<()>,
    warn: &'a dyn Fn(&str),
}

impl Writing<'_> {
    /// The writer's loop: every batch's frames decoded and written, then the end.
    fn write_all<W: Write>(
        &mut self,
        mut md: MarkdownWriter<W>,
        mut rx: mpsc::Receiver<ToWriter>,
    ) -> io::Result<(W, TurnFacts)> {
        while let Some(received) = rx.blocking_recv() {
            match received {
                ToWriter::Pieces(mut pieces) => {
                    for piece in &mut pieces {
                        match piece {
                            Piece::Frame(frame) => {
                                frame.decode_in_place();
                                let seq = frame.id.unwrap_or_default();
                                self.write_event(&mut md, seq, &frame.event)?;
                            }
                            Piece::Run(run) => {
                                for (seq, event) in run.events() {
                                    self.write_event(&mut md, seq, &event)?;
                                }
                            }
                        }
                    }
                    self.write_waiting(&mut md, false)?;
                }
                ToWriter::End(read) => {
                    self.write_waiting(&mut md, true)?;
                    let wanted = md.facts_wanted_at_end();
                    self.fill(&mut md, &wanted)?;
                    return md.finish(read.events, read.last_seq);
                }
            }
        }
        Err(stopped_error())
    }

    /// Writes event `seq`, or warns that it could not be read.
    fn write_event<W: Write>(
        &mut self,
        md: &mut MarkdownWriter<W>,
        seq: u64,
        event: &Result<Event, DecodeError>,
    ) -> io::Result<()> {
        match event {
            Ok(event) => {
                if md.knows_what_it_wants(event, self.feed.artifacts_read()) {
                    return md.event(event);
                }
                let wanted = md.facts_wanted(event);
                if wanted.is_empty() || self.feed.fill_now(md.facts_mut(), &wanted, self.warn) {
                    return md.event(event);
                }
                if MarkdownWriter::<W>::may_go_ahead_of_facts(event) && self.may_hold(md) {
                    return md.event_ahead_of_facts(event);
                }
                self.fill(md, &wanted)?;
                md.event(event)
            }
            Err(e) => {
                (self.warn)(&format!(
                    "event {seq} is not a readable envelope: {}",
                    text::one_line(&e.to_string(), 200)
                ));
                Ok(())
            }
        }
    }

    /// Whether what follows a closing line may be held while its turn's facts are read:
    /// the lists are still being read (so the facts may come by themselves), and not too
    /// much is held already.
    fn may_hold<W: Write>(&self, md: &MarkdownWriter<W>) -> bool {
        self.feed.reading_lists() && md.held_bytes() < HELD_BYTES
    }

    /// Writes the closing lines whose facts have come, in order; at the history's `end`
    /// (or with too much held, or the lists read) waits for the facts of each.
    fn write_waiting<W: Write>(&mut self, md: &mut MarkdownWriter<W>, end: bool) -> io::Result<()> {
        while let Some(wanted) = md.first_waiting() {
            if !self.feed.fill_now(md.facts_mut(), &wanted, self.warn) {
                if !end && self.may_hold(md) {
                    return Ok(());
                }
                self.fill(md, &wanted)?;
            }
            md.write_first_waiting()?;
        }
        Ok(())
    }

    /// Brings what `wanted` needs into `md`'s facts: at once when it has arrived, else
    /// waiting on this thread for the feed (or for the reading side to stop).
    fn fill<W: Write>(&mut self, md: &mut MarkdownWriter<W>, wanted: &Wanted) -> io::Result<()> {
        if wanted.is_empty() || self.feed.fill_now(md.facts_mut(), wanted, self.warn) {
            return Ok(());
        }
        let Writing {
            feed,
            runtime,
            stopped,
            warn,
            ..
        } = self;
        runtime.block_on(async {
            tokio::select! {
                () = feed.fill(md.facts_mut(), wanted, *warn) => Ok(()),
                _ = stopped => Err(stopped_error()),
            }
        })
    }
}

fn stopped_error() -> io::Error {
    io::Error::other("the export stopped before its end")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::history::HistoryEnd;
    use gobare_api::model::Turn;
    use gobare_api::stream::StreamFrame;
    use std::time::Duration;

    fn piece(data: String) -> Piece {
        let event = Event::parse(&data);
        Piece::Frame(StreamFrame {
            id: event.as_ref().ok().and_then(|e| e.seq),
            created_at: event.as_ref().ok().and_then(|e| e.created_at),
            data: data.into(),
            event,
            slot: Default::default(),
        })
    }

    /// Turn `n`'s events from seq `3n + 1`: its start, a message, its end.
    fn turn_events(n: usize) -> Vec<String> {
        let seq = 3 * n as u64;
        let at = 1_000 * n as i64;
        vec![
            format!(
                r#"{{"type":"turn.started","seq":{},"created_at":{at},"payload":{{"turnId":"turn_{n}"}}}}"#,
                seq + 1
            ),
            format!(
                r#"{{"type":"agent.message","seq":{},"created_at":{at},"payload":{{"text":"step {n}"}}}}"#,
                seq + 2
            ),
            format!(
                r#"{{"type":"turn.ended","seq":{},"created_at":{at},"payload":{{"turnId":"turn_{n}"}}}}"#,
                seq + 3
            ),
        ]
    }

    fn turn(n: usize) -> Turn {
        let status = if n.is_multiple_of(2) {
            "completed"
        } else {
            "failed"
        };
        serde_json::from_value(serde_json::json!({
            "id": format!("turn_{n}"), "status": status, "created_at": 0,
            "started_at": 0, "completed_at": 2_000 * n, "artifacts": "ready",
            "error": {"code": "x", "message": format!("reason {n}")},
        }))
        .unwrap()
    }

    /// Whenever the writer takes an event's facts as known without asking the feed, every
    /// turn [`MarkdownWriter::facts_wanted`] names for it is settled in the facts and the
    /// artifact list is read if wanted: what the feed would need to neither wait nor read.
    #[test]
    fn facts_are_taken_as_known_only_when_the_feed_would_not_ask() {
        #[derive(Clone, Copy, Debug)]
        enum Known {
            Absent,
            Working,
            Settled,
        }
        let states = [Known::Absent, Known::Working, Known::Settled];
        let turn = |id: &str, known: Known| -> Option<Turn> {
            let status = match known {
                Known::Absent => return None,
                Known::Working => "working",
                Known::Settled => "completed",
            };
            Some(
                serde_json::from_value(serde_json::json!({
                    "id": id, "status": status, "created_at": 0, "completed_at": 1,
                }))
                .unwrap(),
            )
        };
        let events = [
            r#"{"type":"turn.started","seq":9,"created_at":0,"payload":{"turnId":"b"}}"#,
            r#"{"type":"turn.ended","seq":9,"created_at":0,"payload":{"turnId":"b"}}"#,
            r#"{"type":"artifact.created","seq":9,"created_at":0,"payload":{"id":"x","path":"/p","size_bytes":1,"turn_id":"b"}}"#,
            r#"{"type":"agent.message","seq":9,"created_at":0,"payload":{"text":"t"}}"#,
        ];
        let mut asked = 0;
        for a in states {
            for b in states {
                for open in [None, Some("a"), Some("b")] {
                    for data in events {
                        for artifacts_read in [false, true] {
                            let turns = [turn("a", a), turn("b", b)].into_iter().flatten();
                            let facts = TurnFacts::from_resources(turns.collect(), Vec::new());
                            let mut md = MarkdownWriter::new(Vec::new(), "s", None, facts).unwrap();
                            if let Some(open) = open {
                                let start = format!(
                                    r#"{{"type":"turn.started","seq":1,"created_at":0,"payload":{{"turnId":"{open}"}}}}"#
                                );
                                md.event(&Event::parse(&start).unwrap()).unwrap();
                            }
                            let event = Event::parse(data).unwrap();
                            let wanted = md.facts_wanted(&event);
                            let settled = wanted.turns.iter().all(|t| {
                                md.facts_mut().turn(t).is_some_and(|f| f.outcome.is_some())
                            });
                            let needed = !settled || (wanted.artifacts && !artifacts_read);
                            let case = (a, b, open, data, artifacts_read);
                            if md.knows_what_it_wants(&event, artifacts_read) {
                                assert!(!needed, "{case:?}");
                            } else {
                                asked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(
            asked > 0 && asked < 3 * 3 * 3 * 4 * 2,
            "{asked} cases asked"
        );
    }

    /// More batches than the writer's queue holds, each closing a turn whose facts have
    /// not come: the writer takes every one (it would wait at the first turn's end, and
    /// the queue would stay full), and once the facts come the document reads as if each
    /// had been known from the start.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_writer_goes_on_while_the_turns_facts_are_on_their_way() {
        let turns = BATCHES_QUEUED + 8;
        let (feed, lists) = TurnFactsFeed::handed();
        let md = MarkdownWriter::new(Vec::new(), "s1", None, TurnFacts::unknown()).unwrap();
        let mut writer = MarkdownThread::start(md, feed).unwrap();
        for n in 0..turns {
            let batch = turn_events(n).into_iter().map(piece).collect();
            let sent = tokio::time::timeout(Duration::from_secs(60), writer.send_pieces(batch));
            assert!(sent.await.expect("the writer takes the batch"), "turn {n}");
        }
        let read = HistoryRead {
            end: HistoryEnd::Settled,
            events: 3 * turns as u64,
            last_seq: Some(3 * turns as u64),
        };
        assert!(writer.send_end(read).await);
        // Out of order, in two pages, as two walks bring them.
        lists.turns((turns / 2..turns).map(turn).collect());
        lists.turns((0..turns / 2).map(turn).collect());
        lists.end();
        let written = writer.finish(&|w: &str| panic!("{w}")).await.unwrap();

        let facts = TurnFacts::from_resources((0..turns).map(turn).collect(), Vec::new());
        let mut known = MarkdownWriter::new(Vec::new(), "s1", None, facts).unwrap();
        for data in (0..turns).flat_map(turn_events) {
            known.event(&Event::parse(&data).unwrap()).unwrap();
        }
        let (expected, _) = known.finish(read.events, read.last_seq).unwrap();
        let (written, expected) = (
            String::from_utf8(written).unwrap(),
            String::from_utf8(expected).unwrap(),
        );
        assert!(written.contains("**Turn 1: completed in 0s**"), "{written}");
        assert!(
            written.contains("**Turn 2: failed after 2s** · 1970-01-01 00:00:01 UTC — x: reason 1"),
            "{written}"
        );
        assert_eq!(written, expected);
    }
}
