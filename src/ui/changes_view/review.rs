//! A review of the changes: comments on marked lines, sent as one message that quotes each
//! file and its lines, so the agent reads "In src/storage/pg.rs lines 40–52: …".

use super::rows::{Row, RowKind};

/// Lines quoted under a comment, at most.
const QUOTED_LINES: usize = 6;

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
                let line = format!("{sign}{}", half.text);
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
