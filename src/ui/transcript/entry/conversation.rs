//! Entries of one family laid out: what the user and the agent say, and the queue.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::vocabulary::conversation as words;

pub(super) fn lines(
    entry: &Entry,
    said: ConversationEntry<'_>,
    width: u16,
    expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match said {
        ConversationEntry::User { text } => {
            out.push(Line::default());
            out.push(Line::styled(format!("▌ {}", words::YOU), theme.user));
            let collapsed = entry.kind.collapsed_lines().filter(|_| !expanded);
            let (text, omitted) = match collapsed {
                Some(_) => (first_lines(text, COLLAPSED_SHOWN), 0),
                None => shown(text),
            };
            user_text(text, w, theme, out);
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
        ConversationEntry::Steer { text } => {
            out.push(Line::default());
            out.push(Line::styled(format!("▌ {}", words::STEER), theme.user));
            let (text, omitted) = shown(text);
            user_text(text, w, theme, out);
            omitted_line(out, omitted, theme);
        }
        ConversationEntry::Agent { text } => {
            out.push(Line::default());
            out.push(Line::styled(format!("◆ {}", words::AGENT), theme.agent));
            let (text, omitted) = shown(text);
            for l in markdown::render(text, width, theme) {
                out.extend(hard_wrap(l, w));
            }
            omitted_line(out, omitted, theme);
        }
        ConversationEntry::Context { text } => context_lines(text, w, theme, out),
        ConversationEntry::Queued { text, position } => {
            let label = words::queue_label(position);
            out.push(truncate(
                Line::styled(
                    format!("  ⏸ {label}: {}", text::line(first(text))),
                    theme.dim,
                ),
                w,
            ));
        }
        ConversationEntry::Dequeued { text } => {
            out.push(truncate(
                Line::styled(
                    format!("  ▶ {}: {}", words::DEQUEUED, text::line(first(text))),
                    theme.dim,
                ),
                w,
            ));
        }
    }
}

/// What the user wrote, wrapped behind the user's bar.
fn user_text(text: &str, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    for l in text::wrap(text, w.saturating_sub(2)) {
        out.push(Line::from(vec![
            Span::styled("▌ ", theme.user),
            Span::styled(l, theme.text),
        ]));
    }
}

/// Context the user gave, wrapped under its label.
fn context_lines(text: &str, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let (text, omitted) = shown(text);
    let first_lead = format!("  {}: ", words::CONTEXT);
    let lead_width = first_lead.chars().count();
    for (i, l) in text::wrap(text, w.saturating_sub(lead_width))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 {
            first_lead.clone()
        } else {
            " ".repeat(lead_width)
        };
        out.push(Line::from(vec![
            Span::styled(lead, theme.dim),
            Span::styled(l, theme.text),
        ]));
    }
    omitted_line(out, omitted, theme);
}
