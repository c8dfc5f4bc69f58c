//! When to ring: a turn ended (completed, failed or cancelled, read from the fetched turn)
//! or the agent started waiting on the user (required actions became non-empty). The
//! bytes come from [`crate::notify::notification_bytes`]; the loop writes them to the
//! terminal. Policy [`NotifyWhen`]: by default only while the terminal is not known to be
//! focused (crossterm focus events feed [`Notifier::set_focused`]; a terminal that never
//! reports focus, as tmux as it ships with `focus-events off`, is never known focused).
//! Each required action rings once, also across reconnects, and what already waited when
//! the view opened is not news. `[notify] on` chooses the kinds that ring; each one that
//! rings also runs `[notify] command`, when there is one (under the same policy).

use crate::notify::choice::NotifyChoice;
use crate::notify::command::CommandRunner;
use crate::notify::kind::{NotifyEvent, NotifyKind};
use crate::notify::{NotifyTarget, NotifyWhen, notification_bytes};
use gobare_api::model::{RequiredAction, RequiredActionKind, Turn, TurnStatus};
use std::collections::HashSet;

const TITLE: &str = "gobare";

/// Decides which session changes deserve a notification, once each.
#[derive(Debug)]
pub(crate) struct Notifier {
    when: NotifyWhen,
    target: NotifyTarget,
    /// The last focus event; `None` until one arrives (then nobody knows the window is seen).
    focused: Option<bool>,
    /// Turns that ended before this instant (unix ms) are history being replayed.
    since_ms: i64,
    /// Turns already announced (a turn is fetched again on reconnects).
    announced_turns: HashSet<String>,
    /// Required actions already announced or already waiting when the view opened.
    announced_calls: HashSet<String>,
    /// The first read of the session was taken in (what waited then is not news).
    seen_first_read: bool,
    /// Which kinds ring (`[notify] on`).
    choice: NotifyChoice,
    /// `[notify] command`, when set.
    runner: Option<CommandRunner>,
    /// The session this notifier speaks for (empty for the fleet's, whose news names its own).
    session_id: String,
}

impl Notifier {
    /// `since_ms`: when the app attached; anything that ended earlier is not news.
    pub(crate) fn new(when: NotifyWhen, target: NotifyTarget, since_ms: i64) -> Notifier {
        Notifier {
            when,
            target,
            focused: None,
            since_ms,
            announced_turns: HashSet::new(),
            announced_calls: HashSet::new(),
            seen_first_read: false,
            choice: NotifyChoice::default(),
            runner: None,
            session_id: String::new(),
        }
    }

    /// The kinds `[notify]` chose, and its command.
    pub(crate) fn choosing(mut self, choice: &NotifyChoice) -> Notifier {
        self.runner = choice
            .command
            .clone()
            .map(|spec| CommandRunner::new(spec, choice.command_timeout));
        self.choice = choice.clone();
        self
    }

    /// The session whose news this notifier tells.
    pub(crate) fn for_session(mut self, session_id: &str) -> Notifier {
        self.session_id = session_id.to_string();
        self
    }

    /// Tells `what` of the session if `kind` is chosen and now is the time: runs the
    /// command, and returns the bytes for the terminal.
    pub(crate) fn tell(
        &self,
        kind: NotifyKind,
        session_title: &str,
        what: &str,
        expires_at: Option<i64>,
    ) -> Option<Vec<u8>> {
        if !self.choice.wants(kind) || !self.allowed() {
            return None;
        }
        let line = if session_title.is_empty() {
            what.to_string()
        } else {
            format!("{session_title}: {what}")
        };
        if let Some(runner) = &self.runner {
            let mut event = NotifyEvent::new(kind, &self.session_id, session_title, &line);
            event.expires_at = expires_at;
            runner.notify(&event);
        }
        Some(notification_bytes(TITLE, &line, self.target))
    }

    pub(crate) fn set_focused(&mut self, focused: bool) {
        self.focused = Some(focused);
    }

    fn allowed(&self) -> bool {
        self.when.should_notify(self.focused == Some(true))
    }

    /// Call with each turn fetched after `turn.ended`: the bytes to write, if any.
    pub(crate) fn turn_fetched(&mut self, turn: &Turn, session_title: &str) -> Option<Vec<u8>> {
        let (kind, what) = match &turn.status {
            TurnStatus::Completed => (NotifyKind::TurnCompleted, "turn completed"),
            TurnStatus::Failed => (NotifyKind::TurnFailed, "turn failed"),
            TurnStatus::Cancelled => (NotifyKind::TurnCancelled, "turn cancelled"),
            TurnStatus::Working | TurnStatus::Other(_) => return None,
        };
        if turn.completed_at.is_some_and(|at| at < self.since_ms) {
            return None;
        }
        if !self.announced_turns.insert(turn.id.clone()) {
            return None;
        }
        self.tell(kind, session_title, what, None)
    }

    /// Call whenever `required_actions` is refreshed: rings for each action not announced
    /// before (once, whatever reconnects bring back), never for those of the first read.
    pub(crate) fn actions_refreshed(
        &mut self,
        actions: &[RequiredAction],
        session_title: &str,
    ) -> Option<Vec<u8>> {
        let first_read = !std::mem::replace(&mut self.seen_first_read, true);
        let new: Vec<&RequiredAction> = actions
            .iter()
            .filter(|a| self.announced_calls.insert(a.call_id.clone()))
            .collect();
        if first_read {
            return None;
        }
        // The first new one of a kind chosen: one ring however many arrived together.
        let action = new
            .into_iter()
            .find(|a| self.choice.wants(NotifyKind::of_action(&a.kind)))?;
        let what = match &action.kind {
            RequiredActionKind::Approval => "the agent asks for approval",
            RequiredActionKind::Question => "the agent asks a question",
            RequiredActionKind::FunctionCall | RequiredActionKind::Other(_) => {
                "the agent waits for a function result"
            }
        };
        self.tell(
            NotifyKind::of_action(&action.kind),
            session_title,
            what,
            action.expires_at,
        )
    }

