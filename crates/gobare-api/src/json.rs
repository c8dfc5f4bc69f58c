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

/// Whether `text` is exactly one JSON value with only whitespace around it: what
/// `serde_json::from_str::<serde::de::IgnoredAny>` accepts (escapes checked for form only,
/// `\u` by its four hex digits; no control character in a string; no depth limit), without
/// its visitor machinery. Nesting deeper than a `u128` of levels is left to serde_json.
pub(crate) fn is_one_value(text: &str) -> bool {
    let b = text.as_bytes();
    match value_end(b, ws(b, 0)) {
        ValueEnd::At(end) => ws(b, end) == b.len(),
        ValueEnd::Invalid => false,
        ValueEnd::TooDeep => serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(),
    }
}

/// Where the JSON value starting at some index ends, by [`value_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueEnd {
    /// The index just past the value.
    At(usize),
    /// Not a JSON value by the grammar.
    Invalid,
    /// Nested deeper than this scanner follows (a `u128` of levels).
    TooDeep,
}

/// The end of the one JSON value at `i`, checked by JSON's grammar: the one scanner the
/// crate's fast paths share, so "valid" means the same to each of them.
pub(crate) fn value_end(b: &[u8], mut i: usize) -> ValueEnd {
    // One bit per open container, 1 = object; `depth` of them in use.
    let mut stack: u128 = 0;
    let mut depth = 0u32;
    'value: loop {
        // A value starts at `i`.
        match b.get(i) {
            Some(b'{' | b'[') => {
                if depth == u128::BITS {
                    return ValueEnd::TooDeep;
                }
                let object = b[i] == b'{';
                stack = (stack << 1) | u128::from(object);
                depth += 1;
                i = ws(b, i + 1);
                let close = if object { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                    depth -= 1;
                    stack >>= 1;
                } else {
                    if object {
                        let Some(after) = key(b, i) else {
                            return ValueEnd::Invalid;
                        };
                        i = after;
                    }
                    continue 'value;
                }
            }
            Some(b'"') => match string(b, i + 1) {
                Some(after) => i = after,
                None => return ValueEnd::Invalid,
            },
            Some(b'-' | b'0'..=b'9') => match number(b, i) {
                Some(after) => i = after,
                None => return ValueEnd::Invalid,
            },
            Some(b't') if b[i..].starts_with(b"true") => i += 4,
            Some(b'f') if b[i..].starts_with(b"false") => i += 5,
            Some(b'n') if b[i..].starts_with(b"null") => i += 4,
            _ => return ValueEnd::Invalid,
        }
        // After a value: close containers, or a comma and the next member.
        loop {
            if depth == 0 {
                return ValueEnd::At(i);
            }
            let object = stack & 1 == 1;
            i = ws(b, i);
            match b.get(i) {
                Some(b',') => {
                    i = ws(b, i + 1);
                    if object {
                        let Some(after) = key(b, i) else {
                            return ValueEnd::Invalid;
                        };
                        i = after;
                    }
                    continue 'value;
                }
                Some(b'}') if object => {}
                Some(b']') if !object => {}
                _ => return ValueEnd::Invalid,
            }
            i += 1;
            depth -= 1;
            stack >>= 1;
        }
    }
}

/// JSON's whitespace (space, tab, line feed, carriage return; not form feed) from `i`; the
/// index of the first byte that is not.
pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The index of the last byte before `end` that is not JSON's whitespace.
pub(crate) fn ws_back(b: &[u8], end: usize) -> Option<usize> {
    b[..end]
        .iter()
        .rposition(|c| !matches!(c, b' ' | b'\n' | b'\t' | b'\r'))
}

/// A member's key and its colon, at `i`; the index of the value (whitespace skipped).
pub(crate) fn key(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let i = ws(b, string(b, i + 1)?);
    (b.get(i) == Some(&b':')).then(|| ws(b, i + 1))
}

/// The rest of a string after its opening quote; the index after its closing quote.
pub(crate) fn string(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let stop = string_stop(b, i);
        match b.get(stop)? {
            b'"' => return Some(stop + 1),
            b'\\' => {
                i = stop + 2;
                match b.get(stop + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        let hex = b.get(i..i + 4)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i += 4;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

/// The first quote, backslash or control character at or after `i` (`b.len()`: none), eight
/// bytes at a time: the strings of an envelope are mostly short runs of plain text.
fn string_stop(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(word) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // The lowest flagged byte is exact (borrows only run upwards).
        let stops = (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
            | zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')));
        if stops != 0 {
            return i + (stops.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(b.len() - i)
}

/// A number at `i` by JSON's grammar; the index after it.
fn number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i)? {
        b'0' => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let after = digits(b, i + 1);
        if after == i + 1 {
            return None;
        }
        i = after;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let after = digits(b, i);
        if after == i {
            return None;
        }
        i = after;
    }
    Some(i)
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

    proptest::proptest! {
        /// Any text near a JSON value (one character changed, cut, or doubled) is one value
        /// exactly when serde_json says so.
        #[test]
        fn is_one_value_agrees_with_serde(
            pick in 0usize..12,
            at in 0usize..200,
            with in proptest::sample::select(vec!['"', '\\', '0', '1', '-', '+', '.', 'e', 'E', '{', '}', '[', ']', ',', ':', ' ', '\n', 'x', 'u', 'n', 't', 'f', '\u{1}', '\u{1f}', 'é']),
            edit in 0u8..4,
        ) {
            let examples = [
                r#"{"a":1,"b":[true,false,null],"c":{"d":"x\ny\u00e9\"z"}}"#,
                r#"[1.5e3, -0, 0.25, -12E-2, 3e+1]"#,
                r#" {"items":[{"label":"Read","status":"done"},{"label":"Apply","status":"pending"}]} "#,
                r#""plain \\ \/ \b\f\r\t string""#,
                r#"{}"#,
                r#"[]"#,
                r#"[[[[{"a":[[]]}]]]]"#,
                r#"{"turnId":"turn_cfeb4735916e6491"}"#,
                r#"12345678901234567890123"#,
                r#"{"k" : "v" , "n" : -1.0e-5 }"#,
                r#"{"ok":true,"out":"line\u0041\uD83D\uDE00"}"#,
                r#"null"#,
            ];
            let text = examples[pick % examples.len()];
            let mut chars: Vec<char> = text.chars().collect();
            let i = at % (chars.len() + 1);
            match edit {
                0 if i < chars.len() => chars[i] = with,
                1 => chars.insert(i, with),
                2 => chars.truncate(i),
                _ => {}
            }
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(
                is_one_value(&text),
                serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(),
                "{:?}", text
            );
        }
    }

    #[test]
    fn deep_nesting_is_left_to_serde() {
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert_eq!(value_end(deep.as_bytes(), 0), ValueEnd::TooDeep);
        assert!(is_one_value(&deep));
        assert!(!is_one_value(&deep[1..]));
    }
}
