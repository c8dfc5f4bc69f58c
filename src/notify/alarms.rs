//! News the clock makes rather than an event: a function call's deadline coming close
//! (`deadline`), a session's sandbox time passing the `[budget]` threshold (`budget`), and
//! its workspace reclaimed (`workspace_reclaimed`: `destroyed` has no event). One
//! session's alarms are a [`SessionAlarms`], kept by whichever front rings them (see
//! [`super::fleet_alarms`]). Pure: the caller gives the time and the figures; each alarm
//! rings once.

use super::kind::NotifyKind;
use gobare_api::model::{RequiredAction, WorkspaceState};
use std::collections::HashSet;

/// A call whose deadline came within the lead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DueCall {
    pub(crate) call_id: String,
    /// The function's name (sanitized, one line), when the action has one.
    pub(crate) name: Option<String>,
    pub(crate) expires_at: i64,
}

/// Past this many calls told, only those still waiting are remembered.
const MAX_TOLD: usize = 1024;

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
        // Calls already told are remembered past a listing that briefly lacks them (so they
        // do not ring twice), but not without end: a day of calls is let go at once.
        if self.told.len() > MAX_TOLD {
            let watched: HashSet<&str> = self.watched.iter().map(|c| c.call_id.as_str()).collect();
            self.told.retain(|id| watched.contains(id.as_str()));
        }
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

/// What one session's alarms remember between looks.
#[derive(Debug)]
pub(crate) struct SessionAlarms {
    expiry: ExpiryAlarm,
    budget: BudgetAlarm,
    /// The workspace's state at the last look; `None` before the first (what was already
    /// so when it was first seen is not news).
    workspace: Option<Option<WorkspaceState>>,
}

/// One alarm rung: what it is about and what it says (the session's name not included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rung {
    pub(crate) kind: NotifyKind,
    pub(crate) what: String,
    pub(crate) expires_at: Option<i64>,
    /// The call a deadline is about (news of it is let go once it is answered).
    pub(crate) call: Option<String>,
}

impl SessionAlarms {
    pub(crate) fn new(deadline_minutes: u32, budget_minutes: Option<u32>) -> SessionAlarms {
        SessionAlarms {
            expiry: ExpiryAlarm::new(deadline_minutes),
            budget: BudgetAlarm::new(budget_minutes),
            workspace: None,
        }
    }

    /// A look at the session as now known: the actions it waits on (as listed), its
    /// workspace's state, its sandbox seconds once read. What came due, each once.
    pub(crate) fn look<'a>(
        &mut self,
        actions: impl IntoIterator<Item = &'a RequiredAction>,
        workspace: Option<&WorkspaceState>,
        sandbox_seconds: Option<u64>,
        now_ms: i64,
    ) -> Vec<Rung> {
        self.expiry.watch(actions);
        let mut rung = self.due(now_ms);
        if let Some(what) = self.reclaimed(workspace) {
            rung.push(Rung {
                kind: NotifyKind::WorkspaceReclaimed,
                what: what.into(),
                expires_at: None,
                call: None,
            });
        }
        if sandbox_seconds.is_some_and(|s| self.budget.read(s)) {
            let minutes = self.budget.threshold_secs().unwrap_or(0) / 60;
            let unit = if minutes == 1 { "minute" } else { "minutes" };
            rung.push(Rung {
                kind: NotifyKind::Budget,
                what: format!("sandbox time passed the budget of {minutes} {unit}"),
                expires_at: None,
                call: None,
            });
        }
        rung
    }

    /// The deadlines that came within the lead since the last look, each once.
    pub(crate) fn due(&mut self, now_ms: i64) -> Vec<Rung> {
        self.expiry
            .due(now_ms)
            .into_iter()
            .map(|call| Rung {
                kind: NotifyKind::Deadline,
                what: deadline_text(&call, now_ms),
                expires_at: Some(call.expires_at),
                call: Some(call.call_id),
            })
            .collect()
    }

    /// When the next deadline comes within the lead (Unix ms).
    pub(crate) fn next_at(&self) -> Option<i64> {
        self.expiry.next_at()
    }

    /// What to say when the workspace was reclaimed since the last look.
    fn reclaimed(&mut self, now: Option<&WorkspaceState>) -> Option<&'static str> {
        let now = now.cloned();
        let before = self.workspace.replace(now.clone())?;
        if before == now {
            return None;
        }
        match now {
            Some(WorkspaceState::Destroyed) => {
                Some("workspace reclaimed (rebuilt on the next message)")
            }
            Some(WorkspaceState::RecoveryFailed) => Some("workspace rebuild gave up"),
            _ => None,
        }
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
    fn calls_told_are_remembered_across_a_gap_but_not_without_end() {
        let mut alarm = ExpiryAlarm::new(10);
        // A listing that briefly lacks a call told does not make it ring again.
        alarm.watch(&[call("kept", Some(60_000))]);
        assert_eq!(alarm.due(0).len(), 1);
        alarm.watch(&[]);
        alarm.watch(&[call("kept", Some(60_000))]);
        assert!(alarm.due(1_000).is_empty(), "told before the gap");
        // A day of calls, each told: past the bound only those still waiting stay.
        for i in 0..=MAX_TOLD {
            let id = format!("c{i}");
            alarm.watch(&[call("kept", Some(60_000)), call(&id, Some(60_000))]);
            assert_eq!(alarm.due(0).len(), 1, "{id} rings once");
        }
        alarm.watch(&[call("kept", Some(60_000))]);
        assert!(
            alarm.told.len() < MAX_TOLD,
            "{} remembered",
            alarm.told.len()
        );
        assert!(
            alarm.due(2_000).is_empty(),
            "the one still waiting stays told"
        );
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

    #[test]
    fn a_session_rings_each_alarm_once_and_nothing_it_already_was() {
        let mut alarms = SessionAlarms::new(10, Some(1));
        let calls = [call("c1", Some(5 * 60_000))];
        let running = WorkspaceState::Running;
        let rung = alarms.look(&calls, Some(&WorkspaceState::Destroyed), Some(10), 0);
        assert_eq!(rung.len(), 1, "only the deadline: {rung:?}");
        assert_eq!(rung[0].kind, NotifyKind::Deadline);
        assert_eq!(rung[0].expires_at, Some(5 * 60_000));
        assert!(
            alarms
                .look(&calls, Some(&WorkspaceState::Destroyed), Some(10), 1)
                .is_empty()
        );
        assert!(alarms.look(&calls, Some(&running), Some(30), 2).is_empty());
        let rung = alarms.look(&[], Some(&WorkspaceState::Destroyed), Some(61), 3);
        let kinds: Vec<NotifyKind> = rung.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [NotifyKind::WorkspaceReclaimed, NotifyKind::Budget],
            "{rung:?}"
        );
        assert_eq!(rung[1].what, "sandbox time passed the budget of 1 minute");
        assert!(
            alarms
                .look(&calls, Some(&WorkspaceState::Destroyed), Some(90), 4)
                .is_empty(),
            "each once"
        );
    }
}
