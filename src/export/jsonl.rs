//! One persisted event envelope per line, its strings inert and redacted.
//!
//! An envelope with no backslash and no control character holds its text literally, so it
//! is redacted as it stands (the common case, no parse). Anything else is parsed, and every
//! string in it is made inert ([`gobare_api::text::line`], line by line: a JSON `\u001b`
//! would come back as an escape character in whoever reads the file) and redacted before it
//! is written again.

use crate::commands::frame_line::one_line;
use crate::redact::redact;
use gobare_api::text;
use serde_json::Value;
use std::borrow::Cow;

/// `data` (one envelope as the server sent it) as one inert, redacted line, without a
/// terminator.
pub(crate) fn envelope_line(data: &str) -> Cow<'_, str> {
    let line = one_line(data);
    if !line.contains('\\') {
        return match line {
            Cow::Borrowed(line) => redact(line),
            Cow::Owned(line) => Cow::Owned(redact(&line).into_owned()),
        };
    }
    match serde_json::from_str::<Value>(&line) {
        Ok(mut value) => {
            clean_strings(&mut value);
            Cow::Owned(value.to_string())
        }
        // Not JSON: still one escaped line; redact what is there.
        Err(_) => Cow::Owned(redact(&line).into_owned()),
    }
}

fn clean_strings(value: &mut Value) {
    match value {
        Value::String(s) => {
            let cleaned = clean_string(s);
            if let Cow::Owned(cleaned) = cleaned {
                *s = cleaned;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_strings),
        Value::Object(map) => map.values_mut().for_each(clean_strings),
        _ => {}
    }
}

/// Line breaks stay line breaks (diffs, output); every other unsafe character is shown.
fn clean_string(s: &str) -> Cow<'_, str> {
    let inert = if s.contains('\n') {
        let lines: Vec<Cow<'_, str>> = s.split('\n').map(text::line).collect();
        if lines.iter().all(|l| matches!(l, Cow::Borrowed(_))) {
            Cow::Borrowed(s)
        } else {
            Cow::Owned(lines.join("\n"))
        }
    } else {
        text::line(s)
    };
    match inert {
        Cow::Borrowed(s) => redact(s),
        Cow::Owned(s) => Cow::Owned(redact(&s).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_envelope_passes_through_borrowed() {
        let data = r#"{"type":"agent.message","seq":1,"payload":{"text":"done"}}"#;
        assert!(matches!(envelope_line(data), Cow::Borrowed(_)));
    }

    #[test]
    fn a_token_in_a_plain_envelope_is_redacted_without_a_parse() {
        let data = r#"{"type":"agent.tool_result","seq":4,"payload":{"summary":"origin https://x-access-token:ghs_abcdefghijklmn@github.com/a/b"}}"#;
        assert_eq!(
            envelope_line(data),
            r#"{"type":"agent.tool_result","seq":4,"payload":{"summary":"origin https://x-access-token:[redacted]@github.com/a/b"}}"#
        );
    }

    #[test]
    fn escaped_controls_and_escaped_tokens_are_caught_after_decoding() {
        // `\u0067hp_` is `ghp_`, hidden from a search of the raw text.
        let data = "{\"type\":\"user.message\",\"seq\":2,\"payload\":{\"text\":\"a\\u001b[2Jb\\nnext \\u0067hp_abcdefghijkl\"}}";
        let line = envelope_line(data);
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["payload"]["text"], "a␛[2Jb\nnext ghp_[redacted]");
        assert_eq!(back["seq"], 2);
    }

    #[test]
    fn raw_controls_become_one_inert_line() {
        let data = "{\"type\":\"agent.message\",\n \"seq\":3,\"payload\":{\"text\":\"x\u{7f}y Bearer abcdef123456\"}}";
        let line = envelope_line(data);
        assert!(!line.contains('\n') && !line.contains('\u{7f}'), "{line}");
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["payload"]["text"], "x␡y Bearer [redacted]");
    }
}
