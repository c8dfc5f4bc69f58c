//! One file's states across a session's `file.changed` events, known only as far as their
//! diffs tell.
//!
//! Events carry hunks, not contents: a file the session did not create is known only in
//! the lines some hunk showed. So a file is a list of line tokens: `Base(i)`, line `i` of
//! the file before its first event (its text learnt from any hunk that showed it), or
//! `New(j)`, a line some event wrote. Lines past the last one any hunk reached are the
//! "tail": unchanged, unknown, in order. Two states of the file are then compared token by
//! token ([`super::compose`]), which composes several events on one file into one diff
//! from the state before the first to the state after the last, whatever the file's
//! unseen lines are.

use gobare_api::model::ChangeKind;

/// Written lines that may pile up before the first sweep.
const SWEEP_AFTER_LINES: usize = 256;

/// One line of a file state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// Line `i` (0-based) of the file before its first event.
    Base(u32),
    /// A line an event wrote.
    New(u32),
}

/// A file at one point of its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileState {
    /// Not there.
    Absent,
    /// Its lines as far as known; `tail` says whether the first state's unseen lines
    /// follow them (`tail_from` is the first such base line).
    Present { lines: Vec<Token>, tail: Tail },
    /// An event changed it without a diff that applies: nothing is known until an event
    /// replaces it whole.
    Unknown(Gap),
}

/// Whether unseen lines of the file before its first event follow a state's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tail {
    /// Base lines from `from` on, unknown, unchanged.
    Open { from: u32 },
    /// The lines are the whole file.
    Closed,
}

/// Why a file's content is not known from some event on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Gap {
    /// The event's seq.
    pub(crate) seq: u64,
    pub(crate) why: GapReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GapReason {
    /// The event carried no diff.
    NoDiff,
    /// Its diff is cut short or not a diff.
    Unreadable,
    /// Its diff does not fit the file as the earlier events left it.
    DoesNotApply,
    /// It modified a file the history had removed.
    ModifiedAbsent,
}

impl GapReason {
    pub(crate) fn words(self) -> &'static str {
        match self {
            GapReason::NoDiff => "its event carries no diff",
            GapReason::Unreadable => "its diff is cut short",
            GapReason::DoesNotApply => "its diff does not fit the earlier changes",
            GapReason::ModifiedAbsent => "it was modified after being removed",
        }
    }
}

/// A file's history: its base lines as learnt, the lines its events wrote, and its state.
#[derive(Debug, Clone)]
pub(crate) struct FileHistory {
    /// Text of the base lines materialised so far (`None`: no hunk showed it).
    base: Vec<Option<String>>,
    /// How many lines the file had before its first event, once known.
    base_len: Option<u32>,
    news: Vec<String>,
    /// Lines written since the text of unreferenced ones was last given back.
    written_since_sweep: usize,
    /// Written lines some state referred to at the last sweep.
    live_at_sweep: usize,
    pub(crate) state: FileState,
}

impl FileHistory {
    /// A file whose first event is `first`: one created by it was absent before; any
    /// other was there, unknown.
    pub(crate) fn new(first: &ChangeKind) -> FileHistory {
        let state = match first {
            ChangeKind::Created => FileState::Absent,
            _ => FileState::Present {
                lines: Vec::new(),
                tail: Tail::Open { from: 0 },
            },
        };
        FileHistory {
            base: Vec::new(),
            base_len: (*first == ChangeKind::Created).then_some(0),
            news: Vec::new(),
            written_since_sweep: 0,
            live_at_sweep: 0,
            state,
        }
    }

    /// The text of a line, when known.
    pub(crate) fn text(&self, token: Token) -> Option<&str> {
        match token {
            Token::Base(i) => self.base.get(i as usize)?.as_deref(),
            Token::New(j) => self.news.get(j as usize).map(String::as_str),
        }
    }

    /// How many base lines the file had, once known.
    pub(crate) fn base_len(&self) -> Option<u32> {
        self.base_len
    }

    /// Replaces the state with a whole known content (the workspace's snapshot).
    pub(crate) fn set_content(&mut self, content: &str) {
        let lines = split_lines(content)
            .map(|line| self.new_line(line.to_string()))
            .collect();
        self.state = FileState::Present {
            lines,
            tail: Tail::Closed,
        };
    }

    /// Applies one event (seq, kind, diff).
    pub(crate) fn apply(&mut self, seq: u64, kind: &ChangeKind, diff: Option<&str>) {
        let deleted = *kind == ChangeKind::Deleted;
        let gap = |why| FileState::Unknown(Gap { seq, why });
        let previous = std::mem::replace(&mut self.state, FileState::Absent);
        let (lines, tail) = match (kind, previous) {
            (ChangeKind::Created, _) => (Vec::new(), Tail::Closed),
            (ChangeKind::Deleted, FileState::Absent | FileState::Unknown(_)) => return,
            (_, FileState::Absent) => {
                self.state = gap(GapReason::ModifiedAbsent);
                return;
            }
            (_, FileState::Unknown(known)) => {
                self.state = FileState::Unknown(known);
                return;
            }
            (_, FileState::Present { lines, tail }) => (lines, tail),
        };
        let Some(diff) = diff else {
            self.state = if deleted {
                FileState::Absent
            } else {
                gap(GapReason::NoDiff)
            };
            return;
        };
        let Ok(patch) = diffy::Patch::from_str(diff) else {
            self.state = if deleted {
                FileState::Absent
            } else {
                gap(GapReason::Unreadable)
            };
            return;
        };
        match self.patched(lines, tail, &patch) {
            Some((lines, tail)) if deleted => {
                // A removal's diff takes the whole file: what it showed is all there was.
                if lines.is_empty()
                    && let Tail::Open { from } = tail
                {
                    self.base_len = Some(from);
                }
                self.state = FileState::Absent;
            }
            Some((lines, tail)) => self.state = FileState::Present { lines, tail },
            None if deleted => self.state = FileState::Absent,
            None => self.state = gap(GapReason::DoesNotApply),
        }
    }

