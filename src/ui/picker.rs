//! The session picker: a full-screen list of sessions, newest first, loaded a page at a time.
//!
//! "Needs you" comes from `required_actions`, not `status` alone: a pending approval or
//! question may leave a session reading `working` (§14.8).

use std::cell::Cell;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::ui::theme::Theme;
use gobare_api::model::{Session, SessionStatus, WorkspaceState};
use gobare_api::text;

/// What a key in the picker asks the app to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PickerAction {
    /// Attach to this session id.
    Open(String),
    /// Create a new session.
    New,
    /// Fetch the next page (the picker is now marked loading).
    LoadMore,
    /// Leave the picker.
    Close,
    /// The picker used the key, or ignored a plain key (it is modal).
    Consumed,
    /// A key with Ctrl/Alt or an F-key: left to the app (quit, suspend, help…).
    NotMine,
}

const TITLE: &str = " Sessions · Enter open · n new · Esc close ";
const EMPTY: &str = "  No sessions yet — press n to start one";
/// Columns: marker, then status, workspace and age after the title.
const STATUS_COLS: usize = 10;
const WORKSPACE_COLS: usize = 15;
const AGE_COLS: usize = 5;
/// The label of an untitled session whose first message is not known: it has none yet,
/// or it could not be read.
const NO_MESSAGE: &str = "(untitled)";

#[derive(Debug, Clone, Default)]
pub struct PickerState {
    sessions: Vec<Session>,
    /// Untitled sessions' first messages, by id: their label in place of a title.
    first_messages: std::collections::HashMap<String, String>,
    has_more: bool,
    loading: bool,
    error: Option<String>,
    selected: usize,
    /// First row shown; kept between draws so the list scrolls only when the selection
    /// leaves the view.
    offset: Cell<usize>,
    /// List rows at the last draw, for PgUp/PgDn.
    page_rows: Cell<usize>,
}

impl PickerState {
    /// An empty picker waiting for its first page.
    pub fn loading() -> Self {
        PickerState {
            loading: true,
            ..Self::default()
        }
    }

    #[cfg(test)]
    pub(crate) fn sessions(&self) -> &[Session] {
        &self.sessions
    }

    #[cfg(test)]
    pub(crate) fn has_more(&self) -> bool {
        self.has_more
    }

    #[cfg(test)]
    pub(crate) fn is_loading(&self) -> bool {
        self.loading
    }

    pub(crate) fn set_loading(&mut self, loading: bool) {
        self.loading = loading;
    }

    /// A failed load: shown on the bottom line until the next page arrives. Server text is
    /// fine here; it is sanitized when drawn.
    pub fn set_error(&mut self, error: Option<String>) {
        self.error = error;
        self.loading = false;
    }

    pub(crate) fn selected_session(&self) -> Option<&Session> {
        self.sessions.get(self.selected)
    }

    /// Adds a page: sessions already listed are updated in place, the list is kept newest
    /// first, and the selection stays on the same session.
    pub fn append_page(&mut self, sessions: Vec<Session>, has_more: bool) {
        let keep = self.selected_session().map(|s| s.id.clone());
        for session in sessions {
            match self.sessions.iter_mut().find(|s| s.id == session.id) {
                Some(existing) => *existing = session,
                None => self.sessions.push(session),
            }
        }
        // Stable: equal timestamps keep the server's order.
        self.sessions
            .sort_by_key(|s| std::cmp::Reverse(s.created_at));
        self.selected = keep
            .and_then(|id| self.sessions.iter().position(|s| s.id == id))
            .unwrap_or(0);
        self.has_more = has_more;
        self.loading = false;
        self.error = None;
    }

    /// Labels for untitled sessions (sanitized when drawn).
    pub(crate) fn add_first_messages(&mut self, first: impl IntoIterator<Item = (String, String)>) {
        self.first_messages.extend(first);
    }

