//! Entries of one family laid out: a turn's end and its outcome.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;

pub(super) fn lines(
    entry: TurnsEntry<'_>,
    width: u16,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match entry {
        TurnsEntry::TurnEnd(t) => {
            out.push(Line::default());
            out.extend(turn_end_lines(t.outcome.as_ref(), w, theme));
        }
    }
}
