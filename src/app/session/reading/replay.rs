//! "replaying… N events" while a replay or resume catches up.
//!
//! The stream does not say when history ends, so this is a heuristic: the replay is over
//! when a transient frame arrives (the server sends deltas only live, never in a replay), or
//! when the stream has been live and no persisted event arrived for [`QUIET`] (a replay
//! comes as one fast burst; live events trickle). A live event inside the quiet window counts
//! as replay — harmless, it only changes the number shown.

use std::time::{Duration, Instant};

pub(crate) const QUIET: Duration = Duration::from_millis(500);

#[derive(Debug, Clone)]
pub(crate) struct ReplayProgress {
    active: bool,
    events: u64,
    live_since: Option<Instant>,
    last_event: Option<Instant>,
}

impl ReplayProgress {
    /// `active` when the stream opens with a cursor (`from: Some(_)`): history will replay.
    pub(crate) fn new(active: bool) -> ReplayProgress {
        ReplayProgress {
            active,
            events: 0,
            live_since: None,
            last_event: None,
        }
    }

    /// History is still replaying.
    pub(crate) fn is_active(&self) -> bool {
        self.active
    }

    #[cfg(test)]
    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// The stream reported `Live` (each time; only the first counts).
    pub(crate) fn on_live(&mut self, now: Instant) {
        self.live_since.get_or_insert(now);
    }

    /// A persisted event was applied.
    pub(crate) fn on_persisted(&mut self, now: Instant) {
        if self.active {
            self.events += 1;
            self.last_event = Some(now);
        }
    }

    /// A transient frame arrived: only live streams carry them. Returns whether this ended
    /// the replay (the status bar changes).
    pub(crate) fn on_transient(&mut self) -> bool {
        std::mem::replace(&mut self.active, false)
    }

    /// When to check for quiet; `None` when not replaying or not live yet.
    pub(crate) fn quiet_deadline(&self) -> Option<Instant> {
        if !self.active {
            return None;
        }
        let since = self.live_since?;
        Some(self.last_event.map_or(since, |e| e.max(since)) + QUIET)
    }

    /// Ends the replay if the stream has been quiet long enough. Returns whether it ended.
    pub(crate) fn check_quiet(&mut self, now: Instant) -> bool {
        if self.quiet_deadline().is_some_and(|d| now >= d) {
            self.active = false;
            return true;
        }
        false
    }

    /// The status bar text while catching up.
    pub(crate) fn label(&self) -> Option<String> {
        if !self.active {
            return None;
        }
        Some(if self.events == 0 {
            "loading history…".to_string()
        } else {
            format!("replaying… {} events", thousands(self.events))
        })
    }
}

/// `12345` → `12,345`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_until_the_stream_goes_quiet_after_live() {
        let t0 = Instant::now();
        let mut r = ReplayProgress::new(true);
        assert_eq!(r.label().as_deref(), Some("loading history…"));
        assert_eq!(
            r.quiet_deadline(),
            None,
            "no quiet before the stream is live"
        );
        r.on_live(t0);
        for _ in 0..12_345 {
            r.on_persisted(t0 + Duration::from_millis(100));
        }
        assert_eq!(r.label().as_deref(), Some("replaying… 12,345 events"));
        let deadline = r.quiet_deadline().unwrap();
        assert_eq!(deadline, t0 + Duration::from_millis(100) + QUIET);
        assert!(!r.check_quiet(deadline - Duration::from_millis(1)));
        assert!(r.check_quiet(deadline));
        assert_eq!(r.label(), None);
        assert_eq!(r.quiet_deadline(), None);
    }

    #[test]
    fn a_transient_frame_means_live() {
        let mut r = ReplayProgress::new(true);
        r.on_persisted(Instant::now());
        assert!(r.on_transient());
        assert!(!r.is_active());
        assert!(!r.on_transient(), "already over");
    }

    #[test]
    fn a_live_only_stream_never_shows_progress() {
        let mut r = ReplayProgress::new(false);
        r.on_live(Instant::now());
        r.on_persisted(Instant::now());
        assert_eq!(r.label(), None);
        assert_eq!(r.quiet_deadline(), None);
        assert_eq!(r.events(), 0);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
