//! Search over the whole session: a compact case-folded copy of every persisted event's
//! searchable text ([`index::SearchIndex`], built as events are applied, including the ones
//! replayed from the local event log — those before a restart's window off the loop, see
//! [`backfill`] — and those the transcript's byte budget later evicts), and the
//! query that scans it chunk by chunk, newest first, so the first hits arrive before the
//! whole history is read and a stale query stops between chunks.

pub mod backfill;
pub mod extract;
pub mod fold;
pub mod index;

pub use index::{Hit, SearchIndex, Snapshot};
