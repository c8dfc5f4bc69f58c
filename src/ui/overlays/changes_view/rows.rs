//! A file's composed diff as the rows the changes view draws: unified (one row per line)
//! or side by side (removed and added lines paired), with the words that changed inside
//! each paired line, all on sanitized text.

use crate::changes::compose::{FileDiff, LineTag};
use gobare_api::text;
use similar::{Algorithm, DiffTag};
use std::ops::Range;

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    Context,
    Removed,
    Added,
}

/// One side of a line: its number in the old or new file, its sanitized text, the byte
/// ranges of the words that changed, and its index among that side's lines (for the
/// highlighter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Half {
    pub(crate) kind: RowKind,
    pub(crate) number: usize,
    pub(crate) text: String,
    pub(crate) words: Vec<Range<usize>>,
    pub(crate) side_index: usize,
}

/// One drawn row: a hunk header, or a line (unified: one half; side by side: a pair).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) hunk: usize,
    /// The header's text, for a hunk row.
    pub(crate) header: Option<String>,
    /// The old side (unified: the line itself when it is context or removed).
    pub(crate) left: Option<Half>,
    /// The new side (unified: the line when it is added).
    pub(crate) right: Option<Half>,
}

impl Row {
    pub(crate) fn is_hunk(&self) -> bool {
        self.header.is_some()
    }

    /// The row's line number in the new file, else in the old one.
    pub(crate) fn numbers(&self) -> (Option<usize>, Option<usize>) {
        (
            self.left.as_ref().map(|h| h.number),
            self.right.as_ref().map(|h| h.number),
        )
    }
}

/// Each side's lines in order (context on both), for the highlighter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sides {
    pub(crate) old: Vec<String>,
    pub(crate) new: Vec<String>,
}

/// The rows of `diff`, side by side or unified, with each side's text.
pub(crate) fn rows(diff: &FileDiff, side_by_side: bool) -> (Vec<Row>, Sides) {
    let mut rows = Vec::new();
    let mut sides = Sides::default();
    for (h, hunk) in diff.hunks.iter().enumerate() {
        rows.push(Row {
            hunk: h,
            header: Some(format!(
                "@@ -{},{} +{},{} @@",
                hunk.old_start, hunk.old_len, hunk.new_start, hunk.new_len
            )),
            left: None,
            right: None,
        });
        let (mut old_no, mut new_no) = (hunk.old_start.max(1), hunk.new_start.max(1));
        let mut removed: Vec<Half> = Vec::new();
        let mut added: Vec<Half> = Vec::new();
        let flush = |rows: &mut Vec<Row>, removed: &mut Vec<Half>, added: &mut Vec<Half>| {
            pair_words(removed, added);
            if side_by_side {
                let n = removed.len().max(added.len());
                let mut r = removed.drain(..);
                let mut a = added.drain(..);
                for _ in 0..n {
                    rows.push(Row {
                        hunk: h,
                        header: None,
                        left: r.next(),
                        right: a.next(),
                    });
                }
            } else {
                for half in removed.drain(..) {
                    rows.push(Row {
                        hunk: h,
                        header: None,
                        left: Some(half),
                        right: None,
                    });
                }
                for half in added.drain(..) {
                    rows.push(Row {
                        hunk: h,
                        header: None,
                        left: None,
                        right: Some(half),
                    });
                }
            }
        };
        for line in &hunk.lines {
            let shown = text::line(line.text.trim_end_matches('\n')).into_owned();
            match line.tag {
                LineTag::Context => {
                    flush(&mut rows, &mut removed, &mut added);
                    let old = Half {
                        kind: RowKind::Context,
                        number: old_no,
                        text: shown.clone(),
                        words: Vec::new(),
                        side_index: sides.old.len(),
                    };
                    let new = Half {
                        number: new_no,
                        side_index: sides.new.len(),
                        ..old.clone()
                    };
                    sides.old.push(shown.clone());
                    sides.new.push(shown);
                    rows.push(Row {
                        hunk: h,
                        header: None,
                        left: Some(old),
                        right: Some(new),
                    });
                    old_no += 1;
                    new_no += 1;
                }
                LineTag::Removed => {
                    if !added.is_empty() {
                        flush(&mut rows, &mut removed, &mut added);
                    }
                    removed.push(Half {
                        kind: RowKind::Removed,
                        number: old_no,
                        text: shown.clone(),
                        words: Vec::new(),
                        side_index: sides.old.len(),
                    });
                    sides.old.push(shown);
                    old_no += 1;
                }
                LineTag::Added => {
                    added.push(Half {
                        kind: RowKind::Added,
                        number: new_no,
                        text: shown.clone(),
                        words: Vec::new(),
                        side_index: sides.new.len(),
                    });
                    sides.new.push(shown);
                    new_no += 1;
                }
            }
        }
        flush(&mut rows, &mut removed, &mut added);
    }
    (rows, sides)
}

