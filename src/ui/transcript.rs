//! The transcript pane: entries laid out into lines (cached per entry per width), only the
//! visible ones, following the bottom unless the user scrolled up.

use super::state::{Anchor, UiState};
use super::theme::Theme;
use super::{markdown, sanitize};
use crate::api::model::ChangeKind;
use crate::session::SessionView;
use crate::session::transcript::{CallStatus, Entry, EntryKind, Streaming, Verdict};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use std::collections::HashMap;
use std::rc::Rc;
use unicode_width::UnicodeWidthChar;

/// Entries whose lines are kept; the cache is emptied beyond this (it refills with what is
/// on screen).
const CACHE_ENTRIES: usize = 4_096;
/// Streamed text shown: only its tail is laid out on each frame.
const STREAM_TAIL: usize = 6_000;
/// Reasoning lines shown under the live text.
const THINKING_LINES: usize = 3;

type Lines = Rc<Vec<Line<'static>>>;

/// Wrapped lines per transcript entry for one width.
#[derive(Debug, Default)]
pub struct LineCache {
    width: u16,
    entries: HashMap<u64, (u32, bool, Lines)>,
    streaming: Option<(u64, bool, Lines)>,
}

impl LineCache {
    fn lines(&mut self, entry: &Entry, width: u16, expanded: bool, theme: &Theme) -> Lines {
        self.set_width(width);
        if let Some((rev, exp, lines)) = self.entries.get(&entry.id)
            && *rev == entry.rev
            && *exp == expanded
        {
            return lines.clone();
        }
        if self.entries.len() >= CACHE_ENTRIES {
            self.entries.clear();
        }
        let lines: Lines = Rc::new(entry_lines(entry, width, expanded, theme));
        self.entries
            .insert(entry.id, (entry.rev, expanded, lines.clone()));
        lines
    }

    fn streaming(
        &mut self,
        s: &Streaming,
        rev: u64,
        width: u16,
        thinking: bool,
        theme: &Theme,
    ) -> Lines {
        self.set_width(width);
        if let Some((r, t, lines)) = &self.streaming
            && *r == rev
            && *t == thinking
        {
            return lines.clone();
        }
        let lines: Lines = Rc::new(streaming_lines(s, width, thinking, theme));
        self.streaming = Some((rev, thinking, lines.clone()));
        lines
    }

    /// Entries currently laid out (a screenful plus what scrolled by).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn set_width(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.entries.clear();
            self.streaming = None;
        }
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    view: &SessionView,
    ui: &UiState,
    theme: &Theme,
    block: Block,
) {
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let t = view.transcript();
    let entries = t.entries();
    let mut cache = ui.cache.borrow_mut();
    let streaming = t.streaming();
    let blocks = entries.len() + usize::from(streaming.is_some());
    if blocks == 0 {
        let hint = Line::styled("No messages yet. Type below to send one.", theme.dim);
        frame.render_widget(Paragraph::new(hint), inner);
        return;
    }
    let width = inner.width;
    let height = inner.height as usize;
    let base = entries.front().map_or(0, |e| e.id);
    let mut lines_of = |i: usize| -> Lines {
        match entries.get(i) {
            Some(e) => cache.lines(e, width, ui.expanded.contains(&e.id), theme),
            None => match streaming {
                Some(s) => cache.streaming(s, t.streaming_rev(), width, ui.show_thinking, theme),
                None => Rc::new(Vec::new()),
            },
        }
    };

    // Resolve the scroll position into (block, line) of the top row.
    let mut scroll = ui.transcript_scroll.get();
    let mut following = scroll.anchor.is_none();
    let mut top = match scroll.anchor {
        None => bottom_top(blocks, height, &mut lines_of),
        Some(a) => (
            ((a.item.saturating_sub(base)) as usize).min(blocks - 1),
            a.line,
        ),
    };
    if scroll.pending != 0 {
        top = move_by(top, scroll.pending, blocks, &mut lines_of);
        scroll.pending = 0;
        following = false;
    }
    if !following && reaches_end(top, height, blocks, &mut lines_of) {
        following = true; // scrolled back to the bottom
    }
    if following {
        top = bottom_top(blocks, height, &mut lines_of);
    }
    let (mut rows, last_block) = collect(top, height, blocks, &mut lines_of);
    scroll.anchor = (!following).then(|| Anchor {
        item: base + top.0 as u64,
        line: top.1,
    });
    ui.transcript_scroll.set(scroll);
    let last_shown = (base + last_block.min(entries.len().saturating_sub(1)) as u64)
        .min(t.next_id().saturating_sub(1));
    ui.transcript_visible.set(Some((
        base + top.0.min(entries.len().saturating_sub(1)) as u64,
        last_shown,
    )));

    if following {
        ui.transcript_seen.set(None);
    } else {
        let seen = ui.transcript_seen.get().unwrap_or(t.next_id());
        ui.transcript_seen.set(Some(seen));
        let newer = t.next_id().saturating_sub(seen);
        if newer > 0 {
            let marker = format!(" ↓ {newer} new below ");
            if let Some(last) = rows.last_mut() {
                *last = Line::styled(marker, theme.accent).right_aligned();
            }
        }
    }
    frame.render_widget(Paragraph::new(rows), inner);
}

