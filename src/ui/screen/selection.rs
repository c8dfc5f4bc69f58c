//! The screen's side of the selection: the move keys go to the focused pane's selection
//! (Transcript, Events) or scroll the others; what is selected, for the keys that act on it.

use super::Screen;
use crate::search::Hit;
use crate::session::Session;
use crate::session::recent_events::RecentEvent;
use crate::session::transcript::Entry;
use crate::ui::pane::Pane;

impl Screen {
    /// ↑↓: moves the focused pane's selection, or scrolls a pane without one.
    pub(crate) fn select_by(&mut self, view: &Session, by: i64) {
        match self.focus {
            Pane::Transcript => {
                self.transcript.select_by(view, by);
            }
            Pane::Events => {
                self.events.select_by(view, by);
            }
            Pane::Turn | Pane::Workspace => self.scroll(None, by),
        }
    }

    /// `[` / `]`: the transcript selects the start of the previous / next turn.
    pub(crate) fn select_turn(&mut self, view: &Session, forward: bool) -> bool {
        self.focus = Pane::Transcript;
        self.transcript.select_turn(view, forward)
    }

    /// `n` / `N`: the search's current match becomes the selection, so the keys that act on
    /// the selection act on it: its Events row while that pane has the focus, and its
    /// transcript entry (the transcript taking the focus from the panes without one).
    pub(crate) fn select_match(&mut self, view: &Session, hit: Hit) {
        if self.focus == Pane::Events {
            self.events.select_seq(view.recent_events(), hit.seq);
        } else {
            self.focus = Pane::Transcript;
        }
        if let Some(entry) = hit.entry.filter(|&e| view.transcript().get(e).is_some()) {
            self.transcript.select_entry(entry);
        }
    }

    /// After a send: the transcript follows the bottom again, nothing selected.
    pub(crate) fn follow_transcript(&mut self) {
        self.transcript.follow_bottom();
    }

    /// `!`: the transcript selects the next older error.
    pub(crate) fn select_next_error(&mut self, view: &Session) -> bool {
        self.focus = Pane::Transcript;
        self.transcript.select_next_error(view)
    }

    /// Esc: clears the focused pane's selection; returns whether there was one.
    pub(crate) fn clear_selection(&mut self) -> bool {
        match self.focus {
            Pane::Transcript => self.transcript.clear_selection(),
            Pane::Events => self.events.clear_selection(),
            Pane::Turn | Pane::Workspace => false,
        }
    }

    /// The selected transcript entry, when the transcript has the focus.
    pub(crate) fn selected_entry<'a>(&self, view: &'a Session) -> Option<&'a Entry> {
        (self.focus == Pane::Transcript)
            .then(|| self.transcript.selected(view))
            .flatten()
            .and_then(|id| view.transcript().get(id))
    }

    /// The selected Events row, when that pane has the focus.
    pub(crate) fn selected_event<'a>(&self, view: &'a Session) -> Option<&'a RecentEvent> {
        (self.focus == Pane::Events)
            .then(|| self.events.selected(view))
            .flatten()
    }

    /// `e`/Enter: expands or collapses the selected transcript entry (`None`: none).
    pub(crate) fn transcript_toggle_selected(&mut self, view: &Session) -> Option<bool> {
        self.transcript.toggle_selected(view)
    }
}
