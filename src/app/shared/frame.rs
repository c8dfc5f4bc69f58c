//! Redraw on request only: requests coalesce, and frames are at least `min_interval` apart
//! (60 per second at most). No fixed tick: with nothing requested, nothing is drawn.

use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub(crate) struct FrameScheduler {
    min_interval: Duration,
    last_drawn: Option<Instant>,
    requested: bool,
    /// Nothing may be drawn yet (the theme is not known).
    held: bool,
    frames_drawn: u64,
}

impl FrameScheduler {
    /// At most `max_fps` frames per second.
    pub(crate) fn new(max_fps: u32) -> FrameScheduler {
        FrameScheduler {
            min_interval: Duration::from_secs(1) / max_fps.max(1),
            last_drawn: None,
            requested: false,
            held: false,
            frames_drawn: 0,
        }
    }

    /// Something visible changed: a frame will be drawn at the next allowed moment.
    pub(crate) fn request(&mut self) {
        self.requested = true;
    }

    /// No frame is due until [`FrameScheduler::release`]; requests are kept.
    pub(crate) fn hold(&mut self) {
        self.held = true;
    }

    /// Frames may be drawn again: one requested meanwhile is due at once.
    pub(crate) fn release(&mut self) {
        self.held = false;
    }

    /// When the requested frame may be drawn; `None` when no frame is requested or frames
    /// are held.
    pub(crate) fn due_at(&self, now: Instant) -> Option<Instant> {
        if !self.requested || self.held {
            return None;
        }
        Some(match self.last_drawn {
            Some(last) => (last + self.min_interval).max(now),
            None => now,
        })
    }

    /// Records a drawn frame.
    pub(crate) fn drawn(&mut self, now: Instant) {
        self.requested = false;
        self.last_drawn = Some(now);
        self.frames_drawn += 1;
    }

    /// How many frames were drawn (the `--stats` counter).
    pub(crate) fn frames_drawn(&self) -> u64 {
        self.frames_drawn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_due_without_a_request() {
        let s = FrameScheduler::new(60);
        assert_eq!(s.due_at(Instant::now()), None);
    }

    #[test]
    fn first_request_is_due_now_and_requests_coalesce() {
        let mut s = FrameScheduler::new(60);
        let t0 = Instant::now();
        s.request();
        s.request();
        assert_eq!(s.due_at(t0), Some(t0));
        s.drawn(t0);
        assert_eq!(s.due_at(t0), None);
        assert_eq!(s.frames_drawn(), 1);
    }

    #[test]
    fn a_held_scheduler_has_nothing_due_and_keeps_the_request_for_its_release() {
        let mut s = FrameScheduler::new(60);
        let t0 = Instant::now();
        s.hold();
        s.request();
        assert_eq!(s.due_at(t0), None);
        s.release();
        assert_eq!(s.due_at(t0), Some(t0));
    }

    #[test]
    fn frames_are_spaced_by_the_minimum_interval() {
        let mut s = FrameScheduler::new(60);
        let t0 = Instant::now();
        s.request();
        s.drawn(t0);
        s.request();
        let due = s.due_at(t0 + Duration::from_millis(1)).unwrap();
        assert_eq!(due, t0 + Duration::from_secs(1) / 60);
        // Long after, it is due at once.
        let later = t0 + Duration::from_secs(5);
        assert_eq!(s.due_at(later), Some(later));
    }

    #[test]
    fn a_burst_of_requests_in_one_second_draws_at_most_the_cap() {
        let mut s = FrameScheduler::new(60);
        let t0 = Instant::now();
        let mut now = t0;
        // 1,000 requests spread over one second; draw whenever due.
        for i in 0..1000u32 {
            now = t0 + Duration::from_millis(u64::from(i));
            s.request();
            if s.due_at(now) == Some(now) {
                s.drawn(now);
            }
        }
        assert!(s.frames_drawn() <= 61, "{}", s.frames_drawn());
        assert!(s.frames_drawn() >= 55, "{}", s.frames_drawn());
        let _ = now;
    }
}
