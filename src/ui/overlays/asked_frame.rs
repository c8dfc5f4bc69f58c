//! The frame the policy overlays (rules, labels, model) draw in: a titled box, a body that
//! scrolls to keep one line in view, and at its foot the question or the last word, with
//! the keys of the overlay's state on the bottom border.

use crate::ui::overlays;
use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

/// What one overlay draws this frame.
pub(crate) struct Framed {
    pub(crate) title: String,
    /// The body; `focus` is the index of the line kept in view (the last row shown at
    /// most), unless `top` says which line is the first row.
    pub(crate) body: Vec<Line<'static>>,
    pub(crate) focus: usize,
    pub(crate) top: Option<usize>,
    /// Lines at the foot (a question, what is being typed, the last word), wrapped.
    pub(crate) foot: Vec<Line<'static>>,
    pub(crate) hints: String,
}

/// `text` wrapped to `width` columns, each row styled `style`, the first after `first`
/// and the rest indented as deep (sanitized: server text goes through here).
pub(crate) fn wrapped(first: &str, raw: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let indent = " ".repeat(text::width(first));
    let room = width.saturating_sub(indent.len()).max(1);
    text::wrap(&text::one_line(raw, 2000), room)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let lead = if i == 0 {
                first.to_string()
            } else {
                indent.clone()
            };
            Line::styled(format!("{lead}{row}"), style)
        })
        .collect()
}

pub(crate) fn draw(framed: Framed, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let area = overlays::area(area);
    let inner_width = area.width.saturating_sub(2);
    let foot_rows: u16 = framed
        .foot
        .iter()
        .map(|l| {
            let w = l.width() as u16;
            if inner_width == 0 {
                1
            } else {
                w.div_ceil(inner_width).max(1)
            }
        })
        .sum();
    let inner_height = area.height.saturating_sub(2);
    // The foot keeps at least half the box: a question is never hidden by the list.
    let foot_rows = foot_rows.min(inner_height.saturating_sub(inner_height / 2).max(1));
    let body_rows = usize::from(inner_height.saturating_sub(foot_rows));
    let most = framed.body.len().saturating_sub(body_rows);
    let top = framed
        .top
        .unwrap_or_else(|| framed.focus.saturating_sub(body_rows.saturating_sub(1)))
        .min(most);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", framed.title), theme.title))
        .title_bottom(Span::styled(format!(" {} ", framed.hints), theme.dim));
    Clear.render(area, buf);
    let inner = block.inner(area);
    block.render(area, buf);
    let below = framed.body.len() > top + body_rows;
    let mut body: Vec<Line<'static>> = framed.body.into_iter().skip(top).take(body_rows).collect();
    // What does not fit is said, never silently cut: a list that is sent must be seen.
    if below && let Some(last) = body.last_mut() {
        *last = Line::styled("  … more below (↓)", theme.warning);
    }
    if top > 0
        && body_rows > 1
        && let Some(first) = body.first_mut()
    {
        *first = Line::styled("  … more above (↑)", theme.warning);
    }
    Paragraph::new(body).render(
        Rect {
            height: body_rows as u16,
            ..inner
        },
        buf,
    );
    Paragraph::new(framed.foot)
        .wrap(Wrap { trim: false })
        .render(
            Rect {
                y: inner.y + body_rows as u16,
                height: foot_rows,
                ..inner
            },
            buf,
        );
}
