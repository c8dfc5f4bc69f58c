//! The download progress line on stderr (bytes, rate), drawn only when stderr is a
//! terminal and at most a few times a second.

use crate::readable::units;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Least time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(200);

/// Progress of one download.
pub(crate) struct Progress {
    shown: bool,
    label: String,
    total: Option<u64>,
    done: u64,
    started: Instant,
    drawn: Option<Instant>,
}

impl Progress {
    /// Progress for `label` (already sanitized), of `total` bytes when known.
    pub(crate) fn new(label: String, total: Option<u64>) -> Progress {
        Progress {
            shown: std::io::stderr().is_terminal(),
            label,
            total,
            done: 0,
            started: Instant::now(),
            drawn: None,
        }
    }

    pub(crate) fn advance(&mut self, bytes: u64) {
        self.done += bytes;
        let now = Instant::now();
        if self.shown && self.drawn.is_none_or(|t| now - t >= REDRAW_EVERY) {
            self.drawn = Some(now);
            self.draw(now);
        }
    }

    /// Ends the line (when one was drawn).
    pub(crate) fn finish(&mut self) {
        if self.shown && self.drawn.is_some() {
            self.draw(Instant::now());
            let _ = writeln!(std::io::stderr());
        }
    }

    fn draw(&self, now: Instant) {
        let line = units::progress_line(&self.label, self.done, self.total, now - self.started);
        let _ = write!(std::io::stderr(), "\r\x1b[2K{line}");
    }
}
