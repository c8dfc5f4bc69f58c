//! The app's side of the local event log: replaying it on start through the same path live
//! stream frames take (so every pane looks as it did; only its tail in full, see
//! `session::tail_replay`), appending each persisted frame as it arrives, and handing the
//! buffer to the writer thread once a batch is applied.
//!
//! The stored cursor is never ahead of what the event log has on disk
//! ([`SessionFront::cursor_to_store`]), so whichever of the two a crash leaves behind, the
//! stream resumes at or before the event log's end and the event log receives no gap.

use std::time::Instant;

use crate::app::session::SessionFront;
use crate::session::tail_replay::{Step, TailReplay};
use crate::store::event_log;
use crate::store::event_log_writer::EventLogAppender;
use gobare_api::model::{DecodeError, Event};
use gobare_api::stream::{QueueSlot, StreamFrame, StreamUpdate};

impl SessionFront {
    /// Opens this session's log and replays it. Returns whether a log is kept (when not —
    /// no state directory, or it cannot be written — the app works as before, from the
    /// stream alone).
    pub(crate) fn open_event_log(&mut self) -> bool {
        let Some(store) = self.store.clone() else {
            return false;
        };
        let files = match store.event_log_files(&self.session_id) {
            Ok(files) => files.limited(self.event_log_max_bytes),
            Err(e) => {
                tracing::warn!("cannot open the event log directory: {e}");
                return false;
            }
        };
        let loaded = match event_log::load(&files) {
            Ok(loaded) => loaded,
            Err(e) => {
                tracing::warn!("cannot read the event log: {e}");
                return false;
            }
        };
        let plan = self.replay_event_log(&loaded);
        let recovered = loaded.recovered.clone();
        if recovered.cut_bytes > 0 {
            tracing::warn!(
                cut = recovered.cut_bytes,
                last_seq = ?recovered.last_seq,
                "event log had a torn or corrupt tail; cut back, the rest is fetched again"
            );
        }
        tracing::info!(records = recovered.records, last_seq = ?recovered.last_seq, window_start = plan.window_start(), "event log replayed");
        self.take_model_fetches();
        if plan.window_start() > 0 {
            self.index_before_window(loaded, &plan);
        }
        if recovered.records > 0 {
            // A long replay leaves freed heap behind, as one from the stream does.
            crate::app::shared::heap::release_freed_memory();
        }
        match EventLogAppender::start(files, &recovered, self.event_log_max_bytes) {
            Ok(appender) => {
                self.event_log = Some(appender);
                true
            }
            Err(e) => {
                tracing::warn!("cannot append to the event log: {e}");
                false
            }
        }
    }

    /// Replays the log from its tail. Returns the plan: the records before its window are
    /// left to [`SessionFront::index_before_window`].
    fn replay_event_log(&mut self, loaded: &event_log::Loaded) -> TailReplay {
        let records: Vec<(u64, &[u8])> = loaded.records().collect();
        let plan = TailReplay::plan(&records);
        let now = Instant::now();
        for (i, &(seq, json)) in records.iter().enumerate() {
            self.away_feed_raw(seq, json);
            if i == plan.window_start() && i > 0 {
                self.session.start_window(plan.window_first_id());
            }
            let step = plan.step(i);
            if step == Step::PassOver {
                self.stats.events += 1;
                self.session.pass_before_window(seq);
                continue;
            }
            let event = Event::parse(&String::from_utf8_lossy(json));
            match (step, event) {
                (Step::Lasting, Ok(event)) => {
                    self.stats.events += 1;
                    self.act_on_event(&event);
                    self.session.apply_before_window(&event);
                }
                (_, event) => self.replay_event_log_record(seq, event, now),
            }
        }
        plan
    }

    /// One logged envelope, applied as the stream would have delivered it.
    fn replay_event_log_record(
        &mut self,
        seq: u64,
        event: Result<Event, DecodeError>,
        now: Instant,
    ) {
        let created_at = event.as_ref().ok().and_then(|e| e.created_at);
        let frame = StreamFrame {
            id: Some(seq),
            data: Default::default(),
            event,
            created_at,
            slot: QueueSlot::default(),
        };
        self.on_stream(StreamUpdate::Frame(frame), now);
    }

    /// Keeps a persisted frame received from the stream (a replayed one is refused by seq).
    /// Its bytes are handed to the log as they are (shared with their chunk, no copy), so
    /// `frame.data` is left empty when it is logged.
    pub(crate) fn append_to_event_log(&mut self, frame: &mut StreamFrame) {
        if let (Some(appender), Some(seq), Ok(_)) = (&mut self.event_log, frame.id, &frame.event)
            && !frame.data.is_empty()
        {
            appender.append(seq, std::mem::take(&mut frame.data).into_bytes());
        }
    }

    /// A batch is applied: what it logged goes to the writer thread.
    pub(crate) fn hand_off_event_log(&mut self) {
        if let Some(appender) = &mut self.event_log {
            appender.hand_off();
        }
    }

    /// At quit: everything logged is on disk before the cursor is written.
    pub(crate) fn close_event_log(&mut self) {
        if let Some(appender) = &mut self.event_log {
            appender.close();
        }
    }

    /// The cursor to store: the last event applied, but never past what the log holds on
    /// disk (a crash then re-fetches the unwritten tail instead of losing it).
    pub(crate) fn cursor_to_store(&self) -> Option<u64> {
        let applied = self.session.last_seq();
        match &self.event_log {
            Some(appender) => applied.min(appender.durable_seq()),
            None => applied,
        }
    }

    /// Where the stream resumes when a log is kept: after its last event, or the whole
    /// history (from 0) when it is empty.
    pub(crate) fn event_log_resume_point(&self) -> Option<u64> {
        self.event_log
            .as_ref()
            .map(|appender| appender.last_seq().unwrap_or(0))
    }
}
