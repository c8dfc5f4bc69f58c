//! The wire form of an event envelope, as the simulator writes it into `data:` and the log.

use gobare_api::model::{Event, EventPayload};
use serde_json::Value;

/// Serializes an event to its compact envelope.
pub(crate) fn envelope_json(event: &Event) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("object".into(), Value::from("event"));
    obj.insert("type".into(), Value::from(event.kind.clone()));
    obj.insert(
        "internal_type".into(),
        Value::from(
            event
                .internal_type
                .clone()
                .unwrap_or_else(|| event.kind.clone()),
        ),
    );
    if let Some(s) = &event.session_id {
        obj.insert("session_id".into(), Value::from(s.clone()));
    }
    obj.insert(
        "seq".into(),
        event.seq.map(Value::from).unwrap_or(Value::Null),
    );
    if let Some(t) = event.created_at {
        obj.insert("created_at".into(), Value::from(t));
    }
    if let EventPayload::ReplayTruncated(t) = &event.payload {
        if let Some(f) = t.from_seq {
            obj.insert("from_seq".into(), Value::from(f));
        }
        if let Some(n) = &t.note {
            obj.insert("note".into(), Value::from(n.clone()));
        }
    }
    obj.insert("payload".into(), event.payload.to_value());
    Value::Object(obj).to_string()
}
