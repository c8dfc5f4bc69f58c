//! The API's named values: string enums that keep a value they do not know (§2, §6.4, §9).

use serde::de::Deserializer;
use serde::{Deserialize, Serialize};

string_enum!(
    /// `session.status` (§9.1).
    SessionStatus {
        Idle = "idle",
        Working = "working",
        RequiresAction = "requires_action",
        Failed = "failed",
    }
);

string_enum!(
    /// `environment.state` (§9.1). `null` on the wire is `None` in [`super::Environment::state`].
    WorkspaceState {
        Unknown = "unknown",
        Running = "running",
        Paused = "paused",
        Destroyed = "destroyed",
        Recovering = "recovering",
        RecoveryFailed = "recovery_failed",
    }
);

string_enum!(
    /// `turn.status` (§9.2). Settled statuses never change.
    TurnStatus {
        Working = "working",
        Completed = "completed",
        Failed = "failed",
        Cancelled = "cancelled",
    }
);

string_enum!(
    /// `turn.artifacts` (§9.2).
    ArtifactsState {
        Pending = "pending",
        Ready = "ready",
        Partial = "partial",
        Failed = "failed",
    }
);

string_enum!(
    /// `required_actions[].type` (§9.4).
    RequiredActionKind {
        FunctionCall = "function_call",
        Approval = "approval",
        Question = "question",
    }
);

string_enum!(
    /// `item.type` (§9.3).
    ItemKind {
        Message = "message",
        ToolCall = "tool_call",
        CommandExecution = "command_execution",
        FileChange = "file_change",
        Approval = "approval",
        Question = "question",
        McpUnavailable = "mcp_unavailable",
        Error = "error",
        Context = "context",
    }
);

string_enum!(
    /// `file.changed` `changeType` (older: `kind`).
    ChangeKind {
        Created = "created",
        Modified = "modified",
        Deleted = "deleted",
    }
);

string_enum!(
    /// `input.accepted.outcome` for `input.tool_result` (§6.4); production also says
    /// `no_longer_pending` (resolved elsewhere: benign, like `already_resolved`).
    InputOutcome {
        Accepted = "accepted",
        AlreadyResolved = "already_resolved",
        NotDelivered = "not_delivered",
        NoLongerPending = "no_longer_pending",
    }
);

string_enum!(
    /// `error.code` (§2): the full enum of 18 codes.
    ErrorCode {
        InvalidRequest = "invalid_request",
        ContextLengthExceeded = "context_length_exceeded",
        AuthenticationError = "authentication_error",
        PermissionDenied = "permission_denied",
        NotFound = "not_found",
        MethodNotAllowed = "method_not_allowed",
        Conflict = "conflict",
        QueueFull = "queue_full",
        RateLimitExceeded = "rate_limit_exceeded",
        ProjectLimitExceeded = "project_limit_exceeded",
        InternalError = "internal_error",
        SandboxError = "sandbox_error",
        WorkspaceRecoveryFailed = "workspace_recovery_failed",
        BridgeIncompatible = "bridge_incompatible",
        ProviderError = "provider_error",
        ProviderUnauthorized = "provider_unauthorized",
        SandboxUnavailable = "sandbox_unavailable",
        DirectoryUnavailable = "directory_unavailable",
    }
);

impl ErrorCode {
    /// The HTTP status the reference pairs with this code (§2).
    pub fn http_status(&self) -> u16 {
        match self {
            Self::InvalidRequest | Self::ContextLengthExceeded => 400,
            Self::AuthenticationError => 401,
            Self::PermissionDenied => 403,
            Self::NotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::Conflict => 409,
            Self::QueueFull | Self::RateLimitExceeded | Self::ProjectLimitExceeded => 429,
            Self::InternalError
            | Self::SandboxError
            | Self::WorkspaceRecoveryFailed
            | Self::BridgeIncompatible => 500,
            Self::ProviderError | Self::ProviderUnauthorized => 502,
            Self::SandboxUnavailable | Self::DirectoryUnavailable => 503,
            Self::Other(_) => 500,
        }
    }

    /// Whether the reference marks the code retryable (it then carries `Retry-After`).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::QueueFull
                | Self::RateLimitExceeded
                | Self::InternalError
                | Self::SandboxError
                | Self::ProviderError
                | Self::SandboxUnavailable
                | Self::DirectoryUnavailable
        )
    }
}
