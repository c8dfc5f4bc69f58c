//! Entries of one family laid out: what the user and the agent say, and the queue.

use super::*;

pub(super) fn lines(
    entry: &Entry,
    width: u16,
    expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match &entry.kind {
        EntryKind::User { text } => {
            out.push(Line::default());
            out.push(Line::styled("▌ you", theme.user));
            let collapsed = entry.kind.collapsed_lines().filter(|_| !expanded);
            let (text, omitted) = match collapsed {
                Some(_) => (first_lines(text, COLLAPSED_SHOWN), 0),
                None => shown(text),
            };
            for l in text::wrap(text, w.saturating_sub(2)) {
                out.push(Line::from(vec![
                    Span::styled("▌ ", theme.user),
                    Span::styled(l, theme.text),
                ]));
            }
            omitted_line(out, omitted, theme);
            if let Some(lines) = collapsed {
                out.push(truncate(
                    Line::from(vec![
                        Span::styled("▌ ", theme.user),
                        Span::styled(format!("… pasted {lines} lines — e expands"), theme.dim),
                    ]),
                    w,
                ));
            }
        }
        EntryKind::Steer { text } => {
            out.push(Line::default());
            out.push(Line::styled(
                "▌ you · steer (sent while the turn ran)",
                theme.user,
            ));
            let (text, omitted) = shown(text);
            for l in text::wrap(text, w.saturating_sub(2)) {
                out.push(Line::from(vec![
                    Span::styled("▌ ", theme.user),
                    Span::styled(l, theme.text),
                ]));
            }
            omitted_line(out, omitted, theme);
        }
        EntryKind::Agent { text } => {
            out.push(Line::default());
            out.push(Line::styled("◆ agent", theme.agent));
            let (text, omitted) = shown(text);
            for l in markdown::render(text, width, theme) {
                out.extend(hard_wrap(l, w));
            }
            omitted_line(out, omitted, theme);
        }
        EntryKind::Context { text } => {
            let (text, omitted) = shown(text);
            for (i, l) in text::wrap(text, w.saturating_sub(11))
                .into_iter()
                .enumerate()
            {
                let lead = if i == 0 { "  context: " } else { "           " };
                out.push(Line::from(vec![
                    Span::styled(lead, theme.dim),
                    Span::styled(l, theme.text),
                ]));
            }
            omitted_line(out, omitted, theme);
        }
        EntryKind::Queued { text, position } => {
            let label = crate::session::vocabulary::queue::label(*position);
            out.push(truncate(
                Line::styled(
                    format!("  ⏸ {label}: {}", text::line(first(text))),
                    theme.dim,
                ),
                w,
            ));
        }
        EntryKind::Dequeued { text } => {
            out.push(truncate(
                Line::styled(
                    format!("  ▶ dequeued: {}", text::line(first(text))),
                    theme.dim,
                ),
                w,
            ));
        }
        _ => {}
    }
}
