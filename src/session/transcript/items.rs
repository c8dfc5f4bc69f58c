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
        let d = &item.detail;
        let at = Some(item.created_at);
        let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let call_id = d
            .get("toolCallId")
            .or_else(|| d.get("tool_call_id"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let tool_name = {
            let n = s("toolName");
            if n.is_empty() { s("name") } else { n }
        };
        let args = d
            .get("args")
            .or_else(|| d.get("arguments"))
            .unwrap_or(&Value::Null);
        match &item.kind {
            ItemKind::Message => {
                let text = if item.content.is_empty() {
                    s("text")
                } else {
                    item.content.clone()
                };
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
                if item.detail_event() == Some("agent.tool_call") {
                    self.tool_call_seen(at, &call_id, &tool_name, args);
                } else {
                    let flag = |k: &str| d.get(k).and_then(Value::as_bool).unwrap_or(false);
                    let exit_code = d
                        .get("exitCode")
                        .or_else(|| d.get("exit_code"))
                        .and_then(Value::as_i64);
                    let status = if flag("cancelled") {
                        CallStatus::Cancelled
                    } else if flag("isError") || exit_code.is_some_and(|c| c != 0) {
                        CallStatus::Failed
                    } else {
                        CallStatus::Ok
                    };
                    self.tool_result_seen(
                        at,
                        &call_id,
                        &tool_name,
                        status,
                        &s("summary"),
                        exit_code,
                    );
                }
                true
            }
            ItemKind::FileChange => {
                let change = ChangeKind::from(
                    d.get("kind")
                        .or_else(|| d.get("changeType"))
                        .and_then(Value::as_str)
                        .unwrap_or("modified"),
                );
                let diff = d
                    .get("diff")
                    .and_then(Value::as_str)
                    .map(|x| clip(x, DIFF_MAX));
                let call_id = (!call_id.is_empty()).then_some(call_id);
                self.push_keyed(
                    Source::Item,
                    at,
                    EntryKind::FileChange(Box::new(FileChangeEntry {
                        path: s("path"),
                        change,
                        diff,
                        call_id,
                    })),
                )
            }
            ItemKind::Approval => {
                // The item's detail is the `approval.requested` payload: its flag is kept.
                let sensitive = d.get("sensitive").and_then(Value::as_bool) == Some(true);
                let id = self.approval_seen(at, &call_id, &tool_name, args, sensitive, calls);
                if let Some(entry) = self.get_mut(id)
                    && let EntryKind::Approval(a) = &mut entry.kind
                {
                    a.from_history = a.verdict == ApprovalOutcome::Pending;
                }
                true
            }
            ItemKind::Question => {
                let id = self.question_seen(at, &call_id, &s("question"));
                if let Some(entry) = self.get_mut(id)
                    && let EntryKind::Question(q) = &mut entry.kind
                {
                    q.from_history = q.answer.is_none();
                }
                if let (Some(entry), Some(Value::Array(opts))) =
                    (self.get_mut(id), d.get("options"))
                    && let EntryKind::Question(q) = &mut entry.kind
                {
                    q.options = opts
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                }
                true
            }
            ItemKind::McpUnavailable => {
                let name = if tool_name.is_empty() {
                    s("server")
                } else {
                    tool_name
                };
                self.push_keyed(
                    Source::Item,
                    at,
                    EntryKind::McpUnavailable {
                        name,
                        reason: s("reason"),
                    },
                )
            }
            ItemKind::Error => {
                let message = if item.content.is_empty() {
                    s("message")
                } else {
                    item.content.clone()
                };
                self.push_keyed(Source::Item, at, EntryKind::Error { message })
            }
            ItemKind::Context => {
                let text = if item.content.is_empty() {
                    s("text")
                } else {
                    item.content.clone()
                };
                self.push_keyed(Source::Item, at, EntryKind::Context { text })
            }
            ItemKind::Other(kind) => {
                self.push(
                    at,
                    EntryKind::Unknown {
                        kind: clip(kind, 80),
                        excerpt: compact_json(d, 200),
                    },
                );
                true
            }
        }
    }
}
