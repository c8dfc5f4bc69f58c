//! When to write the stream cursor to the state store: as soon as it first moves, then at
//! most once per [`SAVE_EVERY`], and on exit — so a crash loses at most a second of cursor
//! (replayed and de-duplicated on the next attach) and a busy stream costs one write a second.

use std::time::{Duration, Instant};

pub const SAVE_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, Default, Clone)]
pub struct CursorSaver {
    saved: Option<u64>,
    last_save: Option<Instant>,
}

impl CursorSaver {
    /// `stored`: the cursor already on disk.
    pub fn new(stored: Option<u64>) -> CursorSaver {
        CursorSaver {
            saved: stored,
            last_save: None,
        }
    }

    /// When `current` should be written; `None` when it is already on disk.
    pub fn due_at(&self, now: Instant, current: Option<u64>) -> Option<Instant> {
        if current.is_none() || current == self.saved {
            return None;
        }
        Some(self.last_save.map_or(now, |t| t + SAVE_EVERY))
    }

    pub fn saved(&mut self, now: Instant, cursor: Option<u64>) {
        self.saved = cursor;
        self.last_save = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_at_once_then_at_most_every_second() {
        let t0 = Instant::now();
        let mut c = CursorSaver::new(Some(10));
        assert_eq!(c.due_at(t0, Some(10)), None, "already stored");
        assert_eq!(c.due_at(t0, None), None);
        assert_eq!(c.due_at(t0, Some(11)), Some(t0));
        c.saved(t0, Some(11));
        assert_eq!(c.due_at(t0, Some(11)), None);
        assert_eq!(c.due_at(t0, Some(500)), Some(t0 + SAVE_EVERY));
    }
}
