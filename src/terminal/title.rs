//! The terminal's title (OSC 2) as the app keeps it: "gobare · 2 need you" — with a fleet,
//! its one count of the sessions that need you (the header's, the inbox's); without one, the
//! session's decisions waiting — so a tab or a window list says it without the screen in
//! view. Only our own words and a number: nothing the server sent.
//!
//! The title the terminal had is pushed on its title stack (xterm's `CSI 22 t`) before the
//! first change, and at exit the title is cleared then popped (`CSI 23 t`): a terminal with
//! a stack gets its own back, one without is left with an empty title (its default), never
//! with a count that is no longer true.

use std::sync::atomic::{AtomicBool, Ordering};

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

/// Writes the title when what it says changes.
#[derive(Debug, Default)]
pub(crate) struct TitleKeeper {
    shown: Option<usize>,
}

impl TitleKeeper {
    /// The bytes to write for `waiting` decisions; `None` when the title already says it.
    pub(crate) fn update(&mut self, waiting: usize) -> Option<Vec<u8>> {
        if self.shown == Some(waiting) {
            return None;
        }
        self.shown = Some(waiting);
        let mut out = Vec::new();
        if !CHANGED.swap(true, Ordering::SeqCst) {
            out.extend_from_slice(PUSH);
        }
        out.extend_from_slice(format!("\x1b]2;{}\x07", text(waiting)).as_bytes());
        Some(out)
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
    fn the_title_counts_and_is_written_only_when_it_changes() {
        assert_eq!(text(0), "gobare");
        assert_eq!(text(1), "gobare · 1 needs you");
        assert_eq!(text(2), "gobare · 2 need you");
        let mut keeper = TitleKeeper::default();
        let first = String::from_utf8(keeper.update(2).unwrap()).unwrap();
        assert!(
            first.ends_with("\x1b]2;gobare · 2 need you\x07"),
            "{first:?}"
        );
        assert!(keeper.update(2).is_none());
        let next = String::from_utf8(keeper.update(0).unwrap()).unwrap();
        assert_eq!(next, "\x1b]2;gobare\x07", "pushed once only");
        assert_eq!(restore_bytes(), Some(RESTORE));
        assert_eq!(restore_bytes(), None, "given back once");
    }
}
