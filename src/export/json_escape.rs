//! The one escape of every machine-readable output (`tail`, `list --json`,
//! `artifacts --json`, the JSON-lines export): each character a terminal could act on —
//! C0 and C1 controls, DEL, bidi controls and the other invisible formats of
//! [`gobare_api::text::is_unsafe`] — is written as a JSON `\uXXXX` escape, so a reader of
//! the JSON gets the same value and a terminal showing it gets nothing to act on.

use gobare_api::text;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is written escaped.
pub(crate) fn is_escaped(c: char) -> bool {
    text::is_unsafe(c)
}

/// Appends `c` as JSON `\u` escapes (a surrogate pair beyond the BMP).
pub(crate) fn push_escape(out: &mut String, c: char) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        let _ = write!(out, "\\u{unit:04x}");
    }
}

/// `json` (already JSON text) with every escaped character as a `\u` escape; the same
/// value for a JSON reader (ids stay exact). Nothing to escape borrows.
pub(crate) fn escape_unsafe(json: &str) -> Cow<'_, str> {
    if printable_ascii(json.as_bytes()) {
        return Cow::Borrowed(json);
    }
    let Some(first) = json.find(is_escaped) else {
        return Cow::Borrowed(json);
    };
    let mut out = String::with_capacity(json.len() + 16);
    out.push_str(&json[..first]);
    for c in json[first..].chars() {
        if is_escaped(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether every byte is printable ASCII (none of it is escaped), by a branch-free fold
/// over fixed-size blocks that vectorizes: it runs on every line of an export and of
/// `tail`, where a `char` at a time (or a control scan, then an ASCII scan) costs several
/// times more.
pub(crate) fn printable_ascii(bytes: &[u8]) -> bool {
    bytes.chunks(64).all(|block| {
        block
            .iter()
            .fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x5F))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn escapes_keep_the_value_and_plain_json_is_borrowed() {
        let json = json!({"t": "x\u{202e}y\u{e0001}"}).to_string();
        let escaped = escape_unsafe(&json);
        assert_eq!(escaped, r#"{"t":"x\u202ey\udb40\udc01"}"#);
        let back: Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["t"], "x\u{202e}y\u{e0001}");
        assert!(matches!(escape_unsafe(r#"{"t":"é ✓"}"#), Cow::Borrowed(_)));
        assert!(matches!(
            escape_unsafe(r#"{"t":"plain ~"}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn printable_ascii_is_exactly_what_is_never_escaped_among_ascii() {
        for b in 0u8..0x80 {
            let text = format!("{}{}", "x".repeat(70), char::from(b));
            assert_eq!(
                printable_ascii(text.as_bytes()),
                !is_escaped(char::from(b)),
                "{b:#x}"
            );
        }
        assert!(!printable_ascii("é".as_bytes()));
    }
}
