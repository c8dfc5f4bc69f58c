//! One file's change over a range of events as one diff: the file's state before the
//! range's first event against its state after the last, compared line token by line token
//! ([`super::file_history`]), cut into hunks with three lines of context. A hunk is never
//! given a line nobody has seen: context stops at an unseen line, and a change next to one
//! makes the file incomplete rather than a patch that would not apply.

use super::file_history::{FileHistory, FileState, Tail, Token};
use similar::{Algorithm, DiffTag};

/// Lines of context around a change, as `git diff`.
const CONTEXT: usize = 3;

/// What happened to a file over the range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Added,
    Deleted,
    Modified,
}

/// One line of a hunk, with its `\n` unless it is a file's last line without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiffLine {
    pub(crate) tag: LineTag,
    pub(crate) text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineTag {
    Context,
    Removed,
    Added,
}

/// A hunk as `@@ -old_start,old_len +new_start,new_len @@` numbers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub(crate) old_start: usize,
    pub(crate) old_len: usize,
    pub(crate) new_start: usize,
    pub(crate) new_len: usize,
    pub(crate) lines: Vec<DiffLine>,
}

/// A file's composed change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDiff {
    pub(crate) status: Status,
    pub(crate) hunks: Vec<Hunk>,
}

impl FileDiff {
    /// Lines added and removed.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for line in self.hunks.iter().flat_map(|h| &h.lines) {
            match line.tag {
                LineTag::Added => counts.0 += 1,
                LineTag::Removed => counts.1 += 1,
                LineTag::Context => {}
            }
        }
        counts
    }
}

/// Why a file's change cannot be written as a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incomplete {
    /// From some event on, its content is unknown (the reason in words, and the seq).
    Gap { seq: u64, why: &'static str },
    /// It was removed, and no event showed all of it.
    RemovedUnseen,
    /// A changed line, or the line right after a change, was never shown by any hunk.
    UnseenLine,
}

impl Incomplete {
    pub(crate) fn words(&self) -> String {
        match self {
            Incomplete::Gap { seq, why } => format!("event {seq}: {why}"),
            Incomplete::RemovedUnseen => "removed, and no event showed all of it".into(),
            Incomplete::UnseenLine => "a change touches lines no event showed".into(),
        }
    }
}

/// A line's identity for the comparison: its text when seen, else its place in the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key<'a> {
    Text(&'a str),
    Unseen(u32),
}

/// The change from `before` to `after`; `Ok(None)` when there is none.
pub(crate) fn compose(
    history: &FileHistory,
    before: &FileState,
    after: &FileState,
) -> Result<Option<FileDiff>, Incomplete> {
    for state in [before, after] {
        if let FileState::Unknown(gap) = state {
            return Err(Incomplete::Gap {
                seq: gap.seq,
                why: gap.why.words(),
            });
        }
    }
    let (old, old_end_known) = match (before, after) {
        (FileState::Absent, FileState::Absent) => return Ok(None),
        (FileState::Absent, _) => (Vec::new(), true),
        (FileState::Present { lines, tail }, _) => {
            let mut old = lines.clone();
            let mut end_known = *tail == Tail::Closed;
            if let Tail::Open { from } = *tail {
                // Base lines the range's events reached are part of the file before too.
                let reached = match after {
                    FileState::Present {
                        tail: Tail::Open { from: to },
                        ..
                    } => *to,
                    _ => history.base_len().unwrap_or(from),
                };
                old.extend((from..reached).map(Token::Base));
                end_known = history.base_len() == Some(reached);
            }
            (old, end_known)
        }
        (FileState::Unknown(_), _) => unreachable!("returned above"),
    };
    let (new, status) = match (before, after) {
        (_, FileState::Absent) => {
            if !old_end_known {
                return Err(Incomplete::RemovedUnseen);
            }
            (Vec::new(), Status::Deleted)
        }
        (FileState::Absent, FileState::Present { lines, .. }) => (lines.clone(), Status::Added),
        (_, FileState::Present { lines, .. }) => (lines.clone(), Status::Modified),
        (_, FileState::Unknown(_)) => unreachable!("returned above"),
    };
    let key = |token: Token| match history.text(token) {
        Some(text) => Key::Text(text),
        None => match token {
            Token::Base(i) => Key::Unseen(i),
            Token::New(_) => unreachable!("written lines are always known"),
        },
    };
    let old_keys: Vec<Key<'_>> = old.iter().map(|t| key(*t)).collect();
    let new_keys: Vec<Key<'_>> = new.iter().map(|t| key(*t)).collect();
    let hunks = hunks(&old_keys, &new_keys, old_end_known)?;
    if hunks.is_empty() && status == Status::Modified {
        return Ok(None);
    }
    Ok(Some(FileDiff { status, hunks }))
}

