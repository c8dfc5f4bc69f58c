//! Which session needs the user first: the attention rank (needs you → failed → working →
//! idle, then the most recently updated) and what a waiting session needs, from the session
//! resource alone, so `list` and the fleet order sessions the same way.

use gobare_api::model::{RequiredActionKind, Session, SessionStatus, WorkspaceState};
use std::cmp::{Ordering, Reverse};

/// How urgently a session wants the user, most urgent first (the derived order is the sort
/// order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Attention {
    /// It waits on an approval, an answer or a function's result.
    NeedsYou,
    /// Its last turn failed, or its workspace could not be rebuilt.
    Failed,
    /// A turn is running (or queued).
    Working,
    /// Ready for input (or a status this client does not know).
    Idle,
}

impl Attention {
    /// A short label for a list row.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Attention::NeedsYou => "needs you",
            Attention::Failed => "failed",
            Attention::Working => "working",
            Attention::Idle => "idle",
        }
    }
}

/// What a waiting session asks of the user (§9.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Needs {
    Approval,
    Question,
    FunctionCall,
}

impl Needs {
    /// The value as `required_actions[].type` spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Needs::Approval => "approval",
            Needs::Question => "question",
            Needs::FunctionCall => "function_call",
        }
    }
}

/// What the session waits on, when it waits on something this client knows: a person's
/// decision (approval, then question) outranks a function's result when several wait.
pub(crate) fn needs(session: &Session) -> Option<Needs> {
    let kind_needs = |kind: &RequiredActionKind| match kind {
        RequiredActionKind::Approval => Some(Needs::Approval),
        RequiredActionKind::Question => Some(Needs::Question),
        RequiredActionKind::FunctionCall => Some(Needs::FunctionCall),
        RequiredActionKind::Other(_) => None,
    };
    let rank = |n: &Needs| match n {
        Needs::Approval => 0,
        Needs::Question => 1,
        Needs::FunctionCall => 2,
    };
    session
        .required_actions
        .iter()
        .filter_map(|a| kind_needs(&a.kind))
        .min_by_key(rank)
}

/// The session's attention rank. `required_actions` is authoritative (§9.1), so a known
/// required action means "needs you" whatever `status` says.
pub(crate) fn attention(session: &Session) -> Attention {
    if session.status == SessionStatus::RequiresAction || needs(session).is_some() {
        return Attention::NeedsYou;
    }
    if session.status == SessionStatus::Failed
        || session.environment.state == Some(WorkspaceState::RecoveryFailed)
    {
        return Attention::Failed;
    }
    match session.status {
        SessionStatus::Working => Attention::Working,
        _ => Attention::Idle,
    }
}

/// The fleet order: attention first, then the most recently updated, then by id so equal
/// sessions keep one order between refreshes.
pub(crate) fn compare(a: &Session, b: &Session) -> Ordering {
    (attention(a), Reverse(a.updated_at), &a.id).cmp(&(attention(b), Reverse(b.updated_at), &b.id))
}

/// Sorts `sessions` into the fleet order.
pub(crate) fn sort(sessions: &mut [Session]) {
    sessions.sort_by(compare);
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::RequiredAction;

    fn session(id: &str, status: &str, updated_at: i64) -> Session {
        serde_json::from_value(serde_json::json!({
            "id": id, "status": status, "created_at": 1, "updated_at": updated_at,
        }))
        .unwrap()
    }

    fn action(kind: &str) -> RequiredAction {
        serde_json::from_value(serde_json::json!({"type": kind, "turn_id": "t", "call_id": "c"}))
            .unwrap()
    }

    #[test]
    fn needs_prefers_a_person_s_decision_and_ignores_unknown_kinds() {
        let mut s = session("a", "requires_action", 1);
        assert_eq!(needs(&s), None);
        s.required_actions = vec![action("function_call"), action("question")].into();
        assert_eq!(needs(&s), Some(Needs::Question));
        s.required_actions.push(action("approval"));
        assert_eq!(needs(&s).map(Needs::as_str), Some("approval"));
        s.required_actions = vec![action("telepathy")].into();
        assert_eq!(needs(&s), None);
    }

    #[test]
    fn attention_ranks_each_status() {
        assert_eq!(
            attention(&session("a", "requires_action", 1)),
            Attention::NeedsYou
        );
        assert_eq!(attention(&session("a", "failed", 1)), Attention::Failed);
        assert_eq!(attention(&session("a", "working", 1)), Attention::Working);
        assert_eq!(attention(&session("a", "idle", 1)), Attention::Idle);
        assert_eq!(attention(&session("a", "hibernating", 1)), Attention::Idle);

        let mut stale = session("a", "working", 1);
        stale.required_actions = vec![action("approval")].into();
        assert_eq!(
            attention(&stale),
            Attention::NeedsYou,
            "required_actions decide"
        );

        let mut broken = session("a", "idle", 1);
        broken.environment.state = Some(WorkspaceState::RecoveryFailed);
        assert_eq!(attention(&broken), Attention::Failed);
    }

    #[test]
    fn sort_puts_attention_first_then_recency_then_id() {
        let mut all = vec![
            session("idle-new", "idle", 90),
            session("working", "working", 10),
            session("failed", "failed", 5),
            session("waits-old", "requires_action", 1),
            session("waits-new", "requires_action", 50),
            session("idle-b", "idle", 20),
            session("idle-a", "idle", 20),
        ];
        sort(&mut all);
        let ids: Vec<_> = all.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "waits-new",
                "waits-old",
                "failed",
                "working",
                "idle-new",
                "idle-a",
                "idle-b"
            ]
        );
    }
}