/// The top row (block, line) that puts the last line at the bottom of `height` rows.
fn bottom_top(
    blocks: usize,
    height: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> (usize, usize) {
    let mut need = height;
    for i in (0..blocks).rev() {
        let n = lines_of(i).len();
        if n >= need {
            return (i, n - need);
        }
        need -= n;
    }
    (0, 0)
}

fn move_by(
    top: (usize, usize),
    delta: i64,
    blocks: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> (usize, usize) {
    let (mut block, mut line) = top;
    if delta < 0 {
        let mut up = delta.unsigned_abs() as usize;
        while up > 0 {
            if line >= up {
                line -= up;
                break;
            }
            up -= line;
            if block == 0 {
                return (0, 0);
            }
            block -= 1;
            line = lines_of(block).len();
        }
        (block, line)
    } else {
        let mut down = delta as usize;
        loop {
            let n = lines_of(block).len();
            if line + down < n {
                return (block, line + down);
            }
            if block + 1 >= blocks {
                return (block, n.saturating_sub(1));
            }
            down -= n - line;
            block += 1;
            line = 0;
        }
    }
}

/// Up to `height` rows from `top`, and the last block they touch.
fn collect(
    top: (usize, usize),
    height: usize,
    blocks: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> (Vec<Line<'static>>, usize) {
    let mut rows = Vec::with_capacity(height);
    let (mut block, mut skip) = top;
    let mut last = block;
    while rows.len() < height && block < blocks {
        let lines = lines_of(block);
        rows.extend(lines.iter().skip(skip).take(height - rows.len()).cloned());
        last = block;
        skip = 0;
        block += 1;
    }
    (rows, last)
}

/// Whether everything from `top` to the end fits in `height` rows.
fn reaches_end(
    top: (usize, usize),
    height: usize,
    blocks: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> bool {
    let mut total = 0;
    for i in top.0..blocks {
        total += lines_of(i).len()
            - if i == top.0 {
                top.1.min(lines_of(i).len())
            } else {
                0
            };
        if total > height {
            return false;
        }
    }
    true
}

// ---- laying out one entry ------------------------------------------------------------

fn entry_lines(entry: &Entry, width: u16, expanded: bool, theme: &Theme) -> Vec<Line<'static>> {
    let w = width as usize;
    let mut out = Vec::new();
    match &entry.kind {
        EntryKind::User { text } => {
            out.push(Line::default());
            out.push(Line::styled("▌ you", theme.user));
            for l in wrap_plain(text, w.saturating_sub(2)) {
                out.push(Line::from(vec![
                    Span::styled("▌ ", theme.user),
                    Span::styled(l, theme.text),
                ]));
            }
        }
        EntryKind::Agent { text } => {
            out.push(Line::default());
            out.push(Line::styled("◆ agent", theme.agent));
            for l in markdown::render(text, width, theme) {
                out.extend(hard_wrap(l, w));
            }
        }
        EntryKind::Context { text } => {
            for (i, l) in wrap_plain(text, w.saturating_sub(11))
                .into_iter()
                .enumerate()
            {
                let lead = if i == 0 { "  context: " } else { "           " };
                out.push(Line::from(vec![
                    Span::styled(lead, theme.dim),
                    Span::styled(l, theme.text),
                ]));
            }
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
                Span::styled(sanitize::line(&t.name).into_owned(), theme.accent),
            ];
            if !t.args.is_empty() {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    sanitize::line(&t.args).into_owned(),
                    theme.dim,
                ));
            }
            if let Some(code) = t.exit_code {
                spans.push(Span::styled(
                    format!(" (exit {code})"),
                    if code == 0 { theme.dim } else { theme.error },
                ));
            }
            if !t.summary.is_empty() {
                spans.push(Span::styled(" — ", theme.dim));
                spans.push(Span::raw(sanitize::line(first(&t.summary)).into_owned()));
            }
            out.push(truncate(Line::from(spans), w));
        }
        EntryKind::FileChange(f) => {
            let (verb, style) = match &f.change {
                ChangeKind::Created => ("created ", theme.diff_add),
                ChangeKind::Deleted => ("deleted ", theme.diff_del),
                ChangeKind::Modified => ("modified", theme.diff_hunk),
                ChangeKind::Other(_) => ("changed ", theme.dim),
            };
            let mut spans = vec![
                Span::styled("  ± ", style),
                Span::styled(verb, style),
                Span::raw(" "),
                Span::raw(sanitize::line(&f.path).into_owned()),
            ];
            if f.diff.is_some() && !expanded {
                spans.push(Span::styled("  [diff hidden]", theme.dim));
            }
            out.push(truncate(Line::from(spans), w));
            if let (true, Some(diff)) = (expanded, &f.diff) {
                for l in sanitize::lines(diff) {
                    let style = diff_style(&l, theme);
                    out.extend(hard_wrap(
                        Line::from(vec![
                            Span::styled("    ", theme.dim),
                            Span::styled(l.into_owned(), style),
                        ]),
                        w,
                    ));
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
                    Span::raw(sanitize::line(&item.label).into_owned()),
                ]);
                out.push(truncate(line, w));
            }
        }
        EntryKind::Approval(a) => {
            let sens = if a.sensitive { " (sensitive)" } else { "" };
            let (verdict, vstyle): (String, Style) = match &a.verdict {
                Verdict::Pending if a.from_history => {
                    ("outcome not in the history".into(), theme.dim)
                }
                Verdict::Pending => ("waiting for approval".into(), theme.warning),
                Verdict::Approved { .. } => ("approved".into(), theme.ok),
                Verdict::Denied { code, reason } => {
                    let mut s = String::from("denied");
                    if let Some(c) = code {
                        s.push_str(&format!(" ({})", sanitize::line(c)));
                    }
                    if let Some(r) = reason {
                        s.push_str(&format!(": {}", sanitize::line(first(r))));
                    }
                    (s, theme.error)
                }
            };
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  ⚠ approval{sens} "), theme.warning),
                    Span::styled(sanitize::line(&a.name).into_owned(), theme.accent),
                    Span::raw(" "),
                    Span::styled(sanitize::line(&a.args).into_owned(), theme.dim),
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
            for (i, l) in wrap_plain(&q.question, w.saturating_sub(4))
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
                    .map(|o| sanitize::line(o).into_owned())
                    .collect();
                out.push(truncate(
                    Line::styled(format!("    [{}]", opts.join(" | ")), theme.dim),
                    w,
                ));
            }
            let answer = match &q.answer {
                Some(a) => Line::from(vec![
                    Span::styled("    → ", theme.dim),
                    Span::styled(sanitize::line(first(a)).into_owned(), theme.ok),
                ]),
                None if q.from_history => {
                    Line::styled("    → answer not in the history", theme.dim)
                }
                None => Line::styled("    → waiting for an answer", theme.warning),
            };
            out.push(truncate(answer, w));
        }
        EntryKind::Function(f) => {
            let (mark, style, state) = match f.success {
                None => ("ƒ", theme.warning, " — waiting for your result"),
                Some(true) => ("ƒ", theme.ok, " ✓"),
                Some(false) => ("ƒ", theme.error, " ✗"),
            };
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  {mark} "), style),
                    Span::styled(sanitize::line(&f.name).into_owned(), theme.accent),
                    Span::raw(" "),
                    Span::styled(sanitize::line(&f.args).into_owned(), theme.dim),
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
            let pos = position.map(|p| format!(" #{p}")).unwrap_or_default();
            out.push(truncate(
                Line::styled(
                    format!("  ⏸ queued{pos}: {}", sanitize::line(first(text))),
                    theme.dim,
                ),
                w,
            ));
        }
        EntryKind::Dequeued { text } => {
            out.push(truncate(
                Line::styled(
                    format!("  ▶ dequeued: {}", sanitize::line(first(text))),
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
                    format!("  ⇪ artifact {}{size}", sanitize::line(path)),
                    theme.accent,
                ),
                w,
            ));
        }
        EntryKind::Preview { port, url } => {
            let port = port.map(|p| format!(":{p} ")).unwrap_or_default();
            let url = url.as_deref().map(sanitize::line).unwrap_or_default();
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
                        sanitize::line(name),
                        sanitize::line(first(reason))
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
                    format!("  ⚠ replay truncated: events after seq {from} were not delivered"),
                    theme.warning,
                ),
                w,
            ));
        }
        EntryKind::Unknown { kind, excerpt } => {
            out.push(truncate(
                Line::from(vec![
                    Span::styled(format!("  · {} ", sanitize::line(kind)), theme.dim),
                    Span::styled(sanitize::line(excerpt).into_owned(), theme.dim),
                ]),
                w,
            ));
        }
    }
    out
}