/// One line of a group, with the old and new line counts before it.
struct Placed<'a> {
    tag: LineTag,
    key: Key<'a>,
    old_at: usize,
    new_at: usize,
}

fn hunks(old: &[Key<'_>], new: &[Key<'_>], old_end_known: bool) -> Result<Vec<Hunk>, Incomplete> {
    let lines = placed(old, new);
    // Distance from each line to the nearest change, in lines: context within CONTEXT
    // of a change belongs to its hunk, and changes closer than that share one.
    let is_change = |l: &Placed<'_>| l.tag != LineTag::Context;
    let mut near = vec![usize::MAX; lines.len()];
    let mut last_change = None;
    for (i, line) in lines.iter().enumerate() {
        if is_change(line) {
            last_change = Some(i);
        }
        if let Some(c) = last_change {
            near[i] = i - c;
        }
    }
    let mut next_change = None;
    for (i, line) in lines.iter().enumerate().rev() {
        if is_change(line) {
            next_change = Some(i);
        }
        if let Some(c) = next_change {
            near[i] = near[i].min(c - i);
        }
    }
    let mut out = Vec::new();
    let mut run: Vec<Placed<'_>> = Vec::new();
    for (line, distance) in lines.into_iter().zip(near) {
        let unseen_context = line.tag == LineTag::Context && matches!(line.key, Key::Unseen(_));
        if distance > CONTEXT || unseen_context {
            // Context stops at a line nobody has seen.
            flush(&mut run, &mut out, old.len(), old_end_known)?;
            continue;
        }
        run.push(line);
    }
    flush(&mut run, &mut out, old.len(), old_end_known)?;
    Ok(out)
}

/// Every line of the comparison in order, with the old and new lines before it. The
/// positions are counted here from the operations' lengths: similar's operations keep
/// their order and lengths, but a deletion can carry a wrong `new_index`.
fn placed<'a>(old: &[Key<'a>], new: &[Key<'a>]) -> Vec<Placed<'a>> {
    let ops = similar::capture_diff_slices(Algorithm::Myers, old, new);
    let mut lines = Vec::with_capacity(old.len().max(new.len()));
    let (mut o, mut n) = (0, 0);
    for op in ops {
        let (tag, olds, news) = op.as_tag_tuple();
        let (old_len, new_len) = (olds.len(), news.len());
        if tag == DiffTag::Equal {
            for k in 0..old_len {
                lines.push(Placed {
                    tag: LineTag::Context,
                    key: old[o + k],
                    old_at: o + k,
                    new_at: n + k,
                });
            }
        } else {
            for k in 0..old_len {
                lines.push(Placed {
                    tag: LineTag::Removed,
                    key: old[o + k],
                    old_at: o + k,
                    new_at: n,
                });
            }
            for k in 0..new_len {
                lines.push(Placed {
                    tag: LineTag::Added,
                    key: new[n + k],
                    old_at: o + old_len,
                    new_at: n + k,
                });
            }
        }
        o += old_len;
        n += new_len;
    }
    debug_assert_eq!((o, n), (old.len(), new.len()));
    lines
}

/// Ends the run of lines as a hunk, if it changes anything.
fn flush(
    run: &mut Vec<Placed<'_>>,
    out: &mut Vec<Hunk>,
    old_len_total: usize,
    old_end_known: bool,
) -> Result<(), Incomplete> {
    let lines = std::mem::take(run);
    if lines.iter().all(|l| l.tag == LineTag::Context) {
        return Ok(());
    }
    if lines.iter().any(|l| matches!(l.key, Key::Unseen(_))) {
        return Err(Incomplete::UnseenLine);
    }
    let last = lines.last().expect("a run with a change is not empty");
    if last.tag != LineTag::Context {
        // A hunk without context after it must end the file (as `git apply` reads it).
        let old_after = match last.tag {
            LineTag::Removed => last.old_at + 1,
            _ => last.old_at,
        };
        if old_after < old_len_total || !old_end_known {
            return Err(Incomplete::UnseenLine);
        }
    }
    let first = &lines[0];
    let old_len = lines.iter().filter(|l| l.tag != LineTag::Added).count();
    let new_len = lines.iter().filter(|l| l.tag != LineTag::Removed).count();
    let start = |at: usize, len: usize| if len == 0 { at } else { at + 1 };
    out.push(Hunk {
        old_start: start(first.old_at, old_len),
        old_len,
        new_start: start(first.new_at, new_len),
        new_len,
        lines: lines
            .into_iter()
            .map(|l| DiffLine {
                tag: l.tag,
                text: match l.key {
                    Key::Text(text) => text.to_string(),
                    Key::Unseen(_) => unreachable!("checked above"),
                },
            })
            .collect(),
    });
    Ok(())
}
