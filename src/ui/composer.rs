//! The input box: a multi-line `ratatui-textarea` that grows with its content, edited with
//! readline's keys, plus the keys that turn what was typed into an action (send, steer,
//! cancel, history, the external editor).
//!
//! The box keeps its text when it asks for a send or steer; the app takes it out at once
//! (`Composer::clear`) and shows the send in flight above the box
//! (`Composer::set_pending`), so what is typed next is a new draft. A send that does not
//! take gives its text back.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};
use ratatui_textarea::{TextArea, WrapMode};

use crate::store::SendHistory;
use crate::ui::theme::Theme;
use gobare_api::text;

/// What a key in the composer asks the app to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// Enter: send this (trimmed, non-empty) message.
    Send(String),
    /// Ctrl+S: steer the running turn with this (trimmed, non-empty) text.
    Steer(String),
    /// Ctrl+T: add the text to the session without starting a turn (`input.context`).
    Context(String),
    /// Ctrl+X: cancel the running turn.
    Cancel,
    /// Ctrl+G: edit the draft in `$VISUAL` / `$EDITOR`.
    EditExternally,
    /// Up on the first line: show the previous sent message.
    HistoryPrev,
    /// Down on the last line: show the next sent message (or the draft).
    HistoryNext,
    /// Not a composer key: the app may use it (Tab, Esc, PgUp/PgDn, Ctrl+C, Ctrl+Z, F-keys…).
    None,
    /// The composer used the key (edited, moved the cursor, or ignored an empty send).
    Consumed,
}

/// Lines of text the box shows before it scrolls.
pub(crate) const DEFAULT_MAX_LINES: u16 = 6;

pub struct Composer {
    textarea: WindowedText,
    max_lines: u16,
    turn_running: bool,
    /// Set by the app from the mode; empty means the typing title.
    title: String,
    /// Sends in flight, one line each, drawn dim above the box (the box holds the draft).
    pending: Vec<String>,
}

/// Rows of pending sends shown above the box; more are summed up on the last row.
const MAX_PENDING_ROWS: usize = 3;

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

fn new_textarea(lines: Vec<String>) -> TextArea<'static> {
    let mut textarea = TextArea::new(lines);
    textarea.set_placeholder_text("Type a message…");
    textarea.set_wrap_mode(WrapMode::WordOrGlyph);
    textarea.set_cursor_line_style(ratatui::style::Style::default());
    textarea
}

/// Pasted text: line endings normalized, control characters other than newline and tab
/// dropped (a paste can carry escape sequences too).
fn clean_paste(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !text::is_unsafe(c))
        .collect()
}

impl Composer {
    pub fn new() -> Self {
        Composer {
            textarea: WindowedText::new(vec![String::new()], new_textarea),
            max_lines: DEFAULT_MAX_LINES,
            turn_running: false,
            title: String::new(),
            pending: Vec::new(),
        }
    }

    /// Whether a turn is running (adds the steer/cancel hints to the title).
    pub(crate) fn set_turn_running(&mut self, running: bool) {
        self.turn_running = running;
    }

    /// The sends in flight, one label each (the app words them), shown above the draft.
    pub(crate) fn set_pending(&mut self, labels: Vec<String>) {
        self.pending = labels;
    }

    /// The rows drawn above the box for the sends in flight.
    fn pending_rows(&self) -> Vec<String> {
        if self.pending.len() <= MAX_PENDING_ROWS {
            return self.pending.clone();
        }
        let mut rows = self.pending[..MAX_PENDING_ROWS - 1].to_vec();
        let more = self.pending.len() - rows.len();
        rows.push(format!("… and {more} more sends in flight"));
        rows
    }

    /// The text as typed, lines joined with `\n`.
    pub(crate) fn text(&self) -> String {
        self.textarea.text()
    }

    /// The line the cursor is on, the cursor's column in it (chars), which line of how many
    /// it is: what a line editor shows.
    pub(crate) fn cursor_line(&self) -> (String, usize, usize, usize) {
        let (row, col) = self.textarea.cursor();
        (
            self.textarea.cursor_line().to_string(),
            col,
            row,
            self.textarea.len(),
        )
    }

