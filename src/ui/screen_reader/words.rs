//! What the screen-reader mode says of a transcript entry: role-labelled lines in plain
//! words (no box drawing, no marks a speech synthesizer spells out), said once, when the
//! entry has settled. A running tool call or a waiting decision says nothing here: the
//! call is said when it ends, and what waits is announced with its keys by the front.

use crate::session::transcript::{
    ApprovalEntry, ApprovalOutcome, CallStatus, EntryKind, ToolCallEntry, TurnOutcome,
};
use crate::session::vocabulary::{conversation, decisions as vocabulary, turns, work, workspace};
use gobare_api::model::TodoItem;
use gobare_api::text;

/// The longest line of a summary, an argument excerpt or a reason said (the rest is in
/// the export).
const EXCERPT_MAX: usize = 300;

pub(crate) use crate::session::vocabulary::turns::ENDING_UNREAD;

/// The lines said of `kind` now, or `None` while it has not settled.
pub(crate) fn entry_words(kind: &EntryKind) -> Option<Vec<String>> {
    let one = |s: String| Some(vec![s]);
    match kind {
        EntryKind::User { text } => Some(labelled(conversation::YOU, text)),
        EntryKind::Steer { text } => Some(labelled(conversation::STEER_SPOKEN, text)),
        EntryKind::Agent { text } => Some(labelled(conversation::AGENT, text)),
        EntryKind::Context { text } => Some(labelled(conversation::CONTEXT, text)),
        EntryKind::TurnEnd(t) => one(turn_end(t.outcome.as_ref()?)),
        EntryKind::Tool(t) => one(tool(t)?),
        EntryKind::FileChange(f) => {
            let verb = work::file_verb(&f.change);
            one(format!("file {verb}: {}", short(&f.path)))
        }
        EntryKind::Todos { items } => Some(todo_list(items)),
        EntryKind::Approval(a) => one(approval(a)?),
        EntryKind::Question(q) => {
            let answer = match &q.answer {
                Some(answer) => format!("answered: {}", short(answer)),
                None if q.from_history => "the answer is not in the history".to_string(),
                None => return None,
            };
            one(format!("question: {} — {answer}", short(&q.question)))
        }
        EntryKind::Function(f) => {
            let state = vocabulary::function_outcome(f.success?, f.expired);
            one(format!("function {}: {state}", short(&f.name)))
        }
        EntryKind::Error { message } => Some(labelled(work::ERROR, message)),
        EntryKind::RecoveryFailed { message } => {
            Some(labelled(workspace::RECOVERY_FAILED, message))
        }
        EntryKind::Compaction { before, after } => one(format!(
            "{} {}",
            work::COMPACTED,
            work::compaction_tokens_spoken(*before, *after)
        )),
        EntryKind::Queued { text, position } => one(format!(
            "{}: {}",
            conversation::queue_spoken(*position),
            short(text)
        )),
        EntryKind::Dequeued { text } => one(format!("{}: {}", conversation::DEQUEUED, short(text))),
        EntryKind::Artifact {
            path, size_bytes, ..
        } => {
            let size = size_bytes
                .map(|b| format!(", {}", crate::readable::units::size(b)))
                .unwrap_or_default();
            one(format!("{} {}{size}", workspace::ARTIFACT, short(path)))
        }
        EntryKind::Preview { port, url } => {
            let port = port.map(|p| format!(" on port {p}")).unwrap_or_default();
            let url = url
                .as_deref()
                .map(|u| format!(": {}", short(u)))
                .unwrap_or_default();
            one(format!("{}{port}{url}", workspace::PREVIEW_READY))
        }
        EntryKind::McpUnavailable { name, reason } => {
            one(work::mcp_unavailable(short(name), short(reason)).to_string())
        }
        EntryKind::ReplayTruncated { from_seq } => {
            one(workspace::replay_cut("event", *from_seq).to_string())
        }
        EntryKind::Unknown { kind, excerpt } => one(format!(
            "{} {}: {}",
            workspace::UNKNOWN_EVENT,
            short(kind),
            short(excerpt)
        )),
    }
}

/// How a turn came out, with its error.
fn turn_end(outcome: &TurnOutcome) -> String {
    let mut line = turns::came_out(outcome.shown_words()).to_string();
    if let Some(error) = &outcome.error {
        line.push_str(": ");
        line.push_str(&short(error));
    }
    line
}

