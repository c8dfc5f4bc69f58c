//! A yes/no question drawn in the input area, where the eyes already are: wrapped to the
//! width, never cut, with its keys on the last line.

use crate::ui::theme::Theme;
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// The question's lines at `width` (inside the border), `keys` (the key table's hints for
/// confirming) last.
fn lines(question: &str, keys: &str, width: u16) -> Vec<String> {
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let mut out = text::wrap(question, inner);
    out.push(text::truncate(keys.trim(), inner).into_owned());
    out
}

/// Rows the question needs at `width`, borders included.
pub(crate) fn desired_height(question: &str, keys: &str, width: u16) -> u16 {
    u16::try_from(lines(question, keys, width).len() + 2).unwrap_or(u16::MAX)
}

/// Draws the question over `area`.
pub(crate) fn render(question: &str, keys: &str, area: Rect, buf: &mut Buffer, theme: &Theme) {
    Clear.render(area, buf);
    let mut rows: Vec<Line<'static>> = lines(question, keys, area.width)
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.strong)))
        .collect();
    if let Some(keys) = rows.last_mut() {
        *keys = Line::from(Span::styled(keys.to_string(), theme.key_hint));
    }
    // Short of room, the keys stay and the question is cut from its end.
    let room = usize::from(area.height.saturating_sub(2)).max(1);
    if rows.len() > room {
        let keys = rows.pop();
        rows.truncate(room.saturating_sub(1));
        rows.extend(keys);
    }
    Paragraph::new(rows)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.warning)
                .title(Span::styled(" Confirm ", theme.title)),
        )
        .render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_question_wraps_and_keeps_its_keys() {
        let q = "Quit? a turn is running, you have a draft — the demo session ends with it";
        let theme = Theme::default();
        let keys = " Confirm · y yes · n/Esc no ";
        let area = Rect::new(0, 0, 40, desired_height(q, keys, 40));
        let mut buf = Buffer::empty(area);
        render(q, keys, area, &mut buf, &theme);
        let text: String = (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        assert!(text.contains("the demo session"), "{text}");
        assert!(text.contains("y yes · n/Esc no"), "{text}");
        assert!(desired_height(q, keys, 40) > desired_height(q, keys, 160));
    }
}