    /// Replaces the text (e.g. from history), cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        let lines = clean_paste(text).split('\n').map(str::to_string).collect();
        self.textarea = WindowedText::new(lines, new_textarea);
    }

    pub(crate) fn clear(&mut self) {
        self.set_text("");
    }

    /// True when there is nothing but whitespace to send.
    pub(crate) fn is_empty(&self) -> bool {
        self.textarea.lines().all(|l| l.trim().is_empty())
    }

    fn trimmed(&self) -> Option<String> {
        let text = self.text();
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// Inserts pasted text at the cursor, newlines kept. Never sends.
    pub(crate) fn handle_paste(&mut self, text: &str) {
        self.textarea.insert_str(clean_paste(text));
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> ComposerAction {
        if key.kind == KeyEventKind::Release {
            return ComposerAction::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter if key.modifiers.is_empty() => {
                return self
                    .trimmed()
                    .map_or(ComposerAction::Consumed, ComposerAction::Send);
            }
            KeyCode::Char('s') if ctrl => {
                return self
                    .trimmed()
                    .map_or(ComposerAction::Consumed, ComposerAction::Steer);
            }
            KeyCode::Char('x') if ctrl => return ComposerAction::Cancel,
            KeyCode::Char('g') if ctrl => return ComposerAction::EditExternally,
            KeyCode::Char('t') if ctrl => {
                return self
                    .trimmed()
                    .map_or(ComposerAction::Consumed, ComposerAction::Context);
            }
            _ => {}
        }
        let Some(op) = edit_op_for(key) else {
            // Not an edit: left to the app (focus, scrolling, quit, suspend, refresh…).
            return ComposerAction::None;
        };
        // Up on the first line and Down on the last browse the history (Ctrl+P / Ctrl+N
        // too, as in readline).
        match op {
            EditOp::LineUp if self.textarea.at_first_line() => ComposerAction::HistoryPrev,
            EditOp::LineDown if self.textarea.at_last_line() => ComposerAction::HistoryNext,
            op => {
                self.edit(op);
                ComposerAction::Consumed
            }
        }
    }

    /// Makes `text` what Ctrl+Y puts back (readline's yank): keys held after a decision are
    /// kept there, out of the box, until the person wants them.
    pub(crate) fn offer_back(&mut self, text: &str) {
        if !text.is_empty() {
            self.textarea.textarea_mut().set_yank_text(text);
        }
    }

    /// Carries out one edit at the cursor.
    pub(crate) fn edit(&mut self, op: EditOp) {
        match op {
            EditOp::TextStart => return self.textarea.cursor_to_top(),
            EditOp::TextEnd => return self.textarea.cursor_to_bottom(),
            _ => {}
        }
        self.textarea.edit(|t| edit::apply(t, op));
    }
    /// The title: mode and the keys that act on the text.
    /// The box's title: the mode it is in and that mode's keys (the app sets it each frame).
    pub(crate) fn set_title(&mut self, title: String) {
        self.title = title;
    }

    pub(crate) fn title(&self) -> String {
        if self.title.is_empty() {
            " Typing · Enter send ".into()
        } else {
            self.title.clone()
        }
    }

    /// Rows the box wants at `width` (borders and pending sends included): grows with the
    /// text's wrapped lines from 1 up to the maximum (counting stops there: a long draft
    /// costs what the box shows).
    pub fn desired_height(&self, width: u16) -> u16 {
        let pending = u16::try_from(self.pending_rows().len()).unwrap_or(u16::MAX);
        self.box_height(width).saturating_add(pending)
    }

    /// Rows of the box itself, borders included.
    fn box_height(&self, width: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(2)).max(1);
        let max = usize::from(self.max_lines);
        let mut rows = 0;
        for line in self.textarea.lines() {
            rows += text::width(line).div_ceil(inner).max(1);
            if rows >= max {
                break;
            }
        }
        u16::try_from(rows.clamp(1, max)).unwrap_or(self.max_lines) + 2
    }

    /// Draws the pending sends and, below them, the box into `area` (the box keeps its rows
    /// first when `area` is short).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, look: BoxLook) {
        let rows = self.pending_rows();
        let pending = u16::try_from(rows.len())
            .unwrap_or(u16::MAX)
            .min(area.height.saturating_sub(self.box_height(area.width)));
        let [pending_area, box_area] =
            Layout::vertical([Constraint::Length(pending), Constraint::Min(0)]).areas(area);
        let width = usize::from(area.width);
        for (i, label) in rows.iter().take(usize::from(pending)).enumerate() {
            let line = text::truncate(&text::line(label), width).into_owned();
            let row = Rect {
                y: pending_area.y + i as u16,
                height: 1,
                ..pending_area
            };
            Line::from(Span::styled(line, theme.dim)).render(row, buf);
        }
        self.render_box(box_area, buf, theme, look);
    }

    fn render_box(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, look: BoxLook) {
        let focused = look == BoxLook::Typing;
        if look == BoxLook::Commands {
            return render_commands_box(area, buf, theme, &self.title());
        }
        let border = if focused {
            theme.border_focused
        } else {
            theme.border
        };
        let title =
            text::truncate(&self.title(), usize::from(area.width.saturating_sub(2))).into_owned();
        let textarea = self.textarea.textarea_mut();
        textarea.set_block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(border)
                .title(Line::from(Span::styled(title, theme.title))),
        );
        textarea.set_placeholder_style(theme.placeholder);
        textarea.set_style(theme.text);
        let cursor = if focused { theme.selection } else { theme.text };
        textarea.set_cursor_style(cursor);
        textarea.set_selection_style(theme.selection);
        (&*textarea).render(area, buf);
    }
}

