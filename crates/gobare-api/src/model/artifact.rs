//! `artifact` (§9.5).

use serde::{Deserialize, Serialize};

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
