//! The "while you were away" digest drawn at the top of a screen, over what is there, in a
//! bordered box as tall as its lines (at most half the screen); its title says how long
//! the absence was, which key closes it and, when it holds more than it shows, which keys
//! scroll it. The fleet's is [`crate::away::fleet_lines`]: what waits first, then
//! failures, then the churn in a line.

use super::theme::Theme;
use crate::away::digest::Digest;
use crate::away::lines::{Tone, heading, lines};
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

/// Every line of the banner: `digests` one after the other, each under its session's name,
/// or the fleet's digest when `named` (several sessions).
fn all_lines(digests: &[Digest], named: bool) -> Vec<(Tone, String)> {
    if named {
        return crate::away::fleet_lines::fleet_lines(digests);
    }
    digests.iter().flat_map(|d| lines(d, false)).collect()
}

/// The body's rows at most: what half of `area` holds.
fn most_rows(area: Rect) -> usize {
    usize::from(area.height / 2).saturating_sub(2).max(1)
}

/// The rows a banner of `all` takes at the top of `area` (0: none, too small a screen).
pub(crate) fn height_of(area: Rect, all: &[(Tone, String)]) -> u16 {
    if area.height < 4 || area.width < 20 || all.is_empty() {
        return 0;
    }
    let rows = all.len().min(most_rows(area));
    (rows as u16 + 2).min(area.height)
}

/// How far a banner of `all` can scroll in `area` (0: it shows every line).
pub(crate) fn scroll_room_of(area: Rect, all: &[(Tone, String)]) -> usize {
    all.len().saturating_sub(most_rows(area))
}

/// The banner over the top of `area`. Returns the rows it took.
pub(crate) fn render(
    area: Rect,
    buf: &mut Buffer,
    digests: &[Digest],
    named: bool,
    away_ms: i64,
    scroll: usize,
    theme: &Theme,
) -> u16 {
    if digests.is_empty() {
        return 0;
    }
    render_lines(
        area,
        buf,
        &all_lines(digests, named),
        away_ms,
        scroll,
        theme,
    )
}

/// A banner of the lines `all` over the top of `area`. Returns the rows it took.
pub(crate) fn render_lines(
    area: Rect,
    buf: &mut Buffer,
    all: &[(Tone, String)],
    away_ms: i64,
    scroll: usize,
    theme: &Theme,
) -> u16 {
    let height = height_of(area, all);
    if height == 0 {
        return 0;
    }
    let rows = most_rows(area);
    let from = scroll.min(all.len().saturating_sub(rows));
    let body = &all[from..(from + rows).min(all.len())];
    let rect = Rect { height, ..area };
    Clear.render(rect, buf);
    let title = if all.len() > rows {
        format!(
            " {} · Esc closes · PgUp/PgDn {}–{} of {} ",
            heading(away_ms),
            from + 1,
            from + body.len(),
            all.len()
        )
    } else {
        format!(" {} · Esc closes ", heading(away_ms))
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(
            text::truncate(&title, usize::from(rect.width.saturating_sub(2))).into_owned(),
            theme.title,
        ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let width = usize::from(inner.width);
    for (row, (tone, line)) in body.iter().enumerate() {
        let y = inner.y + row as u16;
        if y >= inner.bottom() {
            break;
        }
        let shown = text::truncate(line, width).into_owned();
        buf.set_line(
            inner.x,
            y,
            &Line::from(Span::styled(shown, style(*tone, theme))),
            inner.width,
        );
    }
    height
}

fn style(tone: Tone, theme: &Theme) -> Style {
    match tone {
        Tone::Head => theme.heading,
        Tone::Bad => theme.error,
        Tone::Attention => theme.warning,
        Tone::Good => theme.ok,
        Tone::Plain => theme.text,
    }
}

#[cfg(test)]
mod tests;
