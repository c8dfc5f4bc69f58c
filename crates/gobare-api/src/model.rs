//! Wire types of the Gobare API (reference §7.3, §8, §9), shared by the client and the
//! simulator.
//!
//! Parsing is tolerant on purpose (reference §1.1, §14.36): unknown fields are ignored,
//! unknown enum values are kept as `Other(String)`, an event whose payload does not fit its
//! type becomes [`EventPayload::Unknown`] with the raw JSON kept, and where the reference
//! lists two spellings of a field both are accepted.
//!
//! Types and functions are documented here; most fields and enum values are not, because they
//! carry the reference's own names and its sections (cited on each type) describe them.
#![allow(missing_docs)]

use serde::de::Deserializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;

pub mod unreadable;

pub use unreadable::{RequiredActions, Unreadable};

/// Declares a string enum that round-trips known values and keeps unknown ones verbatim.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)+
            /// A value this client does not know yet (the API adds values over time).
            Other(String),
        }

        impl $name {
            /// The value as the API spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Other(s) => s.as_str(),
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($text => Self::$variant,)+
                    other => Self::Other(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                // Read where it lies: a known value allocates nothing.
                struct Text;
                impl serde::de::Visitor<'_> for Text {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        Ok($name::from(s))
                    }
                }
                d.deserialize_str(Text)
            }
        }
    };
}

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
    /// `environment.state` (§9.1). `null` on the wire is `None` in [`Environment::state`].
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

