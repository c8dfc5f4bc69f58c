//! What the client sends: an input event (§6.4), a new session's body.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

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
