//! The Events pane: the raw stream, newest at the bottom, one row per event.

use super::component::{Ctx, PaneComponent};
use super::pane::{Anchor, Pane, Scroll};
use super::search::highlight;
use super::styled::truncate;
use super::theme::Theme;
use crate::session::log::{EventLog, LogEntry};
use gobare_api::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The Events pane's view state: scroll, the type filter and whether deltas show.
#[derive(Debug)]
pub(crate) struct EventsPane {
    scroll: Scroll,
    /// Only types containing this (case-insensitive); empty = all.
    filter: String,
    /// Hide `agent.text` / `agent.thinking` rows.
    pub(crate) hide_deltas: bool,
    /// The search's folded text, marked in every row (empty: none).
    pub(crate) highlight: String,
    /// The row of the current search hit.
    pub(crate) current_seq: Option<u64>,
    /// A row (log index) to bring into view at the next draw.
    reveal: Option<u64>,
}

impl Default for EventsPane {
    fn default() -> Self {
        EventsPane {
            scroll: Scroll::default(),
            filter: String::new(),
            hide_deltas: true,
            highlight: String::new(),
            current_seq: None,
            reveal: None,
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
    pub(crate) fn reveal_seq(&mut self, log: &EventLog, seq: u64) {
        if let Some(row) = log.rows().iter().rev().find(|e| e.seq == Some(seq)) {
            self.reveal = Some(row.index);
        }
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
        let filter = self.filter.to_ascii_lowercase();
        let rows = view.log().rows();
        // At most the ring's capacity: cheap to filter on every frame.
        let shown: Vec<&LogEntry> = rows
            .iter()
            .filter(|e| {
                !(self.hide_deltas && e.is_delta()) && matches_filter(e.kind.as_str(), &filter)
            })
            .collect();
        let n = shown.len();

        // The scroll anchor is the log index of the bottom row; `pending` moves it by rows.
        let mut scroll = self.scroll;
        let end = match (self.reveal.take(), scroll.anchor) {
            // The revealed row in the middle of the pane.
            (Some(index), _) => shown.partition_point(|e| e.index <= index) + height / 2,
            (None, None) => n,
            (None, Some(a)) => shown.partition_point(|e| e.index <= a.item),
        };
        let end = (end as i64 + scroll.pending).clamp(height.min(n) as i64, n as i64) as usize;
        scroll.pending = 0;
        scroll.anchor = (end < n).then(|| Anchor {
            item: shown[end - 1].index,
            line: 0,
        });
        self.scroll = scroll;
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
                highlight(row(e, w, theme), &self.highlight, style)
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

fn row(e: &LogEntry, width: usize, theme: &Theme) -> Line<'static> {
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

/// `HH:MM:SS` (UTC) of a Unix-ms timestamp.
pub(crate) fn clock(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let day = secs.rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", day / 3600, day % 3600 / 60, day % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn clock_is_utc_hours_minutes_seconds() {
        assert_eq!(super::clock(1_789_319_090_000), "17:04:50");
        assert_eq!(super::clock(0), "00:00:00");
    }
}
