//! After a restart's first frame: the records before the replay window go into the search
//! index on a blocking thread (`search::backfill`), which also counts the transcript
//! entries they make; the loop then puts that index in front of its own and re-runs the
//! query being typed, if any.

use crate::app::session::SessionFront;
use crate::app::session::msg::AppMsg;
use crate::search::backfill::{Backfill, index_before_window};
use crate::session::tail_replay::TailReplay;
use crate::store::event_log::Loaded;

impl SessionFront {
    /// Indexes the records of `loaded` before `plan`'s window off the loop.
    pub(crate) fn index_before_window(&mut self, loaded: Loaded, plan: &TailReplay) {
        let (window_start, window_first_id) = (plan.window_start(), plan.window_first_id());
        let max_bytes = self.searching.max_bytes();
        let tx = self.msgs.clone();
        crate::app::shared::jobs::spawn_blocking(
            crate::app::shared::jobs::Job::SearchBackfill,
            move || {
                let backfill = index_before_window(
                    loaded.records().take(window_start),
                    window_first_id,
                    max_bytes,
                );
                let _ = tx.send(AppMsg::Backfilled(Box::new(backfill)));
            },
        );
    }

    pub(crate) fn on_backfilled(&mut self, backfill: Backfill) {
        self.session.count_before_window(backfill.entries);
        self.searching.put_before(backfill.index);
        if self.screen.search.is_active() {
            let query = self.screen.search.query().to_string();
            self.search_for(&query);
        } else if !self.screen.transcript.following() {
            // The count of earlier entries may be on screen; at the bottom nothing changed.
            self.frames.request();
        }
    }
}
