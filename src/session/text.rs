//! Small helpers that shorten server text for compact storage. The text stays raw (it is
//! sanitized by the views when drawn); these only bound its length.

use serde_json::Value;

/// `s` cut to at most `max` characters, with `…` when something was cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => {
            let mut out = String::with_capacity(cut + 3);
            out.push_str(&s[..cut]);
            out.push('…');
            out
        }
    }
}

/// The first line of `s`, clipped; marks that more lines follow.
pub fn first_line(s: &str, max: usize) -> String {
    let mut lines = s.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.next().is_some();
    let mut out = clip(first, max);
    if more && !out.ends_with('…') {
        out.push('…');
    }
    out
}

/// Compact JSON of `v`, clipped: used for unknown events and argument objects.
pub fn compact_json(v: &Value, max: usize) -> String {
    match v {
        Value::Null => String::new(),
        other => clip(&other.to_string(), max),
    }
}

/// The most telling part of a tool's arguments: a command, a path, a query or URL when one
/// is there, otherwise the compact JSON.
pub fn short_args(v: &Value, max: usize) -> String {
    const TELLING: [&str; 7] = [
        "command",
        "cmd",
        "path",
        "file_path",
        "query",
        "url",
        "pattern",
    ];
    if let Value::String(s) = v {
        return first_line(s, max);
    }
    if let Value::Object(map) = v {
        for key in TELLING {
            if let Some(Value::String(s)) = map.get(key) {
                return first_line(s, max);
            }
        }
    }
    compact_json(v, max)
}

/// A stable 64-bit key for de-duplicating item-derived entries against event-derived ones.
pub fn key(tag: &str, text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    tag.hash(&mut h);
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("héllo", 3), "hél…");
        assert_eq!(clip("abc", 3), "abc");
    }

    #[test]
    fn short_args_prefers_the_command_or_path() {
        assert_eq!(
            short_args(&json!({"command": "ls -la\nrm x"}), 50),
            "ls -la…"
        );
        assert_eq!(short_args(&json!({"path": "/a", "content": "x"}), 50), "/a");
        assert_eq!(
            short_args(&json!({"order_id": "A"}), 50),
            r#"{"order_id":"A"}"#
        );
    }
}
