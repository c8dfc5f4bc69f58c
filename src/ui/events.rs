//! The Events pane: the raw stream, newest at the bottom, one row per event.

use super::component::{Ctx, PaneComponent};
use super::pane::{Anchor, Pane, Scroll};
use super::search::highlight;
use super::text::styled::truncate;
use super::theme::Theme;
use crate::readable::times::clock;
use crate::search::Hit;
use crate::search::fold::find_folded;
use crate::session::Session;
use crate::session::recent_events::{RecentEvent, RecentEvents};
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::collections::VecDeque;

/// The Events pane's view state: scroll, the type filter and whether deltas show.
#[derive(Debug)]
pub(crate) struct EventsPane {
    scroll: Scroll,
    /// Only types containing this (case-insensitive); empty = all.
    filter: String,
    /// Hide `agent.text` / `agent.thinking` rows.
    pub(crate) hide_deltas: bool,
    /// The selected row's log index (stable while the ring drops older rows).
    selected: Option<u64>,
    /// The next draw scrolls the selected row into view.
    reveal: bool,
    /// Index (counted by `RecentEvents`) of the bottom row at the last draw.
    bottom: Option<u64>,
    /// The search's folded text, marked in every row (empty: none).
    pub(crate) highlight: String,
    /// The row of the current search hit.
    pub(crate) current_seq: Option<u64>,
    /// A row (log index) to bring into view at the next draw.
    reveal_row: Option<u64>,
}

impl Default for EventsPane {
    fn default() -> Self {
        EventsPane {
            scroll: Scroll::default(),
            filter: String::new(),
            hide_deltas: true,
            selected: None,
            reveal: false,
            bottom: None,
            highlight: String::new(),
            current_seq: None,
            reveal_row: None,
        }
    }
}

impl EventsPane {
    pub(crate) fn filter(&self) -> &str {
        &self.filter
    }

    pub(crate) fn set_filter(&mut self, filter: impl Into<String>) {
        let filter = filter.into();
        if filter != self.filter {
            self.filter = filter;
            self.scroll = Scroll::default();
        }
    }

    /// Brings the row of event `seq` into view at the next draw (when the ring still holds
    /// it).
    pub(crate) fn reveal_seq(&mut self, recent: &RecentEvents, seq: u64) {
        if let Some(row) = recent.rows().iter().rev().find(|e| e.seq == Some(seq)) {
            self.reveal_row = Some(row.index);
        }
    }

    /// Selects the row of event `seq` (when the ring still holds it), scrolled into view
    /// at the next draw.
    pub(crate) fn select_seq(&mut self, recent: &RecentEvents, seq: u64) {
        if let Some(row) = recent.rows().iter().rev().find(|e| e.seq == Some(seq)) {
            self.selected = Some(row.index);
            self.reveal = true;
        }
    }

    /// The rows the filter and the deltas switch let through.
    fn shown<'a>(&self, rows: &'a VecDeque<RecentEvent>) -> Vec<&'a RecentEvent> {
        let filter = self.filter.to_ascii_lowercase();
        rows.iter()
            .filter(|e| {
                !(self.hide_deltas && e.is_delta()) && matches_filter(e.kind.as_str(), &filter)
            })
            .collect()
    }

    /// The persisted rows shown whose type holds the folded `needle`, oldest first, as
    /// search hits (they show in no transcript entry of their own).
    pub(crate) fn type_hits(&self, recent: &RecentEvents, needle: &str) -> Vec<Hit> {
        if needle.is_empty() {
            return Vec::new();
        }
        self.shown(recent.rows())
            .into_iter()
            .filter(|e| !find_folded(e.kind.as_str(), needle).is_empty())
            .filter_map(|e| e.seq.map(|seq| Hit { seq, entry: None }))
            .collect()
    }

    /// The selected row, if it is still kept.
    pub(crate) fn selected<'a>(&self, view: &'a Session) -> Option<&'a RecentEvent> {
        let index = self.selected?;
        let rows = view.recent_events().rows();
        let first = rows.front()?.index;
        rows.get(usize::try_from(index.checked_sub(first)?).ok()?)
    }

    /// Moves the selection by `delta` rows among those shown; the first move selects the
    /// bottom row of the view.
    pub(crate) fn select_by(&mut self, view: &Session, delta: i64) -> bool {
        let shown = self.shown(view.recent_events().rows());
        if shown.is_empty() {
            return false;
        }
        let from =
            self.selected(view)
                .map(|e| e.index)
                .or(self.bottom)
                .map_or(shown.len() - 1, |index| {
                    shown
                        .partition_point(|e| e.index < index)
                        .min(shown.len() - 1)
                });
        let at = if self.selected(view).is_some() {
            (from as i64 + delta).clamp(0, shown.len() as i64 - 1) as usize
        } else {
            from
        };
        self.selected = Some(shown[at].index);
        self.reveal = true;
        true
    }

    /// Clears the selection; returns whether there was one.
    pub(crate) fn clear_selection(&mut self) -> bool {
        self.reveal = false;
        self.selected.take().is_some()
    }
}

impl PaneComponent for EventsPane {
    fn pane(&self) -> Pane {
        Pane::Events
    }

