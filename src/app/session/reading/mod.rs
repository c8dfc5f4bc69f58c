//! How the session front reads: which resources next (coalesced, within the request budget),
//! the background reads behind them, the stream's news applied in batches, the local event
//! log replayed on start, paging back, and the fallback reads of a silent stream.

pub(crate) mod artifacts;
pub(crate) mod fetch;
pub(crate) mod fetch_run;
pub(crate) mod local_event_log;
pub(crate) mod paging_back;
pub(crate) mod replay;
pub(crate) mod search_backfill;
pub(crate) mod silence;
pub(crate) mod turn_pages;
pub(crate) mod updates;
