//! What the fleet holds of the organization's limits: its session slots (25, §5: every
//! session holds one until deleted, a paused workspace included) and the decisions
//! waiting across it, counted from the fleet's rows.

use crate::fleet::model::FleetModel;
use crate::session::attention::Attention;
use gobare_api::model::WorkspaceState;

/// Concurrent sessions an organization may have (§5; over → `project_limit_exceeded`).
pub(crate) const SESSION_SLOTS: usize = 25;

/// The fleet's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Counts {
    /// Sessions listed: each holds a slot.
    pub(crate) sessions: usize,
    /// Of those, with a paused workspace (they hold one too, which surprises people).
    pub(crate) paused: usize,
    /// Decisions waiting on the user across the fleet.
    pub(crate) waiting: usize,
}

impl Counts {
    pub(crate) fn of(model: &FleetModel) -> Counts {
        let mut counts = Counts {
            sessions: model.len(),
            ..Counts::default()
        };
        for row in model.rows() {
            if row.workspace == Some(WorkspaceState::Paused) {
                counts.paused += 1;
            }
            if row.attention() == Attention::NeedsYou {
                // A session known to wait whose calls are not listed yet waits on one.
                counts.waiting += row.waiting.len().max(1);
            }
        }
        counts
    }

    /// "slots 12/25 (3 paused)"; a full organization says so.
    pub(crate) fn slots_text(&self) -> String {
        let paused = if self.paused > 0 {
            format!(" ({} paused)", self.paused)
        } else {
            String::new()
        };
        let full = if self.sessions >= SESSION_SLOTS {
            " full: delete one to start another"
        } else {
            ""
        };
        format!("slots {}/{SESSION_SLOTS}{paused}{full}", self.sessions)
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
                waiting: 2
            }
        );
        assert_eq!(counts.slots_text(), "slots 3/25 (2 paused)");
        let full = Counts {
            sessions: 25,
            paused: 0,
            waiting: 0,
        };
        assert!(full.slots_text().contains("full"));
    }
}
