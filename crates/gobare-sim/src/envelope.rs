//! The wire form of an event envelope, as the simulator writes it into `data:` and the log.

use gobare_api::model::{Event, EventPayload};

/// Serializes an event to its compact envelope, members in the reference's order
/// (`object`, `type`, `internal_type`, `session_id`, `seq`, `created_at`, then `payload`
/// last, as in §7.3): a map would sort them, putting `payload` before `type`.
pub(crate) fn envelope_json(event: &Event) -> String {
    envelope_json_with_note(event, None)
}

/// The same, with `note` at the top level instead of the payload's (a truncation notice
/// in its prose form carries a longer one there, §7.6).
pub(crate) fn envelope_json_with_note(event: &Event, note: Option<&str>) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(r#"{"object":"event","type":"#);
    push_json(&mut out, &event.kind);
    out.push_str(r#","internal_type":"#);
    push_json(
        &mut out,
        event.internal_type.as_ref().unwrap_or(&event.kind),
    );
    if let Some(s) = &event.session_id {
        out.push_str(r#","session_id":"#);
        push_json(&mut out, &&**s);
    }
    out.push_str(r#","seq":"#);
    push_json(&mut out, &event.seq);
    if let Some(t) = event.created_at {
        out.push_str(r#","created_at":"#);
        push_json(&mut out, &t);
    }
    if let EventPayload::ReplayTruncated(t) = &event.payload {
        if let Some(f) = t.from_seq {
            out.push_str(r#","from_seq":"#);
            push_json(&mut out, &f);
        }
        if let Some(n) = note.or(t.note.as_deref()) {
            out.push_str(r#","note":"#);
            push_json(&mut out, &n);
        }
    }
    out.push_str(r#","payload":"#);
    push_json(&mut out, &event.payload.to_value());
    out.push('}');
    out
}

fn push_json(out: &mut String, value: &impl serde::Serialize) {
    // Serializing strings, numbers and `Value`s to a `String` cannot fail.
    if let Ok(json) = serde_json::to_string(value) {
        out.push_str(&json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Text;

    #[test]
    fn members_come_in_the_references_order_with_the_payload_last() {
        let event = Event {
            kind: "agent.message".into(),
            internal_type: None,
            session_id: Some("s\"1".into()),
            seq: Some(7),
            created_at: Some(1_789_319_090_764),
            payload: EventPayload::AgentMessage(Text {
                text: "done \u{1b}".into(),
            }),
        };
        let json = envelope_json(&event);
        assert_eq!(
            json,
            r#"{"object":"event","type":"agent.message","internal_type":"agent.message","session_id":"s\"1","seq":7,"created_at":1789319090764,"payload":{"text":"done \u001b"}}"#
        );
        let read = Event::parse(&json).unwrap();
        assert_eq!(read.internal_type.as_deref(), Some("agent.message"));
        assert_eq!(
            (
                read.kind,
                read.session_id,
                read.seq,
                read.created_at,
                read.payload
            ),
            (
                event.kind,
                event.session_id,
                event.seq,
                event.created_at,
                event.payload
            )
        );
    }
}