/// Accepts an integer, a numeric string or null; anything else reads as `None` rather than
/// failing the whole object (hostile or sloppy servers, §14.36).
pub(crate) fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(match v {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

pub(crate) fn lenient_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(match v {
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

/// Unix ms as an integer, or a whole float within range; anything else (a string, a
/// fraction, a value past the year 9999) reads as unknown rather than failing the object.
fn lenient_ms<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    /// Unix ms of 9999-12-31: a later deadline is no date.
    const LATEST_MS: f64 = 253_402_300_799_000.0;
    let value = Option::<Value>::deserialize(d)?;
    Ok(match value {
        Some(Value::Number(n)) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() <= LATEST_MS)
                .map(|f| f as i64)
        }),
        _ => None,
    }
    .filter(|ms| ms.unsigned_abs() as f64 <= LATEST_MS))
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A question's options as their labels: each entry a plain string or (the production
/// shape) an object with a `label`; entries that are neither are skipped.
pub fn option_labels(options: &Value) -> Vec<String> {
    options
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| o.as_str().or_else(|| o.get("label")?.as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn labels<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(option_labels(&Value::deserialize(d)?))
}

// ---------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------

/// One decoded event envelope (§7.3) with its typed payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The public event name (`type`): borrowed for the types the reference publishes
    /// (no allocation per event), owned for any other.
    pub kind: Cow<'static, str>,
    pub internal_type: Option<Cow<'static, str>>,
    pub session_id: Option<std::sync::Arc<str>>,
    /// The cursor; `None` on transient events.
    pub seq: Option<u64>,
    /// Unix milliseconds.
    pub created_at: Option<i64>,
    pub payload: EventPayload,
}

/// Why a `data:` document could not be decoded as an envelope at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("undecodable event: {0}")]
pub struct DecodeError(pub std::borrow::Cow<'static, str>);

macro_rules! event_payloads {
    ($($text:literal => $variant:ident($ty:ty)),+ $(,)?) => {
        /// The typed payload of each of the 29 event types (§8), or `Unknown`.
        #[derive(Debug, Clone, PartialEq)]
        pub enum EventPayload {
            $($variant($ty),)+
            /// An event type this client does not know, or a payload that does not fit its
            /// type. `raw` is the payload JSON exactly as received (or `null`).
            Unknown { kind: String, raw: Value },
        }

        /// Every event type the reference publishes, in §8 order.
        pub const EVENT_TYPES: &[&str] = &[$($text),+];

        /// `kind` as it stands in [`EVENT_TYPES`], when it is one of them.
        pub fn known_event_type(kind: &str) -> Option<&'static str> {
            match kind {
                $($text => Some($text),)+
                _ => None,
            }
        }

        impl EventPayload {
            pub(crate) fn decode(kind: &str, raw: Option<&RawValue>) -> EventPayload {
                let text = raw.map(RawValue::get).unwrap_or("{}");
                let typed = match kind {
                    $($text => serde_json::from_str::<$ty>(text).map(EventPayload::$variant),)+
                    _ => return EventPayload::unknown(kind, raw),
                };
                typed.unwrap_or_else(|_| EventPayload::unknown(kind, raw))
            }

            /// The payload of a `kind` event read from `d` as its type (any JSON for a
            /// type not known here); an error where it does not fit.
            pub(crate) fn deserialize_typed<'de, D: Deserializer<'de>>(
                kind: &str,
                d: D,
            ) -> Result<EventPayload, D::Error> {
                match kind {
                    $($text => <$ty as Deserialize>::deserialize(d).map(EventPayload::$variant),)+
                    _ => Ok(EventPayload::Unknown {
                        kind: kind.to_string(),
                        raw: Value::deserialize(d)?,
                    }),
                }
            }

            /// The payload as JSON (for the simulator and generic display).
            pub fn to_value(&self) -> Value {
                match self {
                    $(EventPayload::$variant(p) => serde_json::to_value(p).unwrap_or(Value::Null),)+
                    EventPayload::Unknown { raw, .. } => raw.clone(),
                }
            }
        }
    };
}

event_payloads! {
    "turn.started" => TurnStarted(TurnRef),
    "turn.ended" => TurnEnded(TurnRef),
    "agent.text" => AgentText(Delta),
    "agent.thinking" => AgentThinking(Delta),
    "agent.message" => AgentMessage(Text),
    "agent.tool_call" => AgentToolCall(ToolCall),
    "agent.tool_result" => AgentToolResult(ToolResult),
    "agent.compaction" => AgentCompaction(Compaction),
    "agent.error" => AgentError(Message),
    "agent.todos" => AgentTodos(Todos),
    "user.message" => UserMessage(Text),
    "user.context" => UserContext(Text),
    "message.queued" => MessageQueued(QueuedMessage),
    "message.dequeued" => MessageDequeued(QueuedMessage),
    "file.changed" => FileChanged(FileChange),
    "approval.requested" => ApprovalRequested(ApprovalRequest),
    "approval.resolved" => ApprovalResolved(ApprovalResolution),
    "question.asked" => QuestionAsked(Question),
    "question.answered" => QuestionAnswered(QuestionAnswer),
    "tool.required" => ToolRequired(FunctionCall),
    "tool.resolved" => ToolResolved(FunctionResolution),
    "sandbox.created" => SandboxCreated(SandboxState),
    "sandbox.paused" => SandboxPaused(SandboxState),
    "sandbox.resumed" => SandboxResumed(SandboxState),
    "preview.ready" => PreviewReady(PreviewReady),
    "workspace.recovery_failed" => WorkspaceRecoveryFailed(Message),
    "artifact.created" => ArtifactCreated(ArtifactCreated),
    "mcp.unavailable" => McpUnavailable(McpUnavailable),
    "gobare.replay_truncated" => ReplayTruncated(ReplayTruncated),
}

impl EventPayload {
    fn unknown(kind: &str, raw: Option<&RawValue>) -> EventPayload {
        let raw = raw
            .and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or(Value::Null);
        EventPayload::Unknown {
            kind: kind.to_string(),
            raw,
        }
    }
}

/// An event type for [`Event::kind`]: borrowed when the reference publishes it (no
/// allocation per event), else owned.
pub fn event_type(kind: impl AsRef<str> + Into<String>) -> Cow<'static, str> {
    match known_event_type(kind.as_ref()) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(kind.into()),
    }
}

