//! When to ring: a turn ended (completed, failed or cancelled, read from the fetched turn)
//! or the agent started waiting on the user (required actions became non-empty). The
//! bytes come from [`crate::notify::notification_bytes`]; the loop writes them to the
//! terminal. Policy [`NotifyWhen`]: by default only while the terminal is unfocused
//! (crossterm focus events feed [`Notifier::set_focused`]).

use crate::notify::{NotifyTarget, NotifyWhen, notification_bytes};
use gobare_api::model::{RequiredAction, RequiredActionKind, Turn, TurnStatus};
use std::collections::HashSet;

const TITLE: &str = "gobare";

/// Decides which session changes deserve a notification, once each.
#[derive(Debug)]
pub(crate) struct Notifier {
    when: NotifyWhen,
    target: NotifyTarget,
    /// Terminals that never report focus are taken as focused (no spurious bells).
    focused: bool,
    /// Turns that ended before this instant (unix ms) are history being replayed.
    since_ms: i64,
    /// Turns already announced (a turn is fetched again on reconnects).
    announced_turns: HashSet<String>,
    /// Whether the agent was already waiting on the user at the last check.
    waiting: bool,
}

impl Notifier {
    /// `since_ms`: when the app attached; anything that ended earlier is not news.
    pub(crate) fn new(when: NotifyWhen, target: NotifyTarget, since_ms: i64) -> Notifier {
        Notifier {
            when,
            target,
            focused: true,
            since_ms,
            announced_turns: HashSet::new(),
            waiting: false,
        }
    }

    pub(crate) fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
    }

    fn allowed(&self) -> bool {
        self.when.should_notify(self.focused)
    }

    /// Call with each turn fetched after `turn.ended`: the bytes to write, if any.
    pub(crate) fn turn_fetched(&mut self, turn: &Turn, session_title: &str) -> Option<Vec<u8>> {
        let what = match &turn.status {
            TurnStatus::Completed => "turn completed",
            TurnStatus::Failed => "turn failed",
            TurnStatus::Cancelled => "turn cancelled",
            TurnStatus::Working | TurnStatus::Other(_) => return None,
        };
        if turn.completed_at.is_some_and(|at| at < self.since_ms) {
            return None;
        }
        if !self.announced_turns.insert(turn.id.clone()) || !self.allowed() {
            return None;
        }
        Some(notification_bytes(
            TITLE,
            &format!("{session_title}: {what}"),
            self.target,
        ))
    }

    /// Call whenever `required_actions` is refreshed: rings when it becomes non-empty.
    pub(crate) fn actions_refreshed(
        &mut self,
        actions: &[RequiredAction],
        session_title: &str,
    ) -> Option<Vec<u8>> {
        let was_waiting = std::mem::replace(&mut self.waiting, !actions.is_empty());
        if was_waiting || actions.is_empty() || !self.allowed() {
            return None;
        }
        let what = match &actions[0].kind {
            RequiredActionKind::Approval => "the agent asks for approval",
            RequiredActionKind::Question => "the agent asks a question",
            RequiredActionKind::FunctionCall | RequiredActionKind::Other(_) => {
                "the agent waits for a function result"
            }
        };
        Some(notification_bytes(
            TITLE,
            &format!("{session_title}: {what}"),
            self.target,
        ))
    }

    /// Another session in the fleet behind came to need the user; `line` names it and
    /// what it needs.
    pub(crate) fn fleet_needs_you(&self, line: &str) -> Option<Vec<u8>> {
        self.allowed()
            .then(|| notification_bytes(TITLE, line, self.target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(id: &str, status: &str, completed_at: i64) -> Turn {
        serde_json::from_value(serde_json::json!({
            "object": "turn", "id": id, "session_id": "s", "status": status,
            "created_at": 1, "completed_at": completed_at
        }))
        .unwrap()
    }

    fn action(kind: &str) -> RequiredAction {
        serde_json::from_value(serde_json::json!({
            "type": kind, "turn_id": "t1", "call_id": "c1"
        }))
        .unwrap()
    }

    const PLAIN: NotifyTarget = NotifyTarget { tmux: false };

    #[test]
    fn unfocused_by_default_only_and_once_per_turn() {
        let mut n = Notifier::new(NotifyWhen::default(), PLAIN, 100);
        assert!(
            n.turn_fetched(&turn("t1", "completed", 200), "demo")
                .is_none(),
            "focused"
        );
        n.set_focused(false);
        let bytes = n.turn_fetched(&turn("t2", "failed", 200), "demo").unwrap();
        assert_eq!(bytes[0], 0x07, "starts with the bell");
        assert!(String::from_utf8_lossy(&bytes).contains("demo: turn failed"));
        assert!(
            n.turn_fetched(&turn("t2", "failed", 200), "demo").is_none(),
            "again"
        );
        assert!(
            n.turn_fetched(&turn("t3", "completed", 50), "demo")
                .is_none(),
            "replayed"
        );
        assert!(n.turn_fetched(&turn("t4", "working", 0), "demo").is_none());
    }

    #[test]
    fn rings_when_the_agent_starts_waiting_not_while_it_keeps_waiting() {
        let mut n = Notifier::new(NotifyWhen::Always, PLAIN, 0);
        let bytes = n.actions_refreshed(&[action("approval")], "s").unwrap();
        assert!(String::from_utf8_lossy(&bytes).contains("approval"));
        assert!(n.actions_refreshed(&[action("approval")], "s").is_none());
        assert!(n.actions_refreshed(&[], "s").is_none());
        assert!(n.actions_refreshed(&[action("question")], "s").is_some());
    }

    #[test]
    fn never_means_never() {
        let mut n = Notifier::new(NotifyWhen::Never, PLAIN, 0);
        n.set_focused(false);
        assert!(n.turn_fetched(&turn("t1", "completed", 5), "s").is_none());
        assert!(n.actions_refreshed(&[action("question")], "s").is_none());
        assert!(n.fleet_needs_you("other: needs you: approval").is_none());
    }

    #[test]
    fn the_fleet_behind_rings_under_the_same_policy() {
        let mut n = Notifier::new(NotifyWhen::Unfocused, PLAIN, 0);
        assert!(
            n.fleet_needs_you("other: needs you: approval").is_none(),
            "focused"
        );
        n.set_focused(false);
        let bytes = n.fleet_needs_you("other: needs you: approval").unwrap();
        assert!(
            String::from_utf8_lossy(&bytes)
                .contains("\x1b]9;gobare: other: needs you: approval\x07")
        );
    }
}
