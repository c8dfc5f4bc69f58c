//! When to ring: a turn ended (completed, failed or cancelled, read from the fetched turn)
//! or the agent started waiting on the user (required actions became non-empty). The
//! bytes come from [`crate::notify::notification_bytes`]; the loop writes them to the
//! terminal. Policy [`NotifyWhen`]: by default only while the terminal is not known to be
//! focused (crossterm focus events feed [`Notifier::set_focused`]; a terminal that never
//! reports focus, as tmux as it ships with `focus-events off`, is never known focused).
//! Each required action rings once, also across reconnects, and what already waited when
//! the view opened is not news. `[notify] on` chooses the kinds that ring; each one that
//! rings also runs `[notify] command`, when there is one (under the same policy).
//!
//! The session's own news is told softly, as the fleet's is ([`crate::fleet::pacer`]): the
//! first at once, what follows within [`OWN_WINDOW`] gathered into one notification at the
//! window's end ("3 pieces of news: turn completed ×2, the agent asks for approval"), so a
//! busy session (a turn every few seconds) rings once in ten seconds, not with every turn.

use crate::notify::choice::NotifyChoice;
use crate::notify::command::CommandRunner;
use crate::notify::kind::{NotifyEvent, NotifyKind};
use crate::notify::{NotifyTarget, NotifyWhen, notification_bytes};
use gobare_api::model::{RequiredAction, RequiredActionKind, Turn, TurnStatus};
use std::collections::HashSet;
use std::time::{Duration, Instant};

const TITLE: &str = "gobare";

/// At most one notification of the session's own news in this long: the fleet's window.
pub(crate) const OWN_WINDOW: Duration = crate::fleet::pacer::WINDOW;

