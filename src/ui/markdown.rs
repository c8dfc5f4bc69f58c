//! Agent markdown → styled, wrapped lines. INTERFACE CONTRACT (being written).

use crate::ui::sanitize;
use crate::ui::theme::Theme;
use ratatui::text::Line;

/// Renders markdown `text` (server text: sanitized inside) into lines at most `width`
/// columns wide: headings, lists, emphasis, inline code, fenced code blocks set apart.
pub fn render(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let _ = (width, theme);
    sanitize::lines(text)
        .into_iter()
        .map(|l| Line::raw(l.into_owned()))
        .collect()
}
