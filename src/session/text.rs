//! Small helpers that shorten server text for compact storage. The text stays raw (it is
//! sanitized by the views when drawn); these only bound its length.

use serde_json::Value;

/// `s` cut to at most `max` characters, with `…` when something was cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    // Kept for hours in the transcript: no spare capacity, and allocated once at its size.
    let cut = match s.len() <= max {
        true => None,
        false => s.char_indices().nth(max).map(|(cut, _)| cut),
    };
    match cut {
        None => s.to_string(),
        Some(cut) => {
            let mut out = String::with_capacity(cut + '…'.len_utf8());
            out.push_str(&s[..cut]);
            out.push('…');
            out
        }
    }
}

/// [`clip`] appended to `out` (the event log reuses its rows' buffers: no allocation).
pub(crate) fn push_clip(out: &mut String, s: &str, max: usize) {
    // A string of at most `max` bytes has at most `max` characters: no need to walk them
    // (most text is short, and walking a 64 KiB diff char by char was most of a replay).
    if s.len() <= max {
        out.push_str(s);
        return;
    }
    match s.char_indices().nth(max) {
        None => out.push_str(s),
        Some((cut, _)) => {
            out.push_str(&s[..cut]);
            out.push('…');
        }
    }
}

/// The first line of `s`, cut at `max` characters, appended to `out` (`…` where cut).
pub(crate) fn push_first_line(out: &mut String, s: &str, max: usize) {
    // As `s.lines()` would split it, without scanning the second line to its end.
    let (first, rest) = match s.find('\n') {
        Some(i) => (s[..i].strip_suffix('\r').unwrap_or(&s[..i]), &s[i + 1..]),
        None => (s, ""),
    };
    let start = out.len();
    push_clip(out, first, max);
    if !rest.is_empty() && !out[start..].ends_with('…') {
        out.push('…');
    }
}

/// Compact JSON of `v`, clipped: used for unknown events and argument objects.
pub(crate) fn compact_json(v: &Value, max: usize) -> String {
    let mut out = String::new();
    push_compact_json(&mut out, v, max);
    // Kept for hours in the transcript: no spare capacity from the pushes.
    out.shrink_to_fit();
    out
}

/// [`compact_json`] appended to `out`.
pub(crate) fn push_compact_json(out: &mut String, v: &Value, max: usize) {
    if !v.is_null() {
        push_clip(out, &v.to_string(), max);
    }
}

/// The most telling part of a tool's arguments: a command, a path, a query or URL when one
/// is there, otherwise the compact JSON.
pub(crate) fn short_args(v: &Value, max: usize) -> String {
    let mut out = String::new();
    push_short_args(&mut out, v, max);
    // Kept for hours in the transcript: no spare capacity from the pushes.
    out.shrink_to_fit();
    out
}

/// [`short_args`] appended to `out`.
pub(crate) fn push_short_args(out: &mut String, v: &Value, max: usize) {
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
        return push_first_line(out, s, max);
    }
    if let Value::Object(map) = v {
        for key in TELLING {
            if let Some(Value::String(s)) = map.get(key) {
                return push_first_line(out, s, max);
            }
        }
    }
    push_compact_json(out, v, max)
}

/// A stable 64-bit key for de-duplicating item-derived entries against event-derived ones.
/// Made for every message and file change applied: foldhash's quality hash, fixed seed.
pub(crate) fn key(tag: &str, text: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::default().hash_one((tag, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// `clip` is `push_clip` onto nothing, with no spare capacity.
        #[test]
        fn clip_is_push_clip_without_spare_capacity(s in "[a-zé€😀\n]{0,24}", max in 0usize..30) {
            let mut pushed = String::new();
            push_clip(&mut pushed, &s, max);
            let clipped = clip(&s, max);
            proptest::prop_assert_eq!(&clipped, &pushed);
            proptest::prop_assert_eq!(clipped.capacity(), clipped.len());
        }
    }

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
