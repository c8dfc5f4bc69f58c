//! The event types in the five families a client tells them in, as a borrowed view of
//! [`EventPayload`]: [`EventPayload::by_family`] names every type once, with no catch-all,
//! and each family's enum lists only its own types. A writer that handles one family
//! matches its family's enum whole, so a type added here does not compile until every
//! writer of its family says what it does with it.
//!
//! A view rather than a two-level [`EventPayload`]: the flat enum is what the decoder,
//! the simulator and every single-type check (`matches!(p, P::TurnEnded(_))`) read, and
//! the view costs one match on a discriminant and no copy.

use crate::model::{
    ApprovalRequest, ApprovalResolution, ArtifactCreated, Compaction, Delta, EventPayload,
    FileChange, FunctionCall, FunctionResolution, McpUnavailable, Message, PreviewReady, Question,
    QuestionAnswer, QueuedMessage, ReplayTruncated, SandboxState, Text, Todos, ToolCall,
    ToolResult, TurnRef,
};
use serde_json::Value;

/// One event seen through its family.
#[derive(Debug, Clone, Copy)]
pub enum ByFamily<'a> {
    /// A turn's start and end.
    Turns(TurnsEvent<'a>),
    /// What the user and the agent say, streaming text and reasoning, the queue.
    Conversation(ConversationEvent<'a>),
    /// What the agent does: tools, files, todos, compaction, its errors, MCP servers.
    Work(WorkEvent<'a>),
    /// What the agent waits for: approvals, questions, function calls.
    Decisions(DecisionsEvent<'a>),
    /// The workspace, its outputs and the stream itself (and types this build doesn't know).
    Workspace(WorkspaceEvent<'a>),
}

/// `turn.*`.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum TurnsEvent<'a> {
    TurnStarted(&'a TurnRef),
    TurnEnded(&'a TurnRef),
}

/// `agent.text`, `agent.thinking`, `agent.message`, `user.*`, `message.*`.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum ConversationEvent<'a> {
    AgentText(&'a Delta),
    AgentThinking(&'a Delta),
    AgentMessage(&'a Text),
    UserMessage(&'a Text),
    UserContext(&'a Text),
    MessageQueued(&'a QueuedMessage),
    MessageDequeued(&'a QueuedMessage),
}

/// `agent.tool_call`, `agent.tool_result`, `agent.compaction`, `agent.error`,
/// `agent.todos`, `file.changed`, `mcp.unavailable`.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum WorkEvent<'a> {
    AgentToolCall(&'a ToolCall),
    AgentToolResult(&'a ToolResult),
    AgentCompaction(&'a Compaction),
    AgentError(&'a Message),
    AgentTodos(&'a Todos),
    FileChanged(&'a FileChange),
    McpUnavailable(&'a McpUnavailable),
}

/// `approval.*`, `question.*`, `tool.*`.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum DecisionsEvent<'a> {
    ApprovalRequested(&'a ApprovalRequest),
    ApprovalResolved(&'a ApprovalResolution),
    QuestionAsked(&'a Question),
    QuestionAnswered(&'a QuestionAnswer),
    ToolRequired(&'a FunctionCall),
    ToolResolved(&'a FunctionResolution),
}

/// `sandbox.*`, `preview.ready`, `workspace.recovery_failed`, `artifact.created`,
/// `gobare.replay_truncated`, and any type this build does not know.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub enum WorkspaceEvent<'a> {
    SandboxCreated(&'a SandboxState),
    SandboxPaused(&'a SandboxState),
    SandboxResumed(&'a SandboxState),
    PreviewReady(&'a PreviewReady),
    WorkspaceRecoveryFailed(&'a Message),
    ArtifactCreated(&'a ArtifactCreated),
    ReplayTruncated(&'a ReplayTruncated),
    /// [`EventPayload::Unknown`].
    Unknown {
        kind: &'a str,
        raw: &'a Value,
    },
}

impl EventPayload {
    /// This event seen through its family.
    #[inline]
    pub fn by_family(&self) -> ByFamily<'_> {
        use ByFamily as F;
        use ConversationEvent as C;
        use DecisionsEvent as D;
        use EventPayload as P;
        use TurnsEvent as T;
        use WorkEvent as W;
        use WorkspaceEvent as S;
        match self {
            P::TurnStarted(t) => F::Turns(T::TurnStarted(t)),
            P::TurnEnded(t) => F::Turns(T::TurnEnded(t)),
            P::AgentText(d) => F::Conversation(C::AgentText(d)),
            P::AgentThinking(d) => F::Conversation(C::AgentThinking(d)),
            P::AgentMessage(t) => F::Conversation(C::AgentMessage(t)),
            P::UserMessage(t) => F::Conversation(C::UserMessage(t)),
            P::UserContext(t) => F::Conversation(C::UserContext(t)),
            P::MessageQueued(q) => F::Conversation(C::MessageQueued(q)),
            P::MessageDequeued(q) => F::Conversation(C::MessageDequeued(q)),
            P::AgentToolCall(c) => F::Work(W::AgentToolCall(c)),
            P::AgentToolResult(r) => F::Work(W::AgentToolResult(r)),
            P::AgentCompaction(c) => F::Work(W::AgentCompaction(c)),
            P::AgentError(m) => F::Work(W::AgentError(m)),
            P::AgentTodos(t) => F::Work(W::AgentTodos(t)),
            P::FileChanged(f) => F::Work(W::FileChanged(f)),
            P::McpUnavailable(u) => F::Work(W::McpUnavailable(u)),
            P::ApprovalRequested(a) => F::Decisions(D::ApprovalRequested(a)),
            P::ApprovalResolved(a) => F::Decisions(D::ApprovalResolved(a)),
            P::QuestionAsked(q) => F::Decisions(D::QuestionAsked(q)),
            P::QuestionAnswered(a) => F::Decisions(D::QuestionAnswered(a)),
            P::ToolRequired(f) => F::Decisions(D::ToolRequired(f)),
            P::ToolResolved(f) => F::Decisions(D::ToolResolved(f)),
            P::SandboxCreated(s) => F::Workspace(S::SandboxCreated(s)),
            P::SandboxPaused(s) => F::Workspace(S::SandboxPaused(s)),
            P::SandboxResumed(s) => F::Workspace(S::SandboxResumed(s)),
            P::PreviewReady(p) => F::Workspace(S::PreviewReady(p)),
            P::WorkspaceRecoveryFailed(m) => F::Workspace(S::WorkspaceRecoveryFailed(m)),
            P::ArtifactCreated(a) => F::Workspace(S::ArtifactCreated(a)),
            P::ReplayTruncated(t) => F::Workspace(S::ReplayTruncated(t)),
            P::Unknown { kind, raw } => F::Workspace(S::Unknown { kind, raw }),
        }
    }
}