    fn title_detail(&self, _ctx: &Ctx) -> String {
        let mut t = String::new();
        if !self.filter.is_empty() {
            t.push_str(&format!("[type ~ {}] ", text::line(&self.filter)));
        }
        if !self.hide_deltas {
            t.push_str("[+deltas] ");
        }
        t
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
        let height = inner.height as usize;
        if height == 0 {
            return;
        }
        let rows = view.recent_events().rows();
        // At most the ring's capacity: cheap to filter on every frame.
        let shown = self.shown(rows);
        let n = shown.len();
        if self.selected.is_some() && self.selected(view).is_none() {
            // Its row left the ring: nothing is selected any more.
            self.selected = None;
        }
        let selected_pos = self
            .selected
            .map(|index| shown.partition_point(|e| e.index < index))
            .filter(|&p| p < n && Some(shown[p].index) == self.selected);

        // The scroll anchor is the log index of the bottom row; `pending` moves it by rows.
        let mut scroll = self.scroll;
        let end = match (self.reveal_row.take(), scroll.anchor) {
            // The revealed row in the middle of the pane.
            (Some(index), _) => shown.partition_point(|e| e.index <= index) + height / 2,
            (None, None) => n,
            (None, Some(a)) => shown.partition_point(|e| e.index <= a.item),
        };
        let mut end = (end as i64 + scroll.pending).clamp(height.min(n) as i64, n as i64) as usize;
        scroll.pending = 0;
        if let (true, Some(pos)) = (std::mem::take(&mut self.reveal), selected_pos) {
            if pos >= end {
                end = pos + 1;
            } else if pos + height < end {
                end = (pos + height).min(n);
            }
        }
        scroll.anchor = (end < n).then(|| Anchor {
            item: shown[end - 1].index,
            line: 0,
        });
        self.scroll = scroll;
        self.bottom = end.checked_sub(1).map(|e| shown[e].index);
        let visible = &shown[end.saturating_sub(height)..end];

        if visible.is_empty() {
            let msg = if rows.is_empty() {
                "No events yet."
            } else {
                "No events match the filter."
            };
            frame.render_widget(Paragraph::new(Line::styled(msg, theme.dim)), inner);
            return;
        }
        let w = inner.width as usize;
        let lines: Vec<Line> = visible
            .iter()
            .map(|e| {
                let style = if e.seq.is_some() && e.seq == self.current_seq {
                    theme.search_current
                } else {
                    theme.search_match
                };
                let mut line = highlight(row(e, w, theme), &self.highlight, style);
                if Some(e.index) == self.selected {
                    line.style = line.style.patch(theme.selection);
                }
                line
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

fn row(e: &RecentEvent, width: usize, theme: &Theme) -> Line<'static> {
    let seq = e.seq.map_or_else(|| "·".to_string(), |s| s.to_string());
    let time = e.created_at.map_or_else(|| "--:--:--".to_string(), clock);
    let kind_style = if e.seq.is_none() {
        theme.dim
    } else {
        theme.accent
    };
    truncate(
        Line::from(vec![
            Span::styled(format!("{seq:>7} "), theme.dim),
            Span::styled(format!("{time} "), theme.dim),
            Span::styled(
                format!(
                    "{:<kind_width$} ",
                    text::line(e.kind.as_str()),
                    kind_width = kind_width(width)
                ),
                kind_style,
            ),
            Span::raw(text::line(&e.summary).into_owned()),
        ]),
        width,
    )
}

/// The type column: wide enough for every type name when the pane has room (zoomed or
/// stacked), else for the common ones (the rare longer names push their summary along).
fn kind_width(pane_width: usize) -> usize {
    const ALL_TYPES: usize = "workspace.recovery_failed".len();
    if pane_width >= 100 { ALL_TYPES } else { 18 }
}

fn matches_filter(kind: &str, lowercase_filter: &str) -> bool {
    lowercase_filter.is_empty() || kind.to_ascii_lowercase().contains(lowercase_filter)
}

#[cfg(test)]
mod tests {
    use super::EventsPane;
    use crate::search::Hit;
    use crate::ui::tests::{apply, ev, view};
    use serde_json::json;

    #[test]
    fn type_hits_are_the_shown_persisted_rows_whose_type_holds_the_query() {
        let mut v = view();
        apply(
            &mut v,
            [
                ev("turn.started", Some(1), json!({"turnId": "turn_1"})),
                ev("agent.text", None, json!({"delta": "tool"})),
                ev(
                    "agent.tool_call",
                    Some(2),
                    json!({"toolCallId": "c1", "toolName": "bash", "args": {}}),
                ),
                ev(
                    "agent.tool_result",
                    Some(3),
                    json!({"toolCallId": "c1", "toolName": "bash", "summary": "ok"}),
                ),
                ev("turn.ended", Some(4), json!({"turnId": "turn_1"})),
            ],
        );
        let mut pane = EventsPane::default();
        let seqs = |pane: &EventsPane, needle: &str| -> Vec<u64> {
            let hits = pane.type_hits(v.recent_events(), needle);
            assert!(hits.iter().all(|h: &Hit| h.entry.is_none()));
            hits.iter().map(|h| h.seq).collect()
        };
        assert_eq!(seqs(&pane, "tool"), [2, 3]);
        assert_eq!(seqs(&pane, "turn."), [1, 4]);
        assert_eq!(seqs(&pane, ""), Vec::<u64>::new());
        pane.set_filter("result");
        assert_eq!(seqs(&pane, "tool"), [3], "only the rows the filter shows");
    }
}
