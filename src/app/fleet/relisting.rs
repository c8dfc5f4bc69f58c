//! When the fleet reads the whole session list again while the org stream runs: on a slow
//! timer (no event says a session was deleted elsewhere), after the stream reconnected or
//! skipped events, and when more sessions first seen on the stream wait to be read than
//! single reads can take — the last two at most once per [`LIST_GAP`]. Turns ending never
//! cause it: a row follows its own events, and its outcome comes from its own turns read.

use std::time::Duration;

use gobare_api::model::EventPayload;
use gobare_api::stream::{ConnectionState, StreamUpdate};
use tokio::time::Instant;

/// How often the whole list is read while the stream runs.
pub(crate) const RELIST_PERIOD: Duration = Duration::from_secs(5 * 60);
/// The shortest time between two lists asked for by the stream (new sessions, a gap): at
/// 10,000 sessions a list is 100 pages.
pub(crate) const LIST_GAP: Duration = Duration::from_secs(60);
/// Sessions read one by one in one round; more wait for the next round, or a list.
pub(crate) const MOST_SINGLE_READS: usize = 20;

/// What to do with the sessions waiting to be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// The whole list: it holds every one of them.
    List,
    /// These now, one by one; `later` wait for the next round.
    Read {
        now: Vec<String>,
        later: Vec<String>,
    },
}

/// How the sessions `ids` (first seen on the stream) are read, the last list having been
/// read at `last_listed`.
pub(crate) fn refresh(mut ids: Vec<String>, last_listed: Option<Instant>, now: Instant) -> Refresh {
    if ids.len() > MOST_SINGLE_READS && list_allowed(last_listed, now) {
        return Refresh::List;
    }
    let later = ids.split_off(ids.len().min(MOST_SINGLE_READS));
    Refresh::Read { now: ids, later }
}

/// Whether the stream may have a list read now.
fn list_allowed(last_listed: Option<Instant>, now: Instant) -> bool {
    last_listed.is_none_or(|at| now.saturating_duration_since(at) >= LIST_GAP)
}

/// The earliest a list the stream asks for is read.
pub(crate) fn next_list_at(last_listed: Option<Instant>, now: Instant) -> Instant {
    match last_listed {
        Some(at) => now.max(at + LIST_GAP),
        None => now,
    }
}

/// Whether `update` says events may have been missed: the stream reconnected (`Live` after
/// `reconnecting`), could not deliver an event, or its replay was cut.
pub(crate) fn may_have_missed(update: &StreamUpdate, reconnecting: bool) -> bool {
    match update {
        StreamUpdate::State(ConnectionState::Live | ConnectionState::Open { .. }) => reconnecting,
        StreamUpdate::Lost { .. } => true,
        StreamUpdate::Frame(frame) => matches!(
            &frame.event,
            Ok(event) if matches!(event.payload, EventPayload::ReplayTruncated(_))
        ),
        _ => false,
    }
}

/// Whether `update` says events were skipped for good (a reconnect resumes from its
/// cursor and misses nothing): an event not delivered, or a replay cut short.
pub(crate) fn lost_events(update: &StreamUpdate) -> bool {
    match update {
        StreamUpdate::Lost { .. } => true,
        StreamUpdate::Frame(frame) => matches!(
            &frame.event,
            Ok(event) if matches!(event.payload, EventPayload::ReplayTruncated(_))
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("ses_{i}")).collect()
    }

    #[test]
    fn a_few_new_sessions_are_read_one_by_one() {
        let now = Instant::now();
        assert_eq!(
            refresh(ids(3), None, now),
            Refresh::Read {
                now: ids(3),
                later: vec![]
            }
        );
    }

    #[test]
    fn many_new_sessions_are_listed_at_most_once_a_gap() {
        let now = Instant::now();
        assert_eq!(refresh(ids(500), None, now), Refresh::List);
        assert_eq!(refresh(ids(500), Some(now - LIST_GAP), now), Refresh::List);
        let Refresh::Read { now: read, later } = refresh(ids(500), Some(now), now) else {
            panic!("listed again right after a list");
        };
        assert_eq!(read.len(), MOST_SINGLE_READS);
        assert_eq!(later.len(), 500 - MOST_SINGLE_READS);
    }

    #[test]
    fn a_list_the_stream_asks_for_waits_out_the_gap() {
        let now = Instant::now();
        assert_eq!(next_list_at(None, now), now);
        assert_eq!(next_list_at(Some(now - 2 * LIST_GAP), now), now);
        assert_eq!(next_list_at(Some(now), now), now + LIST_GAP);
    }

    #[test]
    fn only_a_reconnect_or_a_gap_means_events_were_missed() {
        let live = StreamUpdate::State(ConnectionState::Live);
        assert!(may_have_missed(&live, true));
        assert!(!may_have_missed(&live, false), "the first open");
        let lost = StreamUpdate::Lost {
            seq: 9,
            reason: "too large".into(),
        };
        assert!(may_have_missed(&lost, false));
    }
}
