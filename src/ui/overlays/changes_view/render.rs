//! Drawing the changes view: the file list on the left (when there is room), the selected
//! file's diff on the right, the keys or what is being typed on the bottom border.

use super::rows::{Half, Row, RowKind};
use super::{ChangesView, Content, SIDE_BY_SIDE_FROM, Typing, review};
use crate::ui::overlays::{self, ViewScope};
use crate::ui::text::highlight::Highlighted;
use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};
use std::ops::Range;

/// The list is drawn from this width of the overlay on.
const LIST_FROM: u16 = 90;

pub(super) fn draw(view: &mut ChangesView, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let area = overlays::area(area);
    let side_by_side = view.side_by_side.unwrap_or(area.width >= SIDE_BY_SIDE_FROM);
    view.drawn_side_by_side = side_by_side;
    view.ensure_rows(side_by_side);
    let title = title(view);
    let bottom = bottom_line(view, theme);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(title, theme.title))
        .title_bottom(bottom);
    let inner = block.inner(area);
    Clear.render(area, buf);
    block.render(area, buf);
    let files_len = view.files().len();
    match &view.content {
        Content::Loading => {
            return message(inner, buf, "reading the session's history…", theme.dim);
        }
        Content::Failed(why) => {
            return message(
                inner,
                buf,
                &format!("could not read the changes: {why}"),
                theme.error,
            );
        }
        Content::Ready(_) if files_len == 0 => {
            return message(
                inner,
                buf,
                &format!("no file changes in {}", view.scope),
                theme.dim,
            );
        }
        Content::Ready(_) => {}
    }
    let diff_area = draw_list_beside(view, inner, buf, theme);
    draw_diff(view, diff_area, buf, theme, side_by_side);
}

/// The frame's title: the scope, its files with their lines added and removed, the review.
fn title(view: &ChangesView) -> String {
    let files = view.files();
    let (plus, minus) = files.iter().fold((0, 0), |(p, m), f| {
        let (a, r) = f.counts();
        (p + a, m + r)
    });
    let mut title = format!(" Changes · {}", view.scope);
    if !files.is_empty() {
        let n = files.len();
        title.push_str(&format!(
            " · {n} file{} +{plus} −{minus}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if view.review.len() > 0 {
        title.push_str(&format!(" · {}", review::count(view.review.len())));
    }
    title.push(' ');
    title
}

/// The bottom border: what is being typed, or the status, or the keys.
fn bottom_line(view: &ChangesView, theme: &Theme) -> Span<'static> {
    match &view.typing {
        Typing::Comment(text) => Span::styled(
            format!(
                " comment: {}▏ (Enter keeps it · Esc drops it) ",
                text::line(text)
            ),
            theme.accent,
        ),
        Typing::Send => Span::styled(
            format!(
                " send the review ({}) to the agent? y sends · n keeps it ",
                review::count(view.review.len())
            ),
            theme.warning,
        ),
        Typing::No => match &view.status {
            Some(status) => Span::styled(format!(" {status} "), theme.accent),
            None => Span::styled(
                format!(" {} ", crate::keys::table::view_hints(ViewScope::Changes)),
                theme.dim,
            ),
        },
    }
}

/// Lays out and draws the file list on the left with a rule after it, when the overlay is
/// wide enough; returns the area left for the diff.
fn draw_list_beside(view: &ChangesView, inner: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
    if inner.width >= LIST_FROM {
        let longest = view
            .files()
            .iter()
            .map(|f| text::width(&text::line(&f.path)))
            .max()
            .unwrap_or(0);
        let list_width = (longest as u16 + 15).clamp(24, inner.width / 3);
        let list = Rect {
            width: list_width,
            ..inner
        };
        draw_list(view, list, buf, theme);
        let rule = Rect {
            x: inner.x + list_width,
            width: 1,
            ..inner
        };
        for y in rule.y..rule.bottom() {
            buf[(rule.x, y)].set_symbol("│").set_style(theme.border);
        }
        Rect {
            x: rule.x + 1,
            width: inner.width - list_width - 1,
            ..inner
        }
    } else {
        inner
    }
}

fn message(area: Rect, buf: &mut Buffer, words: &str, style: Style) {
    Paragraph::new(Line::from(Span::styled(text::one_line(words, 400), style))).render(area, buf);
}

fn draw_list(view: &ChangesView, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let height = usize::from(area.height);
    let first = view.file.saturating_sub(height.saturating_sub(1));
    let lines: Vec<Line<'static>> = view
        .files()
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, f)| {
            let (a, r) = f.counts();
            let mark_style = match f.mark() {
                'A' => theme.diff_add,
                'D' => theme.diff_del,
                '!' => theme.warning,
                _ => theme.text,
            };
            let (plus, minus) = if f.change.is_ok() {
                (format!("+{a}"), format!("−{r}"))
            } else {
                (String::new(), String::new())
            };
            let mut spans = vec![
                Span::styled(format!("{} ", f.mark()), mark_style),
                Span::styled(format!("{plus:>5} "), theme.diff_add),
                Span::styled(format!("{minus:>5} "), theme.diff_del),
                // Bidi controls and invisible characters in a name shown, never dropped
                // quietly: `src/⟨U+202E⟩evil.rs` is not `src/evil.rs`.
                Span::styled(text::line(&f.path).into_owned(), theme.text),
            ];
            if i == view.file {
                for s in &mut spans {
                    s.style = s.style.patch(theme.selection);
                }
            }
            Line::from(spans)
        })
        .collect();
    Paragraph::new(lines).render(area, buf);
}

