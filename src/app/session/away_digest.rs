//! The session's "while you were away" digest: begun at start from the last visit on disk
//! (the stored cursor and when it was saved) or when the terminal loses focus; fed every
//! persisted event as the local event log's replay and the stream apply it, and the resources as
//! they are read; shown at the top of the screen once the stream has caught up (or focus
//! came back after `[away] unfocused_minutes`), until Esc.

use std::time::Instant;

use super::SessionFront;
use crate::away::builder::{DigestBuilder, Window};
use crate::away::config::AwaySettings;
use crate::away::digest::Digest;
use crate::session::Update;
use gobare_api::model::Event;

/// Where the digest stands.
#[derive(Debug, Default)]
pub(crate) struct AwayDigest {
    settings: AwaySettings,
    state: State,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Off,
    /// Taking events in since the last visit (a restart).
    SinceVisit(Box<DigestBuilder>),
    /// Taking events in since focus left, at `Instant`.
    SinceFocus(Box<DigestBuilder>, Instant),
    /// On screen: events no longer join it, reads of what it names still do.
    Shown(Box<DigestBuilder>),
}

impl AwayDigest {
    pub(crate) fn new(settings: &AwaySettings) -> AwayDigest {
        AwayDigest {
            settings: settings.clone(),
            state: State::Off,
        }
    }

    fn builder_mut(&mut self) -> Option<&mut DigestBuilder> {
        match &mut self.state {
            State::Off => None,
            State::SinceVisit(b) | State::SinceFocus(b, _) | State::Shown(b) => Some(b),
        }
    }

    fn taking_events(&mut self) -> Option<&mut DigestBuilder> {
        match &mut self.state {
            State::SinceVisit(b) | State::SinceFocus(b, _) => Some(b),
            State::Off | State::Shown(_) => None,
        }
    }

    /// The digest on screen, if one is.
    pub(crate) fn shown(&self, now_ms: i64) -> Option<Digest> {
        match &self.state {
            State::Shown(b) => Some(b.digest(now_ms)),
            _ => None,
        }
    }
}

impl SessionFront {
    /// At start, before the local event log is replayed: a session visited before has a cursor
    /// and the time it was saved; what came after is the absence.
    pub(crate) fn away_start(&mut self) {
        if !self.away.settings.digest {
            return;
        }
        let mark = self.acting.saved_session().map(|m| {
            let m = crate::app::shared::saved_session::LockOrRecover::lock_or_recover(m);
            (m.state().cursor, m.state().saved_at)
        });
        if let Some((Some(cursor), saved_at)) = mark {
            let window = Window {
                after_seq: Some(cursor),
                from_ms: None,
            };
            self.away.state = State::SinceVisit(Box::new(DigestBuilder::new(
                &self.session_id,
                window,
                saved_at,
                true,
            )));
        }
    }

    /// A record of the local event log, as it is replayed.
    pub(crate) fn away_feed_raw(&mut self, seq: u64, json: &[u8]) {
        if let Some(b) = self.away.taking_events() {
            b.feed_raw(seq, json);
        }
    }

    /// A persisted event, as the stream applies it.
    pub(crate) fn away_feed(&mut self, event: &Event) {
        if let (Some(seq), Some(b)) = (event.seq, self.away.taking_events()) {
            b.feed(seq, event);
        }
    }

    /// A resource read: what waits, outcomes, usage.
    pub(crate) fn away_read(&mut self, update: &Update) {
        let now_ms = gobare_api::clock::unix_ms();
        let Some(b) = self.away.builder_mut() else {
            return;
        };
        let changed = match update {
            Update::Session(session) => {
                b.session_read(session);
                true
            }
            Update::Turn(turn) => {
                b.turns_read(std::slice::from_ref(turn), now_ms);
                true
            }
            Update::Turns(turns) | Update::PastTurns(turns) => {
                b.turns_read(turns, now_ms);
                true
            }
            Update::Usage(usage) => {
                b.usage_read(usage.session.sandbox_seconds);
                true
            }
            _ => false,
        };
        if changed && matches!(self.away.state, State::Shown(_)) {
            self.request_frame();
        }
    }

    /// After every wake-up: a restart's digest is shown once the stream has caught up and
    /// the session has been read.
    pub(crate) fn away_check(&mut self) {
        if self.replay.is_active() || !self.session_loaded {
            return;
        }
        if let State::SinceVisit(_) = &self.away.state {
            let State::SinceVisit(b) = std::mem::take(&mut self.away.state) else {
                return;
            };
            self.show_unless_quiet(b);
        }
    }

    /// Focus left or came back.
    pub(crate) fn away_focus(&mut self, focused: bool, now: Instant) {
        let Some(after_ms) = self.away.settings.unfocused_ms() else {
            return;
        };
        match (&self.away.state, focused) {
            (State::Off, false) => {
                let window = Window {
                    after_seq: self.session.last_seq().or(Some(0)),
                    from_ms: None,
                };
                let b = DigestBuilder::new(
                    &self.session_id,
                    window,
                    gobare_api::clock::unix_ms(),
                    true,
                );
                self.away.state = State::SinceFocus(Box::new(b), now);
            }
            (State::SinceFocus(_, since), true) => {
                let long = now.saturating_duration_since(*since).as_millis() as i64 >= after_ms;
                let State::SinceFocus(mut b, _) = std::mem::take(&mut self.away.state) else {
                    return;
                };
                if long {
                    b.actions_now(self.session.actions().listed());
                    // The outcomes of the turns that ended meanwhile.
                    self.want(crate::app::session::reading::fetch::FetchJob::Turns);
                    self.show_unless_quiet(b);
                }
            }
            _ => {}
        }
    }

    fn show_unless_quiet(&mut self, b: Box<DigestBuilder>) {
        if !b.digest(gobare_api::clock::unix_ms()).has_news() {
            self.away.state = State::Off;
        } else {
            self.away.state = State::Shown(b);
            self.request_frame();
        }
    }

    /// The digest to draw over the screen: none while an overlay or the key list is open
    /// (Esc closes what is on top, and the digest is there again once it has closed).
    pub(crate) fn away_on_screen(&self) -> Option<Digest> {
        let covered =
            self.screen.overlay_open() || *self.screen.mode() == crate::keys::mode::Mode::Help;
        if covered {
            return None;
        }
        self.away.shown(gobare_api::clock::unix_ms())
    }

    /// A digest of one failed turn, shown (for the tests of what covers it).
    #[cfg(test)]
    pub(crate) fn away_show_for_test(&mut self) {
        let window = Window {
            after_seq: Some(0),
            from_ms: None,
        };
        let mut b = DigestBuilder::new(&self.session_id, window, 0, true);
        let ended = serde_json::json!({"type": "turn.ended", "seq": 1, "created_at": 1000,
            "payload": {"turn_id": "turn_1"}});
        b.feed(1, &Event::parse(&ended.to_string()).unwrap());
        b.turn_outcome(
            "turn_1",
            &gobare_api::model::TurnStatus::Failed,
            Some("the export timed out"),
        );
        self.away.state = State::Shown(Box::new(b));
    }

    /// Esc: the digest goes, if one is shown. Returns whether it was.
    pub(crate) fn away_dismiss(&mut self) -> bool {
        if matches!(self.away.state, State::Shown(_)) {
            self.away.state = State::Off;
            self.request_frame();
            return true;
        }
        false
    }
}
