//! One stream frame's `data:` → exactly one output line.
//!
//! The server sends compact JSON on one `data:` line, which passes through byte for byte.
//! Multi-line data (several `data:` lines joined with `\n`) is compacted onto one line.
//! What a terminal could act on (controls, bidi and invisible formats: the set of
//! [`super::json_escape`]) is escaped rather than written raw: server text must not be able
//! to drive the terminal, and inside JSON strings a `\u` escape keeps the value.

use super::json_escape;
use std::borrow::Cow;

/// `data` as a single line without a terminator.
pub(crate) fn one_line(data: &str) -> Cow<'_, str> {
    // Printable ASCII (the rule) passes in one scan; anything else is looked at closer.
    if json_escape::printable_ascii(data.as_bytes()) {
        return Cow::Borrowed(data);
    }
    if !has_control(data) && (data.is_ascii() || !data.chars().any(json_escape::is_escaped)) {
        return Cow::Borrowed(data);
    }
    if serde_json::from_str::<serde::de::IgnoredAny>(data).is_ok() {
        Cow::Owned(compact_json(data))
    } else {
        Cow::Owned(escape_controls(data))
    }
}

/// Whether `text` holds a control character (C0, DEL or C1), scanning bytes: this runs on
/// every frame, and a per-`char` decode was the largest item of `tail`'s own profile.
fn has_control(text: &str) -> bool {
    let bytes = text.as_bytes();
    // A branch-free fold over fixed-size blocks vectorizes; a per-byte `any` does not.
    let c0_or_del = bytes.chunks(64).any(|block| {
        block
            .iter()
            .fold(false, |hit, &b| hit | (b < 0x20) | (b == 0x7F))
    });
    // C1 controls (U+0080..=U+009F) are encoded as 0xC2 0x80..=0x9F.
    c0_or_del
        || memchr::memchr_iter(0xC2, bytes).any(|i| matches!(bytes.get(i + 1), Some(0x80..=0x9F)))
}

/// Drops whitespace between JSON tokens; inside strings, escapes the control characters
/// JSON allows raw (DEL and C1), which keeps the document equivalent.
fn compact_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for ch in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            }
            push_escaped(&mut out, ch);
        } else if ch == '"' {
            in_string = true;
            out.push(ch);
        } else if !ch.is_whitespace() {
            push_escaped(&mut out, ch);
        }
    }
    out
}

fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => push_escaped(&mut out, ch),
        }
    }
    out
}

fn push_escaped(out: &mut String, ch: char) {
    if json_escape::is_escaped(ch) {
        json_escape::push_escape(out, ch);
    } else {
        out.push(ch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn single_line_data_passes_through_unchanged() {
        let data = r#"{"type":"agent.message","seq":4812,"payload":{"text":"a  b \"q\" é"}}"#;
        assert!(matches!(one_line(data), Cow::Borrowed(d) if d == data));
    }

    #[test]
    fn multi_line_json_is_compacted_without_touching_strings() {
        let data = "{\"type\": \"x\",\n \"payload\": {\"text\": \"two  spaces\\nescaped\"},\r\n\t\"seq\": 1}";
        let line = one_line(data);
        assert_eq!(
            line,
            r#"{"type":"x","payload":{"text":"two  spaces\nescaped"},"seq":1}"#
        );
        let a: Value = serde_json::from_str(data).unwrap();
        let b: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn raw_controls_are_escaped_and_json_stays_equivalent() {
        let data = "{\"t\":\"csi\u{9b}31m del\u{7f}\"}\n";
        let line = one_line(data);
        assert_eq!(line, r#"{"t":"csi\u009b31m del\u007f"}"#);
        let a: Value = serde_json::from_str(data).unwrap();
        let b: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn byte_scan_agrees_with_char_is_control() {
        for text in [
            "plain é ü 中",
            "a\u{9f}b",
            "a\u{a0}b",
            "\u{7f}",
            "x\ty",
            "\u{80}",
            "é\u{85}",
        ] {
            assert_eq!(
                has_control(text),
                text.chars().any(char::is_control),
                "{text:?}"
            );
        }
    }

    #[test]
    fn non_json_text_keeps_its_content_on_one_line() {
        assert_eq!(one_line("not\njson \x1b[2J"), "not\\njson \\u001b[2J");
    }
}
