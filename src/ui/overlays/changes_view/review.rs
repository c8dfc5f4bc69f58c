//! A review of the changes: comments on marked lines, sent as one message that quotes each
//! file and its lines, so the agent reads "In src/storage/pg.rs lines 40–52: …".

use super::rows::{Row, RowKind};

/// Lines quoted under a comment, at most.
const QUOTED_LINES: usize = 6;

/// Characters of one quoted line, at most: the comment names the lines, the quote is for the
/// agent to find them (a minified file's one-megabyte line would otherwise go out whole).
const QUOTED_LINE_MAX_CHARS: usize = 240;

/// One comment on lines of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Comment {
    pub(crate) path: String,
    /// "lines 40–52", "line 7", "removed lines 3–4".
    pub(crate) lines: String,
    quote: Vec<String>,
    pub(crate) text: String,
    /// The last new-file (else old-file) line it is on, to draw it under.
    pub(crate) after: (Option<usize>, Option<usize>),
}

impl Comment {
    /// A comment on `rows` of `path` (hunk headers are skipped); `None` when no line is
    /// among them.
    pub(crate) fn on(path: &str, rows: &[&Row], text: String) -> Option<Comment> {
        let lines: Vec<&Row> = rows.iter().copied().filter(|r| !r.is_hunk()).collect();
        let last = lines.last()?;
        // The new file's numbers, where the lines have any; a removal only has old ones.
        let new: Vec<usize> = lines.iter().filter_map(|r| new_number(r)).collect();
        let (numbers, removed) = if new.is_empty() {
            let old: Vec<usize> = lines
                .iter()
                .filter_map(|r| r.left.as_ref().map(|h| h.number))
                .collect();
            (old, true)
        } else {
            (new, false)
        };
        let (first, end) = (*numbers.first()?, *numbers.last()?);
        let what = if removed { "removed line" } else { "line" };
        let lines_words = if first == end {
            format!("{what} {first}")
        } else {
            format!("{what}s {first}–{end}")
        };
        let mut quote: Vec<String> = Vec::new();
        for row in &lines {
            for half in [&row.left, &row.right].into_iter().flatten() {
                let sign = match half.kind {
                    RowKind::Removed => "-",
                    RowKind::Added => "+",
                    _ => " ",
                };
                let line = format!("{sign}{}", cut(&half.text));
                // A context line is on both sides: quoted once.
                if half.kind == RowKind::Context && quote.last() == Some(&line) {
                    continue;
                }
                quote.push(line);
            }
        }
        Some(Comment {
            path: path.to_string(),
            lines: lines_words,
            quote,
            text,
            after: last.numbers(),
        })
    }
}

/// `text` within [`QUOTED_LINE_MAX_CHARS`], `…` where it was cut.
fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED_LINE_MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

fn new_number(row: &Row) -> Option<usize> {
    match (&row.left, &row.right) {
        (_, Some(h)) => Some(h.number),
        (Some(h), None) if h.kind == RowKind::Context => Some(h.number),
        _ => None,
    }
}

/// The comments of one review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Review {
    scope: String,
    comments: Vec<Comment>,
}

impl Review {
    pub(crate) fn new(scope: &str) -> Review {
        Review {
            scope: scope.to_string(),
            comments: Vec::new(),
        }
    }

    pub(crate) fn add(&mut self, comment: Comment) {
        self.comments.push(comment);
    }

    pub(crate) fn len(&self) -> usize {
        self.comments.len()
    }

    pub(crate) fn comments(&self) -> &[Comment] {
        &self.comments
    }

    pub(crate) fn clear(&mut self) {
        self.comments.clear();
    }

    /// The message the agent gets.
    pub(crate) fn message(&self) -> String {
        let mut out = format!("Review of the changes in {}:\n", self.scope);
        for c in &self.comments {
            out.push_str(&format!("\nIn {} {}:\n", c.path, c.lines));
            for line in c.quote.iter().take(QUOTED_LINES) {
                out.push_str(&format!("> {line}\n"));
            }
            if c.quote.len() > QUOTED_LINES {
                out.push_str("> …\n");
            }
            out.push_str(&c.text);
            out.push('\n');
        }
        out
    }
}

/// "1 comment", "3 comments".
pub(crate) fn count(n: usize) -> String {
    if n == 1 {
        "1 comment".into()
    } else {
        format!("{n} comments")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::overlays::changes_view::rows::Half;

    fn line(kind: RowKind, number: usize, text: String) -> Row {
        let half = Half {
            kind,
            number,
            text,
            words: Vec::new(),
            side_index: 0,
        };
        let (left, right) = match kind {
            RowKind::Added => (None, Some(half)),
            _ => (Some(half), None),
        };
        Row {
            hunk: 0,
            header: None,
            left,
            right,
        }
    }

    #[test]
    fn long_quoted_lines_are_cut_and_short_ones_kept() {
        let long = "x".repeat(1 << 20);
        let rows = [
            line(RowKind::Removed, 1, long.clone()),
            line(RowKind::Added, 1, format!("é{long}")),
            line(RowKind::Added, 2, "short".into()),
        ];
        let rows: Vec<&Row> = rows.iter().collect();
        let comment = Comment::on("min.js", &rows, "why so long?".into()).unwrap();
        let mut review = Review::new("turn 1");
        review.add(comment);
        let message = review.message();
        assert!(message.len() < 2_000, "{} bytes", message.len());
        let quoted: Vec<&str> = message.lines().filter(|l| l.starts_with("> ")).collect();
        assert_eq!(quoted.len(), 3, "{message}");
        assert_eq!(
            quoted[0],
            format!("> -{}…", "x".repeat(QUOTED_LINE_MAX_CHARS))
        );
        assert!(quoted[1].starts_with("> +éxx") && quoted[1].ends_with('…'));
        assert_eq!(quoted[2], "> +short");
        assert!(message.ends_with("why so long?\n"));
    }
}
