//! The one shape every pane has: it draws itself with `&mut self` (so its scroll position,
//! caches and what it showed are resolved and kept where they are used, never in shared
//! cells), names itself in its border, and scrolls. The root [`super::screen::Screen`] owns
//! the panes and draws the frame; adding a pane is a type implementing this and one arm in
//! the screen.

use super::pane::Pane;
use super::theme::Theme;
use crate::session::Session;
use ratatui::Frame;
use ratatui::layout::Rect;

/// What every component reads while drawing.
pub(crate) struct Ctx<'a> {
    pub(crate) view: &'a Session,
    pub(crate) theme: &'a Theme,
}

pub(crate) trait PaneComponent {
    fn pane(&self) -> Pane;
    /// Draws the content inside the pane's border.
    fn render(&mut self, frame: &mut Frame, inner: Rect, ctx: &Ctx);
    /// What the border says after the pane's name (filters, phase, state), if anything.
    fn title_detail(&self, _ctx: &Ctx) -> String {
        String::new()
    }
    /// Moves the view by `lines` (negative: towards older / the top).
    fn scroll_by(&mut self, lines: i64);
    /// Back to the newest content (the top for the top-down panes).
    fn scroll_home(&mut self);
    /// Whether the pane shows its newest content.
    fn follows(&self) -> bool {
        true
    }
    /// Rows the content needs at `width` (borders excluded) when the pane should not take
    /// more, or `None` when it uses any height it gets. A pane may keep what it built here
    /// for this frame's `render` at the same width.
    fn rows_wanted(&mut self, _width: u16, _ctx: &Ctx) -> Option<u16> {
        None
    }
}
