//! [`crate::Faults::spoil_session_list`]: a session list as a server with a bug answers it,
//! entries a client cannot read beside those it can.

use gobare_api::model::Session;
use serde_json::{Value, json};

/// `sessions` as listed, every required action without its `call_id`; the first page
/// (`first`) also ends with a session that has no `id`.
pub(crate) fn spoil(sessions: Vec<Session>, first: bool) -> Vec<Value> {
    let mut data: Vec<Value> = sessions
        .into_iter()
        .map(|s| {
            let mut value = serde_json::to_value(s).unwrap_or_default();
            if let Some(actions) = value["required_actions"].as_array_mut() {
                for action in actions.iter_mut().filter_map(Value::as_object_mut) {
                    action.remove("call_id");
                }
            }
            value
        })
        .collect();
    if first {
        data.push(json!({
            "object": "session", "title": "a session without an id", "status": "idle",
            "created_at": 0, "updated_at": 0,
        }));
    }
    data
}
