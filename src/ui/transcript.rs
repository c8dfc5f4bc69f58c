//! The transcript pane: entries laid out into lines (cached per entry per width), only the
//! visible ones, following the bottom unless the user scrolled up.

use super::component::{Ctx, PaneComponent};
use super::pane::{Anchor, Pane, Scroll};
use super::search::highlight;
use crate::session::SessionView;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use std::collections::HashSet;
use std::rc::Rc;

mod entry;
pub(crate) mod line_cache;

use line_cache::{LineCache, Lines};

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
    /// The search's folded text, marked in every line (empty: none).
    pub(crate) highlight: String,
    /// The entry of the current search hit.
    pub(crate) current_entry: Option<u64>,
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
            highlight: String::new(),
            current_entry: None,
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

    /// Expands or collapses the diff or long message nearest the bottom of the view (the
    /// last one on screen, or above it). Returns whether there was one.
    pub(crate) fn toggle_nearest_expandable(&mut self, view: &SessionView) -> bool {
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
            frame.render_widget(
                Paragraph::new(hint).wrap(ratatui::widgets::Wrap { trim: false }),
                inner,
            );
            return;
        }
        let width = inner.width;
        let height = inner.height as usize;
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

        // Resolve the scroll position into (block, line) of the top row.
        let mut scroll = self.scroll;
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
        if !self.highlight.is_empty() {
            // Which entry each row belongs to: the current hit's rows are marked apart.
            let (mut block, mut left) = (top.0, lines_of(top.0).len().saturating_sub(top.1));
            for row in rows.iter_mut() {
                while left == 0 && block + 1 < blocks {
                    block += 1;
                    left = lines_of(block).len();
                }
                left = left.saturating_sub(1);
                let style = if self.current_entry == Some(base + block as u64) {
                    theme.search_current
                } else {
                    theme.search_match
                };
                *row = highlight(std::mem::take(row), &self.highlight, style);
            }
        }
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
            let marker = format!(
                " ⋯ {dropped} earlier entries not kept in memory · `gobare-tui tail --from 0` prints the whole history "
            );
            if let Some(first) = rows.first_mut() {
                *first = Line::styled(marker, theme.dim);
            }
        }
        cache.frame_done();
        frame.render_widget(Paragraph::new(rows), inner);
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
