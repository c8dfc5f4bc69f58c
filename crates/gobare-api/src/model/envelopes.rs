//! What an answer comes wrapped in: a list (§3), health (§1.3), an accepted input (§6.4), an
//! error (§2).

use super::{ErrorCode, InputOutcome, Unreadable};
use serde::{Deserialize, Serialize};

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
    /// [`super::unreadable::readable_page`]); never on the wire.
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
