//! `session` (§9.1) and what it carries: the agent, the environment, the preview; a session's
//! usage.

use super::lenient::null_as_default;
use super::{RequiredActions, SessionStatus, WorkspaceState};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

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