/// Marks the words that changed between each removed line and the added line paired with
/// it (the first with the first, …). A pair with nothing in common is a rewrite, not an
/// edit: no words are marked, the whole line already says it changed.
fn pair_words(removed: &mut [Half], added: &mut [Half]) {
    for (old, new) in removed.iter_mut().zip(added.iter_mut()) {
        let (old_words, new_words) = changed_words(&old.text, &new.text);
        let unchanged = old.text.len() - old_words.iter().map(|r| r.len()).sum::<usize>();
        if unchanged.saturating_mul(4) < old.text.trim().len() {
            continue;
        }
        old.words = old_words;
        new.words = new_words;
    }
}

/// Words: runs of letters, digits and `_`, runs of spaces, and single other characters.
fn words(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut last: Option<u8> = None;
    for (i, c) in s.char_indices() {
        let k = class(c);
        if last.is_some_and(|l| l != k || k == 2) {
            out.push(start..i);
            start = i;
        }
        last = Some(k);
    }
    if start < s.len() {
        out.push(start..s.len());
    }
    out
}

/// The byte ranges of `old`'s removed words and `new`'s added words.
pub(crate) fn changed_words(old: &str, new: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let (ow, nw) = (words(old), words(new));
    let old_tokens: Vec<&str> = ow.iter().map(|r| &old[r.clone()]).collect();
    let new_tokens: Vec<&str> = nw.iter().map(|r| &new[r.clone()]).collect();
    let mut old_out: Vec<Range<usize>> = Vec::new();
    let mut new_out: Vec<Range<usize>> = Vec::new();
    let (mut o, mut n) = (0, 0);
    // Positions are counted from the operations' lengths (see `compose::placed`).
    for op in similar::capture_diff_slices(Algorithm::Myers, &old_tokens, &new_tokens) {
        let (tag, olds, news) = op.as_tag_tuple();
        if tag != DiffTag::Equal {
            if !olds.is_empty() {
                push_merged(&mut old_out, ow[o].start..ow[o + olds.len() - 1].end);
            }
            if !news.is_empty() {
                push_merged(&mut new_out, nw[n].start..nw[n + news.len() - 1].end);
            }
        }
        o += olds.len();
        n += news.len();
    }
    (old_out, new_out)
}

fn push_merged(out: &mut Vec<Range<usize>>, range: Range<usize>) {
    match out.last_mut() {
        Some(last) if last.end == range.start => last.end = range.end,
        _ => out.push(range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_are_the_edited_ones_only() {
        let (old, new) = changed_words("let total = 0;", "let mut total = 0;");
        assert!(old.is_empty());
        assert_eq!(&"let mut total = 0;"[new[0].clone()], "mut ");
        let (old, new) = changed_words("    \"hello\"", "    \"hello, world\"");
        assert!(old.is_empty(), "{old:?}");
        assert_eq!(&"    \"hello, world\""[new[0].clone()], ", world");
    }
}
