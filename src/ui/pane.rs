//! What the panes share: how a scrolled view remembers its place, and drawing a list of lines
//! from an offset. Which pane is which (and has the keys) is [`crate::keys::pane::Pane`].

pub use crate::keys::pane::Pane;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Where the top of a scrolled view is: line `line` of item `item` (an entry id in the
/// transcript, a log index in the events pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub(crate) item: u64,
    pub(crate) line: usize,
}

/// A scroll position: following the bottom (`anchor == None`), or anchored so new content
/// below does not move what is on screen. `pending` lines are applied at the next draw,
/// where the line heights are known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Scroll {
    pub(crate) anchor: Option<Anchor>,
    pub(crate) pending: i64,
}

impl Scroll {
    pub(crate) fn follows(&self) -> bool {
        self.anchor.is_none() && self.pending >= 0
    }

    /// Moves by `delta` lines (negative: up); down at the bottom stays at the bottom.
    pub(crate) fn by(&mut self, delta: i64) {
        if self.anchor.is_none() && delta > 0 && self.pending >= 0 {
            return;
        }
        self.pending += delta;
    }
}

/// A top-down view's offset moved by `delta` lines.
pub(crate) fn offset_by(offset: u16, delta: i64) -> u16 {
    (i64::from(offset) + delta).clamp(0, i64::from(u16::MAX)) as u16
}

/// Draws `lines` in `inner` from `offset` down. The offset is clamped so scrolling stops
/// with the last line at the bottom, and stored back so the next key starts from there.
pub(crate) fn scrolled(
    frame: &mut Frame,
    inner: Rect,
    lines: Vec<Line<'static>>,
    offset: &mut u16,
) {
    let max_offset = lines.len().saturating_sub(inner.height as usize) as u16;
    *offset = (*offset).min(max_offset);
    frame.render_widget(Paragraph::new(lines).scroll((*offset, 0)), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_order_cycles_both_ways() {
        assert_eq!(Pane::Transcript.next(), Pane::Events);
        assert_eq!(Pane::Transcript.prev(), Pane::Workspace);
        assert_eq!(Pane::Workspace.next(), Pane::Transcript);
    }

    #[test]
    fn scrolling_up_leaves_follow_mode_and_down_at_the_bottom_does_nothing() {
        let mut s = Scroll::default();
        s.by(3);
        assert!(s.follows(), "down at the bottom is a no-op");
        s.by(-5);
        assert!(!s.follows());
    }

    #[test]
    fn offsets_stop_at_the_top() {
        assert_eq!(offset_by(2, -5), 0);
        assert_eq!(offset_by(2, 3), 5);
    }
}
