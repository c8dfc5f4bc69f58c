//! The changes view (`D`): every file a turn (or the session) changed, with its +/−
//! counts, and the combined diff of the selected one — unified, or side by side when the
//! screen is wide enough (or `s` says so), syntax-highlighted, the changed words marked
//! inside each edited line. Lines or a hunk can be marked and commented; `S` sends the
//! comments as one message (a steer while the turn runs) that quotes file and lines.

pub mod bench;
mod render;
pub(crate) mod review;
pub(crate) mod rows;
#[cfg(test)]
mod tests;

use crate::changes::compose::{FileDiff, Status};
use crate::changes::session_changes::SessionChanges;
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use review::{Comment, Review};
use rows::Row;

/// Width from which the diff is drawn side by side unless `s` said otherwise.
pub(crate) const SIDE_BY_SIDE_FROM: u16 = 160;

/// One file of the view: its change, or why it cannot be shown whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ViewFile {
    /// Relative to `/workspace`, sanitized.
    pub(crate) path: String,
    pub(crate) change: Result<FileDiff, String>,
}

impl ViewFile {
    /// Each file the changes' range changed, as the view shows it.
    pub(crate) fn list(changes: &SessionChanges) -> Vec<ViewFile> {
        changes
            .outcomes()
            .into_iter()
            .map(|o| ViewFile {
                path: o.path,
                change: o.change.map_err(|why| why.words()),
            })
            .collect()
    }

    fn counts(&self) -> (usize, usize) {
        self.change.as_ref().map_or((0, 0), FileDiff::counts)
    }

    /// `A`, `D`, `M`, or `!` for a file that is incomplete.
    fn mark(&self) -> char {
        match &self.change {
            Ok(d) => match d.status {
                Status::Added => 'A',
                Status::Deleted => 'D',
                Status::Modified => 'M',
            },
            Err(_) => '!',
        }
    }
}

/// What the view holds.
#[derive(Debug)]
enum Content {
    Loading,
    Failed(String),
    Ready(Vec<ViewFile>),
}

/// Where the keys go inside the view.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Typing {
    /// Moving, marking.
    No,
    /// A comment being written for the marked lines.
    Comment(String),
    /// Asked before the review is sent.
    Send,
}

pub(crate) struct ChangesView {
    /// What the changes are of: "turn 3", "the session".
    scope: String,
    content: Content,
    file: usize,
    /// `None`: by the width ([`SIDE_BY_SIDE_FROM`]).
    side_by_side: Option<bool>,
    /// The selected file's rows, for the layout they were built for.
    rows: Vec<Row>,
    rows_for: Option<(usize, bool)>,
    sides: rows::Sides,
    cursor: usize,
    top: usize,
    /// Rows the diff showed at the last draw.
    shown: usize,
    /// Where a marked range starts (the cursor is its other end).
    anchor: Option<usize>,
    typing: Typing,
    review: Review,
    status: Option<String>,
    /// Whether the last draw was side by side.
    drawn_side_by_side: bool,
    /// `r` asked for the history again: the files shown stay until it is read.
    reading_again: bool,
    /// The selected file's highlighters, for the theme they were built in (by its text
    /// and accent styles); dropped with the rows.
    highlight: Option<((Style, Style), render::Highlighters)>,
}

impl ChangesView {
    pub(crate) fn loading(scope: &str) -> ChangesView {
        ChangesView {
            scope: scope.to_string(),
            content: Content::Loading,
            file: 0,
            side_by_side: None,
            rows: Vec::new(),
            rows_for: None,
            sides: rows::Sides::default(),
            cursor: 0,
            top: 0,
            shown: 0,
            anchor: None,
            typing: Typing::No,
            review: Review::new(scope),
            status: None,
            drawn_side_by_side: false,
            reading_again: false,
            highlight: None,
        }
    }

