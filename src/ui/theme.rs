//! Colours and styles.
//!
//! Only the terminal's named ANSI colours are used (never RGB), no background is set, and only
//! the colours that read well on both dark and light palettes appear: red, green, cyan,
//! magenta. Yellow washes out on light backgrounds, blue sinks into dark ones, and white or
//! black vanish on one or the other. `NO_COLOR` (https://no-color.org) gives a theme made of
//! modifiers only.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub(crate) text: Style,
    pub(crate) dim: Style,
    pub(crate) accent: Style,
    pub(crate) user: Style,
    pub(crate) agent: Style,
    pub(crate) ok: Style,
    pub(crate) error: Style,
    pub(crate) warning: Style,
    pub(crate) code: Style,
    pub(crate) diff_add: Style,
    pub(crate) diff_del: Style,
    pub(crate) diff_hunk: Style,
    pub(crate) diff_header: Style,
    pub(crate) border: Style,
    pub(crate) border_focused: Style,
    pub(crate) title: Style,
    pub(crate) heading: Style,
    pub(crate) emphasis: Style,
    pub(crate) strong: Style,
    pub(crate) strikethrough: Style,
    pub(crate) link: Style,
    pub(crate) link_url: Style,
    pub(crate) quote: Style,
    pub(crate) code_gutter: Style,
    pub(crate) list_marker: Style,
    pub(crate) rule: Style,
    pub(crate) selection: Style,
    pub(crate) placeholder: Style,
    pub(crate) key_hint: Style,
    pub(crate) status_live: Style,
    pub(crate) status_retrying: Style,
    pub(crate) status_failed: Style,
    pub(crate) badge: Style,
    /// A search match in a pane line.
    pub(crate) search_match: Style,
    /// The current search match (where `n` / `N` went).
    pub(crate) search_current: Style,
}

impl Default for Theme {
    fn default() -> Self {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        let dim = plain.add_modifier(Modifier::DIM);
        Theme {
            text: plain,
            dim,
            accent: plain.fg(Color::Cyan),
            user: bold.fg(Color::Cyan),
            agent: bold.fg(Color::Magenta),
            ok: plain.fg(Color::Green),
            error: plain.fg(Color::Red),
            warning: plain.fg(Color::Magenta),
            code: plain.fg(Color::Cyan),
            diff_add: plain.fg(Color::Green),
            diff_del: plain.fg(Color::Red),
            diff_hunk: plain.fg(Color::Cyan),
            diff_header: bold.add_modifier(Modifier::DIM),
            border: dim,
            border_focused: plain.fg(Color::Cyan),
            title: bold,
            heading: bold.fg(Color::Cyan),
            emphasis: plain.add_modifier(Modifier::ITALIC),
            strong: bold,
            strikethrough: plain.add_modifier(Modifier::CROSSED_OUT),
            link: plain.fg(Color::Cyan).add_modifier(Modifier::UNDERLINED),
            link_url: dim,
            quote: plain.fg(Color::Green).add_modifier(Modifier::ITALIC),
            code_gutter: dim,
            list_marker: plain.fg(Color::Cyan),
            rule: dim,
            // Reversed video swaps the user's own fg/bg: visible on any palette.
            selection: plain.add_modifier(Modifier::REVERSED),
            placeholder: dim,
            key_hint: plain.fg(Color::Cyan),
            status_live: plain.fg(Color::Green),
            status_retrying: plain.fg(Color::Magenta),
            status_failed: bold.fg(Color::Red),
            badge: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            search_match: bold.fg(Color::Green).add_modifier(Modifier::UNDERLINED),
            search_current: bold
                .fg(Color::Green)
                .add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
        }
    }
}

impl Theme {
    /// For `NO_COLOR`: modifiers only, never a colour.
    pub fn no_color() -> Self {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        let dim = plain.add_modifier(Modifier::DIM);
        let reversed = plain.add_modifier(Modifier::REVERSED);
        Theme {
            text: plain,
            dim,
            accent: bold,
            user: bold,
            agent: bold,
            ok: plain,
            error: bold,
            warning: bold,
            code: plain,
            diff_add: plain,
            diff_del: plain,
            diff_hunk: dim,
            diff_header: bold,
            border: plain,
            border_focused: bold,
            title: bold,
            heading: bold.add_modifier(Modifier::UNDERLINED),
            emphasis: plain.add_modifier(Modifier::ITALIC),
            strong: bold,
            strikethrough: plain.add_modifier(Modifier::CROSSED_OUT),
            link: plain.add_modifier(Modifier::UNDERLINED),
            link_url: dim,
            quote: plain.add_modifier(Modifier::ITALIC),
            code_gutter: dim,
            list_marker: plain,
            rule: dim,
            selection: reversed,
            placeholder: dim,
            key_hint: bold,
            status_live: plain,
            status_retrying: bold,
            status_failed: bold.add_modifier(Modifier::REVERSED),
            badge: reversed,
            // Underlined: visible without colour, and apart from the selection's reverse.
            search_match: bold.add_modifier(Modifier::UNDERLINED),
            search_current: bold.add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
        }
    }

    /// The theme the environment asks for: [`Theme::no_color`] when `NO_COLOR` is set to a
    /// non-empty value, [`Theme::default`] otherwise.
    pub(crate) fn from_env() -> Self {
        Self::from_no_color_var(std::env::var_os("NO_COLOR").as_deref())
    }

    /// [`Theme::from_env`] with the variable's value passed in (testable without touching the
    /// process environment).
    pub(crate) fn from_no_color_var(value: Option<&std::ffi::OsStr>) -> Self {
        match value {
            Some(v) if !v.is_empty() => Self::no_color(),
            _ => Self::default(),
        }
    }

    /// Every style in the theme, for checks that apply to all of them.
    #[cfg(test)]
    pub(crate) fn all_styles(&self) -> Vec<Style> {
        vec![
            self.text,
            self.dim,
            self.accent,
            self.user,
            self.agent,
            self.ok,
            self.error,
            self.warning,
            self.code,
            self.diff_add,
            self.diff_del,
            self.diff_hunk,
            self.diff_header,
            self.border,
            self.border_focused,
            self.title,
            self.heading,
            self.emphasis,
            self.strong,
            self.strikethrough,
            self.link,
            self.link_url,
            self.quote,
            self.code_gutter,
            self.list_marker,
            self.rule,
            self.selection,
            self.placeholder,
            self.key_hint,
            self.status_live,
            self.status_retrying,
            self.status_failed,
            self.badge,
            self.search_match,
            self.search_current,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn default_uses_named_colours_and_never_forces_black_or_white() {
        for style in Theme::default().all_styles() {
            for c in [style.fg, style.bg].into_iter().flatten() {
                assert!(
                    !matches!(
                        c,
                        Color::White | Color::Black | Color::Gray | Color::DarkGray
                    ),
                    "{c:?} is unreadable on one of dark/light backgrounds"
                );
            }
            assert!(style.bg.is_none(), "backgrounds are the user's");
        }
    }

    #[test]
    fn no_color_has_no_colours() {
        for style in Theme::no_color().all_styles() {
            assert_eq!(style.fg, None);
            assert_eq!(style.bg, None);
        }
    }

    #[test]
    fn no_color_variable_selects_no_color_only_when_non_empty() {
        assert_eq!(
            Theme::from_no_color_var(Some(OsStr::new("1"))),
            Theme::no_color()
        );
        assert_eq!(
            Theme::from_no_color_var(Some(OsStr::new(""))),
            Theme::default()
        );
        assert_eq!(Theme::from_no_color_var(None), Theme::default());
    }
}