/// The session's own news heard within the window, told together at its end.
#[derive(Debug, Default)]
struct OwnPace {
    last_told: Option<Instant>,
    /// What was heard since, in order: its kind, its words, a deadline it carries.
    held: Vec<(NotifyKind, &'static str, Option<i64>)>,
    /// How the session was named when the newest was heard.
    title: String,
}

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
    /// The session's own news, paced.
    pace: OwnPace,
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
            pace: OwnPace::default(),
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
        self.tell_gathered(kind, session_title, what, expires_at, 1)
    }

    /// [`Notifier::tell`] for a notification that gathers `count` pieces of news.
    fn tell_gathered(
        &self,
        kind: NotifyKind,
        session_title: &str,
        what: &str,
        expires_at: Option<i64>,
        count: usize,
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
            event.count = count;
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
    pub(crate) fn turn_fetched(
        &mut self,
        turn: &Turn,
        session_title: &str,
        now: Instant,
    ) -> Option<Vec<u8>> {
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
        self.tell_own(kind, session_title, what, None, now)
    }

    /// Call whenever `required_actions` is refreshed: rings for each action not announced
    /// before (once, whatever reconnects bring back), never for those of the first read.
    pub(crate) fn actions_refreshed(
        &mut self,
        actions: &[RequiredAction],
        session_title: &str,
        now: Instant,
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
        self.tell_own(
            NotifyKind::of_action(&action.kind),
            session_title,
            what,
            action.expires_at,
            now,
        )
    }

    /// The session's own news at `now`: told at once when nothing was told in the last
    /// [`OWN_WINDOW`], else held for [`Notifier::own_due`].
    fn tell_own(
        &mut self,
        kind: NotifyKind,
        session_title: &str,
        what: &'static str,
        expires_at: Option<i64>,
        now: Instant,
    ) -> Option<Vec<u8>> {
        if !self.choice.wants(kind) || !self.allowed() {
            return None;
        }
        let quiet = self
            .pace
            .last_told
            .is_none_or(|at| now.saturating_duration_since(at) >= OWN_WINDOW);
        if quiet && self.pace.held.is_empty() {
            self.pace.last_told = Some(now);
            return self.tell(kind, session_title, what, expires_at);
        }
        self.pace.held.push((kind, what, expires_at));
        self.pace.title = session_title.to_string();
        None
    }

    /// When held news is to be told: the loop wakes then.
    pub(crate) fn own_due_at(&self) -> Option<Instant> {
        if self.pace.held.is_empty() {
            return None;
        }
        self.pace.last_told.map(|at| at + OWN_WINDOW)
    }

    /// The held news as one notification, once its window is over at `now`.
    pub(crate) fn own_due(&mut self, now: Instant) -> Option<Vec<u8>> {
        if self.own_due_at().is_none_or(|due| due > now) {
            return None;
        }
        let held = std::mem::take(&mut self.pace.held);
        self.pace.last_told = Some(now);
        // A decision waiting names the notification's kind (for `[notify] command`): it is
        // what the person is wanted for; else the newest turn's end.
        let (kind, _, _) = held
            .iter()
            .find(|(k, _, _)| k.is_need())
            .or(held.last())
            .copied()?;
        let expires_at = held.iter().filter_map(|(_, _, e)| *e).min();
        let mut said: Vec<(&'static str, usize)> = Vec::new();
        for (_, what, _) in &held {
            match said.iter_mut().find(|(w, _)| w == what) {
                Some((_, n)) => *n += 1,
                None => said.push((what, 1)),
            }
        }
        let words: Vec<String> = said
            .iter()
            .map(|(what, n)| match n {
                1 => (*what).to_string(),
                n => format!("{what} ×{n}"),
            })
            .collect();
        let line = match held.len() {
            1 => words.join(""),
            n => format!("{n} pieces of news: {}", words.join(", ")),
        };
        let title = std::mem::take(&mut self.pace.title);
        self.tell_gathered(kind, &title, &line, expires_at, held.len())
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

    /// The `k`-th moment of a test, each a window after the one before (so the pacing of
    /// the session's own news does not hold what a test reads at once).
    fn at(k: u32) -> Instant {
        static BASE: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);
        *BASE + OWN_WINDOW * k
    }

    #[test]
    fn unfocused_by_default_only_and_once_per_turn() {
        let mut n = Notifier::new(NotifyWhen::default(), PLAIN, 100);
        n.set_focused(true);
        assert!(
            n.turn_fetched(&turn("t1", "completed", 200), "demo", at(1))
                .is_none(),
            "focused"
        );
        n.set_focused(false);
        let bytes = n
            .turn_fetched(&turn("t2", "failed", 200), "demo", at(2))
            .unwrap();
        assert_eq!(bytes[0], 0x07, "starts with the bell");
        assert!(String::from_utf8_lossy(&bytes).contains("demo: turn failed"));
        assert!(
            n.turn_fetched(&turn("t2", "failed", 200), "demo", at(3))
                .is_none(),
            "again"
        );
        assert!(
            n.turn_fetched(&turn("t3", "completed", 50), "demo", at(4))
                .is_none(),
            "replayed"
        );
        assert!(
            n.turn_fetched(&turn("t4", "working", 0), "demo", at(5))
                .is_none()
        );
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
            n.actions_refreshed(&[action("approval")], "s", at(6))
                .is_none(),
            "already waiting at the first read"
        );
        assert!(n.actions_refreshed(&[], "s", at(7)).is_none());
        assert!(
            n.actions_refreshed(&[action("approval")], "s", at(8))
                .is_none(),
            "the same call again (a reconnect's read)"
        );
        let bytes = n
            .actions_refreshed(&[call("question", "c2")], "fix the export", at(9))
            .unwrap();
        assert!(
            String::from_utf8_lossy(&bytes).contains("fix the export: the agent asks a question")
        );
        assert!(
            n.actions_refreshed(&[call("question", "c2")], "s", at(10))
                .is_none()
        );
    }

    #[test]
    fn a_terminal_that_never_reported_focus_is_not_known_focused() {
        let mut n = Notifier::new(NotifyWhen::Unfocused, PLAIN, 0);
        n.actions_refreshed(&[], "s", at(11));
        assert!(
            n.actions_refreshed(&[call("approval", "c9")], "s", at(12))
                .is_some(),
            "tmux as it ships sends no focus events: still rings"
        );
        n.set_focused(true);
        assert!(
            n.actions_refreshed(&[call("approval", "c10")], "s", at(13))
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
        assert!(
            n.turn_fetched(&turn("t1", "completed", 5), "s", at(14))
                .is_none()
        );
        assert!(
            n.turn_fetched(&turn("t2", "failed", 5), "s", at(15))
                .is_some()
        );
        n.actions_refreshed(&[], "s", at(16));
        assert!(
            n.actions_refreshed(&[call("approval", "c1")], "s", at(17))
                .is_none(),
            "approvals are not chosen"
        );
        let bytes = n
            .actions_refreshed(
                &[call("approval", "c2"), call("question", "c3")],
                "s",
                at(18),
            )
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
        assert!(
            n.turn_fetched(&turn("t1", "completed", 5), "s", at(19))
                .is_none()
        );
        assert!(
            n.actions_refreshed(&[action("question")], "s", at(20))
                .is_none()
        );
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

    /// A busy session (the simulator's fleet activity: a turn ended every few seconds, an
    /// approval now and then) rings once a window: the first at once, the rest gathered
    /// into one at the window's end, an approval among them named.
    #[test]
    fn a_busy_sessions_own_news_rings_once_a_window_and_loses_none() {
        let mut n = Notifier::new(NotifyWhen::Always, PLAIN, 0);
        n.actions_refreshed(&[], "s", at(1));
        let t0 = at(2);
        let mut rung = Vec::new();
        for i in 0..30u32 {
            let now = t0 + Duration::from_secs(2) * i;
            rung.extend(n.own_due(now));
            let ended = turn(&format!("t{i}"), "completed", 5);
            rung.extend(n.turn_fetched(&ended, "billing", now));
            if i == 7 {
                let asked = [call("approval", "c7")];
                rung.extend(n.actions_refreshed(&asked, "billing", now));
            }
        }
        let end = t0 + Duration::from_secs(60) + OWN_WINDOW;
        rung.extend(n.own_due(end));
        assert!(n.own_due_at().is_none(), "nothing left held");
        let said: Vec<String> = rung
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        assert!(
            (6..=8).contains(&said.len()),
            "a minute of a turn every 2 s rang {} times: {said:#?}",
            said.len()
        );
        assert!(
            said[0].contains("billing: turn completed\x07"),
            "{}",
            said[0]
        );
        assert!(
            said.iter()
                .any(|s| s.contains("the agent asks for approval")),
            "the approval is told: {said:#?}"
        );
        assert!(
            said[1].contains("billing: 4 pieces of news: turn completed ×4\x07"),
            "{}",
            said[1]
        );
        assert!(
            said[2].contains(
                "billing: 6 pieces of news: turn completed ×5, the agent asks for approval\x07"
            ),
            "{}",
            said[2]
        );
        let told: usize = said
            .iter()
            .map(|s| {
                if let Some(i) = s.find("pieces of news: turn completed ×") {
                    s[i + "pieces of news: turn completed ×".len()..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                        .parse::<usize>()
                        .unwrap()
                } else {
                    usize::from(s.contains("turn completed"))
                }
            })
            .sum();
        assert_eq!(
            told, 30,
            "every turn's end is in one notification or another"
        );
    }
}
