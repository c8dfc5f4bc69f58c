//! What the panes share: drawing their frame (the block `layout` titles) and scrolling a
//! list of lines within it.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

/// Draws `block` (border and title) over `area`; returns the area inside it.
pub(super) fn framed(frame: &mut Frame, area: Rect, block: Block) -> Rect {
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// Draws `lines` in `inner` from `offset` down. The offset is clamped so scrolling stops
/// with the last line at the bottom, and stored back so the next key starts from there.
pub(super) fn scrolled(
    frame: &mut Frame,
    inner: Rect,
    lines: Vec<Line<'static>>,
    offset: &Cell<u16>,
) {
    let max_offset = lines.len().saturating_sub(inner.height as usize) as u16;
    let clamped = offset.get().min(max_offset);
    offset.set(clamped);
    frame.render_widget(Paragraph::new(lines).scroll((clamped, 0)), inner);
}