    pub(crate) fn handle_key(&mut self, key: KeyEvent) -> PickerAction {
        if key.kind == KeyEventKind::Release {
            return PickerAction::Consumed;
        }
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            || matches!(key.code, KeyCode::F(_))
        {
            return PickerAction::NotMine;
        }
        let page = self.page_rows.get().max(1);
        let last = self.sessions.len().saturating_sub(1);
        let target = match key.code {
            KeyCode::Enter => {
                return self
                    .selected_session()
                    .map_or(PickerAction::Consumed, |s| PickerAction::Open(s.id.clone()));
            }
            KeyCode::Char('n') => return PickerAction::New,
            KeyCode::Esc | KeyCode::Char('q') => return PickerAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected + 1,
            KeyCode::PageUp => self.selected.saturating_sub(page),
            KeyCode::PageDown => self.selected + page,
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => usize::MAX,
            _ => return PickerAction::Consumed,
        };
        let asked_past_end = target > last || self.sessions.is_empty();
        self.selected = target.min(last);
        let moving_down = matches!(
            key.code,
            KeyCode::Down | KeyCode::Char('j' | 'G') | KeyCode::PageDown | KeyCode::End
        );
        if moving_down && (asked_past_end || self.selected == last) && self.wants_more() {
            self.loading = true;
            return PickerAction::LoadMore;
        }
        PickerAction::Consumed
    }

    fn wants_more(&self) -> bool {
        self.has_more && !self.loading
    }

    /// Draws the picker over `area` (clearing it); ages are measured against `now_ms`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, now_ms: i64) {
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .title(Span::styled(
                text::truncate(TITLE, usize::from(area.width.saturating_sub(2))).into_owned(),
                theme.title,
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let width = usize::from(inner.width);
        // Header, list, then one line for loading / more / error.
        let rows = usize::from(inner.height).saturating_sub(2).max(1);
        self.page_rows.set(rows);
        let mut lines = Vec::new();
        if self.sessions.is_empty() {
            let text = if self.loading {
                "  loading sessions…"
            } else {
                EMPTY
            };
            lines.push(Line::from(Span::styled(
                text::truncate(text, width).into_owned(),
                theme.dim,
            )));
        } else {
            lines.push(self.header(width, theme));
            let offset = visible_offset(self.offset.get(), self.selected, rows);
            self.offset.set(offset);
            for (i, session) in self.sessions.iter().enumerate().skip(offset).take(rows) {
                let first = &self.first_messages;
                lines.push(row(
                    session,
                    first,
                    i == self.selected,
                    width,
                    theme,
                    now_ms,
                ));
            }
        }
        while lines.len() < usize::from(inner.height).saturating_sub(1) {
            lines.push(Line::default());
        }
        lines.truncate(usize::from(inner.height).saturating_sub(1));
        lines.push(self.footer(width, theme));
        Paragraph::new(lines).render(inner, buf);
    }

    fn header(&self, width: usize, theme: &Theme) -> Line<'static> {
        let title_cols = title_cols(width);
        Line::from(Span::styled(
            text::truncate(
                &format!(
                    "  {:<title_cols$} {:<STATUS_COLS$} {:<WORKSPACE_COLS$} {:>AGE_COLS$}",
                    "Session", "Status", "Workspace", "Age"
                ),
                width,
            )
            .into_owned(),
            theme.dim,
        ))
    }

    fn footer(&self, width: usize, theme: &Theme) -> Line<'static> {
        let (text, style) = if let Some(error) = &self.error {
            (
                format!("  couldn't load sessions: {}", text::line(error)),
                theme.error,
            )
        } else if self.loading {
            ("  loading…".to_string(), theme.dim)
        } else if self.has_more {
            (
                "  more below — End loads the next page".to_string(),
                theme.dim,
            )
        } else {
            (String::new(), theme.dim)
        };
        Line::from(Span::styled(
            text::truncate(&text, width).into_owned(),
            style,
        ))
    }
}

/// The first row to show so that `selected` is visible, moving as little as possible.
fn visible_offset(offset: usize, selected: usize, rows: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + rows {
        selected + 1 - rows
    } else {
        offset
    }
}

fn title_cols(width: usize) -> usize {
    width.saturating_sub(2 + 1 + STATUS_COLS + 1 + WORKSPACE_COLS + 1 + AGE_COLS)
}