/// A tool call that ended: its name, arguments, state, exit code and summary's first line.
fn tool(t: &ToolCallEntry) -> Option<String> {
    let state = match t.status {
        CallStatus::Pending => return None,
        CallStatus::Ok => "ok",
        CallStatus::Failed => work::TOOL_FAILED,
        CallStatus::Cancelled => "cancelled",
    };
    let mut line = format!("tool {}", short(&t.name));
    if !t.args.is_empty() {
        line.push(' ');
        line.push_str(&short(&t.args));
    }
    line.push_str(": ");
    line.push_str(state);
    if let Some(code) = t.exit_code.filter(|c| *c != 0) {
        line.push_str(&format!(", exit {code}"));
    }
    if let Some(first) = t.summary.lines().find(|l| !l.trim().is_empty()) {
        line.push_str(" — ");
        line.push_str(&short(first));
    }
    Some(line)
}

/// An approval that was decided (or whose outcome the history lacks).
fn approval(a: &ApprovalEntry) -> Option<String> {
    let verdict = match &a.verdict {
        ApprovalOutcome::Pending if a.from_history => {
            "its outcome is not in the history".to_string()
        }
        ApprovalOutcome::Pending => return None,
        ApprovalOutcome::Approved { .. } => vocabulary::verdict(true).to_string(),
        ApprovalOutcome::Denied { code, reason } => {
            let mut s = vocabulary::verdict(false).to_string();
            if let Some(c) = code {
                s.push_str(&format!(" ({})", short(c)));
            }
            if let Some(r) = reason {
                s.push_str(&format!(": {}", short(r)));
            }
            s
        }
    };
    let sensitive = if a.sensitive {
        format!("{} ", vocabulary::SENSITIVE)
    } else {
        String::new()
    };
    Some(format!(
        "{sensitive}approval for {} {}: {verdict}",
        short(&a.name),
        short(&a.args)
    ))
}

/// The whole todo list, numbered, with how much of it is done.
fn todo_list(items: &[TodoItem]) -> Vec<String> {
    let mut lines = vec![format!("todo list, {}:", done_of(items))];
    for (n, item) in items.iter().enumerate() {
        lines.push(format!(
            "  {}. {} ({})",
            n + 1,
            short(&item.label),
            status(&item.status)
        ));
    }
    lines
}

/// What changed in a todo list said before as `before`: the items whose status changed,
/// with the count; the whole list again when its items are not the same ones.
pub(crate) fn todo_updates(before: &[TodoItem], after: &[TodoItem]) -> Vec<String> {
    let same_items =
        before.len() == after.len() && before.iter().zip(after).all(|(b, a)| b.label == a.label);
    if !same_items {
        return todo_list(after);
    }
    let changed: Vec<String> = before
        .iter()
        .zip(after)
        .filter(|(b, a)| b.status != a.status)
        .map(|(_, a)| format!("todo {}: {}", status(&a.status), short(&a.label)))
        .collect();
    if changed.is_empty() {
        return Vec::new();
    }
    let mut lines = changed;
    if let Some(last) = lines.last_mut() {
        last.push_str(&format!(" ({})", done_of(after)));
    }
    lines
}

fn done_of(items: &[TodoItem]) -> String {
    format!("{} of {} done", work::todos_done(items), items.len())
}

fn status(status: &str) -> String {
    match status {
        done if work::todo_done(done) => "done".to_string(),
        "" | "pending" => "to do".to_string(),
        "in_progress" => "in progress".to_string(),
        other => short(other),
    }
}

/// What starts every line of a message after its first: only the app starts a line with a
/// role (`you: …`, `tool bash ls: ok`), so a message's own lines that look like one read as
/// part of it.
pub(crate) const CONTINUATION: &str = "  ";

/// `role: first line`, then the text's other lines (made inert), indented.
fn labelled(role: &str, body: &str) -> Vec<String> {
    let mut lines = text::lines_iter(body.trim_end());
    let first = match lines.next() {
        Some(first) => format!("{role}: {first}"),
        None => format!("{role}:"),
    };
    std::iter::once(first)
        .chain(lines.map(|l| continued(&l)))
        .collect()
}

/// A line of server text that continues what an app's line began: indented (a blank line
/// stays blank).
pub(crate) fn continued(line: &str) -> String {
    if line.trim().is_empty() {
        String::new()
    } else {
        format!("{CONTINUATION}{line}")
    }
}

/// Server text as one inert line of at most [`EXCERPT_MAX`] characters.
fn short(s: &str) -> String {
    text::one_line(s, EXCERPT_MAX)
}