fn draw_diff(
    view: &mut ChangesView,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    side_by_side: bool,
) {
    if area.height < 2 {
        return;
    }
    let Some(file) = view.files().get(view.file) else {
        return;
    };
    let path = file.path.clone();
    let header = diff_header(view, side_by_side, theme);
    Paragraph::new(Line::from(header)).render(Rect { height: 1, ..area }, buf);
    let body = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    view.shown = usize::from(body.height);
    view.follow_cursor();
    if view.rows.is_empty() {
        return;
    }
    // Built once per file and layout (the rows' sides), parsed only as far as drawn.
    let key = (theme.text, theme.accent);
    let mut highlight = match view.highlight.take() {
        Some((k, h)) if k == key => h,
        _ => Highlighters::new(&path, &view.sides, theme),
    };
    let marked = view.anchor.map(|_| view.marked());
    let end = (view.top + view.shown).min(view.rows.len());
    let comments = view.review.comments().iter().filter(|c| c.path == path);
    let comments: Vec<_> = comments.collect();
    let (mut left, mut right): (Vec<Line<'static>>, Vec<Line<'static>>) = (Vec::new(), Vec::new());
    for i in view.top..end {
        let row = &view.rows[i];
        let focus = if i == view.cursor {
            Some(theme.selection)
        } else if marked.as_ref().is_some_and(|m| m.contains(&i)) {
            Some(theme.search_match)
        } else {
            None
        };
        if let Some(header) = &row.header {
            let line = Line::from(Span::styled(header.clone(), with(theme.diff_hunk, focus)));
            left.push(line.clone());
            right.push(line);
        } else if side_by_side {
            left.push(half_line(
                row.left.as_ref(),
                Side::Old,
                &mut highlight,
                theme,
                focus,
            ));
            right.push(half_line(
                row.right.as_ref(),
                Side::New,
                &mut highlight,
                theme,
                focus,
            ));
        } else {
            left.push(unified_line(row, &mut highlight, theme, focus));
        }
        for c in comments.iter().filter(|c| c.after == row.numbers()) {
            let note = Line::from(Span::styled(
                format!("      » {}", text::line(&c.text)),
                theme.accent,
            ));
            left.push(note.clone());
            right.push(Line::default());
        }
    }
    paint_columns(left, right, body, buf, theme, side_by_side);
    view.highlight = Some((key, highlight));
}

/// The diff's first row: which file of how many, its path, what happened to it, and where
/// the cursor is among its hunks.
fn diff_header(view: &ChangesView, side_by_side: bool, theme: &Theme) -> Vec<Span<'static>> {
    let hunks = view.rows.iter().filter(|r| r.is_hunk()).count();
    let here = view.rows.get(view.cursor).map_or(0, |r| r.hunk + 1);
    let Some(file) = view.files().get(view.file) else {
        return Vec::new();
    };
    let mut header = vec![
        Span::styled(
            format!("{}/{} ", view.file + 1, view.files().len()),
            theme.dim,
        ),
        Span::styled(text::line(&file.path).into_owned(), theme.heading),
    ];
    match &file.change {
        Ok(diff) => {
            let words = match diff.status {
                crate::changes::compose::Status::Added => "new file",
                crate::changes::compose::Status::Deleted => "deleted",
                crate::changes::compose::Status::Modified => "modified",
            };
            header.push(Span::styled(format!(" · {words}"), theme.dim));
            if hunks > 0 {
                header.push(Span::styled(
                    format!(" · hunk {here} of {hunks}"),
                    theme.dim,
                ));
            }
            if side_by_side {
                header.push(Span::styled(" · side by side".to_string(), theme.dim));
            }
        }
        Err(why) => header.push(Span::styled(
            format!(" · incomplete: {why}; it is left out of `gobare-tui diff`"),
            theme.warning,
        )),
    }
    header
}

