//! Which pages of turns to read for the separators' outcomes: the newest page first (the
//! first screen), older ones in the background only as far back as a separator still
//! waits, and the newest once more after a replay whose turn reads were left to it.
//!
//! Pure: the app tells it what was read and what the transcript still misses; it answers
//! with the read to ask for, if any.

use super::fetch::FetchJob;
use gobare_api::model::Turn;

/// Older pages read at most for one screen of history: 10,000 turns.
pub(crate) const OLDER_PAGES: usize = 100;

#[derive(Debug, Default)]
pub(crate) struct TurnPages {
    /// When the oldest turn of the newest page read was created; `None` before it is read.
    newest_page_from: Option<i64>,
    /// The cursor of the next older page, while the server has more.
    older: Option<String>,
    /// When the oldest turn read so far was created.
    oldest_read: Option<i64>,
    older_pages: usize,
    /// A turn ended while the history replayed and its own read was left to the newest
    /// page, to read once the replay is over.
    newest_again: bool,
}

impl TurnPages {
    /// The newest page was read; `more_after` is the cursor of the page before it.
    pub(crate) fn newest_read(&mut self, turns: &[Turn], more_after: Option<String>) {
        let from = turns.iter().map(|t| t.created_at).min();
        self.newest_page_from = Some(from.unwrap_or(i64::MIN));
        self.note_oldest(from);
        // A newer newest page starts the way back again only when nothing older was read.
        if self.older_pages == 0 {
            self.older = more_after;
        }
    }

    /// An older page was read.
    pub(crate) fn older_read(&mut self, turns: &[Turn], more_after: Option<String>) {
        self.older_pages += 1;
        self.note_oldest(turns.iter().map(|t| t.created_at).min());
        self.older = more_after;
    }

    fn note_oldest(&mut self, created: Option<i64>) {
        if let Some(at) = created {
            self.oldest_read = Some(self.oldest_read.map_or(at, |o| o.min(at)));
        }
    }

    /// A turn's own read was skipped while replaying.
    pub(crate) fn left_to_the_newest_page(&mut self) {
        self.newest_again = true;
    }

    /// When the newest page's oldest turn was created (`None` before it is read).
    pub(crate) fn newest_page_from(&self) -> Option<i64> {
        self.newest_page_from
    }

    /// After the replay, once the newest page is read: whether to read it once more
    /// (`missing`: a turn ended since its oldest turn does not say how).
    pub(crate) fn read_newest_again(&mut self, missing: bool) -> bool {
        if !self.newest_again || self.newest_page_from.is_none() {
            return false;
        }
        self.newest_again = false;
        missing
    }

    /// The older page to read next, while the oldest separator without its outcome ended
    /// at `oldest_missing` and no turn read so far was created before it.
    pub(crate) fn next_older(&self, oldest_missing: Option<i64>) -> Option<FetchJob> {
        let missing = oldest_missing?;
        let reached = self.oldest_read.is_some_and(|at| at < missing);
        if reached || self.older_pages >= OLDER_PAGES {
            return None;
        }
        let after = self.older.clone()?;
        Some(FetchJob::PastTurns { after })
    }
}

#[cfg(test)]
mod tests;