/// `turn.started` / `turn.ended`: `turnId` (snake_case `turn_id` tolerated, §14.29).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TurnRef {
    #[serde(rename = "turnId", alias = "turn_id")]
    pub turn_id: String,
}

/// `agent.text` / `agent.thinking`: a fragment (`delta`, not `text`, §14.2).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Delta {
    pub delta: String,
}

/// `agent.message`, `user.message`, `user.context`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Text {
    pub text: String,
}

/// `agent.error`, `workspace.recovery_failed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Message {
    pub message: String,
}

/// `agent.tool_call`: `toolName` / `args` (not `name` / `arguments`, §14.1).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default, alias = "tool_name")]
    pub tool_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub args: Value,
}

/// `agent.tool_result`: `summary`, not `result`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default, alias = "tool_name")]
    pub tool_name: String,
    #[serde(default, alias = "is_error", deserialize_with = "null_as_default")]
    pub is_error: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub cancelled: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub summary: String,
    #[serde(default, alias = "exit_code", skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
}

/// `agent.compaction`: token counts before and after.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Compaction {
    #[serde(default)]
    pub before: Option<u64>,
    #[serde(default)]
    pub after: Option<u64>,
}

/// `agent.todos`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Todos {
    #[serde(default, deserialize_with = "null_as_default")]
    pub items: Vec<TodoItem>,
}

/// One entry of `agent.todos`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TodoItem {
    #[serde(default)]
    pub label: String,
    /// Seen: `done`, `pending`; others (e.g. `in_progress`) are shown as they come.
    #[serde(default)]
    pub status: String,
}

/// `message.queued` / `message.dequeued`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QueuedMessage {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
}

/// `file.changed`: `changeType` (older: `kind`), optional `diff` and `toolCallId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    pub path: String,
    #[serde(alias = "kind", alias = "change_type")]
    pub change_type: ChangeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(
        default,
        alias = "tool_call_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub tool_call_id: Option<String>,
}

/// `approval.requested`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub args: Value,
    #[serde(default, deserialize_with = "null_as_default")]
    pub sensitive: bool,
}

/// `approval.resolved`. The field carrying a refusal's sentence is undocumented (§15.4), so
/// unknown fields are kept in `extra` and [`ApprovalResolution::reason`] looks for it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolution {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    pub approved: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl ApprovalResolution {
    /// The sentence given to the agent on a refusal, when the server sent one.
    pub fn reason(&self) -> Option<&str> {
        ["reason", "message", "text", "note"]
            .iter()
            .find_map(|k| self.extra.get(*k).and_then(Value::as_str))
    }
}

/// `question.asked`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default)]
    pub question: String,
    /// Plain strings, or (production) objects with a `label`: read as the labels.
    #[serde(default, deserialize_with = "labels")]
    pub options: Vec<String>,
    #[serde(
        default,
        alias = "allow_freeform",
        skip_serializing_if = "Option::is_none"
    )]
    pub allow_freeform: Option<bool>,
}

/// `question.answered`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionAnswer {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default)]
    pub answer: String,
}

/// `tool.required`: `name` / `arguments` (not `toolName` / `args`); no turn id (§14.9).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCall {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub arguments: Value,
}

/// `tool.resolved`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResolution {
    #[serde(alias = "tool_call_id")]
    pub tool_call_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub success: bool,
}

/// `sandbox.created` / `sandbox.paused` / `sandbox.resumed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxState {
    pub state: WorkspaceState,
}

/// `preview.ready`: `url` is the token-gated preview address.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreviewReady {
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub url: Option<String>,
}

/// `artifact.created` (snake_case: an API-level event).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ArtifactCreated {
    pub id: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default, alias = "turnId")]
    pub turn_id: Option<String>,
}

/// `mcp.unavailable`: `name` (prose: `server`) and `reason`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpUnavailable {
    #[serde(default, alias = "server")]
    pub name: String,
    #[serde(default)]
    pub reason: String,
}

