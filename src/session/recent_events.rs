//! The bounded ring of raw events shown by the Events pane. Summaries are computed once,
//! on insert, so drawing never re-reads payloads; once the ring is full each new row
//! reuses the text buffer of the row it evicts, so recording allocates nothing (a replay of
//! 50,000 events writes 50,000 summaries and keeps 5,000).

use super::text::{clip, push_clip, push_compact_json, push_first_line, push_short_args};
use super::vocabulary::{decisions, or_unknown, work};
use gobare_api::model::{Event, EventPayload, known_event_type};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// How many raw events the Events pane keeps.
pub(crate) const RECENT_EVENTS_CAPACITY: usize = 5_000;
const SUMMARY_MAX: usize = 160;

/// One row of the Events pane. `index` counts every event ever recorded (stable across the
/// ring dropping old rows), so a scrolled view can stay anchored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecentEvent {
    pub(crate) index: u64,
    pub(crate) seq: Option<u64>,
    pub(crate) created_at: Option<i64>,
    pub(crate) kind: EventKindName,
    pub(crate) summary: String,
}

/// The event type without a heap string for the 29 known names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EventKindName {
    Known(&'static str),
    Other(Box<str>),
}

impl EventKindName {
    fn of(kind: &str) -> Self {
        // A `match` on the names (by length, then bytes), not a scan of the list.
        match known_event_type(kind) {
            Some(k) => EventKindName::Known(k),
            None => EventKindName::Other(clip(kind, 60).into()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            EventKindName::Known(k) => k,
            EventKindName::Other(k) => k,
        }
    }
}

impl RecentEvent {
    /// `agent.text` / `agent.thinking`: the deltas the pane can hide.
    pub(crate) fn is_delta(&self) -> bool {
        matches!(self.kind.as_str(), "agent.text" | "agent.thinking")
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RecentEvents {
    rows: VecDeque<RecentEvent>,
    next_index: u64,
}

impl RecentEvents {
    pub(crate) fn push(&mut self, ev: &Event) {
        let mut text = match self.rows.len() {
            RECENT_EVENTS_CAPACITY => self.rows.pop_front().map(|row| row.summary),
            _ => None,
        }
        .unwrap_or_default();
        text.clear();
        write_summary(&mut text, &ev.payload);
        self.rows.push_back(RecentEvent {
            index: self.next_index,
            seq: ev.seq,
            created_at: ev.created_at,
            kind: EventKindName::of(&ev.kind),
            summary: text,
        });
        self.next_index += 1;
    }

    /// An event logged but not shown: it would have left the ring by now (a replay's
    /// older part).
    pub(crate) fn pass(&mut self) {
        self.next_index += 1;
    }

    pub(crate) fn rows(&self) -> &VecDeque<RecentEvent> {
        &self.rows
    }

    /// Every event logged since the start, including those the ring has dropped.
    #[cfg(test)]
    pub(crate) fn total(&self) -> u64 {
        self.next_index
    }
}

/// An event's one-line summary (the Events pane's) appended to `out`. Writing to a `String` cannot fail.
fn write_summary(out: &mut String, p: &EventPayload) {
    use EventPayload as P;
    let m = SUMMARY_MAX;
    match p {
        P::TurnStarted(t) | P::TurnEnded(t) => out.push_str(&t.turn_id),
        P::AgentText(d) | P::AgentThinking(d) => push_first_line(out, &d.delta, m),
        P::AgentMessage(t) | P::UserMessage(t) | P::UserContext(t) => {
            push_first_line(out, &t.text, m)
        }
        P::AgentToolCall(c) => {
            put(out, &[&c.tool_call_id, " ", &c.tool_name, " "]);
            push_short_args(out, &c.args, m);
        }
        P::AgentToolResult(r) => {
            let mark = work::tool_outcome(r.cancelled, r.is_error);
            put(out, &[&r.tool_call_id, " ", &r.tool_name, " ", mark]);
            if let Some(c) = r.exit_code {
                let _ = write!(out, " exit {c}");
            }
            out.push_str(": ");
            push_first_line(out, &r.summary, m);
        }
        P::AgentCompaction(c) => {
            let _ = write!(out, "{}", work::compaction_tokens(c.before, c.after));
        }
        P::AgentError(e) | P::WorkspaceRecoveryFailed(e) => push_first_line(out, &e.message, m),
        P::AgentTodos(t) => {
            let done = work::todos_done(&t.items);
            let _ = write!(out, "{done}/{} done", t.items.len());
        }
        P::MessageQueued(q) | P::MessageDequeued(q) => {
            if let Some(pos) = q.position {
                let _ = write!(out, "#{pos} ");
            }
            push_first_line(out, &q.text, m);
        }
        P::FileChanged(f) => {
            let _ = write!(out, "{} ", f.change_type);
            push_clip(out, &f.path, m);
        }
        P::ApprovalRequested(a) => {
            put(out, &[&a.tool_call_id, " ", &a.name, " "]);
            push_short_args(out, &a.args, m);
        }
        P::ApprovalResolved(a) => {
            let verdict = decisions::verdict(a.approved);
            put(out, &[&a.tool_call_id, " ", verdict]);
            if let Some(code) = &a.code {
                out.push_str(" (");
                push_clip(out, code, 40);
                out.push(')');
            }
        }
        P::QuestionAsked(q) => {
            put(out, &[&q.tool_call_id, " "]);
            push_first_line(out, &q.question, m);
        }
        P::QuestionAnswered(q) => {
            put(out, &[&q.tool_call_id, " "]);
            push_first_line(out, &q.answer, m);
        }
        P::ToolRequired(f) => {
            put(out, &[&f.tool_call_id, " ", &f.name, " "]);
            push_short_args(out, &f.arguments, m);
        }
        P::ToolResolved(f) => {
            let outcome = decisions::function_outcome(f.success, false);
            put(out, &[&f.tool_call_id, " ", &f.name, " ", outcome]);
        }
        P::SandboxCreated(s) | P::SandboxPaused(s) | P::SandboxResumed(s) => {
            let _ = write!(out, "{}", s.state);
        }
        P::PreviewReady(p) => {
            let _ = write!(out, "port {} ", or_unknown(p.port));
            push_clip(out, p.url.as_deref().unwrap_or(""), m);
        }
        P::ArtifactCreated(a) => {
            let _ = write!(out, "{} ", a.id);
            push_clip(out, &a.path, m);
        }
        P::McpUnavailable(u) => {
            let _ = write!(out, "{}: ", u.name);
            push_first_line(out, &u.reason, m);
        }
        P::ReplayTruncated(t) => {
            let _ = write!(out, "from seq {}", or_unknown(t.from_seq));
        }
        P::Unknown { raw, .. } => push_compact_json(out, raw, m),
    }
}

/// `parts` one after the other (what `write!` of plain `{}` strings makes, without the
/// formatting machinery: two of these a tool call, for every event of a replay).
fn put(out: &mut String, parts: &[&str]) {
    for part in parts {
        out.push_str(part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, seq: Option<u64>) -> Event {
        Event {
            kind: kind.to_string().into(),
            internal_type: None,
            session_id: None,
            seq,
            created_at: Some(0),
            payload: EventPayload::Unknown {
                kind: kind.into(),
                raw: serde_json::json!({"a": 1}),
            },
        }
    }

    #[test]
    fn the_ring_keeps_only_the_newest_rows_and_counts_all() {
        let mut recent = RecentEvents::default();
        for i in 0..(RECENT_EVENTS_CAPACITY as u64 + 10) {
            recent.push(&ev("x.y", Some(i)));
        }
        assert_eq!(recent.rows().len(), RECENT_EVENTS_CAPACITY);
        assert_eq!(recent.total(), RECENT_EVENTS_CAPACITY as u64 + 10);
        assert_eq!(recent.rows().front().unwrap().seq, Some(10));
        assert_eq!(recent.rows().back().unwrap().summary, r#"{"a":1}"#);
    }

    #[test]
    fn known_kinds_use_no_heap_name() {
        let mut recent = RecentEvents::default();
        recent.push(&ev("agent.text", None));
        recent.push(&ev("brand.new", Some(1)));
        assert_eq!(recent.rows()[0].kind, EventKindName::Known("agent.text"));
        assert!(recent.rows()[0].is_delta());
        assert_eq!(recent.rows()[1].kind.as_str(), "brand.new");
    }
}
