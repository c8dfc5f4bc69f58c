//! The payload of each event type (§8), as the reference names its fields.

use super::lenient::{labels, null_as_default};
use super::{ChangeKind, WorkspaceState, lenient_u64};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

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
