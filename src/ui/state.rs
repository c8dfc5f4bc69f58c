//! What the views need besides the model: focus, scroll, zoom, filters, expanded diffs.
//! Pure methods only; the app maps keys onto them.
//!
//! Scroll positions are resolved against laid-out lines while drawing (only the views
//! know line heights), so they live in `Cell`s the draw functions update; the render
//! cache lives here too for the same reason.

use super::transcript::line_cache::LineCache;
use crate::session::SessionView;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Transcript,
    Events,
    Turn,
    Workspace,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Transcript, Pane::Events, Pane::Turn, Pane::Workspace];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Pane::Transcript => "Transcript",
            Pane::Events => "Events",
            Pane::Turn => "Turn",
            Pane::Workspace => "Workspace",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// Where the top of a scrolled view is: line `line` of item `item` (an entry id in the
/// transcript, a log index in the events pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub(crate) item: u64,
    pub(crate) line: usize,
}

/// A scroll position: following the bottom (`anchor == None`), or anchored so new content
/// below does not move what is on screen. `pending` lines are applied at the next draw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Scroll {
    pub(crate) anchor: Option<Anchor>,
    pub(crate) pending: i64,
}

impl Scroll {
    pub(crate) fn follows(&self) -> bool {
        self.anchor.is_none() && self.pending >= 0
    }
}

#[derive(Debug)]
pub struct UiState {
    /// The pane that scroll keys move (highlighted unless the input box has the keys).
    pub focus: Pane,
    /// The input box takes the typing: no pane border is highlighted, so only one thing on
    /// screen looks focused.
    pub(crate) input_focused: bool,
    /// The focused pane fills the screen.
    pub zoomed: bool,
    /// Hide `agent.text` / `agent.thinking` rows in the Events pane.
    pub hide_deltas: bool,
    /// Show the agent's streamed reasoning under the live text.
    pub(crate) show_thinking: bool,
    /// Events pane: only types containing this (case-insensitive); empty = all.
    pub(crate) event_filter: String,
    /// Transcript entry ids whose diff is shown.
    pub(crate) expanded: HashSet<u64>,
    /// Rows the app reserves for the input box (see `layout::areas`).
    pub composer_height: u16,
    pub(crate) transcript_scroll: Cell<Scroll>,
    pub(crate) events_scroll: Cell<Scroll>,
    /// Turn and workspace panes are short: a plain offset from the top.
    pub(crate) turn_offset: Cell<u16>,
    pub(crate) workspace_offset: Cell<u16>,
    /// Ids of the first and last transcript entries on screen at the last draw.
    pub(crate) transcript_visible: Cell<Option<(u64, u64)>>,
    /// The transcript's `next_id` when the user left the bottom ("N new below").
    pub(crate) transcript_seen: Cell<Option<u64>>,
    pub(crate) cache: RefCell<LineCache>,
}

impl Default for UiState {
    fn default() -> Self {
        UiState {
            focus: Pane::Transcript,
            input_focused: false,
            zoomed: false,
            hide_deltas: true,
            show_thinking: true,
            event_filter: String::new(),
            expanded: HashSet::new(),
            composer_height: 3,
            transcript_scroll: Cell::default(),
            events_scroll: Cell::default(),
            turn_offset: Cell::new(0),
            workspace_offset: Cell::new(0),
            transcript_visible: Cell::new(None),
            transcript_seen: Cell::new(None),
            cache: RefCell::default(),
        }
    }
}

impl UiState {
    pub fn new() -> Self {
        Self::default()
    }

    /// Transcript entries whose wrapped lines are cached (for memory figures).
    pub fn line_cache_len(&self) -> usize {
        self.cache.borrow().len()
    }

    pub(crate) fn focus_next(&mut self) {
        self.focus = Pane::ALL[(self.focus.index() + 1) % Pane::ALL.len()];
    }

    pub(crate) fn focus_prev(&mut self) {
        self.focus = Pane::ALL[(self.focus.index() + Pane::ALL.len() - 1) % Pane::ALL.len()];
    }

    pub(crate) fn toggle_zoom(&mut self) {
        self.zoomed = !self.zoomed;
    }

    pub(crate) fn toggle_deltas(&mut self) {
        self.hide_deltas = !self.hide_deltas;
    }

    pub(crate) fn set_event_filter(&mut self, filter: impl Into<String>) {
        self.event_filter = filter.into();
        self.events_scroll.set(Scroll::default());
    }

