//! The clock's news for every session of the fleet — a deadline within
//! `[notify] deadline_minutes`, a workspace reclaimed, the `[budget]` sandbox minutes
//! passed — from what the fleet knows of each (its waits, its row's workspace state and
//! sandbox seconds). Kept with the fleet across its fronts, so each alarm rings once
//! whatever relistings bring back and however often the user goes between the fleet and a
//! session; a session opened before the fleet hands its own alarms over ([`FleetAlarms::adopt`]).
//! Pure: the caller gives the model and the time.

use std::collections::HashMap;

use super::alarms::{Rung, SessionAlarms};
use crate::fleet::model::{FleetModel, FleetRow};
use crate::fleet::news::{FleetNews, news_title};

/// Versions no row has: a session's first look.
const NOT_LOOKED: (u64, u64) = (u64::MAX, u64::MAX);

/// Every session's alarms.
#[derive(Debug)]
pub(crate) struct FleetAlarms {
    deadline_minutes: u32,
    budget_minutes: Option<u32>,
    /// Each session's alarms, with the (row, waits) versions they last looked at.
    sessions: HashMap<String, (SessionAlarms, (u64, u64))>,
    /// The model's version at the last look: looked at again only when it moved on.
    looked: Option<(u64, u64)>,
    /// When the next deadline comes within the lead (Unix ms).
    next_at: Option<i64>,
}

impl FleetAlarms {
    pub(crate) fn new(deadline_minutes: u32, budget_minutes: Option<u32>) -> FleetAlarms {
        FleetAlarms {
            deadline_minutes,
            budget_minutes,
            sessions: HashMap::new(),
            looked: None,
            next_at: None,
        }
    }

    /// What session `id`'s own alarms remembered (it was open before the fleet was).
    pub(crate) fn adopt(&mut self, id: &str, alarms: SessionAlarms) {
        self.sessions.insert(id.to_string(), (alarms, NOT_LOOKED));
        self.looked = None;
    }

    /// What came due as of `model` at `now_ms`, each once: every session is looked at
    /// when the model moved on since the last look, else only the deadlines that came.
    pub(crate) fn ring(&mut self, model: &FleetModel, now_ms: i64) -> Vec<FleetNews> {
        // What already was so at the first listing is not news.
        if !model.is_loaded() {
            return Vec::new();
        }
        let mut news = Vec::new();
        let due = self.next_at.is_some_and(|at| at <= now_ms);
        if !self.has_looked_at(model) {
            self.looked = Some(model.version());
            for row in model.rows() {
                if !self.sessions.contains_key(&row.id) {
                    let alarms = SessionAlarms::new(self.deadline_minutes, self.budget_minutes);
                    self.sessions.insert(row.id.clone(), (alarms, NOT_LOOKED));
                }
                let Some((alarms, seen)) = self.sessions.get_mut(&row.id) else {
                    continue;
                };
                let waits = model.waits().get(&row.id);
                // A session that did not move on since its last look has only its clock.
                let versions = (row.version, waits.map_or(0, |w| w.version()));
                let rung = if *seen == versions {
                    if !due {
                        continue;
                    }
                    alarms.due(now_ms)
                } else {
                    *seen = versions;
                    alarms.look(
                        waits.into_iter().flat_map(|w| w.actions.listed()),
                        row.workspace.as_ref(),
                        row.sandbox_seconds,
                        now_ms,
                    )
                };
                news.extend(rung.into_iter().map(|r| told(row, r)));
            }
            // Sessions deleted long ago are let go (a relisting that briefly lacks one must
            // not make its alarms ring again, hence the slack).
            if self.sessions.len() > 2 * model.len() + 64 {
                self.sessions.retain(|id, _| model.get(id).is_some());
            }
        } else if due {
            for (id, (alarms, _)) in &mut self.sessions {
                let Some(row) = model.get(id) else {
                    continue;
                };
                news.extend(alarms.due(now_ms).into_iter().map(|r| told(row, r)));
            }
        } else {
            return news;
        }
        self.next_at = self
            .sessions
            .values()
            .filter_map(|(a, _)| a.next_at())
            .min();
        news
    }

    /// Whether `model` as it is now was looked at already.
    pub(crate) fn has_looked_at(&self, model: &FleetModel) -> bool {
        self.looked == Some(model.version())
    }

    /// When the next deadline comes within the lead (Unix ms); `None` when none will.
    pub(crate) fn next_at(&self) -> Option<i64> {
        self.next_at
    }
}

