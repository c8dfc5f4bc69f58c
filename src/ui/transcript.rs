//! The transcript pane: entries laid out into lines (cached per entry per width), only the
//! visible ones, following the bottom unless the user scrolled up.

use super::component::{Ctx, PaneComponent};
use super::pane::{Anchor, Pane, Scroll};
use super::search::highlight;
use super::theme::Theme;
use crate::session::Session;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use std::collections::HashSet;
use std::rc::Rc;

mod entry;
pub(crate) mod line_cache;
mod stamp;

use line_cache::{LineCache, Lines};

/// Rows the config's warnings take at most above a session's transcript.
const WARNING_ROWS: usize = 3;

/// The transcript's view state: where it is scrolled, what it showed, which diffs are open.
#[derive(Debug)]
pub(crate) struct TranscriptPane {
    scroll: Scroll,
    /// Ids of the first and last entries on screen at the last draw.
    visible: Option<(u64, u64)>,
    /// The transcript's `next_id` when the user left the bottom ("N new below").
    seen: Option<u64>,
    cache: LineCache,
    /// Entry ids whose diff is shown.
    pub(crate) expanded: HashSet<u64>,
    /// Show the agent's streamed reasoning under the live text.
    pub(crate) show_thinking: bool,
    /// The selected entry's id (the live stream keeps it on the same entry).
    selected: Option<u64>,
    /// The next draw scrolls the selected entry into view.
    reveal: bool,
    /// The search's folded text, marked in every line (empty: none).
    pub(crate) highlight: String,
    /// The entry of the current search hit.
    pub(crate) current_entry: Option<u64>,
    /// The last draw showed a relative time, which the next minute changes.
    pub(crate) drew_relative_time: bool,
}

impl TranscriptPane {
    /// The oldest entry kept was on screen at the last draw, scrolled there by the user.
    pub(crate) fn shows_oldest_kept(&self, view: &Session) -> bool {
        self.scroll.anchor.is_some()
            && self
                .visible
                .is_some_and(|(top, _)| top == view.transcript().first_kept_id())
    }

    /// Following the newest entries (not scrolled back).
    pub(crate) fn following(&self) -> bool {
        self.scroll.anchor.is_none()
    }
}

impl Default for TranscriptPane {
    fn default() -> Self {
        TranscriptPane {
            scroll: Scroll::default(),
            visible: None,
            seen: None,
            cache: LineCache::default(),
            expanded: HashSet::new(),
            show_thinking: true,
            selected: None,
            reveal: false,
            highlight: String::new(),
            current_entry: None,
            drew_relative_time: false,
        }
    }
}

impl TranscriptPane {
    /// Entries whose wrapped lines are cached (for memory figures).
    pub(crate) fn cached_entries(&self) -> usize {
        self.cache.len()
    }

    /// Scrolls so entry `id` is near the top (two lines of what comes before above it).
    pub(crate) fn reveal(&mut self, id: u64) {
        self.scroll = Scroll {
            anchor: Some(Anchor { item: id, line: 0 }),
            pending: -2,
        };
    }

    /// Shows or hides the diff of entry `id`.
    pub(crate) fn toggle_expanded(&mut self, id: u64) {
        if !self.expanded.remove(&id) {
            self.expanded.insert(id);
        }
    }

    /// The selected entry, if it is still kept.
    pub(crate) fn selected(&self, view: &Session) -> Option<u64> {
        self.selected
            .filter(|&id| view.transcript().get(id).is_some())
    }

    /// Selects entry `id` and scrolls it into view at the next draw.
    fn select(&mut self, id: Option<u64>) -> bool {
        match id {
            Some(id) => {
                self.selected = Some(id);
                self.reveal = true;
                true
            }
            None => false,
        }
    }