    /// Scrolls the focused pane up (towards older content) by `n` lines.
    pub fn scroll_up(&mut self, n: u16) {
        self.scroll_by(-i64::from(n));
    }

    /// Scrolls the focused pane down by `n` lines; reaching the bottom follows again.
    pub(crate) fn scroll_down(&mut self, n: u16) {
        self.scroll_by(i64::from(n));
    }

    /// Back to following the newest content.
    pub(crate) fn scroll_to_bottom(&mut self) {
        match self.focus {
            Pane::Transcript => self.transcript_scroll.set(Scroll::default()),
            Pane::Events => self.events_scroll.set(Scroll::default()),
            Pane::Turn => self.turn_offset.set(0),
            Pane::Workspace => self.workspace_offset.set(0),
        }
    }

    /// Whether `pane` shows its newest content (new content scrolls into view).
    pub(crate) fn follows(&self, pane: Pane) -> bool {
        match pane {
            Pane::Transcript => self.transcript_scroll.get().follows(),
            Pane::Events => self.events_scroll.get().follows(),
            Pane::Turn | Pane::Workspace => true,
        }
    }

    /// Shows or hides the diff of transcript entry `id`.
    pub(crate) fn toggle_expanded(&mut self, id: u64) {
        if !self.expanded.remove(&id) {
            self.expanded.insert(id);
        }
    }

    /// Expands or collapses the diff or long message nearest the bottom of the transcript
    /// view (the last one on screen, or above it). Returns whether there was one.
    pub fn toggle_nearest_expandable(&mut self, view: &SessionView) -> bool {
        let t = view.transcript();
        let from = self
            .last_visible_entry()
            .unwrap_or_else(|| t.next_id().saturating_sub(1));
        match t.expandable_at_or_before(from, 10_000) {
            Some(id) => {
                self.toggle_expanded(id);
                true
            }
            None => false,
        }
    }

    /// The last transcript entry id on screen at the last draw (for "toggle the nearest
    /// diff"): the app finds the file change at or above it in the model.
    pub(crate) fn last_visible_entry(&self) -> Option<u64> {
        self.transcript_visible.get().map(|(_, last)| last)
    }

    fn scroll_by(&mut self, delta: i64) {
        let bump = |cell: &Cell<Scroll>| {
            let mut s = cell.get();
            if s.anchor.is_none() && delta > 0 && s.pending >= 0 {
                return; // already at the bottom
            }
            s.pending += delta;
            cell.set(s);
        };
        let offset = |cell: &Cell<u16>| {
            let v = i64::from(cell.get()) + delta;
            cell.set(v.clamp(0, i64::from(u16::MAX)) as u16);
        };
        match self.focus {
            Pane::Transcript => bump(&self.transcript_scroll),
            Pane::Events => bump(&self.events_scroll),
            // These panes read top-down: "up" shows earlier lines.
            Pane::Turn => offset(&self.turn_offset),
            Pane::Workspace => offset(&self.workspace_offset),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_cycles_both_ways() {
        let mut ui = UiState::new();
        ui.focus_next();
        assert_eq!(ui.focus, Pane::Events);
        ui.focus_prev();
        ui.focus_prev();
        assert_eq!(ui.focus, Pane::Workspace);
    }

    #[test]
    fn scrolling_up_leaves_follow_mode_and_bottom_restores_it() {
        let mut ui = UiState::new();
        ui.scroll_down(3);
        assert!(
            ui.follows(Pane::Transcript),
            "down at the bottom is a no-op"
        );
        ui.scroll_up(5);
        assert!(!ui.follows(Pane::Transcript));
        assert!(ui.follows(Pane::Events), "only the focused pane scrolls");
        ui.scroll_to_bottom();
        assert!(ui.follows(Pane::Transcript));
    }

    #[test]
    fn short_panes_scroll_by_offset_from_the_top() {
        let mut ui = UiState {
            focus: Pane::Turn,
            ..UiState::new()
        };
        ui.scroll_down(2);
        assert_eq!(ui.turn_offset.get(), 2);
        ui.scroll_up(5);
        assert_eq!(ui.turn_offset.get(), 0);
    }

    #[test]
    fn expanded_toggles() {
        let mut ui = UiState::new();
        ui.toggle_expanded(4);
        assert!(ui.expanded.contains(&4));
        ui.toggle_expanded(4);
        assert!(ui.expanded.is_empty());
    }
}