/// How the box looks: taking text, handing its keys to the panes, or waiting aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxLook {
    Typing,
    /// The panes have the keys: the box is dimmed and says letters are commands (the draft
    /// is kept, and shows again on the way back).
    Commands,
    Elsewhere,
}

impl From<&crate::keys::mode::Mode> for BoxLook {
    fn from(mode: &crate::keys::mode::Mode) -> BoxLook {
        if mode.is_typing() {
            BoxLook::Typing
        } else if mode.pane_has_keys() {
            BoxLook::Commands
        } else {
            BoxLook::Elsewhere
        }
    }
}

/// What the box shows while the panes have the keys.
pub(crate) const COMMANDS_TEXT: &str = "keys are commands here · Esc to type";

fn render_commands_box(area: Rect, buf: &mut Buffer, theme: &Theme, title: &str) {
    let title = text::truncate(title, usize::from(area.width.saturating_sub(2))).into_owned();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.dim)
        .title(Line::from(Span::styled(title, theme.dim)));
    let inner = block.inner(area);
    block.render(area, buf);
    let line = text::truncate(COMMANDS_TEXT, usize::from(inner.width)).into_owned();
    Line::from(Span::styled(line, theme.dim)).render(inner, buf);
}

/// The send history ([`SendHistory`], the session file's) browsed with Up/Down.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    sent: SendHistory,
    /// Index into the entries while browsing; `None` when editing a fresh draft.
    cursor: Option<usize>,
    /// What was in the box when browsing started, given back after the newest entry.
    draft: Option<String>,
}

impl History {
    pub(crate) fn new(sent: SendHistory) -> Self {
        Self {
            sent,
            ..Self::default()
        }
    }

    pub fn entries(&self) -> &[String] {
        self.sent.entries()
    }

    /// Records a sent message ([`SendHistory::push`]'s rule) and stops browsing.
    pub(crate) fn push(&mut self, text: &str) {
        self.cursor = None;
        self.draft = None;
        self.sent.push(text);
    }

    /// One step older; `current` is the box's text, kept as the draft when browsing starts.
    /// `None` when there is nothing older.
    pub(crate) fn older(&mut self, current: &str) -> Option<String> {
        let entries = self.sent.entries();
        let next = match self.cursor {
            None if entries.is_empty() => return None,
            None => {
                self.draft = Some(current.to_string());
                entries.len() - 1
            }
            Some(0) => return None,
            Some(i) => i - 1,
        };
        self.cursor = Some(next);
        Some(entries[next].clone())
    }

    /// One step newer; past the newest entry gives back the draft. `None` when not browsing.
    pub(crate) fn newer(&mut self) -> Option<String> {
        let i = self.cursor?;
        let entries = self.sent.entries();
        if i + 1 < entries.len() {
            self.cursor = Some(i + 1);
            Some(entries[i + 1].clone())
        } else {
            self.cursor = None;
            Some(self.draft.take().unwrap_or_default())
        }
    }
}

mod edit;
#[cfg(test)]
mod tests;
mod window;

pub(crate) use edit::{EditOp, edit_op_for};

use window::WindowedText;
