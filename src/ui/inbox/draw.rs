//! Drawing the inbox: a header, one row per action (countdown, kind, session, request),
//! the deciding panel (the session's own prompt) under the list while deciding, the mode
//! line and the key hints. Every string drawn is server text made safe on the way in
//! ([`crate::fleet::inbox`]) or the app's own.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::columns;
use super::{InboxMode, InboxView};
use crate::deadline::Deadline;
use crate::fleet::inbox::InboxItem;
use crate::fleet::model::FleetModel;
use crate::keys::decision::Decision;
use crate::keys::mode::Confirm;
use crate::keys::table::inbox_hints;
use crate::ui::fleet::{clear, visible_offset};
use crate::ui::theme::Theme;
use gobare_api::model::RequiredActionKind;
use gobare_api::text;

/// Columns of the countdown ("≈ 1h 12m", "expired").
const DEADLINE_COLS: usize = 12;
/// Columns of the kind ("approval⚠").
const KIND_COLS: usize = 10;
/// A countdown this close is drawn as a warning.
const SOON_MS: i64 = 5 * 60_000;

impl InboxView {
    /// Draws the inbox over `area`; countdowns are measured against `now_ms`.
    pub fn render(
        &mut self,
        area: Rect,
        buf: &mut Buffer,
        model: &FleetModel,
        theme: &Theme,
        now_ms: i64,
    ) {
        self.refresh(model, now_ms);
        clear(area, buf);
        let deciding = self.mode != InboxMode::List;
        let title = self.title(model);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(if deciding {
                theme.warning
            } else {
                theme.border_focused
            })
            .title(Span::styled(
                text::truncate(&title, usize::from(area.width.saturating_sub(2))).into_owned(),
                theme.title,
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 4 || inner.width < 8 {
            return;
        }
        let width = usize::from(inner.width);
        // The deciding panel takes up to half the rows under the list.
        let panel = self.panel_rows(model, inner, theme, now_ms);
        let list_rows = usize::from(inner.height - 3 - panel);
        self.page_rows = list_rows.max(1);
        let session_cols =
            columns::session_cols(self.gathered.items(), width, 2 + DEADLINE_COLS + KIND_COLS);
        buf.set_line(
            inner.x,
            inner.y,
            &header(width, session_cols, theme),
            inner.width,
        );
        self.draw_rows(buf, inner, session_cols, theme, now_ms);
        if panel > 0 {
            let at = Rect::new(inner.x, inner.bottom() - 2 - panel, inner.width, panel);
            if let Some(facts) = self.facts(model) {
                self.prompt.render(&facts, at, buf, theme);
            }
        }
        buf.set_line(
            inner.x,
            inner.bottom() - 2,
            &self.mode_line(width, theme),
            inner.width,
        );
        buf.set_span(
            inner.x,
            inner.bottom() - 1,
            &Span::styled(
                text::truncate(&format!("  {}", self.hint_line(model)), width).into_owned(),
                theme.dim,
            ),
            inner.width,
        );
    }

    /// The frame's title: while deciding, that its keys answer it; else what waits.
    fn title(&self, model: &FleetModel) -> String {
        if self.mode != InboxMode::List {
            " Inbox · Deciding: its keys answer it ".to_string()
        } else {
            // The sessions counted as the fleet's header and the terminal's title count
            // them; a session may wait on more than one decision.
            let (decisions, sessions) = (self.gathered.items().len(), model.needing_you());
            format!(
                " Inbox · {decisions} decision{} · {sessions} session{} need{} you · soonest deadline first ",
                if decisions == 1 { "" } else { "s" },
                if sessions == 1 { "" } else { "s" },
                if sessions == 1 { "s" } else { "" },
            )
        }
    }

    /// The list's rows under its header (a word when nothing waits), scrolled to keep the
    /// selection in view; notes when the soonest countdown shown next changes.
    fn draw_rows(
        &mut self,
        buf: &mut Buffer,
        inner: Rect,
        session_cols: usize,
        theme: &Theme,
        now_ms: i64,
    ) {
        let width = usize::from(inner.width);
        if self.gathered.items().is_empty() {
            buf.set_span(
                inner.x,
                inner.y + 1,
                &Span::styled(
                    text::truncate("  Nothing waits on you.", width).into_owned(),
                    theme.dim,
                ),
                inner.width,
            );
        }
        let index = self.current_index().unwrap_or(0);
        self.offset = visible_offset(self.offset, index, self.page_rows);
        let end = (self.offset + self.page_rows).min(self.gathered.items().len());
        let mut true_for: Option<i64> = None;
        for (n, i) in (self.offset..end).enumerate() {
            let item = &self.gathered.items()[i];
            if let Some(ms) = next_change(&item.deadline, now_ms) {
                true_for = Some(true_for.map_or(ms, |t| t.min(ms)));
            }
            let sending = self.sending.contains(&item.call_id);
            let line = Rect::new(inner.x, inner.y + 1 + n as u16, inner.width, 1);
            let cells = Cells {
                selected: i == index,
                sending,
                session_cols,
            };
            draw_row(buf, line, item, cells, theme, now_ms);
        }
        self.true_for_ms = true_for;
    }

    /// The hint line: the keys of this mode, for the action decided.
    pub(super) fn hint_line(&self, model: &FleetModel) -> String {
        inbox_hints(
            self.scope(),
            self.back_to.is_some(),
            self.facts(model).and_then(|f| Decision::of(&f)),
        )
    }

    /// Rows the deciding panel takes (0 in the list), its lines laid out for this frame.
    fn panel_rows(&mut self, model: &FleetModel, inner: Rect, theme: &Theme, now: i64) -> u16 {
        if self.mode == InboxMode::List {
            return 0;
        }
        let Some(facts) = self.facts(model) else {
            return 0;
        };
        self.prompt.set_focused(true);
        self.prompt.set_confirming(self.mode == InboxMode::Confirm);
        self.prompt
            .set_with_note(self.note_for_selected().is_some());
        self.prompt
            .set_typing_note(matches!(self.mode, InboxMode::Note(_)));
        self.prompt.set_now(Some(now));
        if let Some((session, _)) = &self.selected
            && let Some(waits) = model.waits().get(session)
        {
            self.prompt.set_workspace(waits.clock, self.lifetime_ms);
        }
        let wanted = self.prompt.lay_out(&facts, inner.width, theme);
        // At least the selected row stays in sight above it.
        let most = inner.height.saturating_sub(5).max(3);
        wanted.min(most).min(inner.height.saturating_sub(4))
    }

    fn mode_line(&self, width: usize, theme: &Theme) -> Line<'static> {
        let (line, style) = match &self.mode {
            // The question, or what a key other than its own (Enter) did not do; its keys
            // are on the hint line below.
            InboxMode::Confirm => match &self.message {
                Some((message, _)) => (format!("  {}", text::line(message)), theme.warning),
                None => (
                    format!(
                        "  {}",
                        Confirm::ApproveSensitive {
                            call_id: String::new()
                        }
                        .question()
                    ),
                    theme.warning,
                ),
            },
            InboxMode::Reply(typed) => (
                format!("  answer: {}▏  Enter send · Esc drop", text::line(typed)),
                theme.accent,
            ),
            InboxMode::Note(typed) => (
                // Its keys are on the hint line below.
                format!("  note: {}▏", text::line(typed)),
                theme.accent,
            ),
            _ => match &self.message {
                Some((message, error)) => (
                    format!("  {}", text::line(message)),
                    if *error { theme.error } else { theme.dim },
                ),
                None if self.mode == InboxMode::Deciding => match self.note_for_selected() {
                    Some(note) => (
                        format!(
                            "  Deciding, with the note \"{}\" (y or n sends it after the decision)",
                            text::line(note)
                        ),
                        theme.accent,
                    ),
                    None => (
                        "  Deciding: the keys below answer the selected action · Esc back to the list"
                            .to_string(),
                        theme.accent,
                    ),
                },
                None => (String::new(), theme.dim),
            },
        };
        Line::from(Span::styled(
            text::truncate(&line, width).into_owned(),
            style,
        ))
    }
}

fn header(width: usize, session: usize, theme: &Theme) -> Line<'static> {
    let text = format!(
        "  {:<DEADLINE_COLS$}{:<KIND_COLS$}{:<session$}request",
        "deadline", "kind", "session"
    );
    Line::from(Span::styled(
        text::truncate(&text, width).into_owned(),
        theme.dim,
    ))
}

