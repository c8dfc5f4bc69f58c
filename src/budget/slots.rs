//! What the fleet holds of the organization's limits: its session slots (25 in the
//! reference, §5: every session holds one until deleted, a paused workspace included) and
//! who waits on the person, counted from the fleet's rows.
//!
//! No server reports its limit: the reference's 25 is only said while the fleet holds no
//! more than that, and never as "full" unless a `project_limit_exceeded` refusal showed
//! it ([`learn_limit`]); a fleet of 60 shows the limit is higher here.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::fleet::model::FleetModel;
use gobare_api::model::WorkspaceState;

/// Concurrent sessions an organization may have, as the reference says (§5; over →
/// `project_limit_exceeded`); a server may allow more.
pub(crate) const SESSION_SLOTS: usize = 25;

/// Sessions held when a create was refused `project_limit_exceeded` (0: never refused).
static REFUSED_AT: AtomicUsize = AtomicUsize::new(0);

/// A create was refused `project_limit_exceeded` while `held` sessions were listed: the
/// limit here is `held`.
pub(crate) fn learn_limit(held: usize) {
    REFUSED_AT.store(held.max(1), Ordering::Relaxed);
}

fn learnt_limit() -> Option<usize> {
    Some(REFUSED_AT.load(Ordering::Relaxed)).filter(|&n| n > 0)
}

/// The fleet's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Counts {
    /// Sessions listed: each holds a slot.
    pub(crate) sessions: usize,
    /// Of those, with a paused workspace (they hold one too, which surprises people).
    pub(crate) paused: usize,
    /// Sessions that need the user: the one count the header, the inbox, the terminal's
    /// title and the notifications say ([`FleetModel::needing_you`]).
    pub(crate) waiting: usize,
    /// The limit a refusal showed, if one did.
    pub(crate) limit: Option<usize>,
}

impl Counts {
    pub(crate) fn of(model: &FleetModel) -> Counts {
        Counts {
            sessions: model.len(),
            paused: model
                .rows()
                .filter(|r| r.workspace == Some(WorkspaceState::Paused))
                .count(),
            waiting: model.needing_you(),
            limit: learnt_limit(),
        }
    }

    /// The limit to say, and whether it is known to be this server's: the one a refusal
    /// showed, else the reference's while the fleet is within it; `None` past it.
    pub(crate) fn slots_limit(&self) -> Option<(usize, bool)> {
        match self.limit {
            Some(limit) => Some((limit.max(self.sessions), true)),
            None => (self.sessions <= SESSION_SLOTS).then_some((SESSION_SLOTS, false)),
        }
    }

    /// "slots 12/25 (3 paused)"; full only when a refusal showed it; past the reference's
    /// limit with no refusal: "sessions 60 (more than the reference's 25 allowed here)".
    pub(crate) fn slots_text(&self) -> String {
        let paused = if self.paused > 0 {
            format!(" ({} paused)", self.paused)
        } else {
            String::new()
        };
        match self.slots_limit() {
            Some((limit, known)) => {
                let full = if known && self.sessions >= limit {
                    " full: delete one to start another"
                } else {
                    ""
                };
                format!("slots {}/{limit}{paused}{full}", self.sessions)
            }
            None => format!(
                "sessions {}{paused} (more than the reference's {SESSION_SLOTS} allowed here)",
                self.sessions
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Session;

    fn session(id: &str, status: &str, state: &str, actions: serde_json::Value) -> Session {
        serde_json::from_value(serde_json::json!({
            "object": "session", "id": id, "status": status, "created_at": 1, "updated_at": 1,
            "environment": {"type": "sandbox", "state": state}, "required_actions": actions,
        }))
        .unwrap()
    }

    #[test]
    fn counts_slots_paused_ones_and_what_waits() {
        let mut model = FleetModel::new();
        let two = serde_json::json!([
            {"type": "approval", "turn_id": "t", "call_id": "c1"},
            {"type": "question", "turn_id": "t", "call_id": "c2"}
        ]);
        model.apply_full_list(&[
            session("a", "idle", "paused", serde_json::json!([])),
            session("b", "requires_action", "running", two),
            session("c", "working", "paused", serde_json::json!([])),
        ]);
        let counts = Counts::of(&model);
        assert_eq!(
            counts,
            Counts {
                sessions: 3,
                paused: 2,
                waiting: 1,
                limit: None,
            },
            "one session needs you, whatever it waits on"
        );
        assert_eq!(counts.slots_text(), "slots 3/25 (2 paused)");
    }

    #[test]
    fn the_reference_limit_is_never_claimed_against_what_the_server_shows() {
        let at = |sessions, limit| Counts {
            sessions,
            limit,
            ..Counts::default()
        };
        assert_eq!(
            at(25, None).slots_text(),
            "slots 25/25",
            "no refusal: not said to be full"
        );
        assert_eq!(
            at(60, None).slots_text(),
            "sessions 60 (more than the reference's 25 allowed here)"
        );
        assert_eq!(
            at(60, Some(60)).slots_text(),
            "slots 60/60 full: delete one to start another",
            "a project_limit_exceeded refusal showed the limit"
        );
        assert_eq!(at(12, Some(60)).slots_text(), "slots 12/60");
    }
}