/// `gobare.replay_truncated`: `from_seq` in `payload` or at the top level (§14.14).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReplayTruncated {
    #[serde(default, deserialize_with = "lenient_u64")]
    pub from_seq: Option<u64>,
    #[serde(default)]
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

/// `session` (§9.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    #[serde(default = "object_session")]
    pub object: String,
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    pub status: SessionStatus,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub updated_at: i64,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub created_by_token: Option<String>,
    #[serde(default)]
    pub parent_session_id: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub agent: AgentInfo,
    #[serde(default, deserialize_with = "null_as_default")]
    pub environment: Environment,
    #[serde(default, deserialize_with = "null_as_default")]
    pub preview: Preview,
    /// Read one by one: an action that cannot be decoded is left out and recorded
    /// ([`RequiredActions::unreadable`]), never a reason to lose the session.
    #[serde(default)]
    pub required_actions: RequiredActions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, Value>>,
    /// Only on a fork's reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_copied: Option<bool>,
}

fn object_session() -> String {
    "session".into()
}

/// `session.agent`: every field nullable.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_credential_id: Option<String>,
    #[serde(default)]
    pub approval_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_rules: Option<Vec<Value>>,
    /// Only on the single read (§14.31).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
}

/// `session.environment`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    #[serde(rename = "type", default = "sandbox")]
    pub kind: String,
    /// `None` when the server sent `null` (a state this API does not publish, §14.22).
    #[serde(default)]
    pub state: Option<WorkspaceState>,
    #[serde(default = "workspace_dir")]
    pub workspace_directory: String,
    #[serde(default)]
    pub repo: Option<Repo>,
}

impl Default for Environment {
    fn default() -> Self {
        Environment {
            kind: sandbox(),
            state: None,
            workspace_directory: workspace_dir(),
            repo: None,
        }
    }
}

fn sandbox() -> String {
    "sandbox".into()
}
fn workspace_dir() -> String {
    "/workspace".into()
}

/// `environment.repo`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Repo {
    #[serde(default)]
    pub full_name: String,
    #[serde(default)]
    pub branch: Option<String>,
    #[serde(default)]
    pub clone_error: Option<String>,
}

/// `GET …/usage` (`session.usage`): sandbox time of one session, or of its tree (`?root=`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub session_id: String,
    /// `"session"` or `"tree"`.
    #[serde(default)]
    pub scope: String,
    /// Sessions counted (1 for `"session"`).
    #[serde(default)]
    pub sessions: u32,
    /// When the figures were taken, Unix ms.
    #[serde(default)]
    pub as_of: Option<i64>,
    #[serde(default)]
    pub sandbox_seconds: u64,
    /// The reconciled part; lags `sandbox_seconds` while the sandbox runs.
    #[serde(default)]
    pub chargeable_seconds: u64,
}

/// `POST …/preview`'s answer (`preview`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreviewPublished {
    #[serde(default)]
    pub subdomain: Option<String>,
    #[serde(default)]
    pub published_url: Option<String>,
}

/// `session.preview`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Preview {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub published_url: Option<String>,
}

/// One entry of `session.required_actions` (§9.4). `turn_id` and `call_id` are copied back
/// verbatim when answering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequiredAction {
    #[serde(rename = "type")]
    pub kind: RequiredActionKind,
    pub turn_id: String,
    pub call_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default, deserialize_with = "lenient_ms")]
    pub created_at: Option<i64>,
    /// An unreadable deadline (`"tomorrow"`, a number past any date) is unknown, never a
    /// reason to drop the session that waits on it.
    #[serde(default, deserialize_with = "lenient_ms")]
    pub expires_at: Option<i64>,
}

