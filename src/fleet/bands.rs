//! The band each fleet row is shown in (needs you, failed, working, idle): a row changes
//! band only once its new state has held for [`BAND_HOLD_MS`], so an approval asked and
//! granted within a second, or a turn that starts and ends at once, changes the row's
//! status cell but never moves the row. Pure: the caller gives the time.

use std::collections::HashMap;

use super::model::FleetModel;
use crate::session::attention::Attention;

/// How long a row's new state must hold before the row moves to its band.
pub(crate) const BAND_HOLD_MS: i64 = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Settling {
    /// The band the row is shown in.
    band: Attention,
    /// The state it is in now, when that differs, and since when (Unix ms).
    pending: Option<(Attention, i64)>,
}

/// Every row's shown band.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bands {
    rows: HashMap<String, Settling>,
    /// The model (instance, generation) last looked at.
    looked: Option<(u64, u64)>,
    /// When the next pending band settles (Unix ms).
    next_at: Option<i64>,
}

impl Bands {
    /// The band `id` is shown in (its own state for a row not looked at yet).
    pub(crate) fn band(&self, model: &FleetModel, id: &str) -> Option<Attention> {
        match self.rows.get(id) {
            Some(s) => Some(s.band),
            None => model.get(id).map(|r| r.attention()),
        }
    }

    /// Brings the shown bands up to `model` as of `now_ms`; whether any band changed (the
    /// order is to be made again). A row new to the fleet takes its band at once.
    pub(crate) fn update(&mut self, model: &FleetModel, now_ms: i64) -> bool {
        let due = self.next_at.is_some_and(|at| at <= now_ms);
        if self.looked == Some(model.version()) && !due {
            return false;
        }
        self.looked = Some(model.version());
        let mut moved = false;
        let mut next_at: Option<i64> = None;
        for row in model.rows() {
            let now_in = row.attention();
            let Some(s) = self.rows.get_mut(&row.id) else {
                self.rows.insert(
                    row.id.clone(),
                    Settling {
                        band: now_in,
                        pending: None,
                    },
                );
                moved = true;
                continue;
            };
            if now_in == s.band {
                s.pending = None;
                continue;
            }
            let since = match s.pending {
                Some((band, since)) if band == now_in => since,
                _ => now_ms,
            };
            if now_ms - since >= BAND_HOLD_MS {
                s.band = now_in;
                s.pending = None;
                moved = true;
            } else {
                s.pending = Some((now_in, since));
                let at = since + BAND_HOLD_MS;
                next_at = Some(next_at.map_or(at, |n| n.min(at)));
            }
        }
        if self.rows.len() > model.len() {
            let before = self.rows.len();
            self.rows.retain(|id, _| model.get(id).is_some());
            moved |= self.rows.len() != before;
        }
        self.next_at = next_at;
        moved
    }

    /// Milliseconds until the next pending band settles, as of `now_ms`.
    pub(crate) fn settles_in(&self, now_ms: i64) -> Option<i64> {
        self.next_at.map(|at| (at - now_ms).max(1))
    }

    /// How many rows are shown in the needs-you band.
    #[cfg(test)]
    pub(crate) fn needing_you(&self) -> usize {
        self.rows
            .values()
            .filter(|s| s.band == Attention::NeedsYou)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::{Event, Session};
    use serde_json::json;

    const NOW: i64 = 1_789_400_000_000;

    fn listed(model: &mut FleetModel) {
        let sessions: Vec<Session> = ["a", "b"]
            .iter()
            .map(|id| {
                serde_json::from_value(json!({"id": id, "status": "idle", "created_at": 1,
                    "updated_at": 1, "environment": {"state": "running"}}))
                .unwrap()
            })
            .collect();
        model.apply_full_list(&sessions);
    }

    fn event(id: &str, seq: u64, at: i64, kind: &str, payload: serde_json::Value) -> Event {
        Event::parse(
            &json!({"type": kind, "session_id": id, "seq": seq, "created_at": at,
                    "payload": payload})
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn a_state_that_holds_two_seconds_moves_the_row_and_a_brief_one_never() {
        let mut model = FleetModel::new();
        listed(&mut model);
        let mut bands = Bands::default();
        assert!(bands.update(&model, NOW), "first look");
        let asked = json!({"tool_call_id": "c1", "name": "bash", "args": {}});
        model.apply_event(&event("a", 1, NOW, "approval.requested", asked));
        assert!(!bands.update(&model, NOW));
        assert_eq!(bands.band(&model, "a"), Some(Attention::Idle));
        assert_eq!(bands.settles_in(NOW + 500), Some(1_500));
        model.apply_event(&event(
            "a",
            2,
            NOW + 1_200,
            "approval.resolved",
            json!({"tool_call_id": "c1", "approved": true}),
        ));
        assert!(!bands.update(&model, NOW + 1_200));
        assert_eq!(bands.band(&model, "a"), Some(Attention::Idle));
        assert!(bands.update(&model, NOW + 5_000), "working, held");
        assert_eq!(
            bands.band(&model, "a"),
            Some(Attention::Working),
            "resolved in time: never shown needing you"
        );
        assert_eq!(bands.settles_in(NOW + 5_000), None);

        model.apply_event(&event(
            "b",
            3,
            NOW + 6_000,
            "approval.requested",
            json!({"tool_call_id": "c2", "name": "bash", "args": {}}),
        ));
        assert!(!bands.update(&model, NOW + 6_000));
        assert!(!bands.update(&model, NOW + 7_999));
        assert!(bands.update(&model, NOW + 8_000), "held two seconds");
        assert_eq!(bands.band(&model, "b"), Some(Attention::NeedsYou));
        assert_eq!(bands.needing_you(), 1);
    }
}
