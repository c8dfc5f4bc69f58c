//! The search index of the history a restart did not replay (the records before its window,
//! see `session::tail_replay`), built off the loop after the first frame. Each event is
//! applied to a transcript of its own to learn the entry that shows it; those entries take,
//! in the app's transcript, the ids right below the window's first one (as paging back
//! gives them), so the index's ids are moved up to match.

use super::SearchIndex;
use super::extract;
use super::index::entry_of_event;
use crate::session::sensitive::SensitiveCalls;
use crate::session::transcript::Transcript;
use gobare_api::model::Event;

/// Bytes of entries the own transcript keeps: enough for a call's result to find its call.
const TRANSCRIPT_BYTES: usize = 4 << 20;

/// What indexing the history before the window gives.
#[derive(Debug)]
pub struct Backfill {
    /// The index of that history, with the app's entry ids.
    pub index: SearchIndex,
    /// Transcript entries that history makes.
    pub entries: u64,
}

/// Indexes `records` (seq and envelope JSON, oldest first: those before the window) for a
/// transcript whose window starts at entry id `window_first_id`, within `max_bytes`.
pub fn index_before_window<'a>(
    records: impl IntoIterator<Item = (u64, &'a [u8])>,
    window_first_id: u64,
    max_bytes: usize,
) -> Backfill {
    let mut index = SearchIndex::with_max_bytes(max_bytes);
    let mut transcript = Transcript::with_budget(TRANSCRIPT_BYTES);
    let mut sensitive = SensitiveCalls::default();
    for (seq, json) in records {
        let Ok(event) = Event::parse(&String::from_utf8_lossy(json)) else {
            continue;
        };
        let indexed = index.push(seq, &event, None);
        let entries_before = transcript.next_id();
        transcript.apply_event(&event, &mut sensitive);
        if indexed {
            let entry = entry_of_event(&transcript, entries_before, extract::call_id(&event));
            index.set_entry(seq, entry);
        }
    }
    let entries = transcript.next_id();
    index.shift_entries(window_first_id.saturating_sub(entries));
    Backfill { index, entries }
}
