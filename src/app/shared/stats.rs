//! Frames drawn, stream frames applied, transcript entries dropped (to stay within its
//! memory budget) and the time frames took, written to `$GOBARE_TUI_STATS` (if set) as
//! `frames=N events=M dropped=K frame_us=T frame_max_us=X frame_lock_us=L frame_render_us=R` so
//! benchmarks can check "zero
//! frames when idle", "memory flat once retention is full" and a frame's time from outside.
//!
//! Written only when the counters changed, at most every [`WRITE_EVERY`], and on exit: an
//! idle app schedules no timer for this.

use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(crate) const ENV_VAR: &str = "GOBARE_TUI_STATS";
pub(crate) const WRITE_EVERY: Duration = Duration::from_secs(2);

#[derive(Debug, Default)]
pub(crate) struct Stats {
    path: Option<PathBuf>,
    pub(crate) frames: u64,
    pub(crate) events: u64,
    pub(crate) dropped: u64,
    /// Microseconds spent making frames (the fleet's: from its model's lock to the
    /// terminal written), in all and the longest.
    frame_us: u64,
    frame_max_us: u64,
    /// Of `frame_us`, the microseconds spent waiting for the fleet model's lock (held by
    /// the task applying the org stream), and drawing the widgets into the buffer (the
    /// rest: budgets and alarms, the terminal's diff and its write).
    frame_lock_us: u64,
    frame_render_us: u64,
    written: Option<(u64, u64, u64, u64)>,
    last_write: Option<Instant>,
}

impl Stats {
    pub(crate) fn from_env() -> Stats {
        Stats::to_path(std::env::var_os(ENV_VAR).map(PathBuf::from))
    }

    pub(crate) fn to_path(path: Option<PathBuf>) -> Stats {
        Stats {
            path,
            ..Stats::default()
        }
    }

    pub(crate) fn line(&self) -> String {
        format!(
            "frames={} events={} dropped={} frame_us={} frame_max_us={} frame_lock_us={} \
             frame_render_us={}\n",
            self.frames,
            self.events,
            self.dropped,
            self.frame_us,
            self.frame_max_us,
            self.frame_lock_us,
            self.frame_render_us
        )
    }

    /// One frame made, in `took`, of which `locked` waiting for the model and `rendered`
    /// drawing the widgets.
    pub(crate) fn frame_took(&mut self, took: Duration, locked: Duration, rendered: Duration) {
        let us = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.frame_us = self.frame_us.saturating_add(us(took));
        self.frame_max_us = self.frame_max_us.max(us(took));
        self.frame_lock_us = self.frame_lock_us.saturating_add(us(locked));
        self.frame_render_us = self.frame_render_us.saturating_add(us(rendered));
    }

    fn counters(&self) -> (u64, u64, u64, u64) {
        (self.frames, self.events, self.dropped, self.frame_us)
    }

    fn dirty(&self) -> bool {
        self.path.is_some() && self.written != Some(self.counters())
    }

    /// When the next write is due; `None` when there is nothing new to write.
    pub(crate) fn due_at(&self, now: Instant) -> Option<Instant> {
        if !self.dirty() {
            return None;
        }
        Some(self.last_write.map_or(now, |t| t + WRITE_EVERY))
    }

    /// Writes if due (or `force`, on exit). Errors are ignored: statistics never stop the app.
    pub(crate) fn write(&mut self, now: Instant, force: bool) {
        let due = self.due_at(now).is_some_and(|d| now >= d);
        if !(due || (force && self.path.is_some())) {
            return;
        }
        if let Some(path) = &self.path {
            let _ = std::fs::write(path, self.line());
        }
        self.written = Some(self.counters());
        self.last_write = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_changes_and_at_most_every_interval() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stats");
        let mut s = Stats::to_path(Some(path.clone()));
        let t0 = Instant::now();
        assert_eq!(s.due_at(t0), Some(t0), "never written yet");
        s.frames = 2;
        s.events = 10;
        s.write(t0, false);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "frames=2 events=10 dropped=0 frame_us=0 frame_max_us=0 frame_lock_us=0 frame_render_us=0\n"
        );
        assert_eq!(s.due_at(t0), None, "nothing new: no timer");
        s.frames = 3;
        assert_eq!(s.due_at(t0), Some(t0 + WRITE_EVERY));
        s.write(t0 + Duration::from_millis(10), false);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "frames=2 events=10 dropped=0 frame_us=0 frame_max_us=0 frame_lock_us=0 frame_render_us=0\n"
        );
        s.write(t0 + Duration::from_millis(10), true);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "frames=3 events=10 dropped=0 frame_us=0 frame_max_us=0 frame_lock_us=0 frame_render_us=0\n"
        );
    }

    #[test]
    fn without_a_path_nothing_is_ever_due() {
        let mut s = Stats::to_path(None);
        s.frames = 5;
        assert_eq!(s.due_at(Instant::now()), None);
        s.write(Instant::now(), true);
    }
}
