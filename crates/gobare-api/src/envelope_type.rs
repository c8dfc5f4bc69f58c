//! Reading an event envelope's top-level `type` without decoding the envelope: a replay
//! of a long history decides from the type alone whether an old event still matters, and
//! skipping a string costs a `memchr`, not a decode.

/// The top-level `"type"` of the envelope `json`, when it is a plain string (no escapes).
/// `None` when there is none, it is escaped, or `json` is not an object: the caller then
/// decodes the envelope to know.
pub fn envelope_type(json: &[u8]) -> Option<&str> {
    type_as_last_member(json).or_else(|| type_from_the_start(json))
}

/// The `type` when it is the envelope's last member (`…,"type":"x"}`, as an encoder that
/// sorts its keys writes it), read backwards from the end: the member right before the
/// closing brace belongs to the top-level object, so the payload before it is never walked.
fn type_as_last_member(json: &[u8]) -> Option<&str> {
    if json.get(skip_ws(json, 0)) != Some(&b'{') {
        return None;
    }
    let close = skip_ws_back(json, json.len())?;
    if json[close] != b'}' {
        return None;
    }
    let value_end = skip_ws_back(json, close)?;
    if json[value_end] != b'"' {
        return None;
    }
    let value_start = memchr::memrchr(b'"', &json[..value_end])?;
    let value = &json[value_start + 1..value_end];
    // A backslash before the opening quote: it was an escaped quote inside the string.
    if value.contains(&b'\\') || value_start == 0 || json[value_start - 1] == b'\\' {
        return None;
    }
    let colon = skip_ws_back(json, value_start)?;
    if json[colon] != b':' {
        return None;
    }
    let key_end = skip_ws_back(json, colon)?;
    let key_start = key_end.checked_sub(5)?;
    if &json[key_start..=key_end] != b"\"type\"" {
        return None;
    }
    let before = skip_ws_back(json, key_start)?;
    if !matches!(json[before], b',' | b'{') {
        return None;
    }
    std::str::from_utf8(value).ok()
}

/// The index of the last non-whitespace byte before `end`.
fn skip_ws_back(json: &[u8], end: usize) -> Option<usize> {
    json[..end].iter().rposition(|b| !b.is_ascii_whitespace())
}

/// The `type` found walking the members from the first (the wire's order puts it second).
fn type_from_the_start(json: &[u8]) -> Option<&str> {
    let mut at = skip_ws(json, 0);
    if json.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(json, at);
        if json.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(json, at)?;
        let key = &json[at + 1..key_end];
        at = skip_ws(json, key_end + 1);
        if json.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(json, at + 1);
        if key == b"type" {
            if json.get(at) != Some(&b'"') {
                return None;
            }
            let end = string_end(json, at)?;
            let value = &json[at + 1..end];
            if value.contains(&b'\\') {
                return None;
            }
            return std::str::from_utf8(value).ok();
        }
        at = skip_value(json, at)?;
        at = skip_ws(json, at);
        match json.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

fn skip_ws(json: &[u8], mut at: usize) -> usize {
    while json.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The index of the quote closing the string that opens at `start`.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', json.get(at..)?)?;
        if json[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

/// The index just past the value that starts at `at`.
fn skip_value(json: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *json.get(at)? {
            b'"' => at = string_end(json, at)? + 1,
            b'{' | b'[' => {
                depth += 1;
                at += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                at += 1;
            }
            b',' if depth == 0 => return Some(at),
            _ => at += 1,
        }
        if depth == 0 && matches!(json.get(at), Some(b',' | b'}') | None) {
            return Some(at);
        }
    }
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
}
