//! One transcript entry (or the live streaming text) laid out into styled lines of a
//! given width. Every string from the server goes through `gobare_api::text` or `markdown`.

use crate::session::transcript::{
    ApprovalOutcome, CallStatus, Entry, EntryKind, Streaming, TurnOutcome,
};
use crate::session::vocabulary::decisions as words;
use crate::ui::markdown;
use crate::ui::styled::{hard_wrap, truncate};
use crate::ui::theme::Theme;
use gobare_api::model::{ChangeKind, TurnStatus};
use gobare_api::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

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
    let w = width as usize;
    let mut out = Vec::new();
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
            omitted_line(&mut out, omitted, theme);
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
            omitted_line(&mut out, omitted, theme);
        }
        EntryKind::TurnEnd(t) => {
            out.push(Line::default());
            out.extend(turn_end_lines(t.outcome.as_ref(), w, theme));
        }
        EntryKind::Agent { text } => {
            out.push(Line::default());
            out.push(Line::styled("◆ agent", theme.agent));
            let (text, omitted) = shown(text);
            for l in markdown::render(text, width, theme) {
                out.extend(hard_wrap(l, w));
            }
            omitted_line(&mut out, omitted, theme);
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
            omitted_line(&mut out, omitted, theme);
        }
        EntryKind::Tool(t) => {
            let (mark, style) = match t.status {
                CallStatus::Pending => ("⋯", theme.warning),
                CallStatus::Ok => ("✓", theme.ok),
                CallStatus::Failed => ("✗", theme.error),
                CallStatus::Cancelled => ("⊘", theme.dim),
            };
            let mut spans = vec![
                Span::styled(format!("  {mark} "), style),
                Span::styled(text::line(&t.name).into_owned(), theme.accent),
            ];
            if !t.args.is_empty() {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(text::line(&t.args).into_owned(), theme.dim));
            }
            if let Some(code) = t.exit_code {
                spans.push(Span::styled(
                    format!(" (exit {code})"),
                    if code == 0 { theme.dim } else { theme.error },
                ));
            }
            if !t.summary.is_empty() {
                spans.push(Span::styled(" — ", theme.dim));
                spans.push(Span::raw(text::line(first(&t.summary)).into_owned()));
            }
            out.push(truncate(Line::from(spans), w));
            if expanded {
                tool_details(&mut out, t, w, theme);
            }
        }
        EntryKind::FileChange(f) => {
            let (verb, style) = match &f.change {
                ChangeKind::Created => ("created", theme.diff_add),
                ChangeKind::Deleted => ("deleted", theme.diff_del),
                ChangeKind::Modified => ("modified", theme.diff_hunk),
                ChangeKind::Other(_) => ("changed", theme.dim),
            };
            let mut spans = vec![
                Span::styled("  ± ", style),
                Span::styled(verb, style),
                Span::raw(" "),
                Span::raw(text::line(&f.path).into_owned()),
            ];
            if f.diff.is_some() && !expanded {
                spans.push(Span::styled("  [diff hidden]", theme.dim));
            }
            out.push(truncate(Line::from(spans), w));
            if let (true, Some(diff)) = (expanded, &f.diff) {
                let inner = u16::try_from(w.saturating_sub(4)).unwrap_or(u16::MAX);
                for mut l in crate::ui::diff::render(diff, inner, theme, DIFF_LINES_SHOWN) {
                    l.spans.insert(0, Span::styled("    ", theme.dim));
                    out.push(l);
                }
            }
        }
        EntryKind::Todos { items } => {
            let done = items.iter().filter(|i| i.status == "done").count();
            out.push(Line::styled(
                format!("  todo {done}/{}", items.len()),
                theme.title,
            ));
            for item in items {
                let (mark, style) = match item.status.as_str() {
                    "done" | "completed" => ("☑", theme.ok),
                    "in_progress" => ("◐", theme.warning),
                    _ => ("☐", theme.text),
                };
                let line = Line::from(vec![
                    Span::styled(format!("    {mark} "), style),
                    Span::raw(text::line(&item.label).into_owned()),
                ]);
                out.push(truncate(line, w));
            }
        }
        EntryKind::Approval(a) => {
            let sens = if a.sensitive {
                format!(" ({})", words::SENSITIVE)
            } else {
                String::new()
            };
            let (verdict, vstyle): (String, Style) = match &a.verdict {
                ApprovalOutcome::Pending if a.from_history => {
                    (words::OUTCOME_NOT_IN_HISTORY.into(), theme.dim)
                }
                ApprovalOutcome::Pending => (words::APPROVAL_WAITING.into(), theme.warning),
                ApprovalOutcome::Approved { .. } => (words::verdict(true).into(), theme.ok),
                ApprovalOutcome::Denied { code, reason } => {
                    let mut s = String::from(words::verdict(false));
                    if let Some(c) = code {
                        s.push_str(&format!(" ({})", text::line(c)));
                    }
                    if let Some(r) = reason {
                        s.push_str(&format!(": {}", text::line(first(r))));
                    }
                    (s, theme.error)
                }
            };
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  ⚠ approval{sens} "), theme.warning),
                    Span::styled(text::line(&a.name).into_owned(), theme.accent),
                    Span::raw(" "),
                    Span::styled(text::line(&a.args).into_owned(), theme.dim),
                ]),
                w,
            ));
            out.push(truncate(
                Line::from(vec![
                    Span::styled("    → ", theme.dim),
                    Span::styled(verdict, vstyle),
                ]),
                w,
            ));
        }
        EntryKind::Question(q) => {
            for (i, l) in text::wrap(&q.question, w.saturating_sub(4))
                .into_iter()
                .enumerate()
            {
                let lead = if i == 0 { "  ? " } else { "    " };
                out.push(Line::from(vec![
                    Span::styled(lead, theme.warning),
                    Span::styled(l, theme.warning),
                ]));
            }
            if !q.options.is_empty() {
                let opts: Vec<String> = q
                    .options
                    .iter()
                    .map(|o| text::line(o).into_owned())
                    .collect();
                out.push(truncate(
                    Line::styled(format!("    [{}]", opts.join(" | ")), theme.dim),
                    w,
                ));
            }
            let answer = match &q.answer {
                Some(a) => Line::from(vec![
                    Span::styled("    → ", theme.dim),
                    Span::styled(text::line(first(a)).into_owned(), theme.ok),
                ]),
                None if q.from_history => {
                    Line::styled(format!("    → {}", words::ANSWER_NOT_IN_HISTORY), theme.dim)
                }
                None => Line::styled(format!("    → {}", words::ANSWER_WAITING), theme.warning),
            };
            out.push(truncate(answer, w));
        }
        EntryKind::Function(f) => {
            let (mark, style, state) = match f.success {
                None => ("ƒ", theme.warning, format!(" — {}", words::RESULT_WAITING)),
                Some(true) => (
                    "ƒ",
                    theme.ok,
                    format!(" ✓ {}", words::function_outcome(true, false)),
                ),
                Some(false) if f.expired => (
                    "ƒ",
                    theme.error,
                    format!(
                        " ✗ {}: {}",
                        words::function_outcome(false, false),
                        words::function_outcome(false, true)
                    ),
                ),
                Some(false) => (
                    "ƒ",
                    theme.error,
                    format!(" ✗ {}", words::function_outcome(false, false)),
                ),
            };
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  {mark} "), style),
                    Span::styled(text::line(&f.name).into_owned(), theme.accent),
                    Span::raw(" "),
                    Span::styled(text::line(&f.args).into_owned(), theme.dim),
                    Span::styled(state, style),
                ]),
                w,
            ));
        }
        EntryKind::Error { message } => error_lines(&mut out, "error", message, w, theme),
        EntryKind::RecoveryFailed { message } => {
            error_lines(&mut out, "workspace recovery failed", message, w, theme)
        }
        EntryKind::Compaction { before, after } => {
            let n = |v: &Option<u64>| v.map_or("?".to_string(), |x| x.to_string());
            out.push(Line::styled(
                format!("  ⇣ context compacted {} → {} tokens", n(before), n(after)),
                theme.dim,
            ));
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
        EntryKind::Artifact {
            path, size_bytes, ..
        } => {
            let size = size_bytes.map(|b| format!(" ({b} B)")).unwrap_or_default();
            out.push(truncate(
                Line::styled(
                    format!("  ⇪ artifact {}{size}", text::line(path)),
                    theme.accent,
                ),
                w,
            ));
        }
        EntryKind::Preview { port, url } => {
            let port = port.map(|p| format!(":{p} ")).unwrap_or_default();
            let url = url.as_deref().map(text::line).unwrap_or_default();
            out.push(truncate(
                Line::styled(format!("  ⇗ preview ready {port}{url}"), theme.accent),
                w,
            ));
        }
        EntryKind::McpUnavailable { name, reason } => {
            out.push(truncate(
                Line::styled(
                    format!(
                        "  ⚠ MCP server {} unavailable: {}",
                        text::line(name),
                        text::line(first(reason))
                    ),
                    theme.warning,
                ),
                w,
            ));
        }
        EntryKind::ReplayTruncated { from_seq } => {
            let from = from_seq.map_or("?".to_string(), |s| s.to_string());
            out.push(truncate(
                Line::styled(
                    // The stream task reconnects from `from_seq` at once (§7.6): nothing is lost.
                    format!("  ⋯ long history: the server cut the replay at seq {from}; the rest is being collected"),
                    theme.warning,
                ),
                w,
            ));
        }
        EntryKind::Unknown { kind, excerpt } => {
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  · {} ", text::line(kind)), theme.dim),
                    Span::styled(text::line(excerpt).into_owned(), theme.dim),
                ]),
                w,
            ));
        }
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
    out.push(Line::styled("◆ agent", theme.agent));
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
        return vec![truncate(Line::styled("── turn ended ──", theme.dim), w)];
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