    /// Moves the selection by `delta` entries. The first move selects an entry on screen:
    /// down in a view scrolled back (after Home, say) starts from its top, as reading on
    /// from there does; otherwise it starts from the bottom.
    pub(crate) fn select_by(&mut self, view: &Session, delta: i64) -> bool {
        let t = view.transcript();
        let id = match self.selected(view) {
            Some(id) => t.step(id, delta),
            None => {
                let from_top = delta > 0 && !self.following();
                let edge = self
                    .visible
                    .map(|(first, last)| if from_top { first } else { last });
                edge.and_then(|e| t.step(e, 0))
                    .or_else(|| t.step(u64::MAX, 0))
            }
        };
        self.select(id)
    }

    /// Selects entry `id` (a search match), scrolled into view at the next draw.
    pub(crate) fn select_entry(&mut self, id: u64) {
        self.select(Some(id));
    }

    /// Back to the bottom, following the newest entries, nothing selected (after a send:
    /// what was sent and its answer are what the person looks at next).
    pub(crate) fn follow_bottom(&mut self) {
        self.clear_selection();
        self.scroll = Scroll::default();
    }

    /// Selects the message that starts the previous or next turn.
    pub(crate) fn select_turn(&mut self, view: &Session, forward: bool) -> bool {
        let t = view.transcript();
        let from = self
            .selected(view)
            .or_else(|| self.visible.map(|(_, last)| last + 1))
            .unwrap_or_else(|| t.next_id());
        self.select(t.turn_start(from, forward))
    }

    /// Selects the next older error (the newest one when nothing is selected; after the
    /// oldest, the newest again).
    pub(crate) fn select_next_error(&mut self, view: &Session) -> bool {
        let t = view.transcript();
        let id = match self.selected(view) {
            Some(id) => t.error_before(id),
            None => t.last_error(),
        };
        self.select(id)
    }

    /// Clears the selection; returns whether there was one.
    pub(crate) fn clear_selection(&mut self) -> bool {
        self.reveal = false;
        self.selected.take().is_some()
    }

    /// Expands or collapses the selected entry. `None` when nothing is selected; else
    /// whether it has more to show.
    pub(crate) fn toggle_selected(&mut self, view: &Session) -> Option<bool> {
        let id = self.selected(view)?;
        let entry = view.transcript().get(id)?;
        if !entry.kind.expands_when_selected() {
            return Some(false);
        }
        self.toggle_expanded(id);
        self.reveal = true;
        Some(true)
    }

    /// Expands or collapses the diff or long message nearest the bottom of the view (the
    /// last one on screen, or above it). Returns whether there was one.
    pub(crate) fn toggle_nearest_expandable(&mut self, view: &Session) -> bool {
        let t = view.transcript();
        let from = self
            .visible
            .map(|(_, last)| last)
            .unwrap_or_else(|| t.next_id().saturating_sub(1));
        match t.expandable_at_or_before(from, 10_000) {
            Some(id) => {
                self.toggle_expanded(id);
                true
            }
            None => false,
        }
    }
}

impl PaneComponent for TranscriptPane {
    fn pane(&self) -> Pane {
        Pane::Transcript
    }

    fn scroll_by(&mut self, lines: i64) {
        self.scroll.by(lines);
    }

    fn scroll_home(&mut self) {
        self.scroll = Scroll::default();
    }

    fn follows(&self) -> bool {
        self.scroll.follows()
    }

    fn title_detail(&self, ctx: &Ctx) -> String {
        let t = ctx.view.transcript();
        let Some(entry) = self.selected(ctx.view).and_then(|id| t.get(id)) else {
            return String::new();
        };
        match entry.created_at {
            Some(at) => format!("[selected · {}] ", stamp::absolute(at, spans_days(t))),
            None => "[selected] ".into(),
        }
    }

