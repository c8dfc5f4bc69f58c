//! Reading an event envelope's top-level `type` without decoding the envelope: a replay
//! of a long history decides from the type alone whether an old event still matters, and
//! skipping a string is a scan eight bytes at a time, not a decode. It reads with the crate's one
//! JSON scanner (`crate::json`), so "well formed" means what it means everywhere else.

use crate::json::{self, ValueEnd};

/// The top-level `"type"` of the envelope `json`, when it is a plain string (no escapes).
/// `None` when there is none, it is escaped, or `json` is not an object: the caller then
/// decodes the envelope to know.
pub fn envelope_type(json: &[u8]) -> Option<&str> {
    type_as_last_member(json).or_else(|| type_from_the_start(json))
}

/// The `type` when it is the envelope's last member (`…,"type":"x"}`, as an encoder that
/// sorts its keys writes it), read backwards from the end: the member right before the
/// closing brace belongs to the top-level object, so the payload before it is never walked.
fn type_as_last_member(b: &[u8]) -> Option<&str> {
    if b.get(json::ws(b, 0)) != Some(&b'{') {
        return None;
    }
    let close = json::ws_back(b, b.len())?;
    if b[close] != b'}' {
        return None;
    }
    let value_end = json::ws_back(b, close)?;
    if b[value_end] != b'"' {
        return None;
    }
    let value_start = memchr::memrchr(b'"', &b[..value_end])?;
    // A backslash before the opening quote: it was an escaped quote inside the string.
    if value_start == 0 || b[value_start - 1] == b'\\' {
        return None;
    }
    let value = plain_string(b, value_start)?;
    let colon = json::ws_back(b, value_start)?;
    if b[colon] != b':' {
        return None;
    }
    let key_end = json::ws_back(b, colon)?;
    let key_start = key_end.checked_sub(5)?;
    if &b[key_start..=key_end] != b"\"type\"" {
        return None;
    }
    let before = json::ws_back(b, key_start)?;
    if !matches!(b[before], b',' | b'{') {
        return None;
    }
    Some(value)
}

/// The `type` found walking the members from the first (the wire's order puts it second),
/// each member before it checked by the crate's one JSON scanner.
fn type_from_the_start(b: &[u8]) -> Option<&str> {
    let mut at = json::ws(b, 0);
    if b.get(at) != Some(&b'{') {
        return None;
    }
    at = json::ws(b, at + 1);
    loop {
        if b.get(at) != Some(&b'"') {
            return None;
        }
        let key_after = json::string(b, at + 1)?;
        let is_type = &b[at..key_after] == b"\"type\"";
        at = json::ws(b, key_after);
        if b.get(at) != Some(&b':') {
            return None;
        }
        at = json::ws(b, at + 1);
        if is_type {
            return plain_string(b, at);
        }
        at = match json::value_end(b, at) {
            ValueEnd::At(end) => json::ws(b, end),
            ValueEnd::Invalid | ValueEnd::TooDeep => return None,
        };
        if b.get(at) != Some(&b',') {
            return None;
        }
        at = json::ws(b, at + 1);
    }
}

/// The string whose opening quote is at `at`, when it is well formed and has no escapes.
fn plain_string(b: &[u8], at: usize) -> Option<&str> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let after = json::string(b, at + 1)?;
    let value = &b[at + 1..after - 1];
    if value.contains(&b'\\') {
        return None;
    }
    std::str::from_utf8(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_type_wherever_it_is() {
        assert_eq!(
            envelope_type(br#"{"type":"turn.started","payload":{"type":"x"}}"#),
            Some("turn.started")
        );
        assert_eq!(
            envelope_type(
                br#"{ "created_at": 17, "payload": {"type": "nested", "a": [1, {"b": "\"}"}], "s": "type"}, "seq": 3, "type" : "agent.message" }"#
            ),
            Some("agent.message")
        );
        assert_eq!(
            envelope_type(br#"{"seq":1,"payload":null,"ok":true,"type":"x"}"#),
            Some("x")
        );
    }

    #[test]
    fn a_last_member_type_is_read_from_the_end_only_when_it_is_top_level() {
        for (json, kind) in [
            (
                &br#"{"payload":{"type":"x"},"type":"agent.message"}"#[..],
                Some("agent.message"),
            ),
            (br#"{"type":"x"}"#, Some("x")),
            (b"{ \"seq\" : 1 ,\n \"type\" : \"y\" \n}\n", Some("y")),
            (br#"{"payload":{"a":1,"type":"nested"}}"#, None),
            (br#"{"payload":"a\",\"type\":\"z"}"#, None),
            (br#"{"type":"a\"b"}"#, None),
            (br#"{"payload":{"t":"\"type\":\"w"}}"#, None),
            (br#"["type","x"]"#, None),
        ] {
            assert_eq!(
                envelope_type(json),
                kind,
                "{}",
                String::from_utf8_lossy(json)
            );
        }
    }

    #[test]
    fn says_none_when_it_cannot_tell_cheaply() {
        for json in [
            &br#"{"payload":{"type":"nested"}}"#[..],
            br#"{"type":"turn\u002estarted"}"#,
            br#"{"type":7}"#,
            br#"[{"type":"x"}]"#,
            br#"{"payload":{"text":"cut"#,
            b"",
        ] {
            assert_eq!(
                envelope_type(json),
                None,
                "{}",
                String::from_utf8_lossy(json)
            );
        }
    }

    #[test]
    fn agrees_with_the_decoder_on_every_example_envelope() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("../../../assets/event-payloads.json")).unwrap();
        for envelope in all.as_object().unwrap().values() {
            let kind = envelope.get("type").and_then(|t| t.as_str());
            let pretty = serde_json::to_string_pretty(envelope).unwrap();
            let compact = serde_json::to_string(envelope).unwrap();
            assert_eq!(envelope_type(pretty.as_bytes()), kind, "{pretty}");
            assert_eq!(envelope_type(compact.as_bytes()), kind, "{compact}");
        }
    }

    /// A JSON value of a few levels, strings with escapes and look-alike `"type"` members.
    fn value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<i32>().prop_map(serde_json::Value::from),
            "[a-z\"\\\\ .\u{1}é]{0,6}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("type|a|payload", inner, 0..3)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Whatever the members around it and their order, the fast read finds the type the
        /// decoder finds, or says it cannot tell; never another one.
        #[test]
        fn agrees_with_the_decoder_on_any_envelope(
            // The map sorts its keys: members named before and after "type".
            members in proptest::collection::vec(("seq|payload|created_at|usage|v|z", value()), 0..4),
            kind in proptest::option::of("[a-z._\"\\\\]{1,12}"),
            pretty in proptest::bool::ANY,
        ) {
            let mut object: serde_json::Map<String, serde_json::Value> = members.into_iter().collect();
            if let Some(kind) = kind {
                object.insert("type".into(), serde_json::Value::from(kind));
            }
            let envelope = serde_json::Value::Object(object);
            let text = if pretty {
                serde_json::to_string_pretty(&envelope).unwrap()
            } else {
                serde_json::to_string(&envelope).unwrap()
            };
            let decoded = envelope.get("type").and_then(serde_json::Value::as_str);
            match envelope_type(text.as_bytes()) {
                Some(found) => proptest::prop_assert_eq!(Some(found), decoded, "{}", text),
                None => proptest::prop_assert!(
                    decoded.is_none_or(|k| k.contains(['"', '\\'])),
                    "a plain type was not found in {}", text
                ),
            }
        }
    }
}
