//! Replaying a long logged history from its tail. The transcript keeps only its byte budget
//! of the newest entries and the Events pane its last [`LOG_CAPACITY`] rows, so a restart
//! decodes and applies in full only a window at the end of the log; before the window only
//! the events that set lasting state (turns, waits, the workspace, the queue) are decoded,
//! and the rest are passed over by their type alone ([`envelope_type`]), never decoded.
//!
//! The window holds at least the Events pane's rows, more JSON than the transcript's budget
//! and more turn starts than the Turn pane lists, so what it leaves out is what a full
//! replay would have dropped anyway. [`TailReplay::covered`] checks the one thing that
//! cannot be known before applying — that the transcript did drop entries inside the
//! window — and a full replay is made when it did not.

use super::SessionView;
use super::log::LOG_CAPACITY;
use super::turn::RECENT_TURNS;
use gobare_api::envelope_type::envelope_type;
use gobare_api::model::Event;

/// Event types that change state beyond the transcript and the Events pane: the ones
/// still applied before the window.
const LASTING: &[&str] = &[
    "turn.started",
    "turn.ended",
    "user.message",
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

/// The window's JSON is at least this many quarters of the transcript's budget: entries
/// hold less than the JSON they come from (the bench workload's needs about twice).
const BUDGET_QUARTERS: usize = 8;

/// What to do with one logged record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Decode and apply it as the stream would.
    Full,
    /// Before the window, of a lasting type: decode it and apply all but its transcript
    /// entry and Events row ([`SessionView::apply_before_window`]).
    Lasting,
    /// Before the window, of another type: only its seq counts
    /// ([`SessionView::pass_before_window`]).
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
    /// Plans the replay of `records` (envelope JSON, oldest first) for `view`.
    pub fn plan(view: &SessionView, records: &[&[u8]]) -> TailReplay {
        let budget = view.transcript.budget().saturating_mul(BUDGET_QUARTERS) / 4;
        let mut bytes = 0usize;
        let mut turns = 0usize;
        let mut start = 0;
        for (i, json) in records.iter().enumerate().rev() {
            let kind = envelope_type(json);
            bytes += json.len();
            if kind == Some("turn.started") {
                turns += 1;
            }
            let enough =
                records.len() - i >= LOG_CAPACITY && bytes >= budget && turns > RECENT_TURNS + 1;
            if enough && kind == Some("turn.started") {
                start = i;
                break;
            }
        }
        let lasting = records[..start]
            .iter()
            .map(|json| envelope_type(json).is_none_or(|k| LASTING.contains(&k)))
            .collect();
        TailReplay { start, lasting }
    }

    /// A plan that applies every record in full.
    pub fn everything() -> TailReplay {
        TailReplay {
            start: 0,
            lasting: Vec::new(),
        }
    }

    /// Index of the first record applied in full.
    pub fn window_start(&self) -> usize {
        self.start
    }

    pub fn step(&self, index: usize) -> Step {
        match self.lasting.get(index) {
            None => Step::Full,
            Some(true) => Step::Lasting,
            Some(false) => Step::PassOver,
        }
    }

    /// After the replay: whether it shows what a full one would. Not so when the window
    /// started after the first record yet the transcript dropped nothing inside it (its
    /// entries took less than their JSON): a full replay is needed then.
    pub fn covered(&self, view: &SessionView) -> bool {
        self.start == 0 || view.transcript.dropped() > 0
    }
}

impl SessionView {
    /// A persisted event before the replay window: applied except for its transcript
    /// entry and its Events row (both would be dropped by the end of the replay).
    pub fn apply_before_window(&mut self, ev: &Event) {
        self.reached = true;
        if let Some(seq) = ev.seq {
            if self.last_seq.is_some_and(|last| seq <= last) {
                return;
            }
            self.last_seq = Some(seq);
        }
        self.log.pass();
        self.apply_lasting(ev);
    }

    /// A persisted event before the window whose type sets nothing lasting.
    pub fn pass_before_window(&mut self, seq: u64) {
        self.reached = true;
        if self.last_seq.is_some_and(|last| seq <= last) {
            return;
        }
        self.last_seq = Some(seq);
        self.log.pass();
    }
}

#[cfg(test)]
mod tests;
