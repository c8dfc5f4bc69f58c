//! Entries of one family laid out: what the agent waits for: approvals, questions, function calls.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use crate::session::transcript::{ApprovalEntry, FunctionEntry, QuestionEntry};

pub(super) fn lines(
    entry: DecisionsEntry<'_>,
    width: u16,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let w = usize::from(width);
    match entry {
        DecisionsEntry::Approval(a) => approval_lines(a, w, theme, out),
        DecisionsEntry::Question(q) => question_lines(q, w, theme, out),
        DecisionsEntry::Function(f) => function_lines(f, w, theme, out),
    }
}

/// The call asked about, then its verdict.
fn approval_lines(a: &ApprovalEntry, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let sens = if a.sensitive {
        format!(" ({})", words::SENSITIVE)
    } else {
        String::new()
    };
    let (verdict, vstyle) = verdict(a, theme);
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

/// What came of an approval, in the style it is shown in.
fn verdict(a: &ApprovalEntry, theme: &Theme) -> (String, Style) {
    match &a.verdict {
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
    }
}

/// The question wrapped, its options on one line, then the answer.
fn question_lines(q: &QuestionEntry, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
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

/// The call and its state on one line.
fn function_lines(f: &FunctionEntry, w: usize, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let (style, state) = function_state(f, theme);
    out.push(truncate(
        Line::from(vec![
            Span::styled("  ƒ ", style),
            Span::styled(text::line(&f.name).into_owned(), theme.accent),
            Span::raw(" "),
            Span::styled(text::line(&f.args).into_owned(), theme.dim),
            Span::styled(state, style),
        ]),
        w,
    ));
}

/// Where a function call stands, and the style its line takes.
fn function_state(f: &FunctionEntry, theme: &Theme) -> (Style, String) {
    match f.success {
        None => (theme.warning, format!(" — {}", words::RESULT_WAITING)),
        Some(true) => (
            theme.ok,
            format!(" ✓ {}", words::function_outcome(true, false)),
        ),
        Some(false) if f.expired => (
            theme.error,
            format!(
                " ✗ {}: {}",
                words::function_outcome(false, false),
                words::function_outcome(false, true)
            ),
        ),
        Some(false) => (
            theme.error,
            format!(" ✗ {}", words::function_outcome(false, false)),
        ),
    }
}