    fn render(&mut self, frame: &mut Frame, inner: Rect, ctx: &Ctx) {
        let Ctx { view, theme } = *ctx;
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let t = view.transcript();
        let entries = t.entries();
        let cache = &mut self.cache;
        let streaming = t.streaming();
        let blocks = entries.len() + usize::from(streaming.is_some());
        if blocks == 0 {
            frame.render_widget(
                Paragraph::new(empty_hint(view, theme))
                    .wrap(ratatui::widgets::Wrap { trim: false }),
                inner,
            );
            return;
        }
        let inner = warnings_on_top(frame, inner, view.config_warnings(), theme);
        let width = inner.width;
        let height = inner.height as usize;
        cache.set_theme(theme);
        let base = entries.front().map_or(0, |e| e.id);
        let mut lines_of = |i: usize| -> Lines {
            match entries.get(i) {
                Some(e) => cache.lines(e, width, self.expanded.contains(&e.id), theme),
                None => match streaming {
                    Some(s) => {
                        cache.streaming(s, t.streaming_rev(), width, self.show_thinking, theme)
                    }
                    None => Rc::new(Vec::new()),
                },
            }
        };

        let mut scroll = self.scroll;
        let Placement {
            top,
            following,
            selected_block,
        } = place(
            &mut scroll,
            &mut self.selected,
            &mut self.reveal,
            base,
            entries.len(),
            blocks,
            height,
            &mut lines_of,
        );
        let (mut rows, origins) = collect(top, height, blocks, &mut lines_of);
        let last_block = origins.last().map_or(top.0, |o| o.0);
        self.paint_rows(&mut rows, &origins, selected_block, base, ctx, width);
        scroll.anchor = (!following).then(|| Anchor {
            item: base + top.0 as u64,
            line: top.1,
        });
        self.scroll = scroll;
        let last_shown = (base + last_block.min(entries.len().saturating_sub(1)) as u64)
            .min(t.next_id().saturating_sub(1));
        self.visible = Some((
            base + top.0.min(entries.len().saturating_sub(1)) as u64,
            last_shown,
        ));
        self.paint_markers(&mut rows, top, following, ctx);
        self.cache.frame_done();
        frame.render_widget(Paragraph::new(rows), inner);
    }
}

