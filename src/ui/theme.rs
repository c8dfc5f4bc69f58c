//! Colours and styles. INTERFACE CONTRACT (being written): `Theme::default()`, `Theme::no_color()`.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone)]
pub struct Theme {
    pub text: Style,
    pub dim: Style,
    pub accent: Style,
    pub user: Style,
    pub agent: Style,
    pub ok: Style,
    pub error: Style,
    pub warning: Style,
    pub code: Style,
    pub diff_add: Style,
    pub diff_del: Style,
    pub diff_hunk: Style,
    pub border: Style,
    pub border_focused: Style,
    pub title: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            text: Style::default(),
            dim: Style::default().add_modifier(Modifier::DIM),
            accent: Style::default().fg(Color::Cyan),
            user: Style::default()
                .fg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            agent: Style::default()
                .fg(Color::Magenta)
                .add_modifier(Modifier::BOLD),
            ok: Style::default().fg(Color::Green),
            error: Style::default().fg(Color::Red),
            warning: Style::default().fg(Color::Yellow),
            code: Style::default().fg(Color::Yellow),
            diff_add: Style::default().fg(Color::Green),
            diff_del: Style::default().fg(Color::Red),
            diff_hunk: Style::default().fg(Color::Cyan),
            border: Style::default().add_modifier(Modifier::DIM),
            border_focused: Style::default().fg(Color::Cyan),
            title: Style::default().add_modifier(Modifier::BOLD),
        }
    }
}

impl Theme {
    /// For `NO_COLOR`: modifiers only.
    pub fn no_color() -> Self {
        let plain = Style::default();
        let bold = Style::default().add_modifier(Modifier::BOLD);
        Theme {
            text: plain,
            dim: Style::default().add_modifier(Modifier::DIM),
            accent: bold,
            user: bold,
            agent: bold,
            ok: plain,
            error: bold,
            warning: bold,
            code: plain,
            diff_add: plain,
            diff_del: plain,
            diff_hunk: Style::default().add_modifier(Modifier::DIM),
            border: plain,
            border_focused: bold,
            title: bold,
        }
    }
}
