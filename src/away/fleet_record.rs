//! The fleet's digest of an absence, built from what the fleet already reads: every
//! persisted event of the org stream taken in while the person was away (or replayed from
//! the cursor the fleet kept when it was last seen), the outcomes of the turns the fleet
//! reads anyway, and what waits now from its rows. No read of its own per session: a busy
//! organization's absence costs the fleet nothing, where reading each session's turns and
//! artifacts cost two requests a session.

use std::collections::HashMap;

use super::builder::{DigestBuilder, Window};
use crate::store::StateStore;
use gobare_api::model::{Event, Turn, TurnStatus};

/// One absence, session by session, as the org stream told it.
#[derive(Debug, Clone)]
pub(crate) struct AbsenceRecord {
    since_ms: i64,
    sessions: HashMap<String, DigestBuilder>,
    /// The last persisted seq taken in.
    last_seq: Option<u64>,
    /// Where each session's own last visit is kept: what the person watched in a session
    /// during the absence is not news of it.
    visits: Option<StateStore>,
}

impl AbsenceRecord {
    /// An absence that began at `since_ms` (Unix ms).
    pub(crate) fn new(since_ms: i64) -> AbsenceRecord {
        AbsenceRecord {
            since_ms,
            sessions: HashMap::new(),
            last_seq: None,
            visits: None,
        }
    }

    /// Sessions opened during the absence count only what came after the person left
    /// them, as `store` kept it.
    pub(crate) fn with_visits(mut self, store: Option<StateStore>) -> AbsenceRecord {
        self.visits = store;
        self
    }

