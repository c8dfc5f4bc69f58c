//! Entries of one family laid out: a turn's end and its outcome.

use super::*;

pub(super) fn lines(
    entry: &Entry,
    width: u16,
    _expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    if let EntryKind::TurnEnd(t) = &entry.kind {
        out.push(Line::default());
        out.extend(turn_end_lines(t.outcome.as_ref(), w, theme));
    }
}
