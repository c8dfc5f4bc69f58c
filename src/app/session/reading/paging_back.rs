//! Paging back through what the transcript's budget dropped: once the user has scrolled to
//! the oldest entry kept, the page before it is read from the local event log on a blocking
//! thread (read-only: the writer keeps appending) and put back in front; back at the
//! bottom, the budget holds again.

use crate::app::session::SessionFront;
use crate::app::session::msg::AppMsg;
use crate::session::paging::earlier_entries;
use crate::session::transcript::Transcript;
use crate::store::event_log;

/// Bytes of entries one page reads back.
const PAGE_BYTES: usize = 2 << 20;
/// Most bytes of read-back entries held over the budget.
const READ_BACK_MAX: usize = 16 << 20;

impl SessionFront {
    /// After a draw: reads the page above when the user sits at the oldest entry kept.
    pub(crate) fn page_back_when_at_the_top(&mut self) {
        let transcript = &self.screen.transcript;
        if transcript.following() {
            self.session.end_reading_back();
            self.read_back_before = None;
            return;
        }
        if !self.session.has_event_log_here()
            || self.session.transcript().dropped() == 0
            || !transcript.shows_oldest_kept(&self.session)
        {
            return;
        }
        let (Some(store), Some(before)) = (&self.store, self.session.transcript().kept_from_seq())
        else {
            return;
        };
        if self.read_back_before == Some(before) {
            return;
        }
        let Ok(files) = store.event_log_files(&self.session_id) else {
            return;
        };
        let files = files.limited(self.event_log_max_bytes);
        self.read_back_before = Some(before);
        let tx = self.msgs.clone();
        crate::app::shared::jobs::spawn_blocking(
            crate::app::shared::jobs::Job::PagingBack,
            move || {
                let page = match event_log::read(&files) {
                    Ok(loaded) => earlier_entries(loaded.records(), before, PAGE_BYTES),
                    Err(e) => {
                        tracing::warn!("cannot read the event log back: {e}");
                        Transcript::with_budget(0)
                    }
                };
                let _ = tx.send(AppMsg::EarlierPage(Box::new(page)));
            },
        );
    }

    pub(crate) fn on_earlier_page(&mut self, page: Transcript) {
        let restored = self.session.restore_earlier(page, READ_BACK_MAX);
        if restored > 0 {
            self.frames.request();
        } else if self.session.transcript().dropped() > 0 {
            self.notice(Some(
                "that is as far back as the screen holds: `x` exports the whole session".into(),
            ));
        }
    }
}