impl TranscriptPane {
    /// Paints the rows laid out: the search's marks, the selection, and each entry
    /// header's time (absolute when selected, else relative to now).
    fn paint_rows(
        &mut self,
        rows: &mut [Line<'static>],
        origins: &[(usize, usize)],
        selected_block: Option<usize>,
        base: u64,
        ctx: &Ctx,
        width: u16,
    ) {
        let Ctx { view, theme } = *ctx;
        let t = view.transcript();
        let entries = t.entries();
        if !self.highlight.is_empty() {
            // The current hit's rows are marked apart from the other matches.
            for (row, &(block, _)) in rows.iter_mut().zip(origins) {
                let style = if self.current_entry == Some(base + block as u64) {
                    theme.search_current
                } else {
                    theme.search_match
                };
                *row = highlight(std::mem::take(row), &self.highlight, style);
            }
        }
        let date = spans_days(t);
        let now = view.now_ms();
        self.drew_relative_time = false;
        for (row, &(block, line)) in rows.iter_mut().zip(origins) {
            let Some(entry) = entries.get(block) else {
                continue;
            };
            if Some(block) == selected_block {
                row.style = row.style.patch(theme.selection);
            }
            let (Some(at), true) = (entry.created_at, line == 1 && entry.kind.has_header()) else {
                continue;
            };
            let label = if Some(block) == selected_block {
                stamp::absolute(at, date)
            } else if let Some(now) = now {
                self.drew_relative_time = true;
                stamp::relative(at, now)
            } else {
                continue;
            };
            stamp_right(row, &label, width as usize, theme);
        }
    }

    /// Paints the markers over the last and first rows: how many entries are new below
    /// when scrolled up, and at the very top, the entries not kept in memory.
    fn paint_markers(
        &mut self,
        rows: &mut [Line<'static>],
        top: (usize, usize),
        following: bool,
        ctx: &Ctx,
    ) {
        let Ctx { view, theme } = *ctx;
        let t = view.transcript();
        if following {
            self.seen = None;
        } else {
            let seen = *self.seen.get_or_insert(t.next_id());
            let newer = t.next_id().saturating_sub(seen);
            if newer > 0 {
                let marker = format!(" ↓ {newer} new below ");
                if let Some(last) = rows.last_mut() {
                    *last = Line::styled(marker, theme.accent).right_aligned();
                }
            }
        }
        let dropped = t.dropped();
        if top == (0, 0) && dropped > 0 {
            let here = if view.has_event_log_here() {
                ""
            } else {
                ", and no local event log of this session here"
            };
            // Still being counted after a restart's window: no number rather than a wrong one.
            let count = if t.dropped_counted() {
                format!("{dropped} ")
            } else {
                String::new()
            };
            let marker = format!(
                " ⋯ {count}earlier entries not kept in memory{here} · `gobare-tui tail --from 0` prints the whole history "
            );
            if let Some(first) = rows.first_mut() {
                *first = Line::styled(marker, theme.dim);
            }
        }
    }
}

/// What an empty transcript says: the config's warnings, then why nothing is there yet.
fn empty_hint(view: &Session, theme: &Theme) -> Vec<Line<'static>> {
    let mut hint: Vec<Line> = view
        .config_warnings()
        .iter()
        .map(|w| {
            Line::styled(
                format!("warning: {}", gobare_api::text::line(w)),
                theme.warning,
            )
        })
        .collect();
    hint.extend(match view.unreachable() {
        // Not an empty session: nothing is known about it yet.
        Some(reason) => {
            let host = match view.api_host() {
                "" => "the server".to_string(),
                h => gobare_api::text::line(h).into_owned(),
            };
            vec![
                Line::styled(
                    format!("Cannot reach {host}: nothing has loaded yet."),
                    theme.error,
                ),
                Line::styled(
                    format!("Last attempt: {}", gobare_api::text::line(reason)),
                    theme.dim,
                ),
                Line::styled("Retrying on its own; Ctrl+R tries now.", theme.dim),
            ]
        }
        None => vec![Line::styled(
            "No messages yet. Type below to send one.",
            theme.dim,
        )],
    });
    hint
}

/// Draws the config's warnings at the top of `inner` and gives back the rest.
fn warnings_on_top(frame: &mut Frame, inner: Rect, warnings: &[String], theme: &Theme) -> Rect {
    // The config's warnings stay on top, each wrapped whole (what it is "using" instead is
    // at its end), every time the app opens (a notice would be gone in seconds, or hidden
    // under the session's own words).
    if warnings.is_empty() {
        return inner;
    }
    let width = usize::from(inner.width).max(1);
    // Two rows are left for the session at least.
    let room = WARNING_ROWS
        .saturating_mul(2)
        .min(usize::from(inner.height.saturating_sub(2)));
    let mut lines: Vec<Line> = Vec::new();
    let mut shown = 0;
    for w in warnings {
        let rows =
            gobare_api::text::wrap(&format!("warning: {}", gobare_api::text::line(w)), width);
        // The last row is kept for the count of those left out.
        let left_after = warnings.len() - shown - 1;
        let limit = if left_after > 0 {
            room.saturating_sub(1)
        } else {
            room
        };
        if shown == WARNING_ROWS || lines.len() + rows.len() > limit {
            break;
        }
        lines.extend(rows.into_iter().map(|r| Line::styled(r, theme.warning)));
        shown += 1;
    }
    if shown < warnings.len() {
        lines.push(Line::styled(
            gobare_api::text::truncate(
                &format!(
                    "… and {} more config warnings (the log has them all)",
                    warnings.len() - shown
                ),
                width,
            )
            .into_owned(),
            theme.warning,
        ));
    }
    if lines.is_empty() || inner.height < lines.len() as u16 + 2 {
        return inner;
    }
    let [top, rest] =
        Layout::vertical([Constraint::Length(lines.len() as u16), Constraint::Min(1)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), top);
    rest
}

/// The lay-out of one draw: which line of which block is the top row, whether the view
/// follows the end, and the selected entry's block (while it is still in memory).
struct Placement {
    top: (usize, usize),
    following: bool,
    selected_block: Option<usize>,
}

/// Resolves the scroll position into the top row, taking the pending scroll and the
/// request to reveal the selection; forgets a selection whose entry left memory. Lay-out
/// only: nothing is drawn.
#[allow(clippy::too_many_arguments)]
fn place(
    scroll: &mut Scroll,
    selected: &mut Option<u64>,
    reveal: &mut bool,
    base: u64,
    entries: usize,
    blocks: usize,
    height: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> Placement {
    let mut following = scroll.anchor.is_none();
    let mut top = match scroll.anchor {
        None => bottom_top(blocks, height, lines_of),
        Some(a) => (
            ((a.item.saturating_sub(base)) as usize).min(blocks - 1),
            a.line,
        ),
    };
    if scroll.pending != 0 {
        top = move_by(top, scroll.pending, blocks, lines_of);
        scroll.pending = 0;
        following = false;
    }
    let selected_block = selected
        .and_then(|id| id.checked_sub(base))
        .map(|b| b as usize)
        .filter(|&b| b < entries);
    if selected_block.is_none() {
        // Its entry left memory: nothing is selected any more.
        *selected = None;
    }
    if let (true, Some(sel)) = (std::mem::take(reveal), selected_block) {
        if (sel, 0) < top {
            top = (sel, 0);
            following = false;
        } else if !fits_above_bottom(top, sel, height, lines_of) {
            top = bottom_top(sel + 1, height, lines_of);
            following = false;
        }
    }
    if !following && reaches_end(top, height, blocks, lines_of) {
        following = true; // scrolled back to the bottom
    }
    if following {
        top = bottom_top(blocks, height, lines_of);
    }
    Placement {
        top,
        following,
        selected_block,
    }
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

/// Up to `height` rows from `top`, and where each comes from: (block, line in block).
fn collect(
    top: (usize, usize),
    height: usize,
    blocks: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> (Vec<Line<'static>>, Vec<(usize, usize)>) {
    let mut rows = Vec::with_capacity(height);
    let mut origins = Vec::with_capacity(height);
    let (mut block, mut skip) = top;
    while rows.len() < height && block < blocks {
        let lines = lines_of(block);
        for (i, l) in lines.iter().enumerate().skip(skip) {
            if rows.len() == height {
                break;
            }
            rows.push(l.clone());
            origins.push((block, i));
        }
        skip = 0;
        block += 1;
    }
    (rows, origins)
}

/// Whether block `sel` ends within `height` rows of `top`.
fn fits_above_bottom(
    top: (usize, usize),
    sel: usize,
    height: usize,
    lines_of: &mut dyn FnMut(usize) -> Lines,
) -> bool {
    let mut total = 0;
    for i in top.0..=sel {
        let n = lines_of(i).len();
        total += if i == top.0 {
            n.saturating_sub(top.1)
        } else {
            n
        };
        if total > height {
            return false;
        }
    }
    true
}

/// Whether the kept entries span more than one (UTC) day: times then show their date.
fn spans_days(t: &crate::session::transcript::Transcript) -> bool {
    let first = t.entries().iter().find_map(|e| e.created_at);
    let last = t.entries().iter().rev().find_map(|e| e.created_at);
    first
        .zip(last)
        .is_some_and(|(a, b)| stamp::different_days(a, b))
}

/// `label` at the right end of `row` when it fits beside the row's text.
fn stamp_right(
    row: &mut Line<'static>,
    label: &str,
    width: usize,
    theme: &crate::ui::theme::Theme,
) {
    let used = row.width();
    let need = label.chars().count() + 2;
    if used + need > width {
        return;
    }
    row.spans.push(ratatui::text::Span::raw(
        " ".repeat(width - used - label.chars().count()),
    ));
    row.spans
        .push(ratatui::text::Span::styled(label.to_string(), theme.dim));
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

#[cfg(test)]
mod tests;
