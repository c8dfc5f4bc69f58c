//! Events of one family into entries: what the agent does: tool calls and their results, file changes, todos, compaction, errors.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::WorkEvent;

impl Transcript {
    pub(super) fn apply_work_event(&mut self, at: Option<i64>, ev: WorkEvent<'_>) -> bool {
        use WorkEvent as P;
        match ev {
            P::AgentError(e) => self.push_keyed(
                Source::Event,
                at,
                EntryKind::Error {
                    message: e.message.clone(),
                },
            ),
            P::McpUnavailable(u) => self.push_keyed(
                Source::Event,
                at,
                EntryKind::McpUnavailable {
                    name: u.name.clone(),
                    reason: u.reason.clone(),
                },
            ),
            P::FileChanged(f) => self.push_keyed(
                Source::Event,
                at,
                EntryKind::FileChange(Box::new(FileChangeEntry {
                    path: f.path.clone(),
                    change: f.change_type.clone(),
                    diff: f.diff.as_deref().map(|d| clip(d, DIFF_MAX)),
                    call_id: f.tool_call_id.clone(),
                })),
            ),
            P::AgentToolCall(c) => {
                self.tool_call_seen(at, &c.tool_call_id, &c.tool_name, &c.args);
                true
            }
            P::AgentToolResult(r) => {
                let status = if r.cancelled {
                    CallStatus::Cancelled
                } else if r.is_error {
                    CallStatus::Failed
                } else {
                    CallStatus::Ok
                };
                self.tool_result_seen(
                    at,
                    &r.tool_call_id,
                    &r.tool_name,
                    status,
                    &r.summary,
                    r.exit_code,
                );
                true
            }
            P::AgentCompaction(c) => {
                self.push(
                    at,
                    EntryKind::Compaction {
                        before: c.before,
                        after: c.after,
                    },
                );
                true
            }
            P::AgentTodos(t) => {
                self.todos_seen(at, &t.items);
                true
            }
        }
    }

    /// The todo list is one entry, replaced in place as the list changes.
    fn todos_seen(&mut self, at: Option<i64>, items: &[TodoItem]) {
        match self.todos.and_then(|id| self.get_mut(id)) {
            Some(entry) => {
                entry.kind = EntryKind::Todos {
                    items: items.to_vec(),
                };
                entry.rev += 1;
            }
            None => {
                let id = self.push(
                    at,
                    EntryKind::Todos {
                        items: items.to_vec(),
                    },
                );
                self.todos = Some(id);
            }
        }
    }
}
