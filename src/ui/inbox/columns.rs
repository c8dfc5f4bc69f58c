//! The inbox's column widths and cuts: the session column as wide as its names need while
//! the requests keep theirs, and a name too long for it cut in the middle, so the part
//! that tells rows apart (its end, a number) survives.

use gobare_api::text;
use unicode_segmentation::UnicodeSegmentation;

use crate::fleet::inbox::InboxItem;

/// The session column of a `width`-wide list with `fixed` columns before it: what the
/// longest name needs, unless the requests need the room; never less than a fifth of the
/// width (within 10–28) when the names need that much.
pub(super) fn session_cols(items: &[InboxItem], width: usize, fixed: usize) -> usize {
    let names = items
        .iter()
        .map(|i| text::width(&i.session))
        .max()
        .unwrap_or(0)
        + 1;
    let requests = items
        .iter()
        .map(|i| text::width(&i.request))
        .max()
        .unwrap_or(0);
    let room = width.saturating_sub(fixed);
    let floor = (width / 5).clamp(10, 28);
    names
        .min(floor.max(room.saturating_sub(requests)))
        .min(room)
}

/// `s` in at most `cols` cells: whole when it fits, else its start and its end around
/// `…`, the end given up to two fifths of the room (whole words where they fit).
pub(super) fn cut_keeping_end(s: &str, cols: usize) -> String {
    if text::width(s) <= cols {
        return s.to_string();
    }
    if cols < 6 {
        return text::truncate(s, cols).into_owned();
    }
    let graphemes: Vec<&str> = s.graphemes(true).collect();
    let tail_room = (cols - 1) * 2 / 5;
    let mut tail_start = graphemes.len();
    let mut tail_cols = 0;
    while tail_start > 0 {
        let w = text::width(graphemes[tail_start - 1]);
        if tail_cols + w > tail_room {
            break;
        }
        tail_cols += w;
        tail_start -= 1;
    }
    // A word cut at its start reads as a different word: start the end at a word.
    if let Some(space) = graphemes[tail_start..].iter().position(|g| *g == " ")
        && space + 1 < graphemes.len() - tail_start
    {
        let skipped: usize = graphemes[tail_start..=tail_start + space]
            .iter()
            .map(|g| text::width(g))
            .sum();
        if tail_cols - skipped >= 3 {
            tail_start += space + 1;
            tail_cols -= skipped;
        }
    }
    let head_room = cols - 1 - tail_cols;
    let mut head = String::new();
    let mut head_cols = 0;
    for g in &graphemes[..tail_start] {
        let w = text::width(g);
        if head_cols + w > head_room {
            break;
        }
        head.push_str(g);
        head_cols += w;
    }
    let tail: String = graphemes[tail_start..].concat();
    format!("{}…{tail}", head.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_keeps_its_end() {
        let name = "Answer the customer about order A-4471";
        let cut = cut_keeping_end(name, 24);
        assert!(text::width(&cut) <= 24, "{cut}");
        assert!(cut.starts_with("Answer the"), "{cut}");
        assert!(cut.ends_with("A-4471"), "{cut}");
        assert_eq!(cut_keeping_end("short", 24), "short");
        let other = cut_keeping_end("Answer the customer about order A-4472", 24);
        assert_ne!(cut, other, "two rows stay apart");
    }
}
