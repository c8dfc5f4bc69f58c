//! The `?` overlay: every key, centered over whatever is on screen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::ui::theme::Theme;
use gobare_api::text;

/// Every key binding, as (keys, what they do). The single list the overlay (and any README)
/// shows; keep it in step with the app's key handling.
pub(crate) const KEYS: &[(&str, &str)] = &[
    ("Tab / Shift+Tab", "move focus between panes"),
    ("↑ ↓ / PgUp PgDn", "scroll the focused pane"),
    ("Home / End", "jump to the top / follow the bottom"),
    ("mouse wheel", "scroll the pane under the pointer"),
    ("z", "zoom the focused pane"),
    ("?", "show / hide this help"),
    ("q / Ctrl+C", "quit (Ctrl+C twice if the input has text)"),
    ("m", "toggle mouse capture (off: select text)"),
    ("d", "Events: toggle text deltas"),
    ("/", "Events: filter by type"),
    ("e", "expand / collapse the diff"),
    ("Enter", "send the message"),
    ("Shift+Enter / Alt+Enter", "new line in the message"),
    ("Ctrl+S", "steer the running turn"),
    ("Ctrl+X", "cancel the running turn"),
    ("y / n", "approve / deny what the agent asks"),
    ("Ctrl+R", "re-read; when reconnecting: reconnect now"),
    ("Ctrl+Z", "suspend (resume with fg)"),
];

const TITLE: &str = " Keys · ? or Esc to close ";

/// The overlay's rectangle: the list's natural size, centered, clipped to `area`.
pub(crate) fn area(area: Rect) -> Rect {
    let key_w = KEYS.iter().map(|(k, _)| text::width(k)).max().unwrap_or(0);
    let what_w = KEYS.iter().map(|(_, w)| text::width(w)).max().unwrap_or(0);
    let width = (key_w + 2 + what_w + 4).max(text::width(TITLE) + 2);
    let height = KEYS.len() + 2;
    let width = u16::try_from(width).unwrap_or(u16::MAX).min(area.width);
    let height = u16::try_from(height).unwrap_or(u16::MAX).min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Draws the help overlay centered in `area`, clearing what is beneath it.
pub(crate) fn render(area: Rect, buf: &mut Buffer, theme: &Theme) {
    let key_w = KEYS.iter().map(|(k, _)| text::width(k)).max().unwrap_or(0);
    let lines: Vec<Line<'static>> = KEYS
        .iter()
        .map(|(keys, what)| {
            let pad = " ".repeat(key_w - text::width(keys));
            Line::from(vec![
                Span::styled(format!(" {keys}{pad}"), theme.key_hint),
                Span::styled(format!("  {what}"), theme.text),
            ])
        })
        .collect();
    let overlay = self::area(area);
    Clear.render(overlay, buf);
    Paragraph::new(lines)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border_focused)
                .title(Span::styled(TITLE, theme.title)),
        )
        .render(overlay, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(width: u16, height: u16) -> String {
        let rect = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(rect);
        // Something underneath that the overlay must hide.
        for y in 0..height {
            buf.set_string(0, y, "#".repeat(usize::from(width)), theme_text());
        }
        render(rect, &mut buf, &Theme::default());
        (0..height)
            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn theme_text() -> ratatui::style::Style {
        Theme::default().text
    }

    #[test]
    fn lists_every_required_key() {
        let all: String = KEYS.iter().map(|(k, w)| format!("{k} {w}\n")).collect();
        for needle in [
            "Tab",
            "Shift+Tab",
            "PgUp",
            "PgDn",
            "Home",
            "End",
            "mouse wheel",
            "z",
            "?",
            "q",
            "Ctrl+C",
            "m",
            "d",
            "/",
            "e",
            "Enter",
            "Shift+Enter",
            "Ctrl+S",
            "Ctrl+X",
            "y / n",
            "Ctrl+Z",
        ] {
            assert!(all.contains(needle), "missing {needle}");
        }
    }

    #[test]
    fn overlay_is_centered_and_covers_what_is_beneath() {
        let text = screen(100, 30);
        let overlay = area(Rect::new(0, 0, 100, 30));
        assert_eq!(overlay.x, (100 - overlay.width) / 2);
        assert_eq!(overlay.y, (30 - overlay.height) / 2);
        assert!(
            text.contains(" Ctrl+S                   steer the running turn"),
            "{text}"
        );
        let row: String = text
            .lines()
            .nth(usize::from(overlay.y) + 1)
            .unwrap()
            .to_string();
        let inside: String = row
            .chars()
            .skip(usize::from(overlay.x))
            .take(usize::from(overlay.width))
            .collect();
        assert!(!inside.contains('#'), "{inside:?}");
        assert!(row.starts_with('#'), "outside the overlay stays: {row:?}");
    }

    #[test]
    fn fits_in_a_small_terminal() {
        let overlay = area(Rect::new(0, 0, 20, 5));
        assert_eq!((overlay.width, overlay.height), (20, 5));
        let _ = screen(20, 5); // must not panic
    }

    #[test]
    fn snapshot_80x24() {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        terminal
            .draw(|f| render(f.area(), f.buffer_mut(), &Theme::default()))
            .unwrap();
        insta::assert_snapshot!(terminal.backend());
    }
}
