//! Entries seen through the event family they tell, as a borrowed view of [`EntryKind`]:
//! [`EntryKind::by_family`] names every kind once, and each family's enum lists only its
//! own, so a writer of one family (the transcript's lines, the screen reader's words)
//! matches its family whole and a kind added here does not compile until each says it.

use super::{
    ApprovalEntry, EntryKind, FileChangeEntry, FunctionEntry, QuestionEntry, ToolCallEntry,
    TurnEndEntry,
};
use gobare_api::model::TodoItem;

/// One entry seen through its family.
#[derive(Debug, Clone, Copy)]
pub(crate) enum EntryByFamily<'a> {
    Turns(TurnsEntry<'a>),
    Conversation(ConversationEntry<'a>),
    Work(WorkEntry<'a>),
    Decisions(DecisionsEntry<'a>),
    Workspace(WorkspaceEntry<'a>),
}

/// A turn's end and its outcome.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TurnsEntry<'a> {
    TurnEnd(&'a TurnEndEntry),
}

/// What the user and the agent say, and the queue.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ConversationEntry<'a> {
    User {
        text: &'a str,
    },
    Steer {
        text: &'a str,
    },
    Agent {
        text: &'a str,
    },
    Context {
        text: &'a str,
    },
    Queued {
        text: &'a str,
        position: Option<u32>,
    },
    Dequeued {
        text: &'a str,
    },
}

/// What the agent does: tools, files, todos, compaction, errors, MCP servers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WorkEntry<'a> {
    Tool(&'a ToolCallEntry),
    FileChange(&'a FileChangeEntry),
    Todos {
        items: &'a [TodoItem],
    },
    Error {
        message: &'a str,
    },
    Compaction {
        before: Option<u64>,
        after: Option<u64>,
    },
    McpUnavailable {
        name: &'a str,
        reason: &'a str,
    },
}

/// What the agent waits for: approvals, questions, function calls.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DecisionsEntry<'a> {
    Approval(&'a ApprovalEntry),
    Question(&'a QuestionEntry),
    Function(&'a FunctionEntry),
}

/// The workspace, its outputs and the stream itself.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WorkspaceEntry<'a> {
    RecoveryFailed {
        message: &'a str,
    },
    Artifact {
        path: &'a str,
        size_bytes: Option<u64>,
    },
    Preview {
        port: Option<u16>,
        url: Option<&'a str>,
    },
    ReplayTruncated {
        from_seq: Option<u64>,
    },
    Unknown {
        kind: &'a str,
        excerpt: &'a str,
    },
}

impl EntryKind {
    /// This entry seen through the family it tells.
    #[inline]
    pub(crate) fn by_family(&self) -> EntryByFamily<'_> {
        use ConversationEntry as C;
        use DecisionsEntry as D;
        use EntryByFamily as F;
        use EntryKind as K;
        use WorkEntry as W;
        use WorkspaceEntry as S;
        match self {
            K::TurnEnd(t) => F::Turns(TurnsEntry::TurnEnd(t)),
            K::User { text } => F::Conversation(C::User { text }),
            K::Steer { text } => F::Conversation(C::Steer { text }),
            K::Agent { text } => F::Conversation(C::Agent { text }),
            K::Context { text } => F::Conversation(C::Context { text }),
            K::Queued { text, position } => F::Conversation(C::Queued {
                text,
                position: *position,
            }),
            K::Dequeued { text } => F::Conversation(C::Dequeued { text }),
            K::Tool(t) => F::Work(W::Tool(t)),
            K::FileChange(f) => F::Work(W::FileChange(f)),
            K::Todos { items } => F::Work(W::Todos { items }),
            K::Error { message } => F::Work(W::Error { message }),
            K::Compaction { before, after } => F::Work(W::Compaction {
                before: *before,
                after: *after,
            }),
            K::McpUnavailable { name, reason } => F::Work(W::McpUnavailable { name, reason }),
            K::Approval(a) => F::Decisions(D::Approval(a)),
            K::Question(q) => F::Decisions(D::Question(q)),
            K::Function(f) => F::Decisions(D::Function(f)),
            K::RecoveryFailed { message } => F::Workspace(S::RecoveryFailed { message }),
            K::Artifact {
                path, size_bytes, ..
            } => F::Workspace(S::Artifact {
                path,
                size_bytes: *size_bytes,
            }),
            K::Preview { port, url } => F::Workspace(S::Preview {
                port: *port,
                url: url.as_deref(),
            }),
            K::ReplayTruncated { from_seq } => F::Workspace(S::ReplayTruncated {
                from_seq: *from_seq,
            }),
            K::Unknown { kind, excerpt } => F::Workspace(S::Unknown { kind, excerpt }),
        }
    }
}