/// `turn` (§9.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    #[serde(default = "object_turn")]
    pub object: String,
    pub id: String,
    #[serde(default)]
    pub session_id: String,
    pub status: TurnStatus,
    #[serde(default)]
    pub created_at: i64,
    /// `None` while the turn waits behind another (the only way to tell queued, §14.7).
    #[serde(default)]
    pub started_at: Option<i64>,
    #[serde(default)]
    pub completed_at: Option<i64>,
    #[serde(default)]
    pub artifacts: Option<ArtifactsState>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub artifacts_skipped: Vec<SkippedArtifact>,
    #[serde(default)]
    pub subagent_id: Option<String>,
    /// Shape unspecified; the reference client reads `{code, message}`.
    #[serde(default)]
    pub error: Option<Value>,
}

fn object_turn() -> String {
    "turn".into()
}

impl Turn {
    /// A short human description of `error`, whatever its shape.
    pub fn error_text(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        match e {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => {
                let msg = o.get("message").and_then(Value::as_str);
                let code = o.get("code").and_then(Value::as_str);
                match (code, msg) {
                    (Some(c), Some(m)) => Some(format!("{c}: {m}")),
                    (None, Some(m)) => Some(m.to_string()),
                    (Some(c), None) => Some(c.to_string()),
                    (None, None) => Some(e.to_string()),
                }
            }
            other => Some(other.to_string()),
        }
    }
}

/// One entry of `turn.artifacts_skipped`: a file that was not kept, and why.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SkippedArtifact {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub reason: String,
}

/// `item` (§9.3). Items have no `turn_id` and no `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    #[serde(default = "object_item")]
    pub object: String,
    #[serde(deserialize_with = "string_or_number")]
    pub id: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(rename = "type")]
    pub kind: ItemKind,
    #[serde(default, deserialize_with = "unix_ms_or_date")]
    pub created_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, deserialize_with = "text_or_json")]
    pub content: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub detail: Value,
}

/// A text field that a server may send as something else: a string stays as it is, null is
/// empty, anything else is kept as its compact JSON. One odd item must not fail the whole
/// page of a transcript backfill.
fn text_or_json<'de, D>(d: D) -> Result<String, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// An id a server may send as a number.
fn string_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "expected a string id, got {other}"
        ))),
    }
}

/// A time a server may send as ms (number or digits) or as an RFC 3339 date; anything else
/// reads as 0 (unknown) rather than failing the item.
fn unix_ms_or_date<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok().or_else(|| rfc3339_ms(s.trim())),
        _ => None,
    }
    .unwrap_or(0))
}

/// `2026-12-01T13:04:36.123Z` or `…+02:00` as Unix ms.
fn rfc3339_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    let mut ms = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        let scaled = format!("{:0<3}", &frac[..digits.min(3)]);
        ms = scaled.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_min = match rest {
        "Z" | "z" | "" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let oh = rest.get(1..3)?.parse::<i64>().ok()?;
            let om = rest.get(4..6)?.parse::<i64>().ok()?;
            sign * (oh * 60 + om)
        }
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + sec * 1000 + ms)
}

fn object_item() -> String {
    "item".into()
}

impl Item {
    /// A page read item by item: an item that cannot be read at all is left out, so one odd
    /// item never empties the page. Returns the page and how many were left out.
    pub fn page_from(raw: List<Value>) -> (List<Item>, usize) {
        let total = raw.data.len();
        let data: Vec<Item> = raw
            .data
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        let skipped = total - data.len();
        let page = List {
            object: raw.object,
            data,
            has_more: raw.has_more,
            last_id: raw.last_id,
            unreadable: raw.unreadable,
        };
        (page, skipped)
    }

    /// `detail.event`: the event name this item records (not always a stream name, §14.4).
    pub fn detail_event(&self) -> Option<&str> {
        self.detail.get("event").and_then(Value::as_str)
    }
}

/// `artifact` (§9.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    #[serde(default = "object_artifact")]
    pub object: String,
    pub id: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub turn_id: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub size_bytes: u64,
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub created_at: Option<i64>,
}

