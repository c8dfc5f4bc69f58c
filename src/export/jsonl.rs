//! One persisted event envelope per line, its strings inert and redacted.
//!
//! An envelope with no control character and no escape but `\n`, `\"` or `\\` holds its
//! text literally, so it is redacted as it stands (the common case, no parse). Anything else is parsed, and every
//! string in it is made inert ([`gobare_api::text::line`], line by line: a JSON `\u001b`
//! would come back as an escape character in whoever reads the file) and redacted before it
//! is written again.

use crate::export::frame_line::one_line;
use crate::export::json_escape::{self, escape_unsafe};
use crate::redact::redact;
use gobare_api::text;
use serde_json::Value;
use std::borrow::Cow;

/// `data` (one envelope as the server sent it) as one inert, redacted line, without a
/// terminator.
pub(crate) fn envelope_line(data: &str) -> Cow<'_, str> {
    // The usual envelope: printable ASCII with plain escapes. Redaction only puts
    // [`crate::redact::REDACTED`] (printable ASCII) in place of a range, so the line stays
    // printable ASCII, which neither `one_line` nor `escape_unsafe` would change: one
    // scan for both.
    if json_escape::printable_ascii(data.as_bytes()) && plain_escapes(data) {
        return redact(data);
    }
    escaped_line(data)
}

/// [`envelope_line`] by its general path: each step's own check.
fn escaped_line(data: &str) -> Cow<'_, str> {
    let line = envelope_line_unescaped(data);
    // The escape of every machine-readable output, whatever the paths below left.
    match line {
        Cow::Borrowed(line) => escape_unsafe(line),
        Cow::Owned(line) => Cow::Owned(escape_unsafe(&line).into_owned()),
    }
}

fn envelope_line_unescaped(data: &str) -> Cow<'_, str> {
    let line = one_line(data);
    if plain_escapes(&line) {
        // The redactor reads a `\n` escape as the line break it stands for.
        return match line {
            Cow::Borrowed(line) => redact(line),
            Cow::Owned(line) => Cow::Owned(redact(&line).into_owned()),
        };
    }
    Cow::Owned(decoded_line(&line))
}

/// The line decoded, every string made inert and redacted, and encoded again.
fn decoded_line(line: &str) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(mut value) => {
            clean_strings(&mut value);
            value.to_string()
        }
        // Not JSON: still one escaped line; redact what is there.
        Err(_) => redact(line).into_owned(),
    }
}

/// Whether every escape in `json` is `\n`, `\"` or `\\`: its strings are then inert as
/// written (line breaks stay line breaks) and their text is the text a search finds.
/// Any other escape (`\u001b`, `\t`, `\/` in a hidden URL) has the line decoded first.
fn plain_escapes(json: &str) -> bool {
    let bytes = json.as_bytes();
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'\\', &bytes[from..]) {
        let escape = from + at;
        if !matches!(bytes.get(escape + 1), Some(b'n' | b'"' | b'\\')) {
            return false;
        }
        from = escape + 2;
    }
    true
}

