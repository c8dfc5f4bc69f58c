//! The words an event family is told with, in one place per family: the transcript, the
//! Events pane, the screen-reader lines, search, the Markdown export and the send notices
//! all say them, so a decision reads "denied" everywhere (the export once said "refused"),
//! and a word changed here changes on every screen and in every file at once.

use gobare_api::model::EventPayload;

/// The families events are told in. Every renderer goes family by family, and this match
/// names every event type without a catch-all: a new type does not compile until it is
/// placed in one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// A turn's start and end.
    Turns,
    /// What the user and the agent say, streaming text and reasoning, the queue.
    Conversation,
    /// What the agent does: tools, files, todos, compaction, its errors.
    Work,
    /// What the agent waits for: approvals, questions, function calls.
    Decisions,
    /// The workspace, its outputs and the stream itself (and types this build doesn't know).
    Workspace,
}

impl Family {
    pub(crate) fn of(payload: &EventPayload) -> Family {
        use EventPayload as P;
        match payload {
            P::TurnStarted(_) | P::TurnEnded(_) => Family::Turns,
            P::AgentText(_)
            | P::AgentThinking(_)
            | P::AgentMessage(_)
            | P::UserMessage(_)
            | P::UserContext(_)
            | P::MessageQueued(_)
            | P::MessageDequeued(_) => Family::Conversation,
            P::AgentToolCall(_)
            | P::AgentToolResult(_)
            | P::AgentCompaction(_)
            | P::AgentError(_)
            | P::AgentTodos(_)
            | P::FileChanged(_)
            | P::McpUnavailable(_) => Family::Work,
            P::ApprovalRequested(_)
            | P::ApprovalResolved(_)
            | P::QuestionAsked(_)
            | P::QuestionAnswered(_)
            | P::ToolRequired(_)
            | P::ToolResolved(_) => Family::Decisions,
            P::SandboxCreated(_)
            | P::SandboxPaused(_)
            | P::SandboxResumed(_)
            | P::PreviewReady(_)
            | P::WorkspaceRecoveryFailed(_)
            | P::ArtifactCreated(_)
            | P::ReplayTruncated(_)
            | P::Unknown { .. } => Family::Workspace,
        }
    }
}

/// Approvals, questions and function calls: what the agent waits for.
pub(crate) mod decisions {
    /// An approval's verdict.
    pub(crate) fn verdict(approved: bool) -> &'static str {
        if approved { "approved" } else { "denied" }
    }

    /// Said of an approval asked as sensitive (it takes a second `y`).
    pub(crate) const SENSITIVE: &str = "sensitive";

    pub(crate) const APPROVAL_WAITING: &str = "waiting for approval";
    pub(crate) const ANSWER_WAITING: &str = "waiting for an answer";
    pub(crate) const RESULT_WAITING: &str = "waiting for your result";
    /// Read back from items, which record the request and never its outcome.
    pub(crate) const OUTCOME_NOT_IN_HISTORY: &str = "outcome not in the history";
    pub(crate) const ANSWER_NOT_IN_HISTORY: &str = "answer not in the history";

    /// A function call's result: `expired` when the call lapsed before anyone answered.
    pub(crate) fn function_outcome(success: bool, expired: bool) -> &'static str {
        match (success, expired) {
            (true, _) => "succeeded",
            (false, true) => "expired unanswered",
            (false, false) => "failed",
        }
    }
}

/// Messages waiting behind a running turn.
pub(crate) mod queue {
    /// The label a queued message carries until `message.dequeued`.
    pub(crate) fn queued(position: u32) -> String {
        format!("queued #{position}")
    }

    /// [`queued`], or just "queued" when the server gave no position.
    pub(crate) fn label(position: Option<u32>) -> String {
        position.map_or_else(|| "queued".into(), queued)
    }
}

#[cfg(test)]
mod tests {
    use super::decisions::*;

    #[test]
    fn a_lapsed_call_reads_expired_and_a_refusal_reads_denied() {
        assert_eq!(function_outcome(false, true), "expired unanswered");
        assert_eq!(function_outcome(true, true), "succeeded");
        assert_eq!(function_outcome(false, false), "failed");
        assert_eq!(verdict(false), "denied");
    }
}