/// How one row is drawn besides its item.
#[derive(Debug, Clone, Copy)]
struct Cells {
    selected: bool,
    sending: bool,
    session_cols: usize,
}

/// Draws one item on the one-row `line`: each cell put at its column (no padding run
/// through the grapheme segmenter), the selected row's background across.
fn draw_row(buf: &mut Buffer, line: Rect, item: &InboxItem, cells: Cells, theme: &Theme, now: i64) {
    let Cells {
        selected,
        sending,
        session_cols,
    } = cells;
    let (x, y, width) = (line.x, line.y, usize::from(line.width));
    let base = if selected {
        buf.set_style(line, theme.selection);
        theme.selection
    } else {
        Style::default()
    };
    // An unknown deadline says why, short (the legend in F1 says it whole).
    let countdown = match item.deadline {
        Deadline::Unknown => item.unknown_why().short().to_string(),
        _ => item.deadline.show(now),
    };
    let countdown_style = match item.deadline {
        _ if item.deadline.is_past(now) => theme.error,
        Deadline::Exact(at) | Deadline::Estimate(at) if at.saturating_sub(now) < SOON_MS => {
            theme.warning
        }
        Deadline::Unknown | Deadline::None => theme.dim,
        _ => theme.text,
    };
    let kind = match item.kind {
        RequiredActionKind::Approval if item.sensitive => "approval⚠",
        RequiredActionKind::Approval => "approval",
        RequiredActionKind::Question => "question",
        RequiredActionKind::FunctionCall => "function",
        RequiredActionKind::Other(_) => "other",
    };
    let kind_style = if item.sensitive {
        theme.warning
    } else {
        theme.text
    };
    let sending_request;
    let request = if sending {
        sending_request = format!("sending… {}", item.request);
        &sending_request
    } else {
        &item.request
    };
    let marker = if selected { "› " } else { "  " };
    // The session's end tells rows apart ("… order A-4471"): it survives the cut.
    let session = columns::cut_keeping_end(&item.session, session_cols.saturating_sub(1));
    let cells: [(&str, usize, Style); 5] = [
        (marker, 2, theme.accent),
        (&countdown, DEADLINE_COLS, countdown_style),
        (kind, KIND_COLS, kind_style),
        (&session, session_cols, theme.strong),
        (request, usize::MAX, theme.text),
    ];
    let mut at = 0;
    for (n, (cell, cols, style)) in cells.into_iter().enumerate() {
        let left = width - at;
        if left == 0 {
            break;
        }
        let cols = cols.min(left);
        // A text column is cut one short, so neighbours never touch.
        let room = if n == 0 || cols == left {
            cols
        } else {
            cols - 1
        };
        buf.set_stringn(
            x + at as u16,
            y,
            text::truncate(cell, room),
            room,
            base.patch(style),
        );
        at += cols;
    }
}

/// Milliseconds until the countdown shown for `deadline` changes; `None` when it stands.
fn next_change(deadline: &Deadline, now: i64) -> Option<i64> {
    match *deadline {
        Deadline::Exact(at) | Deadline::Estimate(at) => {
            let left = at.checked_sub(now)?;
            // Seconds are rounded up: the shown value drops when `left` crosses a second.
            (left > 0).then(|| (left - 1).rem_euclid(1000) + 1)
        }
        _ => None,
    }
}