fn object_artifact() -> String {
    "artifact".into()
}

/// A list envelope (§3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct List<T> {
    #[serde(default = "object_list")]
    pub object: String,
    pub data: Vec<T>,
    #[serde(default)]
    pub has_more: bool,
    #[serde(default)]
    pub last_id: Option<String>,
    /// Entries of the page left out because they could not be read (see
    /// [`unreadable::readable_page`]); never on the wire.
    #[serde(skip)]
    pub unreadable: Vec<Unreadable>,
}

fn object_list() -> String {
    "list".into()
}

/// `health` (§1.3).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Health {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    #[serde(default)]
    pub usable: Option<bool>,
    #[serde(default)]
    pub missing_scopes: Vec<String>,
}

/// `input.accepted` (§6.4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InputAccepted {
    #[serde(default)]
    pub object: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<InputOutcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered: Option<bool>,
}

/// The error envelope every failure carries (§2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ErrorEnvelope {
    pub(crate) error: ErrorBody,
}

/// The `error` object of the error envelope (§2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub code: ErrorCode,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub request_id: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// One `input.*` event, the body of `POST /v1/sessions/{id}/events` (§6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum Input {
    #[serde(rename = "input.message")]
    Message { content: Content },
    #[serde(rename = "input.context")]
    Context { content: Content },
    #[serde(rename = "input.tool_result")]
    ToolResult {
        turn_id: String,
        call_id: String,
        success: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    #[serde(rename = "input.approval")]
    Approval { call_id: String, approved: bool },
    #[serde(rename = "input.question_answer")]
    QuestionAnswer { call_id: String, answer: String },
    #[serde(rename = "input.steer")]
    Steer { content: Content },
    #[serde(rename = "input.cancel")]
    Cancel {},
}

impl Input {
    /// The wire name of this input (`input.message`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Input::Message { .. } => "input.message",
            Input::Context { .. } => "input.context",
            Input::ToolResult { .. } => "input.tool_result",
            Input::Approval { .. } => "input.approval",
            Input::QuestionAnswer { .. } => "input.question_answer",
            Input::Steer { .. } => "input.steer",
            Input::Cancel {} => "input.cancel",
        }
    }

    /// The fixed sentence sent when a function call fails: never an exception's text, which
    /// would reach the model (§6.4).
    pub const TOOL_FAILED: &'static str = "The tool failed. Ask the user how to proceed.";
}

/// Message content: a string, or the content-parts array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl Content {
    /// The text, joining parts.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(""),
        }
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Content::Text(s.to_string())
    }
}
impl From<String> for Content {
    fn from(s: String) -> Self {
        Content::Text(s)
    }
}

/// One part of a content-parts array: `{"type": "text", "text": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentPart {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
}

/// The body of `POST /v1/events`: exactly one event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputBody {
    pub events: Vec<Input>,
}

/// `POST /v1/sessions` (the fields this client uses; the server refuses unknown ones).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

