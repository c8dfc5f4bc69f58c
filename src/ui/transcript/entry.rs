//! One transcript entry (or the live streaming text) laid out into styled lines of a
//! given width. Every string from the server goes through `gobare_api::text` or `markdown`.

use crate::session::transcript::{
    ApprovalOutcome, CallStatus, ConversationEntry, DecisionsEntry, Entry, EntryByFamily,
    Streaming, TurnOutcome, TurnsEntry, WorkEntry, WorkspaceEntry,
};
use crate::session::vocabulary::decisions as words;
use crate::ui::text::markdown;
use crate::ui::text::styled::{hard_wrap, truncate};
use crate::ui::theme::Theme;
use gobare_api::model::{ChangeKind, TurnStatus};
use gobare_api::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

mod conversation;
mod decisions;
mod turns;
mod work;
mod workspace;

/// Streamed text shown: only its tail is laid out on each frame.
const STREAM_TAIL: usize = 6_000;
/// Reasoning lines shown under the live text.
const THINKING_LINES: usize = 3;
/// Most bytes of one message laid out. A multi-megabyte message would otherwise take
/// seconds to wrap on every cache miss (a resize, a first draw) and freeze the screen.
const TEXT_SHOWN_MAX: usize = 64 * 1024;

/// Most lines of an expanded diff or call output (the copy key takes the whole of it).
const DIFF_LINES_SHOWN: usize = 2_000;

/// Lines of a collapsed message shown above its "pasted N lines".
const COLLAPSED_SHOWN: usize = 4;

/// The first `n` lines of `text`, each within [`TEXT_SHOWN_MAX`] bytes in all.
fn first_lines(text: &str, n: usize) -> &str {
    let end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(n - 1)
        .unwrap_or(text.len());
    shown(&text[..end]).0
}

/// The first [`TEXT_SHOWN_MAX`] bytes of `text` (on a character boundary) and how many
/// bytes were left out.
fn shown(text: &str) -> (&str, usize) {
    if text.len() <= TEXT_SHOWN_MAX {
        return (text, 0);
    }
    let mut cut = TEXT_SHOWN_MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    (&text[..cut], text.len() - cut)
}

fn omitted_line(out: &mut Vec<Line<'static>>, omitted: usize, theme: &Theme) {
    if omitted > 0 {
        out.push(Line::styled(
            format!("  … {omitted} more bytes not shown"),
            theme.dim,
        ));
    }
}

pub(super) fn entry_lines(
    entry: &Entry,
    width: u16,
    expanded: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let o = &mut out;
    match entry.kind.by_family() {
        EntryByFamily::Conversation(e) => conversation::lines(entry, e, width, expanded, theme, o),
        EntryByFamily::Turns(e) => turns::lines(e, width, theme, o),
        EntryByFamily::Work(e) => work::lines(e, width, expanded, theme, o),
        EntryByFamily::Decisions(e) => decisions::lines(e, width, theme, o),
        EntryByFamily::Workspace(e) => workspace::lines(e, width, theme, o),
    }
    out
}

pub(super) fn streaming_lines(
    s: &Streaming,
    width: u16,
    thinking: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let w = width as usize;
    let mut out = vec![Line::default()];
    if thinking && !s.thinking.is_empty() {
        out.push(Line::styled("┊ thinking", theme.dim));
        let wrapped = text::wrap(tail(&s.thinking, STREAM_TAIL), w.saturating_sub(2));
        let skip = wrapped.len().saturating_sub(THINKING_LINES);
        for l in wrapped.into_iter().skip(skip) {
            out.push(Line::from(vec![
                Span::styled("┊ ", theme.dim),
                Span::styled(l, theme.dim),
            ]));
        }
        if s.text.is_empty() {
            out.push(Line::styled("▍", theme.accent));
            return out;
        }
        // The answer never runs on from the reasoning.
        out.push(Line::default());
    }
    out.push(Line::styled(
        format!("◆ {}", crate::session::vocabulary::conversation::AGENT),
        theme.agent,
    ));
    for l in markdown::render(tail(&s.text, STREAM_TAIL), width, theme) {
        out.extend(hard_wrap(l, w));
    }
    out.push(Line::styled("▍", theme.accent));
    out
}

