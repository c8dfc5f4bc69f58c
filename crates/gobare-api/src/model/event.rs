//! One event envelope (§7.3) and its typed payload: the 29 event types the reference publishes
//! (§8).

use super::{
    ApprovalRequest, ApprovalResolution, ArtifactCreated, Compaction, Delta, FileChange,
    FunctionCall, FunctionResolution, McpUnavailable, Message, PreviewReady, Question,
    QuestionAnswer, QueuedMessage, ReplayTruncated, SandboxState, Text, Todos, ToolCall,
    ToolResult, TurnRef,
};
use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

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
