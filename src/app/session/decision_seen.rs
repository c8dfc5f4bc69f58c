//! When the waiting decision was first on screen. Tab decides only a decision a person could
//! have seen: one that arrives the instant before a Tab meant for the box (a habit, or a
//! key already on its way) must not make the next `y` an approval.

use std::time::{Duration, Instant};

/// How long a decision is on screen before Tab takes the keys to it: under a person's
/// reaction time, so a Tab that answers what they saw is never refused twice.
pub(crate) const SEEN_AFTER: Duration = Duration::from_millis(250);

/// The decision the last frame showed at the prompt, and when it was first drawn.
#[derive(Debug, Clone, Default)]
pub(crate) struct DecisionSeen {
    shown: Option<(String, Instant)>,
}

impl DecisionSeen {
    /// A frame at `now` showed `current` (the prompt's decision, if one waits).
    pub(crate) fn drawn(&mut self, current: Option<&str>, now: Instant) {
        match current {
            None => self.shown = None,
            Some(id) if self.shown.as_ref().is_some_and(|(shown, _)| shown == id) => {}
            Some(id) => self.shown = Some((id.to_string(), now)),
        }
    }

    /// Whether `current` has been on screen for [`SEEN_AFTER`] at `now`.
    pub(crate) fn seen(&self, current: &str, now: Instant) -> bool {
        self.shown.as_ref().is_some_and(|(id, at)| {
            id == current && now.saturating_duration_since(*at) >= SEEN_AFTER
        })
    }

    /// A test's decision, drawn long enough ago to be decided whichever clock (the paused
    /// runtime's or the system's) reads the key.
    #[cfg(test)]
    pub(crate) fn seen_long_ago(&mut self, current: &str) {
        let long_ago = Instant::now() - Duration::from_secs(3600);
        self.shown = Some((current.to_string(), long_ago));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_seen_only_once_it_has_been_on_screen_a_moment() {
        let t0 = Instant::now();
        let mut seen = DecisionSeen::default();
        assert!(!seen.seen("call_1", t0), "never drawn");
        seen.drawn(Some("call_1"), t0);
        assert!(!seen.seen("call_1", t0 + Duration::from_millis(100)));
        seen.drawn(Some("call_1"), t0 + Duration::from_millis(200));
        assert!(
            seen.seen("call_1", t0 + SEEN_AFTER),
            "redrawing does not restart the moment"
        );
        assert!(!seen.seen("call_2", t0 + SEEN_AFTER), "another decision");
        seen.drawn(Some("call_2"), t0 + SEEN_AFTER);
        assert!(!seen.seen("call_2", t0 + SEEN_AFTER + Duration::from_millis(10)));
        seen.drawn(None, t0 + SEEN_AFTER * 2);
        seen.drawn(Some("call_2"), t0 + SEEN_AFTER * 2);
        assert!(
            !seen.seen("call_2", t0 + SEEN_AFTER * 2),
            "gone from the screen and back: a new moment"
        );
    }
}