fn row(
    session: &Session,
    first_messages: &std::collections::HashMap<String, String>,
    selected: bool,
    width: usize,
    theme: &Theme,
    now_ms: i64,
) -> Line<'static> {
    let title_cols = title_cols(width);
    let (title, title_style) = label(session, first_messages, theme);
    let (status, status_style) = status_label(session, theme);
    let (workspace, workspace_style) = workspace_label(session.environment.state.as_ref(), theme);
    let marker = if selected { "› " } else { "  " };
    let mut spans = vec![
        Span::styled(marker, theme.accent),
        padded(&title, title_cols, title_style),
        Span::raw(" "),
        padded(&status, STATUS_COLS, status_style),
        Span::raw(" "),
        padded(&workspace, WORKSPACE_COLS, workspace_style),
        Span::raw(" "),
        Span::styled(
            format!("{:>AGE_COLS$}", age(now_ms - session.created_at)),
            theme.dim,
        ),
    ];
    if selected {
        for span in &mut spans {
            span.style = span.style.patch(theme.selection);
        }
    }
    // Narrow screens: cut the whole line rather than let columns collide.
    let mut left = width;
    let spans = spans
        .into_iter()
        .filter_map(|span| {
            if left == 0 {
                return None;
            }
            let text = text::truncate(&span.content, left).into_owned();
            left -= text::width(&text).min(left);
            Some(Span::styled(text, span.style))
        })
        .collect::<Vec<_>>();
    Line::from(spans)
}

/// Already-sanitized text cut or padded to exactly `cols` cells.
fn padded(text: &str, cols: usize, style: Style) -> Span<'static> {
    let cut = text::truncate(text, cols);
    let pad = cols.saturating_sub(text::width(&cut));
    Span::styled(format!("{cut}{}", " ".repeat(pad)), style)
}

/// The title; else, dimmed, the first message, so an untitled session reads as what it
/// was asked rather than as an id.
fn label(
    session: &Session,
    first_messages: &std::collections::HashMap<String, String>,
    theme: &Theme,
) -> (String, Style) {
    match session.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => (text::line(t).into_owned(), theme.text),
        _ => match first_messages.get(&session.id) {
            Some(first) => (text::one_line(first, 500), theme.dim),
            None => (NO_MESSAGE.into(), theme.dim),
        },
    }
}

fn status_label(session: &Session, theme: &Theme) -> (String, Style) {
    if !session.required_actions.is_empty() || session.status == SessionStatus::RequiresAction {
        return ("needs you".into(), theme.badge);
    }
    match &session.status {
        SessionStatus::Idle => ("idle".into(), theme.dim),
        SessionStatus::Working => ("working".into(), theme.accent),
        SessionStatus::Failed => ("failed".into(), theme.error),
        other => (text::line(other.as_str()).into_owned(), theme.text),
    }
}

/// The §9.1 display names, shortened to fit a column.
fn workspace_label(state: Option<&WorkspaceState>, theme: &Theme) -> (String, Style) {
    match state {
        Some(WorkspaceState::Unknown) => ("starting".into(), theme.dim),
        Some(WorkspaceState::Running) => ("running".into(), theme.ok),
        Some(WorkspaceState::Paused) => ("paused".into(), theme.dim),
        Some(WorkspaceState::Destroyed) => ("destroyed".into(), theme.dim),
        Some(WorkspaceState::Recovering) => ("recovering".into(), theme.warning),
        Some(WorkspaceState::RecoveryFailed) => ("recovery failed".into(), theme.error),
        Some(WorkspaceState::Other(s)) => (text::line(s).into_owned(), theme.dim),
        None => ("unknown".into(), theme.dim),
    }
}

/// "now", "3 m", "2 h", "5 d": coarse on purpose; a negative age (clock skew) is "now".
pub(crate) fn age(elapsed_ms: i64) -> String {
    let secs = elapsed_ms / 1000;
    match secs {
        s if s < 60 => "now".into(),
        s if s < 3600 => format!("{} m", s / 60),
        s if s < 86_400 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

#[cfg(test)]
mod tests;
