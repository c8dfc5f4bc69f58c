//! The app's side of search: every persisted event applied goes into the search index with
//! the transcript entry that shows it; a query runs off the loop (`spawn_blocking`) over a
//! snapshot of the index and streams its hits back chunk by chunk, a newer query stopping
//! the older one between chunks; the current hit is scrolled into view. With the Events
//! pane focused, the rows whose type holds the query are matches too.

use super::{AppMsg, SessionFront};
use crate::keys::Intent;
use crate::keys::mode::Mode;
use crate::search::extract;
use crate::search::index::{DEFAULT_MAX_BYTES, entry_of_event};
use crate::search::{Hit, SearchIndex};
use crate::ui::pane::Pane;
use crate::ui::search::{QueryKind, kind_of};
use gobare_api::model::Event;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The index and the generation of the query that may still run.
#[derive(Debug)]
pub(crate) struct Searching {
    index: SearchIndex,
    /// The newest query's generation: an older running query stops when it sees another.
    running: Arc<AtomicU64>,
}

impl Searching {
    /// At most [`DEFAULT_MAX_BYTES`] of index, or the local event log's own limit when smaller
    /// (the index never needs more than the text of what the log keeps).
    pub(crate) fn with_event_log_limit(event_log_max_bytes: u64) -> Self {
        let max = usize::try_from(event_log_max_bytes)
            .map_or(DEFAULT_MAX_BYTES, |log| log.min(DEFAULT_MAX_BYTES));
        Searching {
            index: SearchIndex::with_max_bytes(max),
            running: Arc::default(),
        }
    }

    /// The most bytes the index may take.
    pub(crate) fn max_bytes(&self) -> usize {
        self.index.max_bytes()
    }

    /// Puts the index of the events before every one indexed so far in front.
    pub(crate) fn put_before(&mut self, older: SearchIndex) {
        self.index.put_before(older);
    }
}

/// What indexing an event needs after the event is applied.
pub(crate) struct Pending {
    seq: u64,
    entries_before: u64,
}

impl SessionFront {
    /// Before `event` is applied: indexes its text. Finish with [`SessionFront::index_applied`].
    pub(crate) fn index_event(&mut self, event: &Event) -> Option<Pending> {
        let seq = event.seq?;
        let indexed = self.searching.index.push(seq, event, None);
        indexed.then(|| Pending {
            seq,
            entries_before: self.session.transcript().next_id(),
        })
    }

    /// After `event` is applied: the entry it made, or the call entry it changed.
    pub(crate) fn index_applied(&mut self, pending: Pending, event: &Event) {
        let entry = entry_of_event(
            self.session.transcript(),
            pending.entries_before,
            extract::call_id(event),
        );
        self.searching.index.set_entry(pending.seq, entry);
    }

    /// The query typed so far: a text search runs (the old one stops), `type:NAME` filters
    /// the Events pane.
    pub(crate) fn search_for(&mut self, query: &str) {
        let generation = self.screen.search.start(query);
        self.screen.search.oldest_not_kept = self.searching.index.dropped() > 0;
        self.searching.running.store(generation, Ordering::Relaxed);
        self.request_frame();
        let text = match kind_of(query) {
            QueryKind::Type(name) => {
                self.screen.events.set_filter(name);
                return;
            }
            QueryKind::Text(text) if text.is_empty() => {
                self.screen.events.set_filter("");
                return;
            }
            QueryKind::Text(text) => text,
        };
        if self.screen.focus() == Pane::Events {
            // Where types are read, a type that holds the query is a match too.
            let hits = (self.screen.events)
                .type_hits(self.session.recent_events(), self.screen.search.needle());
            self.screen.search.include_type_hits(generation, hits);
        }
        let snapshot = self.searching.index.snapshot();
        let running = self.searching.running.clone();
        let msgs = self.msgs.clone();
        crate::app::shared::jobs::spawn_blocking(
            crate::app::shared::jobs::Job::Search,
            move || {
                let current = || running.load(Ordering::Relaxed) == generation;
                let finished = snapshot.search(&text, |hits| {
                    if !current() {
                        return false;
                    }
                    hits.is_empty()
                        || msgs
                            .send(AppMsg::SearchHits {
                                generation,
                                hits,
                                done: false,
                            })
                            .is_ok()
                });
                if finished && current() {
                    let _ = msgs.send(AppMsg::SearchHits {
                        generation,
                        hits: Vec::new(),
                        done: true,
                    });
                }
            },
        );
    }

