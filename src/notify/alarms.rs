//! News the clock makes rather than an event: a function call's deadline coming close
//! (`deadline`), and a session's sandbox time passing the `[budget]` threshold (`budget`).
//! Pure: the caller gives the time and the figures; each alarm rings once.

use gobare_api::model::RequiredAction;
use std::collections::HashSet;

/// A call whose deadline came within the lead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DueCall {
    pub(crate) call_id: String,
    /// The function's name (sanitized, one line), when the action has one.
    pub(crate) name: Option<String>,
    pub(crate) expires_at: i64,
}

/// Calls with a deadline (`expires_at`), each told once when within `lead_ms` of it.
#[derive(Debug, Default)]
pub(crate) struct ExpiryAlarm {
    lead_ms: i64,
    watched: Vec<DueCall>,
    told: HashSet<String>,
}

impl ExpiryAlarm {
    pub(crate) fn new(lead_minutes: u32) -> ExpiryAlarm {
        ExpiryAlarm {
            lead_ms: i64::from(lead_minutes) * 60_000,
            ..ExpiryAlarm::default()
        }
    }

    /// The actions waiting now: those with a deadline are watched, the rest forgotten.
    pub(crate) fn watch<'a>(&mut self, actions: impl IntoIterator<Item = &'a RequiredAction>) {
        self.watched.clear();
        for action in actions {
            if let Some(expires_at) = action.expires_at {
                self.watched.push(DueCall {
                    call_id: action.call_id.clone(),
                    name: action
                        .name
                        .as_deref()
                        .map(|n| gobare_api::text::one_line(n, 60)),
                    expires_at,
                });
            }
        }
    }

    /// The calls whose deadline is within the lead at `now_ms` and not past (an expired
    /// call is no longer the user's to answer), each once.
    pub(crate) fn due(&mut self, now_ms: i64) -> Vec<DueCall> {
        let mut due = Vec::new();
        for call in &self.watched {
            if now_ms >= call.expires_at - self.lead_ms
                && now_ms < call.expires_at
                && self.told.insert(call.call_id.clone())
            {
                due.push(call.clone());
            }
        }
        due
    }

    /// When the next call comes within the lead (Unix ms); `None` when none will.
    pub(crate) fn next_at(&self) -> Option<i64> {
        self.watched
            .iter()
            .filter(|c| !self.told.contains(&c.call_id))
            .map(|c| c.expires_at - self.lead_ms)
            .min()
    }
}

/// What a deadline notification says: "lookup_order expires in 4m".
pub(crate) fn deadline_text(call: &DueCall, now_ms: i64) -> String {
    let minutes = ((call.expires_at - now_ms).max(0) + 59_999) / 60_000;
    let what = match &call.name {
        Some(name) => format!("{name} expires"),
        None => "a function call expires".into(),
    };
    if minutes <= 1 {
        format!("{what} within a minute")
    } else {
        format!("{what} in {minutes}m")
    }
}

/// A session's sandbox time against `[budget] sandbox_minutes`: rings once, when a read
/// finds it past the threshold after one that found it below (a session already past it
/// when the app opened is said by the Workspace pane, not rung every start).
#[derive(Debug, Default)]
pub(crate) struct BudgetAlarm {
    threshold_secs: Option<u64>,
    below: Option<bool>,
    rung: bool,
}

impl BudgetAlarm {
    pub(crate) fn new(threshold_minutes: Option<u32>) -> BudgetAlarm {
        BudgetAlarm {
            threshold_secs: threshold_minutes.map(|m| u64::from(m) * 60),
            ..BudgetAlarm::default()
        }
    }

    pub(crate) fn threshold_secs(&self) -> Option<u64> {
        self.threshold_secs
    }

    /// A usage read; `true` when this one crossed the threshold.
    pub(crate) fn read(&mut self, sandbox_seconds: u64) -> bool {
        let Some(threshold) = self.threshold_secs else {
            return false;
        };
        let below_now = sandbox_seconds < threshold;
        let crossed = self.below == Some(true) && !below_now && !self.rung;
        self.rung |= crossed;
        self.below = Some(below_now);
        crossed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, expires_at: Option<i64>) -> RequiredAction {
        serde_json::from_value(serde_json::json!({
            "type": "function_call", "turn_id": "t", "call_id": id,
            "name": "lookup_order", "expires_at": expires_at
        }))
        .unwrap()
    }

    #[test]
    fn a_deadline_rings_once_within_the_lead_never_after_it_passed() {
        let mut alarm = ExpiryAlarm::new(10);
        let actions = [
            call("c1", Some(30 * 60_000)),
            call("c2", None),
            call("c3", Some(5 * 60_000)),
        ];
        alarm.watch(&actions);
        assert_eq!(alarm.next_at(), Some(-5 * 60_000));
        let due = alarm.due(0);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].call_id, "c3");
        assert_eq!(deadline_text(&due[0], 0), "lookup_order expires in 5m");
        assert!(alarm.due(60_000).is_empty(), "once");
        assert_eq!(alarm.next_at(), Some(20 * 60_000));
        assert!(alarm.due(20 * 60_000 - 1).is_empty());
        assert_eq!(alarm.due(20 * 60_000).len(), 1);
        assert_eq!(alarm.next_at(), None);
        alarm.watch(&[call("c4", Some(1_000))]);
        assert!(
            alarm.due(2_000).is_empty(),
            "already expired: not the user's any more"
        );
        alarm.watch(&[]);
        assert_eq!(alarm.next_at(), None, "answered calls are forgotten");
    }

    #[test]
    fn the_budget_rings_when_crossed_once() {
        let mut off = BudgetAlarm::new(None);
        assert!(!off.read(1_000_000));
        let mut alarm = BudgetAlarm::new(Some(60));
        assert!(!alarm.read(3_000));
        assert!(alarm.read(3_600));
        assert!(!alarm.read(4_000), "once");
        let mut late = BudgetAlarm::new(Some(60));
        assert!(!late.read(9_000), "already past when first read");
        assert!(!late.read(9_100));
    }
}