/// Paints the diff's rows into `body`: one column, or the old and new sides with a rule
/// between them.
fn paint_columns(
    left: Vec<Line<'static>>,
    right: Vec<Line<'static>>,
    body: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    side_by_side: bool,
) {
    if side_by_side {
        let half = body.width / 2;
        Paragraph::new(left).render(
            Rect {
                width: half,
                ..body
            },
            buf,
        );
        let rule_x = body.x + half;
        for y in body.y..body.bottom() {
            buf[(rule_x, y)].set_symbol("│").set_style(theme.border);
        }
        Paragraph::new(right).render(
            Rect {
                x: rule_x + 1,
                width: body.width - half - 1,
                ..body
            },
            buf,
        );
    } else {
        Paragraph::new(left).render(body, buf);
    }
}

fn with(style: Style, focus: Option<Style>) -> Style {
    focus.map_or(style, |f| style.patch(f))
}

#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
}

/// The two sides' highlighters, built for one draw.
pub(super) struct Highlighters {
    old: Highlighted,
    new: Highlighted,
}

impl Highlighters {
    fn new(path: &str, sides: &super::rows::Sides, theme: &Theme) -> Highlighters {
        let joined = |lines: &[String]| {
            let mut s = lines.join("\n");
            s.push('\n');
            s
        };
        Highlighters {
            old: Highlighted::new(path, &joined(&sides.old), theme),
            new: Highlighted::new(path, &joined(&sides.new), theme),
        }
    }

    fn spans(&mut self, side: Side, half: &Half) -> Vec<Span<'static>> {
        let h = match side {
            Side::Old => &mut self.old,
            Side::New => &mut self.new,
        };
        match h.lines(half.side_index..half.side_index + 1).first() {
            Some(line) => line.spans.clone(),
            None => vec![Span::raw(half.text.clone())],
        }
    }
}

fn unified_line(
    row: &Row,
    highlight: &mut Highlighters,
    theme: &Theme,
    focus: Option<Style>,
) -> Line<'static> {
    // Unified rows: a removed line has only its old half, an added one only its new
    // half, context both (drawn from the old side, numbered on both).
    let (half, side) = match (&row.left, &row.right) {
        (Some(h), _) => (h, Side::Old),
        (None, Some(h)) => (h, Side::New),
        (None, None) => return Line::default(),
    };
    let (old, new) = row.numbers();
    let number = |n: Option<usize>| n.map_or_else(|| "    ".to_string(), |n| format!("{n:>4}"));
    let mut spans = vec![Span::styled(
        format!("{} {} ", number(old), number(new)),
        with(theme.dim, focus),
    )];
    spans.extend(content(half, side, highlight, theme, focus));
    Line::from(spans)
}

fn half_line(
    half: Option<&Half>,
    side: Side,
    highlight: &mut Highlighters,
    theme: &Theme,
    focus: Option<Style>,
) -> Line<'static> {
    let Some(half) = half else {
        return Line::from(Span::styled(String::new(), with(theme.dim, focus)));
    };
    let mut spans = vec![Span::styled(
        format!("{:>4} ", half.number),
        with(theme.dim, focus),
    )];
    spans.extend(content(half, side, highlight, theme, focus));
    Line::from(spans)
}

/// The sign and the highlighted text, the changed words marked.
fn content(
    half: &Half,
    side: Side,
    highlight: &mut Highlighters,
    theme: &Theme,
    focus: Option<Style>,
) -> Vec<Span<'static>> {
    let (sign, sign_style, word_style) = match half.kind {
        RowKind::Removed => (
            "-",
            theme.diff_del,
            theme.diff_del.add_modifier(Modifier::REVERSED),
        ),
        RowKind::Added => (
            "+",
            theme.diff_add,
            theme.diff_add.add_modifier(Modifier::REVERSED),
        ),
        _ => (" ", theme.dim, theme.text),
    };
    let mut spans = vec![Span::styled(sign.to_string(), with(sign_style, focus))];
    let styled = highlight.spans(side, half);
    let marked = mark_words(styled, &half.words, word_style);
    spans.extend(marked.into_iter().map(|mut s| {
        s.style = with(s.style, focus);
        s
    }));
    spans
}

/// `spans` with the bytes in `words` restyled by `style`.
pub(super) fn mark_words(
    spans: Vec<Span<'static>>,
    words: &[Range<usize>],
    style: Style,
) -> Vec<Span<'static>> {
    if words.is_empty() {
        return spans;
    }
    let mut out = Vec::new();
    let mut at = 0usize;
    for span in spans {
        let content = span.content.to_string();
        let end = at + content.len();
        let mut cuts: Vec<usize> = vec![0, content.len()];
        for w in words {
            for edge in [w.start, w.end] {
                if edge > at && edge < end && content.is_char_boundary(edge - at) {
                    cuts.push(edge - at);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for pair in cuts.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let piece = &content[a..b];
            let inside = words.iter().any(|w| w.start <= at + a && at + b <= w.end);
            let piece_style = if inside {
                span.style.patch(style)
            } else {
                span.style
            };
            out.push(Span::styled(piece.to_string(), piece_style));
        }
        at = end;
    }
    out
}
