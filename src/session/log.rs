//! The bounded ring of raw events shown by the Events pane. Summaries are computed once,
//! on insert, so drawing never re-reads payloads.

use super::text::{clip, compact_json, first_line, short_args};
use crate::api::model::{EVENT_TYPES, Event, EventPayload};
use std::collections::VecDeque;

/// How many raw events the Events pane keeps.
pub const LOG_CAPACITY: usize = 5_000;
const SUMMARY_MAX: usize = 160;

/// One row of the Events pane. `index` counts every event ever logged (stable across the
/// ring dropping old rows), so a scrolled view can stay anchored.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub index: u64,
    pub seq: Option<u64>,
    pub created_at: Option<i64>,
    pub kind: EventKindName,
    pub summary: Box<str>,
}

/// The event type without a heap string for the 29 known names.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKindName {
    Known(&'static str),
    Other(Box<str>),
}

impl EventKindName {
    fn of(kind: &str) -> Self {
        match EVENT_TYPES.iter().find(|k| **k == kind) {
            Some(k) => EventKindName::Known(k),
            None => EventKindName::Other(clip(kind, 60).into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            EventKindName::Known(k) => k,
            EventKindName::Other(k) => k,
        }
    }
}

impl LogEntry {
    /// `agent.text` / `agent.thinking`: the deltas the pane can hide.
    pub fn is_delta(&self) -> bool {
        matches!(self.kind.as_str(), "agent.text" | "agent.thinking")
    }
}

#[derive(Debug, Clone, Default)]
pub struct EventLog {
    rows: VecDeque<LogEntry>,
    next_index: u64,
}

impl EventLog {
    pub fn push(&mut self, ev: &Event) {
        if self.rows.len() == LOG_CAPACITY {
            self.rows.pop_front();
        }
        self.rows.push_back(LogEntry {
            index: self.next_index,
            seq: ev.seq,
            created_at: ev.created_at,
            kind: EventKindName::of(&ev.kind),
            summary: summary(&ev.payload).into(),
        });
        self.next_index += 1;
    }

    pub fn rows(&self) -> &VecDeque<LogEntry> {
        &self.rows
    }

    /// Every event logged since the start, including those the ring has dropped.
    pub fn total(&self) -> u64 {
        self.next_index
    }
}

/// One line saying what an event carries. Raw server text: sanitized when drawn.
pub fn summary(p: &EventPayload) -> String {
    use EventPayload as P;
    let m = SUMMARY_MAX;
    match p {
        P::TurnStarted(t) | P::TurnEnded(t) => t.turn_id.clone(),
        P::AgentText(d) | P::AgentThinking(d) => first_line(&d.delta, m),
        P::AgentMessage(t) | P::UserMessage(t) | P::UserContext(t) => first_line(&t.text, m),
        P::AgentToolCall(c) => format!(
            "{} {} {}",
            c.tool_call_id,
            c.tool_name,
            short_args(&c.args, m)
        ),
        P::AgentToolResult(r) => {
            let mark = if r.cancelled {
                "cancelled"
            } else if r.is_error {
                "error"
            } else {
                "ok"
            };
            let exit = r
                .exit_code
                .map(|c| format!(" exit {c}"))
                .unwrap_or_default();
            format!(
                "{} {} {mark}{exit}: {}",
                r.tool_call_id,
                r.tool_name,
                first_line(&r.summary, m)
            )
        }
        P::AgentCompaction(c) => format!("{} → {} tokens", opt(c.before), opt(c.after)),
        P::AgentError(e) | P::WorkspaceRecoveryFailed(e) => first_line(&e.message, m),
        P::AgentTodos(t) => {
            let done = t.items.iter().filter(|i| i.status == "done").count();
            format!("{done}/{} done", t.items.len())
        }
        P::MessageQueued(q) | P::MessageDequeued(q) => match q.position {
            Some(pos) => format!("#{pos} {}", first_line(&q.text, m)),
            None => first_line(&q.text, m),
        },
        P::FileChanged(f) => format!("{} {}", f.change_type, clip(&f.path, m)),
        P::ApprovalRequested(a) => {
            format!("{} {} {}", a.tool_call_id, a.name, short_args(&a.args, m))
        }
        P::ApprovalResolved(a) => {
            let verdict = if a.approved { "approved" } else { "denied" };
            match &a.code {
                Some(code) => format!("{} {verdict} ({})", a.tool_call_id, clip(code, 40)),
                None => format!("{} {verdict}", a.tool_call_id),
            }
        }
        P::QuestionAsked(q) => format!("{} {}", q.tool_call_id, first_line(&q.question, m)),
        P::QuestionAnswered(q) => format!("{} {}", q.tool_call_id, first_line(&q.answer, m)),
        P::ToolRequired(f) => format!(
            "{} {} {}",
            f.tool_call_id,
            f.name,
            short_args(&f.arguments, m)
        ),
        P::ToolResolved(f) => {
            let outcome = if f.success { "success" } else { "failure" };
            format!("{} {} {outcome}", f.tool_call_id, f.name)
        }
        P::SandboxCreated(s) | P::SandboxPaused(s) | P::SandboxResumed(s) => s.state.to_string(),
        P::PreviewReady(p) => format!(
            "port {} {}",
            p.port.map(|x| x.to_string()).unwrap_or_else(|| "?".into()),
            clip(p.url.as_deref().unwrap_or(""), m)
        ),
        P::ArtifactCreated(a) => format!("{} {}", a.id, clip(&a.path, m)),
        P::McpUnavailable(u) => format!("{}: {}", u.name, first_line(&u.reason, m)),
        P::ReplayTruncated(t) => format!("from seq {}", opt(t.from_seq)),
        P::Unknown { raw, .. } => compact_json(raw, m),
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, seq: Option<u64>) -> Event {
        Event {
            kind: kind.into(),
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
        let mut log = EventLog::default();
        for i in 0..(LOG_CAPACITY as u64 + 10) {
            log.push(&ev("x.y", Some(i)));
        }
        assert_eq!(log.rows().len(), LOG_CAPACITY);
        assert_eq!(log.total(), LOG_CAPACITY as u64 + 10);
        assert_eq!(log.rows().front().unwrap().seq, Some(10));
        assert_eq!(log.rows().back().unwrap().summary.as_ref(), r#"{"a":1}"#);
    }

    #[test]
    fn known_kinds_use_no_heap_name() {
        let mut log = EventLog::default();
        log.push(&ev("agent.text", None));
        log.push(&ev("brand.new", Some(1)));
        assert_eq!(log.rows()[0].kind, EventKindName::Known("agent.text"));
        assert!(log.rows()[0].is_delta());
        assert_eq!(log.rows()[1].kind.as_str(), "brand.new");
    }
}
