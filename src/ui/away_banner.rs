//! The "while you were away" digest drawn at the top of a screen, over what is there, in a
//! bordered box as tall as its lines (at most half the screen); its title says how long
//! the absence was and which key closes it.

use super::theme::Theme;
use crate::away::digest::Digest;
use crate::away::lines::{Tone, heading, lines};
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

/// The banner's lines: `digests` one after the other, each under its session's name when
/// `named` (the fleet's); cut to what half of `area` holds.
fn body(area: Rect, digests: &[Digest], named: bool) -> Vec<(Tone, String)> {
    let mut body: Vec<(Tone, String)> = Vec::new();
    for d in digests {
        body.extend(lines(d, named));
    }
    let most = usize::from(area.height / 2).saturating_sub(2).max(1);
    let cut = body.len().saturating_sub(most);
    if cut > 0 {
        body.truncate(most.saturating_sub(1));
        body.push((Tone::Plain, format!("… and {} more lines", cut + 1)));
    }
    body
}

/// The rows the banner takes at the top of `area` (0: none, too small a screen).
pub(crate) fn height(area: Rect, digests: &[Digest], named: bool) -> u16 {
    if area.height < 4 || area.width < 20 || digests.is_empty() {
        return 0;
    }
    (body(area, digests, named).len() as u16 + 2).min(area.height)
}

/// The banner over the top of `area`. Returns the rows it took.
pub(crate) fn render(
    area: Rect,
    buf: &mut Buffer,
    digests: &[Digest],
    named: bool,
    away_ms: i64,
    theme: &Theme,
) -> u16 {
    let height = height(area, digests, named);
    if height == 0 {
        return 0;
    }
    let body = body(area, digests, named);
    let rect = Rect { height, ..area };
    Clear.render(rect, buf);
    let title = format!(" {} · Esc closes ", heading(away_ms));
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
