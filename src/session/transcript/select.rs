//! Finding entries for the selection: the neighbour of an entry, the start of the previous
//! or next turn, the error before; and what the copy and open keys take from an entry (its
//! plain text, its first web link).

use super::web_link::{first_web_link, web_link};
use super::{ApprovalOutcome, CallStatus, Entry, EntryKind, Transcript};
use gobare_api::model::TurnStatus;

/// Entries walked at most looking for a turn or an error (a key press stays cheap).
const WALK_MAX: usize = 20_000;

impl Transcript {
    /// The entry `delta` entries from `id` (clamped to the kept ones); the newest kept entry
    /// when `id` is no longer kept.
    pub(crate) fn step(&self, id: u64, delta: i64) -> Option<u64> {
        let last = self.next_id().checked_sub(1)?;
        if self.entries.is_empty() {
            return None;
        }
        let from = if id < self.base || id > last {
            last
        } else {
            id
        };
        let to = (from as i64).saturating_add(delta);
        Some((to.max(self.base as i64) as u64).min(last))
    }

    /// The message that starts the turn before (`forward` false) or after `id`: a sent
    /// message (not a steer).
    pub(crate) fn turn_start(&self, id: u64, forward: bool) -> Option<u64> {
        self.find_from(id, forward, |e| matches!(e.kind, EntryKind::User { .. }))
    }

    /// The error before `id` (an error, a failed call or turn), wrapping round to the
    /// newest: `!` walks the errors newest to oldest, as it starts at the newest.
    pub(crate) fn error_before(&self, id: u64) -> Option<u64> {
        self.find_from(id, false, is_error)
            .or_else(|| self.last_error())
    }

    /// The newest error, for the first press with nothing selected.
    pub(crate) fn last_error(&self) -> Option<u64> {
        self.entries
            .iter()
            .rev()
            .take(WALK_MAX)
            .find(|e| is_error(e))
            .map(|e| e.id)
    }

    fn find_from(&self, id: u64, forward: bool, want: impl Fn(&Entry) -> bool) -> Option<u64> {
        let pos = id.checked_sub(self.base).map(|p| p as usize);
        if forward {
            let start = pos.map_or(0, |p| p + 1);
            self.entries
                .range(start.min(self.entries.len())..)
                .take(WALK_MAX)
                .find(|e| want(e))
                .map(|e| e.id)
        } else {
            let end = pos?.min(self.entries.len());
            self.entries
                .range(..end)
                .rev()
                .take(WALK_MAX)
                .find(|e| want(e))
                .map(|e| e.id)
        }
    }
}

fn is_error(e: &Entry) -> bool {
    match &e.kind {
        EntryKind::Error { .. } | EntryKind::RecoveryFailed { .. } => true,
        EntryKind::Tool(t) => t.status == CallStatus::Failed,
        EntryKind::Function(f) => f.success == Some(false),
        EntryKind::Approval(a) => matches!(a.verdict, ApprovalOutcome::Denied { .. }),
        EntryKind::TurnEnd(t) => t
            .outcome
            .as_ref()
            .is_some_and(|o| !matches!(o.status, TurnStatus::Completed | TurnStatus::Cancelled)),
        _ => false,
    }
}

impl Entry {
    /// What the copy key takes: the entry's text as the user would want it pasted (a
    /// message whole, code blocks included; a call with its arguments and output; a diff).
    /// Server text as received: the caller redacts it and the terminal gets it base64'd.
    pub(crate) fn copy_text(&self) -> String {
        match &self.kind {
            EntryKind::User { text }
            | EntryKind::Steer { text }
            | EntryKind::Agent { text }
            | EntryKind::Context { text }
            | EntryKind::Queued { text, .. }
            | EntryKind::Dequeued { text } => text.clone(),
            EntryKind::Error { message } | EntryKind::RecoveryFailed { message } => message.clone(),
            EntryKind::Tool(t) => {
                let mut s = t.name.clone();
                let args = if t.args_full.is_empty() {
                    &t.args
                } else {
                    &t.args_full
                };
                if !args.is_empty() {
                    s.push(' ');
                    s.push_str(args);
                }
                if let Some(code) = t.exit_code {
                    s.push_str(&format!("\nexit {code}"));
                }
                if !t.summary.is_empty() {
                    s.push('\n');
                    s.push_str(&t.summary);
                }
                s
            }
            EntryKind::FileChange(f) => match &f.diff {
                Some(diff) => diff.clone(),
                None => f.path.clone(),
            },
            EntryKind::Todos { items } => items
                .iter()
                .map(|i| format!("[{}] {}", i.status, i.label))
                .collect::<Vec<_>>()
                .join("\n"),
            EntryKind::Approval(a) => format!("{} {}", a.name, a.args),
            EntryKind::Question(q) => match &q.answer {
                Some(a) => format!("{}\n{a}", q.question),
                None => q.question.clone(),
            },
            EntryKind::Function(f) => format!("{} {}", f.name, f.args),
            EntryKind::Artifact { path, .. } => path.to_string(),
            EntryKind::Preview { url, .. } => url.clone().unwrap_or_default(),
            EntryKind::McpUnavailable { name, reason } => format!("{name}: {reason}"),
            EntryKind::Unknown { kind, excerpt } => format!("{kind} {excerpt}"),
            EntryKind::TurnEnd(t) => match &t.outcome {
                Some(o) => match &o.error {
                    Some(e) => format!("{:?}: {e}", o.status),
                    None => format!("{:?}", o.status),
                },
                None => "turn ended".into(),
            },
            EntryKind::Compaction { .. } | EntryKind::ReplayTruncated { .. } => String::new(),
        }
    }

    /// The first http(s) link of the entry, as a browser gets it: a preview's URL, else the
    /// first one in its text.
    pub(crate) fn first_link(&self) -> Option<String> {
        if let EntryKind::Preview { url: Some(url), .. } = &self.kind {
            return web_link(url);
        }
        first_web_link(&self.copy_text())
    }
}