    /// `/`: the search bar with an empty query (the kept one goes, ↑ recalls it); a
    /// running query stops. The Events type filter stays until a query replaces it.
    pub(crate) fn start_search(&mut self) {
        self.screen.modes.start_search();
        let generation = self.screen.search.start_empty();
        self.searching.running.store(generation, Ordering::Relaxed);
        self.request_frame();
    }

    /// ↑ in the empty search bar: the previous query again, searched.
    fn recall_search(&mut self) {
        let previous = self.screen.search.previous().to_string();
        if !previous.is_empty() {
            self.search_for(&previous);
        }
    }

    /// Esc in the search bar: no query, no marks; a running query stops.
    pub(crate) fn end_search(&mut self) {
        self.screen.search.end();
        let generation = self.screen.search.generation();
        self.searching.running.store(generation, Ordering::Relaxed);
        self.request_frame();
    }

    /// The panes gave the keys back to the box (`n` / `N` are text there): a search kept
    /// in them ends, marks and status-bar line with it (↑ in the next search recalls it).
    pub(crate) fn end_search_left_behind(&mut self, was_in_panes: bool) {
        if was_in_panes && !self.screen.mode().pane_has_keys() && self.screen.search.is_active() {
            self.end_search();
        }
    }

    /// Hits of a running query.
    pub(crate) fn on_search_hits(&mut self, generation: u64, hits: Vec<Hit>, done: bool) {
        if generation != self.screen.search.generation() {
            return;
        }
        if let Some(first) = self.screen.search.add(generation, hits, done) {
            self.show_hit(first);
        }
        self.request_frame();
    }

    /// `n` / `N` (↑ / ↓ in the search bar): the next older or newer match, selected and
    /// scrolled into view. In the empty search bar ↑ recalls the previous query instead.
    pub(crate) fn search_step(&mut self, older: bool) {
        if *self.screen.mode() == Mode::Search && self.screen.search.query().is_empty() {
            if older {
                self.recall_search();
            }
            return;
        }
        if !self.screen.search.is_active() {
            self.notice(Some("no search: / starts one".into()));
            return;
        }
        match self.screen.search.step(older) {
            Some(hit) => self.show_hit(hit),
            None => self.notice(Some(format!(
                "no match for “{}”",
                gobare_api::text::one_line(self.screen.search.query(), 40)
            ))),
        }
        self.request_frame();
    }

    /// Scrolls the panes to `hit` (the transcript to its entry, the Events pane to its row)
    /// and selects it there.
    fn show_hit(&mut self, hit: Hit) {
        self.screen
            .events
            .reveal_seq(self.session.recent_events(), hit.seq);
        self.screen.select_match(&self.session, hit);
        let kept = self.session.transcript().first_kept_id();
        match hit.entry {
            Some(entry) if entry >= kept => self.screen.transcript.reveal(entry),
            Some(_) => self.dispatch(Intent::ShowEvicted { seq: hit.seq }),
            None => {}
        }
    }

    /// The entry event `seq` made is no longer in memory: says where it is (paging back
    /// replaces this with loading it, through [`Intent::ShowEvicted`]).
    pub(crate) fn show_evicted(&mut self, seq: u64) {
        self.notice(Some(format!(
            "this match (event {seq}) is in an entry no longer kept in memory; \
             `gobare-tui tail --from {}` prints it",
            seq.saturating_sub(1)
        )));
    }
}