/// Every string in `value` made inert and redacted: a loop, not recursion, whatever the
/// nesting the server sent.
fn clean_strings(value: &mut Value) {
    let mut todo = vec![value];
    while let Some(value) = todo.pop() {
        match value {
            Value::String(s) => {
                if let Cow::Owned(cleaned) = clean_string(s) {
                    *s = cleaned;
                }
            }
            Value::Array(items) => todo.extend(items.iter_mut()),
            Value::Object(map) => todo.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// Line breaks stay line breaks (diffs, output); every other unsafe character is shown.
/// Redacted before and after: a tab is a blank to the redactor (`Bearer<TAB>token`) but
/// not once it is shown as `␉`.
fn clean_string(s: &str) -> Cow<'_, str> {
    match redact(s) {
        Cow::Borrowed(s) => inert_redacted(s),
        Cow::Owned(s) => Cow::Owned(inert_redacted(&s).into_owned()),
    }
}

/// `s` inert, and redacted as shown.
fn inert_redacted(s: &str) -> Cow<'_, str> {
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
    use proptest::prelude::*;

    proptest! {
        /// Text of secrets, line breaks, quotes and backslashes (escaped as `\n`, `\"`,
        /// `\\`) is redacted as it stands exactly as it is once decoded.
        #[test]
        fn plain_escapes_redact_as_the_decoded_text_does(
            text in crate::redact::text_with_secrets(&["\"", "\\", "n"]),
        ) {
            let data = serde_json::json!({"type": "agent.message", "payload": {"text": text}});
            let data = format!(r#"{{"type":"agent.message","payload":{}}}"#, data["payload"]);
            prop_assert!(plain_escapes(&data), "{}", data);
            let fast: Value = serde_json::from_str(&envelope_line(&data)).unwrap();
            let slow: Value = serde_json::from_str(&decoded_line(&data)).unwrap();
            prop_assert_eq!(fast, slow);
        }
    }

    proptest! {
        /// The usual envelope's one scan gives the line of the general path: printable
        /// ASCII or not, plain escapes or not, secrets or not.
        #[test]
        fn the_one_scan_line_is_the_general_paths(
            text in crate::redact::text_with_secrets(&[
                "\\\"", "\\\\", "\\n", "\\t", "\\u001b", "\\/", "\u{7f}", "\u{1b}", "\t", "~",
            ]),
        ) {
            let data = format!(r#"{{"type":"agent.message","seq":1,"payload":{{"text":"{text}"}}}}"#);
            prop_assert_eq!(envelope_line(&data), escaped_line(&data), "{:?}", data);
            prop_assert_eq!(envelope_line(&text), escaped_line(&text), "{:?}", text);
        }
    }

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
    fn line_breaks_quotes_and_backslashes_are_kept_as_sent_and_redacted_without_a_parse() {
        let data = r#"{"type":"file.changed","seq":5,"payload":{"diff":"-a\n+b \"q\" C:\\x\nBearer abcdef123456\n"}}"#;
        assert_eq!(
            envelope_line(data),
            r#"{"type":"file.changed","seq":5,"payload":{"diff":"-a\n+b \"q\" C:\\x\nBearer [redacted]\n"}}"#
        );
        // An escaped slash can hide a URL's credentials from the raw text: decoded first.
        let hidden = r#"{"seq":6,"payload":{"summary":"https:\/\/x-access-token:ghs_abcdefghijklmn@github.com\n"}}"#;
        let back: Value = serde_json::from_str(&envelope_line(hidden)).unwrap();
        assert_eq!(
            back["payload"]["summary"],
            "https://x-access-token:[redacted]@github.com\n"
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

    #[test]
    fn a_credential_after_an_escaped_tab_is_redacted() {
        for text in [
            "Bearer\\tabcdef123456",
            "Authorization:\\tBearer\\teyJhbGciOiJIUzI1NiJ9x",
            "curl -H 'Authorization: Bearer\\tabcdef123456'",
        ] {
            let data = format!(
                "{{\"type\":\"agent.message\",\"seq\":4,\"payload\":{{\"text\":\"{text}\"}}}}"
            );
            let line = envelope_line(&data);
            assert!(!line.contains("abcdef123456"), "{line}");
            assert!(!line.contains("eyJhbGciOiJIUzI1NiJ9x"), "{line}");
            let back: Value = serde_json::from_str(&line).unwrap();
            assert!(
                back["payload"]["text"]
                    .as_str()
                    .unwrap()
                    .contains("[redacted]"),
                "{line}"
            );
        }
    }
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[test]
    fn a_pem_key_across_escaped_line_breaks_and_a_token_after_one_are_redacted() {
        let data = r#"{"type":"agent.tool_result","seq":7,"payload":{"summary":"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98\nZx9Yw8Vu7\n-----END RSA PRIVATE KEY-----\nok\ngbr_pat_TOPSECRET0123456789"}}"#;
        let line = envelope_line(data);
        for secret in ["MIIEowIBAAKCAQEA7bq98", "Zx9Yw8Vu7", "TOPSECRET0123456789"] {
            assert!(!line.contains(secret), "{line}");
        }
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            back["payload"]["summary"],
            "-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----\nok\ngbr_pat_[redacted]"
        );
    }
}
