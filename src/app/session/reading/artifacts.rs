//! Waiting for a settled turn's artifacts (§11.3: poll the turn until `artifacts` leaves
//! `pending`/`null`), gently: every [`POLL_EVERY`], at most [`POLL_MAX`] times per turn (a
//! server that never fills the field must not be polled for ever), then list them once.

use std::time::{Duration, Instant};

pub(crate) const POLL_EVERY: Duration = Duration::from_secs(2);
pub(crate) const POLL_MAX: u32 = 30;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PollAction {
    Nothing,
    /// Re-read this turn.
    ReadTurn(String),
    /// The artifacts were published: list them.
    ListArtifacts,
}

#[derive(Debug, Default)]
pub(crate) struct ArtifactsPoll {
    turn: Option<String>,
    next: Option<Instant>,
    count: u32,
}

impl ArtifactsPoll {
    /// `pending`: the model's `artifacts_pending_turn()` now.
    pub(crate) fn update(&mut self, pending: Option<&str>, now: Instant) -> PollAction {
        if pending != self.turn.as_deref() {
            let published = self.turn.is_some() && pending.is_none();
            *self = ArtifactsPoll {
                turn: pending.map(str::to_string),
                next: pending.map(|_| now + POLL_EVERY),
                count: 0,
            };
            return if published {
                PollAction::ListArtifacts
            } else {
                PollAction::Nothing
            };
        }
        match (&self.turn, self.next) {
            (Some(turn), Some(next)) if now >= next => {
                self.count += 1;
                self.next = (self.count < POLL_MAX).then(|| now + POLL_EVERY);
                PollAction::ReadTurn(turn.clone())
            }
            _ => PollAction::Nothing,
        }
    }

    /// When to call [`ArtifactsPoll::update`] again; `None` when nothing is pending.
    pub(crate) fn due_at(&self) -> Option<Instant> {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_every_two_seconds_then_lists_once_published() {
        let t0 = Instant::now();
        let mut p = ArtifactsPoll::default();
        assert_eq!(p.update(None, t0), PollAction::Nothing);
        assert_eq!(p.due_at(), None, "nothing pending: no timer");
        assert_eq!(p.update(Some("t1"), t0), PollAction::Nothing);
        assert_eq!(p.due_at(), Some(t0 + POLL_EVERY));
        assert_eq!(
            p.update(Some("t1"), t0 + Duration::from_secs(1)),
            PollAction::Nothing
        );
        assert_eq!(
            p.update(Some("t1"), t0 + POLL_EVERY),
            PollAction::ReadTurn("t1".into())
        );
        assert_eq!(
            p.update(None, t0 + POLL_EVERY * 2),
            PollAction::ListArtifacts
        );
        assert_eq!(p.due_at(), None);
    }

    #[test]
    fn gives_up_after_the_maximum() {
        let t0 = Instant::now();
        let mut p = ArtifactsPoll::default();
        p.update(Some("t1"), t0);
        let mut reads = 0;
        for s in 1..200u64 {
            if let PollAction::ReadTurn(_) = p.update(Some("t1"), t0 + Duration::from_secs(s)) {
                reads += 1;
            }
        }
        assert_eq!(reads, POLL_MAX);
        assert_eq!(p.due_at(), None);
    }
}
