//! How long keys stay held after a decision: the moment after it (a `y` typed twice, the
//! start of a sentence meant as a note), never past the turn that asked it. After that the
//! box has the keys again and the title says "Typing". A decision that goes away under a key
//! meant for it (expired, answered elsewhere) holds the keys the same way: they were typed
//! at a prompt, not into the box.

use std::time::{Duration, Instant};

/// Keys typed within this long of a decision are held; later ones are text again.
pub(crate) const HOLD_FOR: Duration = Duration::from_secs(3);

/// Why keys are held: the words the status bar starts with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum HoldCause {
    /// A key decided.
    #[default]
    Decided,
    /// The decision being made went away under the person's keys.
    DecisionGone,
}

impl HoldCause {
    fn lead(self) -> &'static str {
        match self {
            HoldCause::Decided => "decided",
            HoldCause::DecisionGone => "that decision no longer waits",
        }
    }
}

/// The hold's end: a moment after the decision, or the end of the turn that asked it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DecidedHold {
    until: Option<Instant>,
    cause: HoldCause,
    /// The turn running when the decision was made: its end ends the hold.
    turn: Option<String>,
    /// The notice the hold put in the status bar, to take it away with the hold.
    said: Option<String>,
}

impl DecidedHold {
    /// A decision was made at `now`, while `running_turn` ran.
    pub(crate) fn started(&mut self, now: Instant, running_turn: Option<&str>, cause: HoldCause) {
        self.until = Some(now + HOLD_FOR);
        self.cause = cause;
        self.turn = running_turn.map(str::to_string);
        self.said = None;
    }

    /// Whether the hold is over at `now`, with `running_turn` running then.
    pub(crate) fn over(&self, now: Instant, running_turn: Option<&str>) -> bool {
        let Some(until) = self.until else {
            return false;
        };
        let turn_ended = self.turn.is_some() && self.turn.as_deref() != running_turn;
        now >= until || turn_ended
    }

    /// Why the keys are held.
    pub(crate) fn cause(&self) -> HoldCause {
        self.cause
    }

    /// When the hold ends by the clock, for the loop's next wake-up.
    pub(crate) fn due_at(&self) -> Option<Instant> {
        self.until
    }

    /// The status-bar line the hold shows now.
    pub(crate) fn say(&mut self, notice: String) -> String {
        self.said = Some(notice.clone());
        notice
    }

    /// Whether `notice` is the hold's own line.
    pub(crate) fn said(&self, notice: Option<&str>) -> bool {
        notice.is_some() && self.said.as_deref() == notice
    }

    /// The hold ended (or was left with Esc or Tab); its line may still be shown.
    pub(crate) fn end(&mut self) {
        self.until = None;
        self.turn = None;
    }

    /// The held keys were put back: nothing of the hold is left.
    pub(crate) fn clear(&mut self) {
        *self = DecidedHold::default();
    }
}

impl super::SessionFront {
    /// The turn running now, if one does.
    fn running_turn(&self) -> Option<String> {
        self.session
            .turns()
            .current()
            .filter(|_| self.session.turn_running())
            .map(|t| t.id.clone())
    }

    /// A key decided: what is typed next is held, for the moment after it.
    pub(crate) fn enter_decided(&mut self) {
        self.enter_held(HoldCause::Decided);
    }

    /// Keys are held from now, for `cause`.
    pub(crate) fn enter_held(&mut self, cause: HoldCause) {
        self.screen.modes.decided();
        let turn = self.running_turn();
        self.decided_hold
            .started(key_time(), turn.as_deref(), cause);
    }

    /// Shows `notice` as the hold's own status-bar line.
    pub(crate) fn hold_notice(&mut self, notice: String) {
        let notice = self.decided_hold.say(notice);
        self.notice(Some(notice));
    }

    /// Ends the hold once its moment or its turn is over: the box has the keys again, and
    /// the status bar says what was held is still one Ctrl+Y away.
    pub(crate) fn end_hold_if_over(&mut self, now: Instant) {
        if *self.screen.mode() != crate::keys::mode::Mode::Decided {
            self.decided_hold.end();
            return;
        }
        let turn = self.running_turn();
        if !self.decided_hold.over(now, turn.as_deref()) {
            return;
        }
        let ours = self
            .decided_hold
            .said(self.session.notice().map(|n| n.text.as_str()));
        self.decided_hold.end();
        self.screen.modes.back_to_typing();
        let held = self.screen.modes.held().to_string();
        if !held.trim().is_empty() {
            let notice = self.decided_hold.say(back_to_typing_notice(&held));
            self.notice(Some(notice));
        } else if ours {
            self.notice(None);
        }
        self.request_frame();
    }

    /// Quitting with keys held: they go to the box, so the quit question speaks of a draft
    /// and the draft is kept (after what the box held, on a line of its own).
    pub(crate) fn held_kept_as_draft(&mut self) {
        let held = self.screen.modes.held().to_string();
        if held.trim().is_empty() {
            return;
        }
        let draft = match self.screen.composer.text() {
            text if text.is_empty() => held,
            text => format!("{text}\n{held}"),
        };
        self.screen.composer.set_text(&draft);
        self.held_put_back();
    }

    /// Ctrl+Y put the held keys back in the box: the word about them goes.
    pub(crate) fn held_put_back(&mut self) {
        if self.screen.modes.take_held().is_empty() {
            return;
        }
        if self
            .decided_hold
            .said(self.session.notice().map(|n| n.text.as_str()))
        {
            self.notice(None);
        }
        self.decided_hold.clear();
    }
}

/// When a key arrives: the runtime's clock, which a test's paused runtime holds still (a
/// slow test machine never ends a hold between two keys).
pub(crate) fn key_time() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// The status line once the hold is over with keys held: typing again, and what Ctrl+Y
/// puts back.
fn back_to_typing_notice(held: &str) -> String {
    format!("typing again — Ctrl+Y puts back {}", quoted(held))
}

/// The held text as the status line quotes it: its start, and "…" when there is more.
fn quoted(held: &str) -> String {
    const SHOWN: usize = 24;
    let shown: String = held.chars().take(SHOWN).collect();
    let more = if held.chars().count() > SHOWN {
        "…"
    } else {
        ""
    };
    format!("\"{shown}{more}\"")
}

/// The status line while keys are held for `cause`: that they were not sent, and how to get
/// them back.
pub(crate) fn held_notice(cause: HoldCause, held: &str) -> String {
    let lead = cause.lead();
    if held.trim().is_empty() {
        format!("{lead} — keys are held here: Esc to type, Tab for the next decision")
    } else {
        format!(
            "{lead} — held, not sent: {} · Esc to type, then Ctrl+Y puts it back",
            quoted(held)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_ends_a_moment_after_the_decision_or_with_the_turn_that_asked_it() {
        let t0 = Instant::now();
        let mut hold = DecidedHold::default();
        assert!(!hold.over(t0, None), "no decision, no hold to end");
        hold.started(t0, Some("turn_1"), HoldCause::Decided);
        assert!(!hold.over(t0 + Duration::from_secs(1), Some("turn_1")));
        assert!(
            hold.over(t0 + HOLD_FOR, Some("turn_1")),
            "the moment passed"
        );
        assert!(
            hold.over(t0 + Duration::from_millis(10), None),
            "the turn ended"
        );
        assert!(
            hold.over(t0 + Duration::from_millis(10), Some("turn_2")),
            "another turn runs"
        );
        hold.started(t0, None, HoldCause::Decided);
        assert!(!hold.over(t0 + Duration::from_secs(1), None));
        assert_eq!(hold.due_at(), Some(t0 + HOLD_FOR));
    }
}
