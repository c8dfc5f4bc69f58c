//! `turn` (§9.2) and the files its artifacts skipped.

use super::lenient::null_as_default;
use super::{ArtifactsState, TurnStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