fn streaming_lines(s: &Streaming, width: u16, thinking: bool, theme: &Theme) -> Vec<Line<'static>> {
    let w = width as usize;
    let mut out = vec![
        Line::default(),
        Line::styled("◆ agent (writing…)", theme.agent),
    ];
    if thinking && !s.thinking.is_empty() {
        let wrapped = wrap_plain(tail(&s.thinking, STREAM_TAIL), w.saturating_sub(2));
        let skip = wrapped.len().saturating_sub(THINKING_LINES);
        for l in wrapped.into_iter().skip(skip) {
            out.push(Line::from(vec![
                Span::styled("┊ ", theme.dim),
                Span::styled(l, theme.dim),
            ]));
        }
    }
    for l in markdown::render(tail(&s.text, STREAM_TAIL), width, theme) {
        out.extend(hard_wrap(l, w));
    }
    out.push(Line::styled("▍", theme.accent));
    out
}

fn error_lines(out: &mut Vec<Line<'static>>, label: &str, message: &str, w: usize, theme: &Theme) {
    let lead = format!("  ✗ {label}: ");
    let indent = " ".repeat(4);
    for (i, l) in wrap_plain(message, w.saturating_sub(lead.chars().count()))
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

fn diff_style(line: &str, theme: &Theme) -> Style {
    if line.starts_with("@@") {
        theme.diff_hunk
    } else if line.starts_with('+') {
        theme.diff_add
    } else if line.starts_with('-') {
        theme.diff_del
    } else {
        theme.text
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

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Server text, sanitized and word-wrapped to `width` columns (long words are split).
pub(crate) fn wrap_plain(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for raw in sanitize::lines(text) {
        let mut line = String::new();
        let mut used = 0;
        for word in raw.split(' ') {
            let ww: usize = word.chars().map(char_width).sum();
            let sep = usize::from(!line.is_empty());
            if used + sep + ww <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(word);
                used += sep + ww;
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
            for c in word.chars() {
                let cw = char_width(c);
                if used + cw > width {
                    out.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += cw;
            }
        }
        out.push(line);
    }
    out
}

/// Splits a styled line into lines at most `width` columns wide.
pub(crate) fn hard_wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut buf = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if used + cw > width {
                if !buf.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut buf), span.style));
                }
                out.push(Line::from(std::mem::take(&mut current)).style(line.style));
                used = 0;
            }
            buf.push(c);
            used += cw;
        }
        if !buf.is_empty() {
            current.push(Span::styled(buf, span.style));
        }
    }
    if !current.is_empty() {
        out.push(Line::from(current).style(line.style));
    }
    out
}

/// Cuts a styled line to `width` columns, ending in `…` when cut.
pub(crate) fn truncate(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut spans = Vec::new();
    let mut used = 0;
    let limit = width.saturating_sub(1);
    'outer: for span in line.spans {
        let mut buf = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if used + cw > limit {
                spans.push(Span::styled(buf, span.style));
                break 'outer;
            }
            buf.push(c);
            used += cw;
        }
        spans.push(Span::styled(buf, span.style));
    }
    spans.push(Span::raw("…"));
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_plain_splits_words_and_long_tokens() {
        assert_eq!(wrap_plain("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap_plain("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap_plain("a\nb", 10), vec!["a", "b"]);
    }

    #[test]
    fn truncate_and_hard_wrap_respect_width() {
        let l = Line::from("héllo world");
        assert_eq!(truncate(l.clone(), 6).width(), 6);
        assert!(hard_wrap(l, 4).iter().all(|x| x.width() <= 4));
    }
}
