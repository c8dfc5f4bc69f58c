//! The terminal's title (OSC 2) as the app keeps it: "gobare · 2 need you" — with a fleet,
//! its one count of the sessions that need you (the header's, the inbox's); without one, the
//! session's decisions waiting — so a tab or a window list says it without the screen in
//! view. Only our own words and a number: nothing the server sent.
//!
//! The title the terminal had is pushed on its title stack (xterm's `CSI 22 t`) before the
//! first change, and at exit the title is cleared then popped (`CSI 23 t`): a terminal with
//! a stack gets its own back, one without is left with an empty title (its default), never
//! with a count that is no longer true.
//!
//! A busy organization's count moves several times a second; the title says it at most every
//! [`TITLE_EVERY`] (the newest count when the moment is over), so a tab or a window list
//! does not flicker and the terminal is not rewritten for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The least time between two titles.
pub(crate) const TITLE_EVERY: Duration = Duration::from_secs(5);

/// The title was changed: the way out must give it back.
static CHANGED: AtomicBool = AtomicBool::new(false);

/// Saves the terminal's title on its stack.
const PUSH: &[u8] = b"\x1b[22;0t";
/// Clears the title, then restores the saved one where the terminal keeps a stack.
const RESTORE: &[u8] = b"\x1b]2;\x07\x1b[23;0t";

/// The title's text for `waiting` decisions.
pub(crate) fn text(waiting: usize) -> String {
    match waiting {
        0 => "gobare".into(),
        1 => "gobare · 1 needs you".into(),
        n => format!("gobare · {n} need you"),
    }
}

/// Writes the title when what it says changes, at most every [`TITLE_EVERY`].
#[derive(Debug, Default)]
pub(crate) struct TitleKeeper {
    shown: Option<usize>,
    written_at: Option<Instant>,
    /// A count not yet shown, held until the moment since the last title is over.
    held: Option<usize>,
}

impl TitleKeeper {
    /// The bytes to write at `now` for `waiting` decisions; `None` when the title already
    /// says it, or when it was written less than [`TITLE_EVERY`] ago (the count is then
    /// held, and written by a later call at [`TitleKeeper::due_at`] or after).
    pub(crate) fn update(&mut self, waiting: usize, now: Instant) -> Option<Vec<u8>> {
        if self.shown == Some(waiting) {
            self.held = None;
            return None;
        }
        if let Some(at) = self.written_at
            && now.saturating_duration_since(at) < TITLE_EVERY
        {
            self.held = Some(waiting);
            return None;
        }
        self.shown = Some(waiting);
        self.held = None;
        self.written_at = Some(now);
        let mut out = Vec::new();
        if !CHANGED.swap(true, Ordering::SeqCst) {
            out.extend_from_slice(PUSH);
        }
        out.extend_from_slice(format!("\x1b]2;{}\x07", text(waiting)).as_bytes());
        Some(out)
    }

    /// When a held count is to be written: the loop wakes then.
    pub(crate) fn due_at(&self) -> Option<Instant> {
        self.held?;
        self.written_at.map(|at| at + TITLE_EVERY)
    }
}

/// What the way out writes: the title given back, once, if it was changed.
pub(crate) fn restore_bytes() -> Option<&'static [u8]> {
    CHANGED.swap(false, Ordering::SeqCst).then_some(RESTORE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_counts_and_is_written_when_it_changes_at_most_every_five_seconds() {
        assert_eq!(text(0), "gobare");
        assert_eq!(text(1), "gobare · 1 needs you");
        assert_eq!(text(2), "gobare · 2 need you");
        let t0 = Instant::now();
        let mut keeper = TitleKeeper::default();
        let first = String::from_utf8(keeper.update(2, t0).unwrap()).unwrap();
        assert!(
            first.ends_with("\x1b]2;gobare · 2 need you\x07"),
            "{first:?}"
        );
        assert!(keeper.update(2, t0 + TITLE_EVERY).is_none());
        let next = String::from_utf8(keeper.update(0, t0 + TITLE_EVERY).unwrap()).unwrap();
        assert_eq!(next, "\x1b]2;gobare\x07", "pushed once only");
        assert_eq!(restore_bytes(), Some(RESTORE));
        assert_eq!(restore_bytes(), None, "given back once");

        // (In the same test: the title stack's flag is the process's.) A count that moves
        // eight times a second (the simulator's busy fleet) is written once per moment, the
        // newest when the moment is over; a count back where it was writes nothing.
        let mut keeper = TitleKeeper::default();
        let mut written = Vec::new();
        for tick in 0..(8 * 60) {
            let now = t0 + Duration::from_millis(125) * tick;
            let waiting = 30 + (tick as usize * 7) % 10;
            if let Some(bytes) = keeper.update(waiting, now) {
                written.push((now, String::from_utf8(bytes).unwrap()));
            }
        }
        assert!(
            (12..=13).contains(&written.len()),
            "a minute of churn wrote {} titles",
            written.len()
        );
        for pair in written.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= TITLE_EVERY, "{pair:?}");
        }
        let mut keeper = TitleKeeper::default();
        keeper.update(3, t0);
        assert!(
            keeper.update(4, t0 + Duration::from_secs(1)).is_none(),
            "held"
        );
        assert_eq!(keeper.due_at(), Some(t0 + TITLE_EVERY));
        assert!(keeper.update(3, t0 + Duration::from_secs(2)).is_none());
        assert_eq!(keeper.due_at(), None, "back where it was: nothing to write");
        restore_bytes();
    }
}
