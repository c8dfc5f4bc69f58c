//! The fleet's digest of an absence, built from what the fleet already reads: every
//! persisted event of the org stream taken in while the person was away (or replayed from
//! the cursor the fleet kept when it was last seen), the outcomes of the turns the fleet
//! reads anyway, and what waits now from its rows. No read of its own per session: a busy
//! organization's absence costs the fleet nothing, where reading each session's turns and
//! artifacts cost two requests a session.

use std::collections::HashMap;

use super::builder::{DigestBuilder, Window};
use super::digest::Digest;
use crate::fleet::model::FleetModel;
use gobare_api::model::{Event, RequiredAction, Turn, TurnStatus};

/// One absence, session by session, as the org stream told it.
#[derive(Debug, Clone)]
pub(crate) struct AbsenceRecord {
    since_ms: i64,
    sessions: HashMap<String, DigestBuilder>,
    /// The last persisted seq taken in.
    last_seq: Option<u64>,
}

impl AbsenceRecord {
    /// An absence that began at `since_ms` (Unix ms).
    pub(crate) fn new(since_ms: i64) -> AbsenceRecord {
        AbsenceRecord {
            since_ms,
            sessions: HashMap::new(),
            last_seq: None,
        }
    }

    fn builder(&mut self, id: &str) -> &mut DigestBuilder {
        let since_ms = self.since_ms;
        self.sessions.entry(id.to_string()).or_insert_with(|| {
            let window = Window {
                after_seq: None,
                from_ms: Some(since_ms),
            };
            DigestBuilder::new(id, window, since_ms, true)
        })
    }

    /// A persisted event of the org stream (transient ones say nothing of an absence).
    pub(crate) fn feed(&mut self, event: &Event) {
        let (Some(seq), Some(id)) = (event.seq, event.session_id.as_deref()) else {
            return;
        };
        if self.last_seq.is_some_and(|last| seq <= last) {
            return;
        }
        self.last_seq = Some(seq);
        self.builder(id).feed(seq, event);
    }

    /// How a turn of session `id` ended, as the fleet read it.
    pub(crate) fn turn_outcome(
        &mut self,
        id: &str,
        turn_id: &str,
        status: &TurnStatus,
        reason: Option<&str>,
    ) {
        if let Some(builder) = self.sessions.get_mut(id) {
            builder.turn_outcome(turn_id, status, reason);
        }
    }

    /// Sessions that ended a turn in the absence and that `pick` picks, the most events
    /// first.
    pub(crate) fn ended_in(&self, pick: impl Fn(&str) -> bool) -> Vec<String> {
        let mut ids: Vec<(&String, u64)> = self
            .sessions
            .iter()
            .filter(|(id, builder)| {
                let d = builder.digest(self.since_ms);
                d.turns_completed + d.turns_failed + d.turns_cancelled + d.turns_unread > 0
                    && pick(id)
            })
            .map(|(id, builder)| (id, builder.events()))
            .collect();
        ids.sort_by_key(|(id, events)| (std::cmp::Reverse(*events), (*id).clone()));
        ids.into_iter().map(|(id, _)| id.clone()).collect()
    }

    /// Session `id`'s latest turns as read: their outcomes and reasons.
    pub(crate) fn turns_read(&mut self, id: &str, turns: &[Turn]) {
        if let Some(builder) = self.sessions.get_mut(id) {
            builder.turns_read(turns, gobare_api::clock::unix_ms());
        }
    }

    /// The digests as of `now_ms`: each session the stream moved, and each that waits on
    /// the person now, with its title and what waits from the fleet's rows.
    pub(crate) fn digests(&mut self, model: &FleetModel, now_ms: i64) -> Vec<Digest> {
        let waiting: Vec<String> = model
            .rows()
            .filter(|r| !r.waiting.is_empty())
            .map(|r| r.id.clone())
            .collect();
        for id in &waiting {
            self.builder(id);
        }
        let mut digests: Vec<Digest> = self
            .sessions
            .iter_mut()
            .filter_map(|(id, builder)| {
                let row = model.get(id)?;
                builder.set_title(row.label());
                let actions: Vec<RequiredAction> = model
                    .waits()
                    .get(id)
                    .map(|w| {
                        w.actions
                            .pending()
                            .iter()
                            .filter_map(|p| p.resource.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                builder.actions_now(&actions);
                Some(builder.digest(now_ms))
            })
            .collect();
        // What waits on the person first, then what failed, then the rest, the most
        // recently moved first.
        digests.sort_by_key(|d| {
            let last = model.get(&d.session_id).map_or(0, |r| r.last_activity);
            (
                d.decisions_waiting == 0,
                d.turns_failed == 0,
                std::cmp::Reverse(last),
            )
        });
        digests
    }
}
