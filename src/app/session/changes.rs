//! `D`: the changes view, read off the loop from the session's history (the replay from
//! seq 0, as `gobare-tui diff` reads it), for the selected turn, the Turn pane's turn, or
//! the whole session; and the review it sends.

use super::SessionFront;
use super::overlay_msg::OverlayMsg;
use crate::changes::reading;
use crate::changes::session_changes::Range;
use crate::ui::overlays::changes_view::{ChangesView, ViewFile};
use crate::ui::pane::Pane;
use gobare_api::model::{Content, Input};

impl SessionFront {
    pub(crate) fn act_open_changes(&mut self) {
        let (range, scope) = self.changes_range();
        self.screen
            .open_overlay(Box::new(ChangesView::loading(&scope)));
        self.changes_range = Some(range.clone());
        self.read_changes(range);
    }

    /// `r` in the view: the same range, read again.
    pub(crate) fn read_changes_again(&mut self) {
        if let Some(range) = self.changes_range.clone() {
            self.read_changes(range);
        }
    }

    fn read_changes(&mut self, range: Range) {
        let client = self.client.clone();
        let options = self.stream_options.clone();
        let id = self.session_id.clone();
        self.spawn_for_overlay(async move {
            let mut warning = None;
            let read = reading::read(&client, options, &id, range, false, |w| {
                warning.get_or_insert(w);
            })
            .await;
            OverlayMsg::ChangesRead {
                files: read
                    .map(|c| ViewFile::list(&c))
                    .map_err(|e| format!("{e:#}")),
                warning,
            }
        });
    }

    /// The selected entry's turn; else, with the Turn pane focused, its turn; else the
    /// whole session. With the scope's words for the title.
    fn changes_range(&self) -> (Range, String) {
        let selected = self.screen.selected_entry(&self.session).map(|e| e.id);
        let turn = match selected {
            Some(id) => self
                .session
                .transcript()
                .turn_after(id)
                .map(str::to_string)
                .or_else(|| self.session.turns().current().map(|t| t.id.clone())),
            None if self.screen.focus() == Pane::Turn => self
                .session
                .turns()
                .current()
                .or_else(|| self.session.turns().recent().back())
                .map(|t| t.id.clone()),
            None => None,
        };
        match turn {
            Some(id) => {
                let words = format!("turn {}", gobare_api::text::one_line(&id, 40));
                (Range::Turn(id), words)
            }
            None => (Range::Session, "the session".into()),
        }
    }

    /// The review goes to the agent as one message; while a turn runs, as a steer (the
    /// running turn reads it now).
    pub(crate) fn send_review(&mut self, text: String) {
        let content = Content::Text(text);
        let input = if self.session.turn_running() {
            Input::Steer { content }
        } else {
            Input::Message { content }
        };
        self.send_text(input, false);
    }
}