/// `── ✓ completed in 2m 05s ──`, `── ✗ failed after 0s: reason ──`; plain while the
/// outcome is being fetched. Wrapped, never cut: a failure's reason ends with what to do.
fn turn_end_lines(outcome: Option<&TurnOutcome>, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(o) = outcome else {
        let ended = crate::session::vocabulary::turns::ENDED;
        return vec![truncate(
            Line::styled(format!("── {ended} ──"), theme.dim),
            w,
        )];
    };
    let words = o.words();
    let (text, style) = match &o.status {
        TurnStatus::Completed => (format!("✓ {words}"), theme.ok),
        TurnStatus::Cancelled => (format!("⊘ {words}"), theme.dim),
        _ => {
            let mut s = format!("✗ {words}");
            if let Some(reason) = &o.error {
                s.push_str(": ");
                s.push_str(&failure_reason(reason));
            }
            (s, theme.error)
        }
    };
    text::wrap(&format!("── {text} ──"), w.max(1))
        .into_iter()
        .map(|l| truncate(Line::styled(l, style), w))
        .collect()
}

/// The error's reason on one line, with what to do when the workspace was lost.
fn failure_reason(error: &str) -> String {
    let reason = text::line(first(error)).into_owned();
    match reason.strip_prefix("sandbox_error: ") {
        Some(rest) => format!("{rest} — your next message rebuilds it"),
        None => reason,
    }
}

fn error_lines(out: &mut Vec<Line<'static>>, label: &str, message: &str, w: usize, theme: &Theme) {
    let lead = format!("  ✗ {label}: ");
    let indent = " ".repeat(4);
    for (i, l) in text::wrap(message, w.saturating_sub(lead.chars().count()))
        .into_iter()
        .enumerate()
    {
        let first = if i == 0 { lead.clone() } else { indent.clone() };
        out.push(truncate(
            Line::from(vec![
                Span::styled(first, theme.error),
                Span::styled(l, theme.error),
            ]),
            w,
        ));
    }
}

/// An expanded tool call: its whole arguments and output under its line.
fn tool_details(
    out: &mut Vec<Line<'static>>,
    t: &crate::session::transcript::ToolCallEntry,
    w: usize,
    theme: &Theme,
) {
    let args = if t.args_full.is_empty() {
        &t.args
    } else {
        &t.args_full
    };
    for (label, body) in [("arguments", args), ("output", &t.summary)] {
        if body.is_empty() {
            continue;
        }
        out.push(Line::styled(format!("    {label}:"), theme.dim));
        for l in text::wrap(body, w.saturating_sub(6))
            .into_iter()
            .take(DIFF_LINES_SHOWN)
        {
            out.push(Line::from(vec![
                Span::styled("      ", theme.dim),
                Span::styled(l, theme.text),
            ]));
        }
    }
}

fn first(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The last `max` bytes of `s`, on a character boundary.
fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::transcript::EntryKind;

    #[test]
    fn a_huge_message_is_laid_out_only_up_to_the_bound() {
        let entry = Entry {
            id: 1,
            rev: 0,
            created_at: None,
            kind: EntryKind::Agent {
                text: "é".repeat(1 << 20),
            },
        };
        let lines = entry_lines(&entry, 80, false, &Theme::no_color());
        let last = lines.last().unwrap().to_string();
        assert!(last.contains("more bytes not shown"), "{last}");
        // 64 KiB of two-byte characters at 80 columns: a bounded number of lines.
        assert!(lines.len() < 1_000, "{}", lines.len());
    }
}