/// `agent` in a create request: which agent, model and instructions the session runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_credential_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_rules: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn published_event_types_are_borrowed_and_others_kept_as_sent() {
        for kind in EVENT_TYPES {
            assert!(matches!(event_type(kind.to_string()), Cow::Borrowed(k) if k == *kind));
            let json = format!(r#"{{"type":"{kind}","internal_type":"{kind}","payload":{{}}}}"#);
            let event = Event::parse(&json).unwrap();
            assert!(matches!(event.kind, Cow::Borrowed(_)), "{kind}");
            assert!(
                matches!(event.internal_type, Some(Cow::Borrowed(_))),
                "{kind}"
            );
        }
        assert!(matches!(event_type(String::from("x.new")), Cow::Owned(k) if k == "x.new"));
        let event = Event::parse(r#"{"type":"x.new","payload":{"a":1}}"#).unwrap();
        assert_eq!(event.kind, "x.new");
    }

    #[test]
    fn rfc3339_dates_read_as_unix_ms() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_ms("2026-09-13T17:04:50.002Z"),
            Some(1_789_319_090_002)
        );
        assert_eq!(
            rfc3339_ms("2026-09-13T19:04:50.0021+02:00"),
            Some(1_789_319_090_002)
        );
        assert_eq!(
            rfc3339_ms("2000-02-29T12:00:00-01:30"),
            Some(951_825_600_000 + 5_400_000)
        );
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-01-01T00:00:00+0x:00",
        ] {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn question_options_are_labels_whether_strings_or_objects() {
        let asked = |options: Value| {
            serde_json::from_value::<Question>(serde_json::json!({
                "toolCallId": "call_1", "question": "Which?", "options": options
            }))
            .unwrap()
            .options
        };
        let want = vec!["roll back".to_string(), "patch".to_string()];
        assert_eq!(asked(serde_json::json!(["roll back", "patch"])), want);
        assert_eq!(
            asked(
                serde_json::json!([{"label": "roll back", "description": "safe"}, {"label": "patch"}])
            ),
            want
        );
        assert_eq!(
            asked(serde_json::json!([{"label": "roll back"}, 7, "patch"])),
            want
        );
        assert!(asked(Value::Null).is_empty());
    }

    #[test]
    fn no_longer_pending_is_a_known_outcome() {
        assert_eq!(
            InputOutcome::from("no_longer_pending"),
            InputOutcome::NoLongerPending
        );
    }

    fn payloads() -> Value {
        serde_json::from_str(include_str!("../../../assets/event-payloads.json")).unwrap()
    }

    #[test]
    fn every_example_event_decodes_to_its_typed_variant() {
        let all = payloads();
        for kind in EVENT_TYPES {
            let env = &all[*kind];
            let ev = Event::parse(&env.to_string()).unwrap();
            assert_eq!(ev.kind, *kind);
            assert!(
                !matches!(ev.payload, EventPayload::Unknown { .. }),
                "{kind} fell back to Unknown"
            );
            // Round trip: the typed payload serializes back to the example.
            assert_eq!(ev.payload.to_value(), env["payload"], "{kind}");
        }
        assert_eq!(EVENT_TYPES.len(), 29);
    }

    #[test]
    fn truncation_reads_from_seq_from_top_level_or_payload() {
        let top = r#"{"object":"event","type":"gobare.replay_truncated","seq":null,"from_seq":91204,"note":"n"}"#;
        let inner = r#"{"object":"event","type":"gobare.replay_truncated","seq":null,"payload":{"from_seq":7}}"#;
        for (data, want) in [(top, 91204), (inner, 7)] {
            match Event::parse(data).unwrap().payload {
                EventPayload::ReplayTruncated(t) => assert_eq!(t.from_seq, Some(want)),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn both_spellings_of_file_change_kind_are_accepted() {
        let old = r#"{"type":"file.changed","seq":1,"payload":{"path":"a","kind":"created"}}"#;
        let new = r#"{"type":"file.changed","seq":2,"payload":{"path":"a","changeType":"deleted","toolCallId":"c"}}"#;
        let EventPayload::FileChanged(a) = Event::parse(old).unwrap().payload else {
            panic!()
        };
        let EventPayload::FileChanged(b) = Event::parse(new).unwrap().payload else {
            panic!()
        };
        assert_eq!(a.change_type, ChangeKind::Created);
        assert_eq!(b.change_type, ChangeKind::Deleted);
        assert_eq!(b.tool_call_id.as_deref(), Some("c"));
    }

    #[test]
    fn unknown_types_and_misfit_payloads_keep_raw_json() {
        let ev = Event::parse(r#"{"type":"agent.dance","seq":5,"payload":{"x":1}}"#).unwrap();
        assert_eq!(
            ev.payload,
            EventPayload::Unknown {
                kind: "agent.dance".into(),
                raw: serde_json::json!({"x":1})
            }
        );
        let ev = Event::parse(r#"{"type":"agent.message","seq":5,"payload":{"text":42}}"#).unwrap();
        assert!(matches!(ev.payload, EventPayload::Unknown { .. }));
    }

    #[test]
    fn seq_tolerates_strings_and_garbage() {
        assert_eq!(
            Event::parse(r#"{"type":"x","seq":"12"}"#).unwrap().seq,
            Some(12)
        );
        assert_eq!(Event::parse(r#"{"type":"x","seq":-3}"#).unwrap().seq, None);
        assert_eq!(
            Event::parse(r#"{"type":"x","seq":{"a":1}}"#).unwrap().seq,
            None
        );
        assert!(Event::parse("not json").is_err());
        assert!(Event::parse(r#"{"seq":1}"#).is_err());
    }

    #[test]
    fn an_unreadable_deadline_is_unknown_and_the_action_still_reads() {
        let all = payloads();
        let read = |expires: Value| {
            let mut action = all["required_action"].clone();
            action["expires_at"] = expires;
            serde_json::from_value::<RequiredAction>(action).map(|a| a.expires_at)
        };
        assert_eq!(
            read(json!(1_789_319_093_000_i64)).unwrap(),
            Some(1_789_319_093_000)
        );
        assert_eq!(read(json!(1.5e12)).unwrap(), Some(1_500_000_000_000));
        for odd in [
            json!("tomorrow"),
            json!(1.5),
            json!(1e300),
            json!({"at": 1}),
            Value::Null,
        ] {
            assert_eq!(read(odd.clone()).unwrap(), None, "{odd}");
        }
        // And a session holding such an action is read whole, its decision still listed.
        let mut session = all["session"].clone();
        let mut action = all["required_action"].clone();
        action["expires_at"] = json!("tomorrow");
        session["required_actions"] = json!([action]);
        let s: Session = serde_json::from_value(session).unwrap();
        assert_eq!(s.required_actions.len(), 1);
        assert_eq!(s.required_actions[0].expires_at, None);
    }

    #[test]
    fn objects_parse_from_the_examples_and_tolerate_unknowns() {
        let all = payloads();
        let s: Session = serde_json::from_value(all["session"].clone()).unwrap();
        assert_eq!(s.environment.state, Some(WorkspaceState::Unknown));
        let t: Turn = serde_json::from_value(all["turn"].clone()).unwrap();
        assert_eq!(t.status, TurnStatus::Working);
        let r: RequiredAction = serde_json::from_value(all["required_action"].clone()).unwrap();
        assert_eq!(r.kind, RequiredActionKind::FunctionCall);
        let e: ErrorEnvelope = serde_json::from_value(all["error"].clone()).unwrap();
        assert_eq!(e.error.code, ErrorCode::PermissionDenied);
        for (_, item) in all["items"].as_object().unwrap() {
            let i: Item = serde_json::from_value(item.clone()).unwrap();
            assert!(i.detail_event().is_some());
        }
        let mut odd = all["session"].clone();
        odd["status"] = "hibernating".into();
        odd["environment"]["state"] = Value::Null;
        odd["brand_new_field"] = 1.into();
        let s: Session = serde_json::from_value(odd).unwrap();
        assert_eq!(s.status, SessionStatus::Other("hibernating".into()));
        assert_eq!(s.environment.state, None);
    }

    #[test]
    fn inputs_serialize_to_the_wire_shapes() {
        let m = Input::Message {
            content: "hi".into(),
        };
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"type":"input.message","content":"hi"})
        );
        let c = Input::Cancel {};
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            serde_json::json!({"type":"input.cancel"})
        );
        let r = Input::ToolResult {
            turn_id: "t".into(),
            call_id: "c".into(),
            success: false,
            output: None,
            error: Some(Input::TOOL_FAILED.into()),
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"type":"input.tool_result","turn_id":"t","call_id":"c","success":false,"error":Input::TOOL_FAILED})
        );
    }
}