    /// The changes arrived (or could not be read).
    pub(crate) fn loaded(&mut self, files: Result<Vec<ViewFile>, String>) {
        // Read again (`r`): the same file stays selected, and the comments are kept.
        let was = self.files().get(self.file).map(|f| f.path.clone());
        let again = std::mem::take(&mut self.reading_again);
        self.content = match files {
            Ok(files) => Content::Ready(files),
            Err(why) => Content::Failed(why),
        };
        self.file = was
            .filter(|_| again)
            .and_then(|path| self.files().iter().position(|f| f.path == path))
            .unwrap_or(0);
        self.rows_for = None;
        self.cursor = 0;
        self.top = 0;
        if again {
            self.status = Some("read again: what the session changed up to now".into());
        }
    }

    pub(crate) fn set_status(&mut self, status: &str) {
        self.status = Some(status.to_string());
    }

    fn files(&self) -> &[ViewFile] {
        match &self.content {
            Content::Ready(files) => files,
            _ => &[],
        }
    }

    /// Builds the selected file's rows for `side_by_side`, if not built yet.
    fn ensure_rows(&mut self, side_by_side: bool) {
        if self.rows_for == Some((self.file, side_by_side)) {
            return;
        }
        let keep_hunk = self.rows.get(self.cursor).map(|r| r.hunk);
        let (rows, sides) = match self.files().get(self.file).map(|f| &f.change) {
            Some(Ok(diff)) => rows::rows(diff, side_by_side),
            _ => (Vec::new(), rows::Sides::default()),
        };
        let same_file = self.rows_for.is_some_and(|(f, _)| f == self.file);
        self.rows = rows;
        self.sides = sides;
        self.highlight = None;
        self.rows_for = Some((self.file, side_by_side));
        self.anchor = None;
        self.cursor = match keep_hunk.filter(|_| same_file) {
            Some(h) => self.rows.iter().position(|r| r.hunk == h).unwrap_or(0),
            None => 0,
        };
        self.top = self.cursor;
    }

    fn select_file(&mut self, forward: bool) {
        let n = self.files().len();
        if n == 0 {
            return;
        }
        self.file = if forward {
            (self.file + 1) % n
        } else {
            (self.file + n - 1) % n
        };
        self.rows_for = None;
    }

    fn move_cursor(&mut self, by: isize) {
        let last = self.rows.len().saturating_sub(1);
        self.cursor = self.cursor.saturating_add_signed(by).min(last);
        self.follow_cursor();
    }

    fn follow_cursor(&mut self) {
        let rows = self.shown.max(1);
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + rows {
            self.top = self.cursor + 1 - rows;
        }
    }

    fn step_hunk(&mut self, forward: bool) {
        let starts: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].is_hunk())
            .collect();
        let next = if forward {
            starts.iter().copied().find(|&i| i > self.cursor)
        } else {
            starts.iter().rev().copied().find(|&i| i < self.cursor)
        };
        match next {
            Some(i) => {
                self.cursor = i;
                self.top = i;
            }
            None => {
                self.status = Some(if forward {
                    "the last hunk of this file: ] goes to the next file".into()
                } else {
                    "the first hunk of this file: [ goes to the previous file".into()
                });
            }
        }
    }

    /// The marked rows: from the anchor to the cursor, else the cursor's row.
    fn marked(&self) -> std::ops::RangeInclusive<usize> {
        let a = self.anchor.unwrap_or(self.cursor);
        a.min(self.cursor)..=a.max(self.cursor)
    }

    fn mark_hunk(&mut self) {
        let Some(hunk) = self.rows.get(self.cursor).map(|r| r.hunk) else {
            return;
        };
        let first = self.rows.iter().position(|r| r.hunk == hunk).unwrap_or(0);
        let last = self
            .rows
            .iter()
            .rposition(|r| r.hunk == hunk)
            .unwrap_or(first);
        self.anchor = Some(first);
        self.cursor = last;
        self.follow_cursor();
    }

    /// The comment being written goes on the marked rows.
    fn save_comment(&mut self, text: String) {
        let text = text.trim().to_string();
        if text.is_empty() {
            self.status = Some("an empty comment is not kept".into());
            return;
        }
        let Some(file) = self.files().get(self.file) else {
            return;
        };
        let path = file.path.clone();
        let rows: Vec<&Row> = self.marked().filter_map(|i| self.rows.get(i)).collect();
        match Comment::on(&path, &rows, text) {
            Some(comment) => {
                self.review.add(comment);
                self.anchor = None;
                self.status = Some(format!(
                    "{} · S sends the review",
                    review::count(self.review.len())
                ));
            }
            None => self.status = Some("mark lines of the diff (not a hunk's header)".into()),
        }
    }
}

