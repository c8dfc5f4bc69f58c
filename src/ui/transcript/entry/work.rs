//! Entries of one family laid out: what the agent does: tools, files, todos, compaction, errors.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::transcript::{FileChangeEntry, ToolCallEntry};
use crate::session::vocabulary::work as words;
use gobare_api::model::TodoItem;

pub(super) fn lines(
    entry: WorkEntry<'_>,
    width: u16,
    expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match entry {
        WorkEntry::Tool(t) => {
            out.push(truncate(tool_line(t, theme), w));
            if expanded {
                tool_details(out, t, w, theme);
            }
        }
        WorkEntry::FileChange(f) => file_change_lines(f, w, expanded, theme, out),
        WorkEntry::Todos { items } => todo_lines(items, w, theme, out),
        WorkEntry::Error { message } => error_lines(out, words::ERROR, message, w, theme),
        WorkEntry::Compaction { before, after } => {
            let tokens = words::compaction_tokens(before, after);
            out.push(Line::styled(
                format!("  ⇣ {} {tokens}", words::COMPACTED),
                theme.dim,
            ));
        }
        WorkEntry::McpUnavailable { name, reason } => {
            out.push(truncate(
                Line::styled(
                    format!(
                        "  ⚠ {}",
                        words::mcp_unavailable(text::line(name), text::line(first(reason)))
                    ),
                    theme.warning,
                ),
                w,
            ));
        }
    }
}

/// A tool call on one line: its state's mark, name, arguments, exit code and summary.
fn tool_line(t: &ToolCallEntry, theme: &Theme) -> Line<'static> {
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
    Line::from(spans)
}

/// The file and what happened to it; expanded, its diff under it.
fn file_change_lines(
    f: &FileChangeEntry,
    w: usize,
    expanded: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let style = match &f.change {
        ChangeKind::Created => theme.diff_add,
        ChangeKind::Deleted => theme.diff_del,
        ChangeKind::Modified => theme.diff_hunk,
        ChangeKind::Other(_) => theme.dim,
    };
    let verb = words::file_verb(&f.change);
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
        for mut l in crate::ui::text::diff::render(diff, inner, theme, DIFF_LINES_SHOWN) {
            l.spans.insert(0, Span::styled("    ", theme.dim));
            out.push(l);
        }
    }
}

/// How much of the list is done, then one line an item.
fn todo_lines(items: &[TodoItem], w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let done = words::todos_done(items);
    out.push(Line::styled(
        format!("  todo {done}/{}", items.len()),
        theme.title,
    ));
    for item in items {
        let (mark, style) = match item.status.as_str() {
            done if words::todo_done(done) => ("☑", theme.ok),
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