    /// `lines` (+ `tail`) with `patch`'s hunks applied, learning base lines from what the
    /// hunks show; `None` when a hunk contradicts what is known.
    fn patched(
        &mut self,
        mut lines: Vec<Token>,
        mut tail: Tail,
        patch: &diffy::Patch<'_, str>,
    ) -> Option<(Vec<Token>, Tail)> {
        let mut out = Vec::with_capacity(lines.len());
        let mut at = 0usize;
        for hunk in patch.hunks() {
            let range = hunk.old_range();
            // `-k,0` inserts after line k; otherwise the hunk starts at line `start`.
            let first = if range.is_empty() {
                range.start()
            } else {
                range.start().checked_sub(1)?
            };
            if first < at {
                return None;
            }
            self.reach(&mut lines, &mut tail, first + range.len())?;
            out.extend_from_slice(&lines[at..first]);
            at = first;
            for line in hunk.lines() {
                match line {
                    diffy::Line::Context(text) | diffy::Line::Delete(text) => {
                        let token = *lines.get(at)?;
                        self.learn(token, text)?;
                        at += 1;
                        if matches!(line, diffy::Line::Context(_)) {
                            out.push(token);
                        }
                    }
                    diffy::Line::Insert(text) => out.push(self.new_line(text.to_string())),
                }
            }
            // A hunk with no context after its last change ends the file (as `git apply`
            // reads it): nothing of the tail is left after it.
            let ends_file = hunk
                .lines()
                .last()
                .is_some_and(|l| !matches!(l, diffy::Line::Context(_)));
            if ends_file {
                if at < lines.len() {
                    return None;
                }
                if let Tail::Open { from } = tail {
                    if self.base_len.is_some_and(|n| n != from) {
                        return None;
                    }
                    self.base_len = Some(from);
                    tail = Tail::Closed;
                }
            }
        }
        out.extend_from_slice(&lines[at..]);
        Some((out, tail))
    }

    /// Makes `lines` at least `len` long, taking base lines from the tail.
    fn reach(&mut self, lines: &mut Vec<Token>, tail: &mut Tail, len: usize) -> Option<()> {
        while lines.len() < len {
            let Tail::Open { from } = *tail else {
                return None;
            };
            if self.base_len.is_some_and(|n| from >= n) {
                return None;
            }
            if self.base.len() <= from as usize {
                self.base.resize(from as usize + 1, None);
            }
            lines.push(Token::Base(from));
            *tail = Tail::Open { from: from + 1 };
        }
        Some(())
    }

    /// Checks `token` reads `text`, or learns that it does.
    fn learn(&mut self, token: Token, text: &str) -> Option<()> {
        match token {
            Token::New(j) => (self.news[j as usize] == text).then_some(()),
            Token::Base(i) => match &mut self.base[i as usize] {
                Some(known) => (known == text).then_some(()),
                slot @ None => {
                    *slot = Some(text.to_string());
                    Some(())
                }
            },
        }
    }

    fn new_line(&mut self, text: String) -> Token {
        self.news.push(text);
        self.written_since_sweep += 1;
        Token::New(self.news.len() as u32 - 1)
    }

    /// Gives back the text of written lines that neither the current state nor any of
    /// `kept` (a range's starting state) refers to: no later hunk can reach them and no
    /// comparison reads them, so memory follows the file's size, not its history's. Runs
    /// when as many lines were written since the last sweep as were live then (amortised).
    pub(crate) fn sweep(&mut self, kept: Option<&FileState>) {
        if self.written_since_sweep < self.live_at_sweep.max(SWEEP_AFTER_LINES) {
            return;
        }
        let mut live = vec![false; self.news.len()];
        for state in std::iter::once(&self.state).chain(kept) {
            if let FileState::Present { lines, .. } = state {
                for token in lines {
                    if let Token::New(j) = token {
                        live[*j as usize] = true;
                    }
                }
            }
        }
        for (text, alive) in self.news.iter_mut().zip(&live) {
            if !alive && !text.is_empty() {
                *text = String::new();
            }
        }
        self.live_at_sweep = live.iter().filter(|l| **l).count();
        self.written_since_sweep = 0;
    }

    /// Written lines whose text is still held.
    #[cfg(test)]
    pub(crate) fn held_lines(&self) -> usize {
        self.news.iter().filter(|t| !t.is_empty()).count()
    }
}

/// `content`'s lines, each with its `\n` (the last may lack one).
pub(crate) fn split_lines(content: &str) -> impl Iterator<Item = &str> {
    content.split_inclusive('\n')
}
