//! JSON as servers really send it. A JavaScript backend that cuts a string inside an emoji
//! sends half a surrogate pair (`"\ud83d"`), which serde_json rightly refuses, failing the
//! whole document: one cut title would hide a session and its pending approval. Each lone
//! surrogate escape becomes `\ufffd` (�) before parsing, so only that character is lost.

use std::borrow::Cow;

/// Whether `input` holds `\ud` or `\uD` anywhere. Runs once per event: a `memmem::find`
/// builds its searcher on each call, the backslashes are few.
pub(crate) fn has_surrogate_escape(input: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', input)
        .any(|i| input.get(i + 1) == Some(&b'u') && matches!(input.get(i + 2), Some(b'd' | b'D')))
}

/// `input` with every unpaired `\uD800`–`\uDFFF` escape inside a string replaced by
/// `\uFFFD`. Borrowed (no copy) when there is none, which is nearly always.
pub(crate) fn without_lone_surrogates(input: &[u8]) -> Cow<'_, [u8]> {
    if !has_surrogate_escape(input) {
        return Cow::Borrowed(input);
    }
    let mut out = Vec::with_capacity(input.len());
    let mut in_string = false;
    let mut i = 0;
    let mut changed = false;
    while i < input.len() {
        let b = input[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' if input.get(i + 1) == Some(&b'u') => {
                let unit = hex4(input, i + 2);
                match unit {
                    Some(high @ 0xD800..=0xDBFF) => {
                        let low = (input.get(i + 6) == Some(&b'\\')
                            && input.get(i + 7) == Some(&b'u'))
                        .then(|| hex4(input, i + 8))
                        .flatten();
                        if matches!(low, Some(0xDC00..=0xDFFF)) {
                            out.extend_from_slice(&input[i..i + 12]);
                            i += 12;
                        } else {
                            let _ = high;
                            out.extend_from_slice(b"\\ufffd");
                            changed = true;
                            i += 6;
                        }
                    }
                    Some(0xDC00..=0xDFFF) => {
                        out.extend_from_slice(b"\\ufffd");
                        changed = true;
                        i += 6;
                    }
                    // Any other escape (or a malformed one, left for the parser to refuse).
                    _ => {
                        let end = (i + 6).min(input.len());
                        out.extend_from_slice(&input[i..end]);
                        i = end;
                    }
                }
            }
            b'\\' => {
                let end = (i + 2).min(input.len());
                out.extend_from_slice(&input[i..end]);
                i = end;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(input)
    }
}

/// The same for text already known to be UTF-8.
pub(crate) fn str_without_lone_surrogates(input: &str) -> Cow<'_, str> {
    match without_lone_surrogates(input.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(input),
        // Only ASCII escapes were replaced by ASCII escapes: still UTF-8.
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_default()),
    }
}

fn hex4(input: &[u8], at: usize) -> Option<u32> {
    let digits = input.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parsed(json: &str) -> Value {
        serde_json::from_slice(&without_lone_surrogates(json.as_bytes())).unwrap()
    }

    #[test]
    fn a_lone_surrogate_becomes_one_replacement_character_and_the_rest_is_kept() {
        let json = r#"{"title":"deploy \ud83d","status":"waiting","n":1}"#;
        assert!(
            serde_json::from_str::<Value>(json).is_err(),
            "serde refuses it"
        );
        let v = parsed(json);
        assert_eq!(v["title"], "deploy \u{fffd}");
        assert_eq!(v["status"], "waiting");
        let low = parsed(r#"["\udc00x", "\uDBFF"]"#);
        assert_eq!(low, serde_json::json!(["\u{fffd}x", "\u{fffd}"]));
    }

    #[test]
    fn pairs_escaped_backslashes_and_plain_text_are_left_alone() {
        let pair = r#"{"t":"\ud83d\ude80 launch"}"#;
        assert!(matches!(
            without_lone_surrogates(pair.as_bytes()),
            Cow::Borrowed(_)
        ));
        assert_eq!(parsed(pair)["t"], "🚀 launch");
        // `\\ud83d` is a backslash and the letters "ud83d", not an escape.
        let escaped = r#"{"t":"C:\\ud83d"}"#;
        assert_eq!(parsed(escaped)["t"], "C:\\ud83d");
        // Outside strings nothing is touched (and the parser decides).
        assert!(matches!(
            without_lone_surrogates(b"{\"a\":1}"),
            Cow::Borrowed(_)
        ));
    }
}