/// An alarm of `row`'s session, as the fleet's news says it.
fn told(row: &FleetRow, rung: Rung) -> FleetNews {
    let title = news_title(row);
    let name = if title.is_empty() {
        format!("session {}", gobare_api::text::one_line(&row.id, 8))
    } else {
        title.clone()
    };
    FleetNews {
        id: row.id.clone(),
        line: format!("{name}: {}", rung.what),
        kind: rung.kind,
        title,
        expires_at: rung.expires_at,
        call: rung.call,
        what: rung.what,
        count: 1,
        need_you: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::kind::NotifyKind;
    use gobare_api::model::Session;
    use serde_json::json;

    const NOW: i64 = 1_789_400_000_000;
    const MIN: i64 = 60_000;

    fn session(id: &str, state: &str, expires_at: Option<i64>, updated_at: i64) -> Session {
        let actions = match expires_at {
            Some(at) => {
                json!([{"type": "function_call", "turn_id": "t", "call_id": format!("{id}-c"),
                                "name": "lookup_order", "expires_at": at}])
            }
            None => json!([]),
        };
        serde_json::from_value(json!({
            "id": id, "title": format!("job {id}"),
            "status": if expires_at.is_some() { "requires_action" } else { "idle" },
            "created_at": NOW - 60 * MIN, "updated_at": updated_at,
            "environment": {"state": state}, "required_actions": actions
        }))
        .unwrap()
    }

    fn kinds(news: &[FleetNews]) -> Vec<(String, NotifyKind)> {
        news.iter().map(|n| (n.id.clone(), n.kind)).collect()
    }

    #[test]
    fn every_session_rings_once_whatever_relistings_bring_back() {
        let mut model = FleetModel::new();
        let mut alarms = FleetAlarms::new(10, Some(60));
        let listing = |a_state: &str, at: i64| {
            vec![
                session("a", "running", Some(NOW + 5 * MIN), at),
                session("b", a_state, None, at),
                session("c", "running", Some(NOW + 30 * MIN), at),
            ]
        };
        model.apply_full_list(&listing("running", NOW - MIN));
        model.set_details("b", Some(10), None);
        let news = alarms.ring(&model, NOW);
        assert_eq!(kinds(&news), [("a".into(), NotifyKind::Deadline)]);
        assert_eq!(news[0].line, "job a: lookup_order expires in 5m");
        assert_eq!(news[0].expires_at, Some(NOW + 5 * MIN));
        assert_eq!(
            alarms.next_at(),
            Some(NOW + 20 * MIN),
            "c's, ten minutes ahead"
        );
        assert!(alarms.ring(&model, NOW + 1).is_empty(), "nothing moved");

        // b reclaimed, and past its budget; a relisting brings a's call back.
        model.apply_full_list(&listing("destroyed", NOW + 1));
        model.set_details("b", Some(3_700), None);
        let news = alarms.ring(&model, NOW + 2);
        let mut said = kinds(&news);
        said.sort();
        assert_eq!(
            said,
            [
                ("b".into(), NotifyKind::WorkspaceReclaimed),
                ("b".into(), NotifyKind::Budget)
            ]
        );
        model.apply_full_list(&listing("destroyed", NOW + 3));
        model.set_details("b", Some(3_800), None);
        assert!(alarms.ring(&model, NOW + 4).is_empty(), "each once");

        // c's deadline comes with the clock alone.
        assert!(alarms.ring(&model, NOW + 20 * MIN - 1).is_empty());
        let news = alarms.ring(&model, NOW + 20 * MIN);
        assert_eq!(kinds(&news), [("c".into(), NotifyKind::Deadline)]);
        assert_eq!(alarms.next_at(), None);
    }

    #[test]
    fn a_session_opened_first_hands_over_what_it_rang() {
        let mut own = SessionAlarms::new(10, None);
        let call: gobare_api::model::RequiredAction = serde_json::from_value(json!({
            "type": "function_call", "turn_id": "t", "call_id": "a-c",
            "name": "lookup_order", "expires_at": NOW + 5 * MIN
        }))
        .unwrap();
        assert_eq!(own.look([&call], None, None, NOW).len(), 1);
        let mut alarms = FleetAlarms::new(10, None);
        alarms.adopt("a", own);
        let mut model = FleetModel::new();
        model.apply_full_list(&[session("a", "running", Some(NOW + 5 * MIN), NOW)]);
        assert!(
            alarms.ring(&model, NOW + 1).is_empty(),
            "rung in the session"
        );
    }

    #[test]
    fn nothing_rings_before_the_first_listing() {
        let model = FleetModel::new();
        let mut alarms = FleetAlarms::new(10, None);
        assert!(alarms.ring(&model, NOW).is_empty());
    }
}
