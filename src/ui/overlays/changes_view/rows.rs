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
        let mut made = HunkRows {
            hunk: h,
            side_by_side,
            rows: &mut rows,
            sides: &mut sides,
            old_no: hunk.old_start.max(1),
            new_no: hunk.new_start.max(1),
            removed: Vec::new(),
            added: Vec::new(),
        };
        for line in &hunk.lines {
            let shown = text::line(line.text.trim_end_matches('\n')).into_owned();
            match line.tag {
                LineTag::Context => made.context(shown),
                LineTag::Removed => made.removed(shown),
                LineTag::Added => made.added(shown),
            }
        }
        made.flush();
    }
    (rows, sides)
}

/// One hunk's rows as its lines come: a run of removed then added lines is held until it
/// ends, to be paired.
struct HunkRows<'a> {
    hunk: usize,
    side_by_side: bool,
    rows: &'a mut Vec<Row>,
    sides: &'a mut Sides,
    /// The next line's number in the old and the new file.
    old_no: usize,
    new_no: usize,
    removed: Vec<Half>,
    added: Vec<Half>,
}

impl HunkRows<'_> {
    /// A line on both sides: it ends the run before it.
    fn context(&mut self, shown: String) {
        self.flush();
        let old = Half {
            kind: RowKind::Context,
            number: self.old_no,
            text: shown.clone(),
            words: Vec::new(),
            side_index: self.sides.old.len(),
        };
        let new = Half {
            number: self.new_no,
            side_index: self.sides.new.len(),
            ..old.clone()
        };
        self.sides.old.push(shown.clone());
        self.sides.new.push(shown);
        self.rows.push(Row {
            hunk: self.hunk,
            header: None,
            left: Some(old),
            right: Some(new),
        });
        self.old_no += 1;
        self.new_no += 1;
    }

    /// A removed line after added ones starts a new run.
    fn removed(&mut self, shown: String) {
        if !self.added.is_empty() {
            self.flush();
        }
        self.removed.push(Half {
            kind: RowKind::Removed,
            number: self.old_no,
            text: shown.clone(),
            words: Vec::new(),
            side_index: self.sides.old.len(),
        });
        self.sides.old.push(shown);
        self.old_no += 1;
    }

    fn added(&mut self, shown: String) {
        self.added.push(Half {
            kind: RowKind::Added,
            number: self.new_no,
            text: shown.clone(),
            words: Vec::new(),
            side_index: self.sides.new.len(),
        });
        self.sides.new.push(shown);
        self.new_no += 1;
    }

    /// The held run as rows: side by side, the removed and added lines paired; unified,
    /// the removed ones then the added ones.
    fn flush(&mut self) {
        pair_words(&mut self.removed, &mut self.added);
        let hunk = self.hunk;
        let row = |left: Option<Half>, right: Option<Half>| Row {
            hunk,
            header: None,
            left,
            right,
        };
        if self.side_by_side {
            let n = self.removed.len().max(self.added.len());
            let mut r = self.removed.drain(..);
            let mut a = self.added.drain(..);
            for _ in 0..n {
                self.rows.push(row(r.next(), a.next()));
            }
        } else {
            let removed = self.removed.drain(..).map(|half| row(Some(half), None));
            self.rows.extend(removed);
            let added = self.added.drain(..).map(|half| row(None, Some(half)));
            self.rows.extend(added);
        }
    }
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
