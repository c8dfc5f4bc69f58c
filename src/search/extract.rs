//! What of an event is searchable: the words a person reads in the transcript (messages,
//! tool calls with their arguments and output, errors, decisions, questions and answers,
//! the paths of changed files), folded, not its JSON framing. Diffs are left out: they
//! would double the index for text the file's path and the tool call already point to.

use super::fold::push_folded;
use crate::session::vocabulary::{decisions, work, workspace};
use gobare_api::model::{Event, EventPayload as P};
use serde_json::Value;

/// The most folded bytes kept of one event (a long message or output is searched by its
/// start; the transcript keeps 2,000 bytes of a tool's output).
pub const RECORD_MAX: usize = 4 * 1024;

/// Appends the folded searchable text of `event` to `out` (at most [`RECORD_MAX`] bytes).
/// Returns whether the event has any (deltas and lifecycle events have none).
pub fn push_text(out: &mut String, event: &Event) -> bool {
    let start = out.len();
    let mut budget = RECORD_MAX;
    let mut put = |out: &mut String, s: &str| {
        if budget == 0 || s.is_empty() {
            return;
        }
        if out.len() > start {
            out.push(' ');
            budget = budget.saturating_sub(1);
        }
        let before = out.len();
        push_folded(out, s, budget);
        budget -= out.len() - before;
    };
    match &event.payload {
        P::UserMessage(t) | P::UserContext(t) | P::AgentMessage(t) => put(out, &t.text),
        P::MessageQueued(q) | P::MessageDequeued(q) => put(out, &q.text),
        P::AgentError(m) | P::WorkspaceRecoveryFailed(m) => put(out, &m.message),
        P::AgentToolCall(c) => {
            put(out, &c.tool_name);
            put(out, &json_text(&c.args));
        }
        P::AgentToolResult(r) => {
            put(out, &r.tool_name);
            put(out, &r.summary);
            if r.is_error {
                put(out, work::TOOL_FAILED);
            }
        }
        P::ApprovalRequested(a) => {
            put(out, &a.name);
            put(out, &json_text(&a.args));
        }
        P::ApprovalResolved(a) => {
            put(out, decisions::verdict(a.approved));
            put(out, a.name.as_deref().unwrap_or_default());
            put(out, a.code.as_deref().unwrap_or_default());
            put(out, a.reason().unwrap_or_default());
        }
        P::QuestionAsked(q) => {
            put(out, &q.question);
            for option in &q.options {
                put(out, option);
            }
        }
        P::QuestionAnswered(a) => put(out, &a.answer),
        P::ToolRequired(f) => {
            put(out, &f.name);
            put(out, &json_text(&f.arguments));
        }
        P::ToolResolved(f) => {
            put(out, &f.name);
            put(out, decisions::function_outcome(f.success, false));
        }
        P::FileChanged(f) => put(out, &f.path),
        P::AgentTodos(t) => {
            for item in &t.items {
                put(out, &item.label);
            }
        }
        P::ArtifactCreated(a) => put(out, &a.path),
        // As the transcript shows it: `⇗ preview ready :5173 https://…`.
        P::PreviewReady(p) => {
            put(out, workspace::PREVIEW_READY);
            if let Some(port) = p.port {
                put(out, &format!(":{port}"));
            }
            put(out, p.url.as_deref().unwrap_or_default());
        }
        P::McpUnavailable(m) => {
            put(out, &m.name);
            put(out, &m.reason);
        }
        P::Unknown { kind, .. } => put(out, kind),
        P::TurnStarted(_)
        | P::TurnEnded(_)
        | P::AgentText(_)
        | P::AgentThinking(_)
        | P::AgentCompaction(_)
        | P::SandboxCreated(_)
        | P::SandboxPaused(_)
        | P::SandboxResumed(_)
        | P::ReplayTruncated(_) => {}
    }
    out.len() > start
}

/// The tool call id an event refers to: the entry it updates when it makes none.
pub fn call_id(event: &Event) -> Option<&str> {
    match &event.payload {
        P::AgentToolCall(c) => Some(&c.tool_call_id),
        P::AgentToolResult(r) => Some(&r.tool_call_id),
        P::ApprovalRequested(a) => Some(&a.tool_call_id),
        P::ApprovalResolved(a) => Some(&a.tool_call_id),
        P::QuestionAsked(q) => Some(&q.tool_call_id),
        P::QuestionAnswered(a) => Some(&a.tool_call_id),
        P::ToolRequired(f) => Some(&f.tool_call_id),
        P::ToolResolved(f) => Some(&f.tool_call_id),
        _ => None,
    }
}

/// Arguments as the words the transcript shows of them: the values (string values as they
/// are, the rest as compact JSON), not the argument names, which are framing (a search for
/// "path" would otherwise find every file tool call).
fn json_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            let mut out = String::new();
            for v in map.values() {
                if !out.is_empty() {
                    out.push(' ');
                }
                match v {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                }
            }
            out
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, payload: Value) -> Event {
        let data = serde_json::json!({"type": kind, "seq": 1, "payload": payload});
        Event::parse(&data.to_string()).expect("event")
    }

    fn text(event: &Event) -> String {
        let mut s = String::new();
        push_text(&mut s, event);
        s
    }

    #[test]
    fn messages_tool_calls_errors_and_decisions_are_searchable() {
        assert_eq!(
            text(&ev(
                "user.message",
                serde_json::json!({"text": "Fix The BUILD"})
            )),
            "fix the build"
        );
        let call = ev(
            "agent.tool_call",
            serde_json::json!({"toolCallId": "c1", "toolName": "bash", "args": {"command": "cargo Test"}}),
        );
        assert_eq!(text(&call), "bash cargo test");
        assert_eq!(call_id(&call), Some("c1"));
        let result = ev(
            "agent.tool_result",
            serde_json::json!({"toolCallId": "c1", "toolName": "bash", "summary": "3 passed", "isError": true}),
        );
        assert_eq!(text(&result), "bash 3 passed failed");
        assert_eq!(
            text(&ev(
                "agent.error",
                serde_json::json!({"message": "Sandbox died"})
            )),
            "sandbox died"
        );
        assert_eq!(
            text(&ev(
                "approval.resolved",
                serde_json::json!({"toolCallId": "c2", "approved": false, "reason": "too risky"})
            )),
            "denied too risky"
        );
    }

    #[test]
    fn a_preview_is_found_by_its_port_and_any_part_of_its_address() {
        let ready = text(&ev(
            "preview.ready",
            serde_json::json!({"port": 8080, "url": "https://p-7ba19a6dbaeb.gobare.dev"}),
        ));
        for needle in ["p-7ba19", "gobare.dev", "8080", ":8080", "preview ready"] {
            assert!(ready.contains(needle), "{needle:?} not in {ready:?}");
        }
    }

    #[test]
    fn deltas_have_no_text_and_long_text_is_capped() {
        let mut s = String::new();
        assert!(!push_text(
            &mut s,
            &ev("agent.text", serde_json::json!({"delta": "partial"}))
        ));
        let long = "x".repeat(RECORD_MAX * 2);
        assert_eq!(
            text(&ev("agent.message", serde_json::json!({ "text": long }))).len(),
            RECORD_MAX
        );
    }
}
