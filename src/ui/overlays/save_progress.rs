//! A download's progress as the artifacts overlay draws it: the file's name, a bar
//! (ratatui's `LineGauge`) filled by the bytes received of those announced, then the bytes
//! and the rate in figures. Without an announced size there is no bar, only the figures.

use crate::readable::units;
use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{LineGauge, Widget};
use std::time::Duration;

/// Characters of the file's name before the bar.
const LABEL_CHARS: usize = 40;
/// The narrowest bar worth drawing; below it the figures stand alone.
const MIN_BAR: u16 = 8;

/// Bytes so far of one download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SaveProgress {
    /// The file being saved (sanitized when drawn).
    pub(crate) label: String,
    pub(crate) done: u64,
    /// The announced size, when there was one.
    pub(crate) total: Option<u64>,
    /// Bytes per second since the download started.
    pub(crate) rate: u64,
}

impl SaveProgress {
    /// `done` bytes of `total` received in `elapsed`.
    pub(crate) fn new(label: &str, done: u64, total: Option<u64>, elapsed: Duration) -> Self {
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
        SaveProgress {
            label: label.to_string(),
            done,
            total,
            rate: rate as u64,
        }
    }

    /// "12.0 MB / 40.0 MB  8.1 MB/s".
    fn figures(&self) -> String {
        let of = self
            .total
            .map(|t| format!(" / {}", units::size(t)))
            .unwrap_or_default();
        format!(
            "{}{of}  {}/s",
            units::size(self.done),
            units::size(self.rate)
        )
    }

    /// One row: the name and the bar on the left, the figures on the right.
    pub(crate) fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let figures = format!("  {}", self.figures());
        let label = format!("saving {}", text::one_line(&self.label, LABEL_CHARS));
        let figures_width = text::width(&figures) as u16;
        let [left, right] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(figures_width)])
                .areas(area);
        Line::styled(figures, theme.text).render(right, buf);
        let bar_room = left.width.saturating_sub(text::width(&label) as u16 + 1);
        match self.total {
            Some(total) if bar_room >= MIN_BAR => {
                let ratio = if total == 0 {
                    1.0
                } else {
                    (self.done as f64 / total as f64).clamp(0.0, 1.0)
                };
                LineGauge::default()
                    .ratio(ratio)
                    .label(Span::styled(label, theme.text))
                    .filled_symbol("█")
                    .unfilled_symbol("░")
                    .filled_style(theme.accent)
                    .unfilled_style(theme.dim)
                    .render(left, buf);
            }
            _ => Line::styled(label, theme.text).render(left, buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(progress: &SaveProgress, width: u16) -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, width, 1));
        progress.render(buf.area, &mut buf, &Theme::no_color());
        buf
    }

    #[test]
    fn a_bar_fills_by_the_bytes_received_of_those_announced() {
        let p = SaveProgress::new(
            "data/big.bin",
            250_000_000,
            Some(1_000_000_000),
            Duration::from_secs(2),
        );
        insta::assert_snapshot!(format!("{:?}", drawn(&p, 90)));
    }

    #[test]
    fn without_a_size_or_room_only_the_figures_show() {
        let p = SaveProgress::new("a.bin", 2_000_000, None, Duration::from_secs(1));
        let row = |b: &Buffer| {
            (0..b.area.width)
                .map(|x| b[(x, 0)].symbol())
                .collect::<String>()
        };
        let wide = row(&drawn(&p, 60));
        assert!(
            wide.starts_with("saving a.bin") && wide.ends_with("2.0 MB  2.0 MB/s"),
            "{wide}"
        );
        assert!(!wide.contains('░'), "{wide}");
        let p = SaveProgress {
            total: Some(4_000_000),
            ..p
        };
        let narrow = row(&drawn(&p, 40));
        assert!(
            !narrow.contains('░') && narrow.contains("2.0 MB / 4.0 MB"),
            "{narrow}"
        );
    }
}
