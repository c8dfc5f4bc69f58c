//! One entry of `session.required_actions` (§9.4).

use super::RequiredActionKind;
use super::lenient::lenient_ms;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