impl Overlay for ChangesView {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        render::draw(self, area, buf, theme);
    }

    fn scope(&self) -> ViewScope {
        match self.typing {
            Typing::No => ViewScope::Changes,
            Typing::Comment(_) => ViewScope::ChangesComment,
            Typing::Send => ViewScope::ChangesSend,
        }
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        self.status = None;
        match std::mem::replace(&mut self.typing, Typing::No) {
            Typing::Comment(text) => {
                match key {
                    ViewKey::Open => self.save_comment(text),
                    ViewKey::StopFinding | ViewKey::Close => {
                        self.status = Some("comment dropped".into());
                    }
                    _ => self.typing = Typing::Comment(text),
                }
                return OverlayKey::Handled;
            }
            Typing::Send => {
                return match key {
                    ViewKey::Yes => {
                        let text = self.review.message();
                        self.review.clear();
                        OverlayKey::Act(OverlayAction::SendReview { text })
                    }
                    _ => {
                        self.status = Some("not sent: the comments are kept".into());
                        OverlayKey::Handled
                    }
                };
            }
            Typing::No => {}
        }
        let page = isize::try_from(self.shown.max(2) - 1).unwrap_or(1);
        match key {
            ViewKey::Close if self.anchor.is_some() => self.anchor = None,
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Up => self.move_cursor(-1),
            ViewKey::Down => self.move_cursor(1),
            ViewKey::PageUp => self.move_cursor(-page),
            ViewKey::PageDown => self.move_cursor(page),
            ViewKey::Top => self.move_cursor(isize::MIN / 2),
            ViewKey::Bottom => self.move_cursor(isize::MAX / 2),
            ViewKey::NextFile => self.select_file(true),
            ViewKey::PrevFile => self.select_file(false),
            ViewKey::NextHunk => self.step_hunk(true),
            ViewKey::PrevHunk => self.step_hunk(false),
            ViewKey::SideBySide => {
                self.side_by_side = Some(!self.drawn_side_by_side);
            }
            ViewKey::Mark => {
                self.anchor = match self.anchor {
                    Some(_) => None,
                    None => Some(self.cursor),
                };
            }
            ViewKey::MarkHunk => self.mark_hunk(),
            ViewKey::Refresh => {
                if matches!(self.content, Content::Loading) {
                    return OverlayKey::Handled;
                }
                self.reading_again = true;
                return OverlayKey::Act(OverlayAction::ReloadChanges);
            }
            ViewKey::Comment => {
                if self.rows.is_empty() {
                    self.status = Some("nothing to comment on in this file".into());
                } else {
                    self.typing = Typing::Comment(String::new());
                }
            }
            ViewKey::SendReview => {
                if self.review.len() == 0 {
                    self.status = Some("no comments yet: mark lines (v), then c".into());
                } else {
                    self.typing = Typing::Send;
                }
            }
            _ => return OverlayKey::Ignored,
        }
        OverlayKey::Handled
    }

    fn paste(&mut self, pasted: &str) -> bool {
        let Typing::Comment(text) = &mut self.typing else {
            return false;
        };
        // One line: a pasted line break is a space, not the Enter that keeps the comment.
        let mut last_space = text.ends_with(' ');
        for c in pasted.chars() {
            let c = if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            };
            if c.is_control() || (c == ' ' && last_space) {
                continue;
            }
            last_space = c == ' ';
            text.push(c);
        }
        true
    }

    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        let Typing::Comment(text) = &mut self.typing else {
            return OverlayKey::Ignored;
        };
        match key.code {
            KeyCode::Char(c)
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                text.push(c);
            }
            KeyCode::Backspace => {
                text.pop();
            }
            _ => return OverlayKey::Ignored,
        }
        OverlayKey::Handled
    }
}
