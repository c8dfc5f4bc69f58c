//! Events of one family into entries: what the agent waits for: approvals, questions and function calls, asked and resolved.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::DecisionsEvent;

impl Transcript {
    pub(super) fn apply_decisions_event(
        &mut self,
        at: Option<i64>,
        ev: DecisionsEvent<'_>,
        sensitive: &mut SensitiveCalls,
    ) -> bool {
        use DecisionsEvent as P;
        match ev {
            P::ApprovalRequested(a) => {
                let id = self.approval_seen(
                    at,
                    &a.tool_call_id,
                    &a.name,
                    &a.args,
                    a.sensitive,
                    sensitive,
                );
                // The stream records outcomes too: the resolution, if any, follows.
                if let Some(entry) = self.get_mut(id)
                    && let EntryKind::Approval(ap) = &mut entry.kind
                {
                    ap.from_history = false;
                }
                true
            }
            P::ApprovalResolved(a) => {
                let verdict = if a.approved {
                    ApprovalOutcome::Approved {
                        code: a.code.clone(),
                    }
                } else {
                    ApprovalOutcome::Denied {
                        code: a.code.clone(),
                        reason: a.reason().map(str::to_string),
                    }
                };
                let name = a.name.clone().unwrap_or_default();
                let id =
                    self.approval_seen(at, &a.tool_call_id, &name, &Value::Null, false, sensitive);
                if let Some(entry) = self.get_mut(id) {
                    if let EntryKind::Approval(ap) = &mut entry.kind {
                        ap.verdict = verdict;
                    }
                    entry.rev += 1;
                }
                true
            }
            P::QuestionAsked(q) => {
                let id = self.question_seen(at, &q.tool_call_id, &q.question);
                if let Some(entry) = self.get_mut(id)
                    && let EntryKind::Question(qe) = &mut entry.kind
                {
                    qe.options = q.options.clone();
                    qe.from_history = false;
                }
                true
            }
            P::QuestionAnswered(q) => {
                let id = self.question_seen(at, &q.tool_call_id, "");
                if let Some(entry) = self.get_mut(id) {
                    if let EntryKind::Question(qe) = &mut entry.kind {
                        qe.answer = Some(q.answer.clone());
                    }
                    entry.rev += 1;
                }
                true
            }
            P::ToolRequired(f) => {
                self.function_seen(at, &f.tool_call_id, &f.name, &f.arguments, None);
                true
            }
            P::ToolResolved(f) => {
                self.function_seen(at, &f.tool_call_id, &f.name, &Value::Null, Some(f.success));
                true
            }
        }
    }
}