    /// A session of the fleet came to need the user or its turn failed; its line names it
    /// and what happened. The fleet tells each piece of news once.
    pub(crate) fn fleet_news(&self, news: &crate::fleet::news::FleetNews) -> Option<Vec<u8>> {
        if !self.choice.wants(news.kind) || !self.allowed() {
            return None;
        }
        if let Some(runner) = &self.runner {
            let mut event = NotifyEvent::new(news.kind, &news.id, &news.title, &news.line);
            event.expires_at = news.expires_at;
            event.count = news.count;
            event.need_you = news.need_you;
            runner.notify(&event);
        }
        Some(notification_bytes(TITLE, &news.line, self.target))
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
        n.set_focused(true);
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

    fn call(kind: &str, id: &str) -> RequiredAction {
        serde_json::from_value(serde_json::json!({
            "type": kind, "turn_id": "t1", "call_id": id
        }))
        .unwrap()
    }

    #[test]
    fn rings_once_per_action_never_for_what_waited_when_the_view_opened() {
        let mut n = Notifier::new(NotifyWhen::Always, PLAIN, 0);
        assert!(
            n.actions_refreshed(&[action("approval")], "s").is_none(),
            "already waiting at the first read"
        );
        assert!(n.actions_refreshed(&[], "s").is_none());
        assert!(
            n.actions_refreshed(&[action("approval")], "s").is_none(),
            "the same call again (a reconnect's read)"
        );
        let bytes = n
            .actions_refreshed(&[call("question", "c2")], "fix the export")
            .unwrap();
        assert!(
            String::from_utf8_lossy(&bytes).contains("fix the export: the agent asks a question")
        );
        assert!(
            n.actions_refreshed(&[call("question", "c2")], "s")
                .is_none()
        );
    }

    #[test]
    fn a_terminal_that_never_reported_focus_is_not_known_focused() {
        let mut n = Notifier::new(NotifyWhen::Unfocused, PLAIN, 0);
        n.actions_refreshed(&[], "s");
        assert!(
            n.actions_refreshed(&[call("approval", "c9")], "s")
                .is_some(),
            "tmux as it ships sends no focus events: still rings"
        );
        n.set_focused(true);
        assert!(
            n.actions_refreshed(&[call("approval", "c10")], "s")
                .is_none()
        );
    }

    fn news(line: &str) -> crate::fleet::news::FleetNews {
        crate::fleet::news::FleetNews {
            id: "s2".into(),
            line: line.into(),
            kind: NotifyKind::Approval,
            title: "other".into(),
            expires_at: None,
            call: None,
            what: "approval".into(),
            count: 1,
            need_you: None,
        }
    }

    fn choosing(on: &str) -> NotifyChoice {
        let table: toml::Table = format!("on = {on}").parse().unwrap();
        let (choice, warnings) = NotifyChoice::from_table(&table);
        assert!(warnings.is_empty(), "{warnings:?}");
        choice
    }

    #[test]
    fn only_the_kinds_chosen_ring() {
        let mut n = Notifier::new(NotifyWhen::Always, PLAIN, 0)
            .choosing(&choosing("[\"turn_failed\", \"question\"]"));
        assert!(n.turn_fetched(&turn("t1", "completed", 5), "s").is_none());
        assert!(n.turn_fetched(&turn("t2", "failed", 5), "s").is_some());
        n.actions_refreshed(&[], "s");
        assert!(
            n.actions_refreshed(&[call("approval", "c1")], "s")
                .is_none(),
            "approvals are not chosen"
        );
        let bytes = n
            .actions_refreshed(&[call("approval", "c2"), call("question", "c3")], "s")
            .unwrap();
        assert!(
            String::from_utf8_lossy(&bytes).contains("asks a question"),
            "the chosen one of the two that arrived together"
        );
        assert!(n.fleet_news(&news("other: needs you: approval")).is_none());
        let mut failed = news("other: turn failed");
        failed.kind = NotifyKind::TurnFailed;
        assert!(n.fleet_news(&failed).is_some());
    }

    #[test]
    fn never_means_never() {
        let mut n = Notifier::new(NotifyWhen::Never, PLAIN, 0);
        n.set_focused(false);
        assert!(n.turn_fetched(&turn("t1", "completed", 5), "s").is_none());
        assert!(n.actions_refreshed(&[action("question")], "s").is_none());
        assert!(n.fleet_news(&news("other: needs you: approval")).is_none());
    }

    #[test]
    fn the_fleet_behind_rings_under_the_same_policy() {
        let mut n = Notifier::new(NotifyWhen::Unfocused, PLAIN, 0);
        n.set_focused(true);
        assert!(
            n.fleet_news(&news("other: needs you: approval")).is_none(),
            "focused"
        );
        n.set_focused(false);
        let bytes = n.fleet_news(&news("other: needs you: approval")).unwrap();
        assert!(
            String::from_utf8_lossy(&bytes)
                .contains("\x1b]9;gobare: other: needs you: approval\x07")
        );
    }
}
