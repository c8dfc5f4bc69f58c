//! Case folding for search: one char in, one char out, so the index, the query and the
//! highlighter agree on what matches without a Unicode case table per keystroke.

/// `c` folded: its first lowercase char; control chars (and the record separator) become a
/// space so a query never matches across records or through escape bytes.
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        if c.is_ascii_control() {
            ' '
        } else {
            c.to_ascii_lowercase()
        }
    } else if c.is_control() {
        ' '
    } else {
        c.to_lowercase().next().unwrap_or(c)
    }
}

/// Appends `s` folded to `out`, at most `max` bytes of it (cut on a char boundary).
pub fn push_folded(out: &mut String, s: &str, max: usize) {
    let head = &s.as_bytes()[..s.len().min(max)];
    // Every byte looked at, no early exit: the check runs 32 bytes at a time.
    let printable = head
        .iter()
        .fold(true, |ok, &b| ok & (b' '..=b'~').contains(&b));
    if printable {
        push_lowercase(out, &s[..head.len()]);
        return;
    }
    if head.is_ascii() {
        // The common case: ASCII (a char a byte, so the cut falls between chars), folded
        // in bulk between the control bytes, each of which becomes a space.
        let mut rest = &s[..head.len()];
        while let Some(at) = rest.bytes().position(|b| b.is_ascii_control()) {
            push_lowercase(out, &rest[..at]);
            out.push(' ');
            rest = &rest[at + 1..];
        }
        push_lowercase(out, rest);
        return;
    }
    push_folded_chars(out, s, max);
}

/// ASCII `s` lowercased onto `out`.
fn push_lowercase(out: &mut String, s: &str) {
    let start = out.len();
    out.push_str(s);
    out[start..].make_ascii_lowercase();
}

/// [`push_folded`] a char at a time.
fn push_folded_chars(out: &mut String, s: &str, max: usize) {
    let limit = out.len() + max;
    for c in s.chars() {
        let f = fold_char(c);
        if out.len() + f.len_utf8() > limit {
            break;
        }
        out.push(f);
    }
}

/// `s` folded.
pub fn folded(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_folded(&mut out, s, usize::MAX / 2);
    out
}

/// Byte ranges of `text` where the folded `needle` occurs (non-overlapping, left to right).
/// `needle` must already be folded; empty finds nothing.
pub fn find_folded(text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    // Folded char → byte offset in `text` where that char starts.
    let mut folded = String::with_capacity(text.len());
    let mut starts = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        let f = fold_char(c);
        for _ in 0..f.len_utf8() {
            starts.push(at);
        }
        folded.push(f);
    }
    starts.push(text.len());
    let ends = |folded_end: usize| -> usize {
        // The original end: the start of the char after the folded match.
        starts[folded_end]
    };
    for (i, _) in folded.match_indices(needle) {
        let start = starts[i];
        let end = ends(i + needle.len());
        if end > start {
            out.push(start..end);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bulk ASCII path folds as a char at a time does, wherever the cut falls.
        #[test]
        fn bulk_folding_is_char_folding(
            s in "[a-zA-Z0-9 \\x00-\\x1f\\x7f~é€\u{85}İ]{0,40}",
            prefix in "[a-zé]{0,3}",
            max in 0usize..48,
        ) {
            let mut bulk = prefix.clone();
            push_folded(&mut bulk, &s, max);
            let mut chars = prefix;
            push_folded_chars(&mut chars, &s, max);
            prop_assert_eq!(bulk, chars);
        }
    }

    #[test]
    fn folding_is_case_insensitive_and_keeps_lengths_of_ascii() {
        assert_eq!(folded("Hello WORLD"), "hello world");
        assert_eq!(folded("ÉCOLE"), "école");
        assert_eq!(folded("a\u{1b}[31mb\0c"), "a [31mb c");
    }

    #[test]
    fn matches_are_found_in_the_original_text_whatever_its_case() {
        let text = "Deploy the API; the api is up. ÉTÉ été";
        assert_eq!(find_folded(text, "api"), vec![11..14, 20..23]);
        let r = find_folded(text, "été");
        assert_eq!(r.len(), 2);
        assert_eq!(&text[r[0].clone()], "ÉTÉ");
        assert!(find_folded(text, "").is_empty());
    }

    #[test]
    fn a_cut_keeps_whole_chars() {
        let mut s = String::new();
        push_folded(&mut s, "ééé", 5);
        assert_eq!(s, "éé");
    }
}
