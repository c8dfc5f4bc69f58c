//! `item` (§9.3): one entry of a session's transcript.

use super::lenient::{null_as_default, string_or_number, text_or_json, unix_ms_or_date};
use super::{ItemKind, List};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