    fn builder(&mut self, id: &str) -> &mut DigestBuilder {
        let since_ms = self.since_ms;
        let visits = &self.visits;
        self.sessions.entry(id.to_string()).or_insert_with(|| {
            let window = Window {
                after_seq: visits.as_ref().and_then(|s| watched_until(s, id, since_ms)),
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

    /// Each session the absence moved, with its builder (to finish its digest).
    pub(crate) fn sessions_mut(&mut self) -> impl Iterator<Item = (&String, &mut DigestBuilder)> {
        self.sessions.iter_mut()
    }

    /// Session `id` is part of the digest (it waits on the person now).
    pub(crate) fn include(&mut self, id: &str) {
        self.builder(id);
    }
}

/// The last event of session `id` the person saw in the session itself, when they left it
/// after `since_ms` (before, the whole absence is news).
fn watched_until(store: &StateStore, id: &str, since_ms: i64) -> Option<u64> {
    let visit = store.load_session(id);
    (visit.saved_at >= since_ms)
        .then_some(visit.cursor)
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::away::fleet_lines::fleet_lines;
    use crate::fleet::model::FleetModel;
    use gobare_api::model::Session;
    use serde_json::json;

    const AWAY: i64 = 1_789_400_000_000;

    fn event(id: &str, seq: u64, kind: &str, payload: serde_json::Value) -> Event {
        Event::parse(
            &json!({"type": kind, "session_id": id, "seq": seq,
                    "created_at": AWAY + seq as i64, "payload": payload})
            .to_string(),
        )
        .unwrap()
    }

    /// 52 sessions each running 18 turns while the person is away (the stream's events as
    /// the fleet applies them), one failing its last, one asking for approval at the end.
    #[test]
    fn a_busy_absence_reads_waits_then_failures_then_one_line_of_churn() {
        let sessions: Vec<Session> = (0..52)
            .map(|i| {
                serde_json::from_value(
                    json!({"id": format!("s{i:03}"), "title": format!("job {i}"),
                    "status": "idle", "created_at": AWAY - 1, "updated_at": AWAY - 1}),
                )
                .unwrap()
            })
            .collect();
        let mut model = FleetModel::new();
        model.apply_full_list(&sessions);
        // Before the absence: not news.
        model.apply_event(&event("s000", 1, "turn.started", json!({"turnId": "old"})));
        model.apply_event(&event("s000", 2, "turn.ended", json!({"turnId": "old"})));
        model.start_absence(AWAY);
        let mut seq = 10;
        for i in 0..52 {
            let id = format!("s{i:03}");
            for t in 0..18 {
                let turn = format!("{id}-t{t}");
                for (kind, payload) in [
                    ("turn.started", json!({"turnId": turn})),
                    ("turn.ended", json!({"turnId": turn})),
                    (
                        "artifact.created",
                        json!({"id": format!("a-{turn}"), "path": "/workspace/outputs/r.md"}),
                    ),
                ] {
                    seq += 1;
                    model.apply_event(&event(&id, seq, kind, payload));
                }
                let status = if i == 7 && t == 17 {
                    TurnStatus::Failed
                } else {
                    TurnStatus::Completed
                };
                let reason = (status == TurnStatus::Failed)
                    .then_some("provider_error: upstream unavailable");
                model
                    .absence_mut()
                    .unwrap()
                    .turn_outcome(&id, &turn, &status, reason);
            }
        }
        seq += 1;
        model.apply_event(&event(
            "s030",
            seq,
            "approval.requested",
            json!({"toolCallId": "c1", "name": "bash", "args": {"command": "git push"}}),
        ));
        let mut record = model.take_absence().unwrap();
        let digests = crate::fleet::absence_digest::digests;
        assert!(
            model.absence_mut().is_none(),
            "the absence ended with its digest"
        );
        let digests: Vec<_> = digests(&mut record, &model, AWAY + 120_000)
            .into_iter()
            .filter(|d| d.has_news())
            .collect();
        assert_eq!(digests[0].session_id, "s030", "what waits first");
        assert_eq!(digests[1].session_id, "s007", "then what failed");
        let lines: Vec<String> = fleet_lines(&digests).into_iter().map(|(_, l)| l).collect();
        assert_eq!(lines[0], "Waiting on you: 1");
        assert!(lines[1].starts_with("  job 30: approval"), "{lines:#?}");
        assert_eq!(
            lines[2..],
            [
                "Failed: 1 turn in 1 session".to_string(),
                "  job 7: provider_error: upstream unavailable".to_string(),
                "52 sessions: 935 turns completed, 936 artifacts".to_string(),
            ],
            "{lines:#?}"
        );
    }

    /// A turn the person watched to its end in the session, after leaving the fleet, is
    /// not "while you were away"; what that session did after they left it still is, and
    /// so is every other session's news.
    #[test]
    fn what_was_watched_in_the_session_is_not_news_of_the_absence() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path(), &"https://api.example".parse().unwrap()).unwrap();
        // Left the fleet at AWAY; watched `watched` in its session up to seq 12, leaving it
        // after AWAY. `before` was last opened before the absence, up to seq 30.
        let left = |cursor, saved_at| crate::store::SessionState {
            cursor: Some(cursor),
            saved_at,
            ..Default::default()
        };
        store
            .save_session("watched", &left(12, AWAY + 500))
            .unwrap();
        store.save_session("before", &left(30, AWAY - 500)).unwrap();
        let mut record = AbsenceRecord::new(AWAY).with_visits(Some(store));
        let turn = |id: &str, seq: u64, t: &str| {
            [
                event(id, seq, "turn.started", json!({"turnId": t})),
                event(id, seq + 1, "turn.ended", json!({"turnId": t})),
            ]
        };
        for e in turn("watched", 11, "seen-turn")
            .into_iter()
            .chain(turn("other", 13, "other-turn"))
            .chain(turn("watched", 15, "later-turn"))
            .chain(turn("before", 17, "before-turn"))
        {
            record.feed(&e);
        }
        let ended: HashMap<String, u32> = record
            .sessions_mut()
            .map(|(id, b)| (id.clone(), turns_ended(&b.digest(AWAY))))
            .collect();
        assert_eq!(ended["watched"], 1, "only the turn after leaving it");
        assert_eq!(ended["other"], 1);
        assert_eq!(
            ended["before"], 1,
            "a visit before the absence hides nothing of it"
        );
        // Without the visits kept, the watched turn would count.
        let mut blind = AbsenceRecord::new(AWAY);
        for e in turn("watched", 11, "seen-turn") {
            blind.feed(&e);
        }
        let (_, b) = blind.sessions_mut().next().unwrap();
        assert_eq!(turns_ended(&b.digest(AWAY)), 1);
    }

    fn turns_ended(d: &crate::away::digest::Digest) -> u32 {
        d.turns_completed + d.turns_failed + d.turns_cancelled + d.turns_unread
    }
}
