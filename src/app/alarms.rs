//! The session's news that no event announces, looked for after every wake-up: a function
//! call's deadline coming close, the workspace reclaimed (or its rebuild given up), the
//! sandbox minutes past `[budget]`. Each rings once, through the same notifier and policy
//! as the rest.

use std::time::{Duration, Instant};

use super::App;
use crate::notify::alarms::{BudgetAlarm, ExpiryAlarm, deadline_text};
use crate::notify::kind::NotifyKind;
use gobare_api::model::WorkspaceState;

/// What the alarms remember between wake-ups.
#[derive(Debug)]
pub(crate) struct Alarms {
    expiry: ExpiryAlarm,
    budget: BudgetAlarm,
    /// The workspace's state at the last look; `None` until the replay is over and the
    /// session read (what a restart replays is not news).
    workspace: Option<Option<WorkspaceState>>,
}

impl Alarms {
    pub(crate) fn new(settings: &super::settings::Settings) -> Alarms {
        Alarms {
            expiry: ExpiryAlarm::new(settings.notify.deadline_minutes),
            budget: BudgetAlarm::new(settings.budget.sandbox_minutes),
            workspace: None,
        }
    }
}

impl App {
    /// Rings what came due; call after every wake-up.
    pub(super) fn ring_alarms(&mut self, now_ms: i64) {
        if self.replay.is_active() || !self.session_loaded {
            return;
        }
        self.alarms.expiry.watch(self.view.actions().listed());
        let due = self.alarms.expiry.due(now_ms);
        let reclaimed = self.workspace_reclaimed();
        let crossed = self
            .view
            .workspace()
            .usage()
            .is_some_and(|u| self.alarms.budget.read(u.session.sandbox_seconds));
        if due.is_empty() && reclaimed.is_none() && !crossed {
            return;
        }
        let title = self.session_name();
        let mut rung = Vec::new();
        for call in &due {
            let text = deadline_text(call, now_ms);
            rung.extend(self.acting.notifier.tell(
                NotifyKind::Deadline,
                &title,
                &text,
                Some(call.expires_at),
            ));
        }
        if let Some(what) = reclaimed {
            rung.extend(self.acting.notifier.tell(
                NotifyKind::WorkspaceReclaimed,
                &title,
                what,
                None,
            ));
        }
        if crossed {
            let what = format!(
                "sandbox time passed the budget of {} minutes",
                self.alarms.budget_minutes()
            );
            rung.extend(
                self.acting
                    .notifier
                    .tell(NotifyKind::Budget, &title, &what, None),
            );
        }
        for bytes in rung {
            self.write_notification(&bytes);
        }
    }

    /// What to say when the workspace was reclaimed since the last look.
    fn workspace_reclaimed(&mut self) -> Option<&'static str> {
        let now = self.view.workspace().state().cloned();
        let before = self.alarms.workspace.replace(now.clone())?;
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

    /// When the next deadline comes within `[notify] deadline_minutes`.
    pub(super) fn alarms_due_at(&self, now: Instant) -> Option<Instant> {
        let at_ms = self.alarms.expiry.next_at()?;
        let wait = at_ms.saturating_sub(gobare_api::clock::unix_ms()).max(0);
        Some(now + Duration::from_millis(wait as u64))
    }
}

impl Alarms {
    fn budget_minutes(&self) -> u64 {
        self.budget.threshold_secs().unwrap_or(0) / 60
    }
}
