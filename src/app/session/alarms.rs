//! The session's news that no event announces, looked for after every wake-up: a function
//! call's deadline coming close, the workspace reclaimed (or its rebuild given up), the
//! sandbox minutes past `[budget]`. Each rings once, through the same notifier and policy
//! as the rest. Only while no fleet is kept behind the session: the fleet's own alarms
//! ([`crate::notify::fleet_alarms`]) ring for every session, this one included, and take
//! over what these remembered when the fleet is first opened.

use std::time::{Duration, Instant};

use super::SessionFront;
use crate::notify::alarms::SessionAlarms;

/// The session's alarms, for a session with no fleet behind it.
pub(crate) fn for_session(settings: &crate::app::shared::settings::Settings) -> SessionAlarms {
    SessionAlarms::new(
        settings.notify.deadline_minutes,
        settings.budget.sandbox_minutes,
    )
}

impl SessionFront {
    /// Rings what came due; call after every wake-up.
    pub(crate) fn ring_alarms(&mut self, now_ms: i64) {
        if self.replay.is_active() || !self.session_loaded {
            return;
        }
        let Some(alarms) = self.alarms.as_mut() else {
            return;
        };
        let usage = self
            .session
            .workspace()
            .usage()
            .map(|u| u.session.sandbox_seconds);
        let rung = alarms.look(
            self.session.actions().listed(),
            self.session.workspace().state(),
            usage,
            now_ms,
        );
        if rung.is_empty() {
            return;
        }
        let title = self.session_name();
        let mut bytes = Vec::new();
        for alarm in rung {
            bytes.extend(self.acting.notifier.tell(
                alarm.kind,
                &title,
                &alarm.what,
                alarm.expires_at,
            ));
        }
        for bytes in bytes {
            self.write_notification(&bytes);
        }
    }

    /// When the next deadline comes within `[notify] deadline_minutes`.
    pub(crate) fn alarms_due_at(&self, now: Instant) -> Option<Instant> {
        let at_ms = self.alarms.as_ref()?.next_at()?;
        let wait = at_ms.saturating_sub(gobare_api::clock::unix_ms()).max(0);
        Some(now + Duration::from_millis(wait as u64))
    }

    /// What the session's alarms remember, for the fleet opened from it to take over.
    pub(crate) fn take_alarms(&mut self) -> Option<SessionAlarms> {
        self.alarms.take()
    }
}
