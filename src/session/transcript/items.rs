//! Backfilled items (`GET …/items`) mapped into the same entries events produce. Traps
//! handled: two `tool_call` items per call told apart by `detail.event`; shell results as
//! `command_execution`; `file_change` items saying `file.modified` with `kind` (§9.3, §14).

use super::{
    ApprovalOutcome, CallStatus, DIFF_MAX, EntryKind, FileChangeEntry, Source, Transcript,
};
use crate::session::sensitive::SensitiveCalls;
use crate::session::text::{clip, compact_json};
use gobare_api::model::{ChangeKind, Item, ItemKind};
use serde_json::Value;

impl Transcript {
    /// Maps one backfilled item into the same entries events produce.
    pub(crate) fn apply_item(&mut self, item: &Item, sensitive: &mut SensitiveCalls) -> bool {
        let changed = self.apply_item_unsettled(item, sensitive);
        self.settle();
        changed
    }

    fn apply_item_unsettled(&mut self, item: &Item, calls: &mut SensitiveCalls) -> bool {
        let d = Detail(&item.detail);
        let at = Some(item.created_at);
        let call_id = d.call_id();
        match &item.kind {
            ItemKind::Message => {
                let text = content_or(item, &d, "text");
                let kind = if item.role.as_deref() == Some("user")
                    || item.detail_event() == Some("user.message")
                {
                    EntryKind::User { text }
                } else {
                    EntryKind::Agent { text }
                };
                self.push_keyed(Source::Item, at, kind)
            }
            ItemKind::ToolCall | ItemKind::CommandExecution if call_id.is_empty() => false,
            ItemKind::ToolCall | ItemKind::CommandExecution => {
                self.tool_item(item, &d, &call_id);
                true
            }
            ItemKind::FileChange => {
                let change = ChangeKind::from(
                    d.0.get("kind")
                        .or_else(|| d.0.get("changeType"))
                        .and_then(Value::as_str)
                        .unwrap_or("modified"),
                );
                let diff =
                    d.0.get("diff")
                        .and_then(Value::as_str)
                        .map(|x| clip(x, DIFF_MAX));
                let call_id = (!call_id.is_empty()).then_some(call_id);
                let entry = FileChangeEntry {
                    path: d.text("path"),
                    change,
                    diff,
                    call_id,
                };
                self.push_keyed(Source::Item, at, EntryKind::FileChange(Box::new(entry)))
            }
            ItemKind::Approval => {
                self.approval_item(at, &d, &call_id, calls);
                true
            }
            ItemKind::Question => {
                self.question_item(at, &d, &call_id);
                true
            }
            ItemKind::McpUnavailable => {
                let name = d.tool_name();
                let name = if name.is_empty() {
                    d.text("server")
                } else {
                    name
                };
                let reason = d.text("reason");
                self.push_keyed(Source::Item, at, EntryKind::McpUnavailable { name, reason })
            }
            ItemKind::Error => {
                let message = content_or(item, &d, "message");
                self.push_keyed(Source::Item, at, EntryKind::Error { message })
            }
            ItemKind::Context => {
                let text = content_or(item, &d, "text");
                self.push_keyed(Source::Item, at, EntryKind::Context { text })
            }
            ItemKind::Other(kind) => {
                self.push(
                    at,
                    EntryKind::Unknown {
                        kind: clip(kind, 80),
                        excerpt: compact_json(d.0, 200),
                    },
                );
                true
            }
        }
    }

    /// A `tool_call` or `command_execution` item: the call (`detail.event` says so) or its
    /// result, whose status is read from its flags and exit code.
    fn tool_item(&mut self, item: &Item, d: &Detail<'_>, call_id: &str) {
        let at = Some(item.created_at);
        if item.detail_event() == Some("agent.tool_call") {
            self.tool_call_seen(at, call_id, &d.tool_name(), d.args());
            return;
        }
        let exit_code =
            d.0.get("exitCode")
                .or_else(|| d.0.get("exit_code"))
                .and_then(Value::as_i64);
        let status = if d.flag("cancelled") {
            CallStatus::Cancelled
        } else if d.flag("isError") || exit_code.is_some_and(|c| c != 0) {
            CallStatus::Failed
        } else {
            CallStatus::Ok
        };
        let summary = d.text("summary");
        self.tool_result_seen(at, call_id, &d.tool_name(), status, &summary, exit_code);
    }

    /// An approval from the history: one still pending there says its outcome is not in it.
    fn approval_item(
        &mut self,
        at: Option<i64>,
        d: &Detail<'_>,
        call_id: &str,
        calls: &mut SensitiveCalls,
    ) {
        // The item's detail is the `approval.requested` payload: its flag is kept.
        let sensitive = d.0.get("sensitive").and_then(Value::as_bool) == Some(true);
        let id = self.approval_seen(at, call_id, &d.tool_name(), d.args(), sensitive, calls);
        if let Some(entry) = self.get_mut(id)
            && let EntryKind::Approval(a) = &mut entry.kind
        {
            a.from_history = a.verdict == ApprovalOutcome::Pending;
        }
    }

    /// A question from the history, with its options; one not answered there says its
    /// answer is not in it.
    fn question_item(&mut self, at: Option<i64>, d: &Detail<'_>, call_id: &str) {
        let id = self.question_seen(at, call_id, &d.text("question"));
        if let Some(entry) = self.get_mut(id)
            && let EntryKind::Question(q) = &mut entry.kind
        {
            q.from_history = q.answer.is_none();
        }
        if let (Some(entry), Some(Value::Array(opts))) = (self.get_mut(id), d.0.get("options"))
            && let EntryKind::Question(q) = &mut entry.kind
        {
            q.options = opts
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
        }
    }
}

/// An item's `detail`, read under either spelling the server uses.
struct Detail<'a>(&'a Value);

impl Detail<'_> {
    /// The string at `key`, empty when there is none.
    fn text(&self, key: &str) -> String {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }

    fn flag(&self, key: &str) -> bool {
        self.0.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    fn call_id(&self) -> String {
        self.0
            .get("toolCallId")
            .or_else(|| self.0.get("tool_call_id"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }

    fn tool_name(&self) -> String {
        let name = self.text("toolName");
        if name.is_empty() {
            self.text("name")
        } else {
            name
        }
    }

    fn args(&self) -> &Value {
        self.0
            .get("args")
            .or_else(|| self.0.get("arguments"))
            .unwrap_or(&Value::Null)
    }
}

/// The item's content, else the detail's `key`.
fn content_or(item: &Item, d: &Detail<'_>, key: &str) -> String {
    if item.content.is_empty() {
        d.text(key)
    } else {
        item.content.clone()
    }
}
