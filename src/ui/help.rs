//! The key list (F1, or `?` in the panes): every key of every mode, centered over the screen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::ui::theme::Theme;
use gobare_api::text;

/// The list's rows, as (keys, what they do); a row with empty keys heads a mode. The app
/// hands them over from its key table, the one place keys are described.
pub(crate) type Rows = [(String, String)];

const TITLE: &str = " Keys · Esc or F1 to close ";
/// When the list is taller than the screen.
const TITLE_MORE: &str = " Keys · ↑↓ PgUp PgDn more · Esc close ";

/// The widest key column and the list's natural width (every description on one line).
fn natural_widths(rows: &Rows) -> (usize, usize) {
    let key_w = rows.iter().map(|(k, _)| text::width(k)).max().unwrap_or(0);
    let what_w = rows.iter().map(|(_, w)| text::width(w)).max().unwrap_or(0);
    (key_w, (key_w + 2 + what_w + 4).max(text::width(TITLE) + 2))
}

/// The list's rows at an overlay `width`: a description too long for its column wraps
/// under itself rather than being cut.
fn lines(width: u16, theme: &Theme, rows: &Rows) -> Vec<Line<'static>> {
    let (key_w, _) = natural_widths(rows);
    // Inside the border: one space, the keys, two spaces, the description.
    let what_w = usize::from(width).saturating_sub(2 + 1 + key_w + 2).max(8);
    let indent = " ".repeat(1 + key_w + 2);
    let mut out = Vec::with_capacity(rows.len());
    for (keys, what) in rows {
        if keys.is_empty() {
            out.push(Line::from(Span::styled(format!(" {what}"), theme.title)));
            continue;
        }
        let pad = " ".repeat(key_w - text::width(keys));
        for (i, part) in text::wrap(what, what_w).into_iter().enumerate() {
            let lead = if i == 0 {
                Span::styled(format!(" {keys}{pad}  "), theme.key_hint)
            } else {
                Span::raw(indent.clone())
            };
            out.push(Line::from(vec![lead, Span::styled(part, theme.text)]));
        }
    }
    out
}

/// Rows of the list at an overlay `width` (what scrolling can reach).
pub(crate) fn rows(width: u16, rows: &Rows) -> usize {
    lines(width, &Theme::no_color(), rows).len()
}

/// The overlay's width in `area`: the list's natural width, clipped.
pub(crate) fn overlay_width(area: Rect, rows: &Rows) -> u16 {
    let (_, natural) = natural_widths(rows);
    u16::try_from(natural).unwrap_or(u16::MAX).min(area.width)
}

/// The overlay's rectangle: the list's natural size, centered, clipped to `area` (what
/// [`render`] draws into).
#[cfg(test)]
fn area(area: Rect, list: &Rows) -> Rect {
    let width = overlay_width(area, list);
    placed(area, width, rows(width, list))
}

/// The overlay of `width` holding `rows` list rows, centered in `area`.
fn placed(area: Rect, width: u16, rows: usize) -> Rect {
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX).min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Draws the help overlay centered in `area`, clearing what is beneath it.
/// `scroll` rows of the list are skipped (clamped so the last row can reach the bottom).
pub(crate) fn render(area: Rect, buf: &mut Buffer, theme: &Theme, scroll: u16, rows: &Rows) {
    let width = overlay_width(area, rows);
    let lines = self::lines(width, theme, rows);
    let overlay = placed(area, width, lines.len());
    let room = usize::from(overlay.height.saturating_sub(2));
    let skip = usize::from(scroll).min(lines.len().saturating_sub(room));
    let more = lines.len() > room;
    let lines: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
    let title = if more { TITLE_MORE } else { TITLE };
    Clear.render(overlay, buf);
    Paragraph::new(lines)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border_focused)
                .title(Span::styled(title, theme.title)),
        )
        .render(overlay, buf);
}

#[cfg(test)]
mod tests;
