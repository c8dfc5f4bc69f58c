//! Replaying a long logged history from its tail. A restart decodes and applies in full only
//! a window at the end of the log, big enough for the panes; before the window only the
//! events that set lasting state (waits, the workspace, the queue) are decoded, and the rest
//! are passed over by their type alone ([`envelope_type`]), never decoded.
//!
//! The window holds at least the Events pane's rows and more turn starts than the Turn pane
//! lists, so the turn events before it are superseded and passed over too. The transcript
//! starts at the window ([`Session::start_window`]): the entries before it are read back
//! from the log when the user scrolls to them (`session::paging`), as entries the byte
//! budget dropped are, and the search index learns them off the loop
//! (`search::backfill`).

use super::Session;
use super::recent_events::RECENT_EVENTS_CAPACITY;
use super::turn::RECENT_TURNS;
use gobare_api::envelope_type::envelope_type;
use gobare_api::model::Event;

/// Event types before the window whose state the window may not set again: still applied.
const LASTING: &[&str] = &[
    "message.queued",
    "message.dequeued",
    "tool.required",
    "tool.resolved",
    "approval.requested",
    "approval.resolved",
    "question.asked",
    "question.answered",
    "sandbox.created",
    "sandbox.paused",
    "sandbox.resumed",
    "preview.ready",
    "workspace.recovery_failed",
    "gobare.replay_truncated",
];

/// The window holds at least this much JSON (a screen of entries many times over, however
/// short the events).
const WINDOW_MIN_BYTES: usize = 1 << 20;

/// Transcript ids set aside per record before the window: more than one record can make
/// (a turn's end settles its streamed text and adds its separator), so the entries read
/// back later always fit below the window's first id.
const IDS_PER_RECORD: u64 = 4;

/// What to do with one logged record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Decode and apply it as the stream would.
    Full,
    /// Before the window, of a lasting type: decode it and apply all but its transcript
    /// entry and Events row ([`Session::apply_before_window`]).
    Lasting,
    /// Before the window, of another type: only its seq counts
    /// ([`Session::pass_before_window`]).
    PassOver,
}

/// Which records of a log a restart applies in full.
#[derive(Debug, Clone)]
pub struct TailReplay {
    /// Index of the first record applied in full.
    start: usize,
    /// Before `start`: whether each record is of a lasting type (or of unknown type).
    lasting: Vec<bool>,
}

impl TailReplay {
    /// Plans the replay of `records` (seq and envelope JSON, oldest first).
    pub fn plan(records: &[(u64, &[u8])]) -> TailReplay {
        let mut bytes = 0usize;
        let mut turns = 0usize;
        let mut start = 0;
        for (i, (_, json)) in records.iter().enumerate().rev() {
            bytes += json.len();
            if envelope_type(json) != Some("turn.started") {
                continue;
            }
            turns += 1;
            if records.len() - i >= RECENT_EVENTS_CAPACITY
                && bytes >= WINDOW_MIN_BYTES
                && turns > RECENT_TURNS + 1
            {
                start = i;
                break;
            }
        }
        let lasting = records[..start]
            .iter()
            .map(|(_, json)| envelope_type(json).is_none_or(|k| LASTING.contains(&k)))
            .collect();
        TailReplay { start, lasting }
    }

    /// Index of the first record applied in full.
    pub fn window_start(&self) -> usize {
        self.start
    }

    /// The transcript id the window's first entry takes: room below it for every entry
    /// the records before the window can make.
    pub fn window_first_id(&self) -> u64 {
        self.start as u64 * IDS_PER_RECORD
    }

    pub fn step(&self, index: usize) -> Step {
        match self.lasting.get(index) {
            None => Step::Full,
            Some(true) => Step::Lasting,
            Some(false) => Step::PassOver,
        }
    }
}

impl Session {
    /// A persisted event before the replay window: applied except for its transcript
    /// entry and its Events row.
    pub fn apply_before_window(&mut self, ev: &Event) {
        self.reached = true;
        if let Some(seq) = ev.seq {
            if self.last_seq.is_some_and(|last| seq <= last) {
                return;
            }
            self.last_seq = Some(seq);
        }
        self.recent_events.pass();
        self.apply_lasting(ev);
    }

    /// A persisted event before the window whose type sets nothing lasting.
    pub fn pass_before_window(&mut self, seq: u64) {
        self.reached = true;
        if self.last_seq.is_some_and(|last| seq <= last) {
            return;
        }
        self.last_seq = Some(seq);
        self.recent_events.pass();
    }

    /// The window starts: its first transcript entry takes id `first_id`
    /// ([`TailReplay::window_first_id`]); the entries before it are not counted yet.
    pub fn start_window(&mut self, first_id: u64) {
        self.transcript.start_after_unreplayed(first_id);
    }

    /// The records before the window made `entries` transcript entries (counted off the
    /// loop): they take the ids right below the window's.
    pub fn count_before_window(&mut self, entries: u64) {
        self.transcript.count_unreplayed(entries);
    }
}

#[cfg(test)]
mod tests;
