//! Handing freed heap back to the OS: once a replay is over, and now and then while events
//! keep flowing.
//!
//! A replay arrives faster than the loop applies it: the stream task queues decoded frames
//! (tens of MB for 200,000 events) that are freed as they are applied. glibc keeps those
//! freed pages mapped — scattered among live entries and in the stream thread's arena — so
//! without a trim the peak of the catch-up stays in RSS for the life of the session. The
//! same happens, slowly, while a long session replaces old transcript entries with new
//! ones of other sizes: [`TrimSchedule`] trims after enough of that, never on a timer of
//! its own (an idle session must not wake up).

use std::time::{Duration, Instant};

/// Returns free pages of every malloc arena to the OS (glibc only; a no-op elsewhere).
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own allocator state; it is thread-safe and
    // invalidates no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// When a steady stream of events has churned enough heap to be worth a trim.
#[derive(Debug)]
pub(crate) struct TrimSchedule {
    last: Instant,
    events_at_last: u64,
}

impl TrimSchedule {
    /// At most this often…
    pub(crate) const EVERY: Duration = Duration::from_secs(60);
    /// …and only after this many stream frames since the last trim.
    pub(crate) const EVENTS: u64 = 10_000;

    pub(crate) fn new(now: Instant) -> TrimSchedule {
        TrimSchedule {
            last: now,
            events_at_last: 0,
        }
    }

    /// Whether to trim now, given the frames applied so far; if so, counts it as done.
    pub(crate) fn due(&mut self, now: Instant, events: u64) -> bool {
        let due = now.duration_since(self.last) >= Self::EVERY
            && events.saturating_sub(self.events_at_last) >= Self::EVENTS;
        if due {
            self.done(now, events);
        }
        due
    }

    /// A trim happened for another reason (a replay ended).
    pub(crate) fn done(&mut self, now: Instant, events: u64) {
        self.last = now;
        self.events_at_last = events;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_only_after_both_time_and_events() {
        let t0 = Instant::now();
        let mut s = TrimSchedule::new(t0);
        let minute = TrimSchedule::EVERY;
        let many = TrimSchedule::EVENTS;
        assert!(
            !s.due(t0 + minute * 10, many - 1),
            "few events: an idle-ish session"
        );
        assert!(!s.due(t0 + minute / 2, many * 5), "too soon");
        assert!(s.due(t0 + minute, many));
        assert!(
            !s.due(t0 + minute * 3 / 2, many * 2),
            "counted from the last trim"
        );
        assert!(s.due(t0 + minute * 2, many * 2));
        s.done(t0 + minute * 5, many * 10);
        assert!(!s.due(t0 + minute * 5 + minute / 2, many * 20));
    }
}
