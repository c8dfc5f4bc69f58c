//! Colours and styles: every role defined here, once per theme.
//!
//! No background is ever set. The dark theme (the default) uses the terminal's named ANSI
//! colours. The light theme uses the xterm 256-colour cube, whose colours are the same in
//! every terminal, where the terminal has it, and otherwise the named colours that measure
//! best on light palettes (see `contrast`), falling back to the default foreground with bold
//! where no named colour is readable. High contrast is the default foreground with modifiers
//! only (as `NO_COLOR`, <https://no-color.org>, but with bold accents).

#[cfg(test)]
mod contrast;
pub(crate) mod overrides;

pub(crate) use overrides::ColorOverrides;

use ratatui::style::{Color, Modifier, Style};

/// The theme asked for in `[theme] name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ThemeName {
    /// Light when the terminal says its background is light (`COLORFGBG`), else dark.
    #[default]
    Auto,
    Dark,
    Light,
    HighContrast,
    /// Dark or light as `auto` picks, with no meaning carried by red against green: success
    /// is blue, failure orange (the marks ✓/✗ and +/− stay).
    ColorBlind,
}

impl ThemeName {
    /// The theme after this one, for the key that cycles them; `auto` counts as what it
    /// picked (`light`: the background is light).
    pub(crate) fn next(self, light: bool) -> ThemeName {
        match self {
            ThemeName::Auto if light => ThemeName::HighContrast,
            ThemeName::Auto | ThemeName::Dark => ThemeName::Light,
            ThemeName::Light => ThemeName::HighContrast,
            ThemeName::HighContrast => ThemeName::ColorBlind,
            ThemeName::ColorBlind => ThemeName::Dark,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ThemeName::Auto => "auto",
            ThemeName::Dark => "dark",
            ThemeName::Light => "light",
            ThemeName::HighContrast => "high-contrast",
            ThemeName::ColorBlind => "colorblind",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<ThemeName> {
        match name {
            "auto" => Some(ThemeName::Auto),
            "dark" => Some(ThemeName::Dark),
            "light" => Some(ThemeName::Light),
            "high-contrast" => Some(ThemeName::HighContrast),
            "colorblind" => Some(ThemeName::ColorBlind),
            _ => None,
        }
    }
}

/// The colours a terminal can show, as far as the environment tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// The 16 named colours, whose shades are each terminal's own.
    Ansi16,
    /// The xterm 256-colour cube (and truecolour terminals, which have it too).
    Indexed256,
}

impl Depth {
    /// From `COLORTERM` and `TERM`, as terminals announce themselves.
    pub(crate) fn from_vars(colorterm: Option<&str>, term: Option<&str>) -> Depth {
        let truecolor = colorterm.is_some_and(|c| c == "truecolor" || c == "24bit");
        if truecolor || term.is_some_and(|t| t.contains("256color") || t.contains("direct")) {
            Depth::Indexed256
        } else {
            Depth::Ansi16
        }
    }
}

/// Whether `COLORFGBG` ("15;0", "0;default;15") names a light background: its last field
/// is the background's colour number, 7 or 15 being the light ones.
pub(crate) fn light_background(colorfgbg: Option<&str>) -> bool {
    colorfgbg
        .and_then(|v| v.rsplit(';').next())
        .and_then(|bg| bg.trim().parse::<u8>().ok())
        .is_some_and(|bg| bg == 7 || bg == 15)
}

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

/// The colours a theme is drawn with: each role takes one of them (or the terminal's own).
#[derive(Clone, Copy)]
struct Shades {
    accent: Style,
    ok: Style,
    error: Style,
    warning: Style,
    muted: Style,
}

/// Whether this terminal says its background is light (`COLORFGBG`).
pub(crate) fn background_is_light() -> bool {
    light_background(std::env::var("COLORFGBG").ok().as_deref())
}

/// `T`: the theme after `current`, for this run, with what the message line says of it;
/// `Err` (what to say instead) when colours are off and there is none to switch to. The
/// fleet and a session switch through this one rule, and the runtime carries the choice
/// from one to the other.
pub(crate) fn switch_to_next(
    current: ThemeName,
    no_color: bool,
    colors: &ColorOverrides,
) -> Result<(ThemeName, Theme, String), String> {
    let next = current.next(background_is_light());
    let Some(theme) = Theme::for_terminal(next, no_color, colors) else {
        return Err("colours are off (NO_COLOR or [theme] no_color): no theme to switch to".into());
    };
    let name = next.as_str();
    let said = format!("theme: {name} · T for the next · [theme] name = \"{name}\" keeps it");
    Ok((next, theme, said))
}

impl Theme {
    /// The theme `name` gives in this terminal (`TERM`, `COLORTERM`, `COLORFGBG`); `None`
    /// when colours are off (`no_color` from the file, or `NO_COLOR`).
    pub(crate) fn for_terminal(
        name: ThemeName,
        no_color: bool,
        colors: &ColorOverrides,
    ) -> Option<Theme> {
        let var = |name: &str| std::env::var(name).ok();
        if no_color || Theme::no_color_asked(std::env::var_os("NO_COLOR").as_deref()) {
            return None;
        }
        let colorterm = var("COLORTERM");
        let depth = Depth::from_vars(colorterm.as_deref(), var("TERM").as_deref());
        let truecolor = colorterm.is_some_and(|c| c == "truecolor" || c == "24bit");
        let theme = Theme::named(name, depth, var("COLORFGBG").as_deref());
        Some(colors.apply(theme, depth, truecolor))
    }

    /// The theme `name` picks, for a terminal of `depth` whose `COLORFGBG` is `colorfgbg`.
    pub(crate) fn named(name: ThemeName, depth: Depth, colorfgbg: Option<&str>) -> Theme {
        match name {
            ThemeName::Auto if light_background(colorfgbg) => Theme::light(depth),
            ThemeName::Auto | ThemeName::Dark => Theme::dark(depth),
            ThemeName::Light => Theme::light(depth),
            ThemeName::HighContrast => Theme::high_contrast(),
            ThemeName::ColorBlind => Theme::color_blind(depth, light_background(colorfgbg)),
        }
    }

    /// [`Theme::dark`] or [`Theme::light`] with success blue and failure orange, so no
    /// meaning rests on telling red from green (Okabe and Ito's pairing). In 16 colours,
    /// blue for success and the theme's red (or yellow on dark) for failure.
    pub(crate) fn color_blind(depth: Depth, light: bool) -> Theme {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        match (light, depth) {
            (false, Depth::Indexed256) => Theme::of_shades(Shades {
                ok: plain.fg(Color::Indexed(75)),
                error: plain.fg(Color::Indexed(214)),
                ..Theme::dark_shades()
            }),
            (true, Depth::Indexed256) => Theme::light_of(Shades {
                ok: plain.fg(Color::Indexed(18)),
                error: plain.fg(Color::Indexed(94)),
                ..Theme::light_shades()
            }),
            (false, Depth::Ansi16) => {
                Theme::default().with_outcomes(plain.fg(Color::LightBlue), plain.fg(Color::Yellow))
            }
            (true, Depth::Ansi16) => {
                Theme::light(depth).with_outcomes(bold.fg(Color::Blue), bold.fg(Color::Red))
            }
        }
    }

    /// This theme with `ok` and `error` in every role that says success or failure.
    fn with_outcomes(self, ok: Style, error: Style) -> Theme {
        Theme {
            ok,
            error,
            diff_add: ok,
            diff_del: error,
            quote: ok.add_modifier(Modifier::ITALIC),
            status_live: ok,
            status_failed: error.add_modifier(Modifier::BOLD),
            ..self
        }
    }

    /// For dark backgrounds: the named colours where only they exist ([`Theme::default`]),
    /// else the cube's, each at least 4.5:1 on black, on Tango's dark grey and on Solarized
    /// Dark (faint text, which measures below that, becomes a grey that does not).
    pub(crate) fn dark(depth: Depth) -> Theme {
        if depth == Depth::Ansi16 {
            return Theme::default();
        }
        Theme::of_shades(Theme::dark_shades())
    }

    /// The dark theme's colours in the cube.
    fn dark_shades() -> Shades {
        let plain = Style::default();
        Shades {
            accent: plain.fg(Color::Indexed(81)),
            ok: plain.fg(Color::Indexed(114)),
            error: plain.fg(Color::Indexed(210)),
            warning: plain.fg(Color::Indexed(213)),
            muted: plain.fg(Color::Indexed(247)),
        }
    }

    /// For light backgrounds. Each colour is at least 4.5:1 against white and against
    /// Solarized Light's cream in the 256-colour cube; with only the named colours, each is
    /// the best measured under xterm's, Tango's and Solarized's palettes, or none (the
    /// default foreground, bold) where none reaches the bar (the `contrast` tests report
    /// the figures).
    pub(crate) fn light(depth: Depth) -> Theme {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        let shades = match depth {
            Depth::Indexed256 => Theme::light_shades(),
            // Blue and red reach 3:1 on every light palette measured, so they are drawn
            // bold; no named green nor grey does, so those roles keep the foreground.
            Depth::Ansi16 => Shades {
                accent: bold.fg(Color::Blue),
                ok: bold,
                error: bold.fg(Color::Red),
                warning: bold.fg(Color::Magenta),
                muted: plain,
            },
        };
        Theme::light_of(shades)
    }

    /// The light theme's colours in the cube.
    fn light_shades() -> Shades {
        let plain = Style::default();
        Shades {
            accent: plain.fg(Color::Indexed(25)),
            ok: plain.fg(Color::Indexed(22)),
            error: plain.fg(Color::Indexed(124)),
            warning: plain.fg(Color::Indexed(90)),
            muted: plain.fg(Color::Indexed(240)),
        }
    }

    /// A light theme of `shades`: its focus border bold, its current match reversed.
    fn light_of(shades: Shades) -> Theme {
        Theme {
            border_focused: shades.accent.add_modifier(Modifier::BOLD),
            search_current: shades
                .ok
                .add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
            ..Theme::of_shades(shades)
        }
    }

    /// Every coloured role from five shades; the rest as [`Theme::default`] has them.
    fn of_shades(
        Shades {
            accent,
            ok,
            error,
            warning,
            muted,
        }: Shades,
    ) -> Theme {
        Theme {
            dim: muted,
            accent,
            user: accent.add_modifier(Modifier::BOLD),
            agent: warning.add_modifier(Modifier::BOLD),
            ok,
            error,
            warning,
            code: accent,
            diff_add: ok,
            diff_del: error,
            diff_hunk: accent,
            diff_header: muted.add_modifier(Modifier::BOLD),
            border: muted,
            border_focused: accent,
            heading: accent.add_modifier(Modifier::BOLD),
            link: accent.add_modifier(Modifier::UNDERLINED),
            link_url: muted,
            quote: ok.add_modifier(Modifier::ITALIC),
            code_gutter: muted,
            list_marker: accent,
            rule: muted,
            placeholder: muted,
            key_hint: accent,
            status_live: ok,
            status_retrying: warning,
            status_failed: error.add_modifier(Modifier::BOLD),
            search_match: ok.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            search_current: ok
                .add_modifier(Modifier::BOLD | Modifier::REVERSED | Modifier::UNDERLINED),
            ..Theme::default()
        }
    }

    /// The default foreground on the default background, the most contrast any terminal
    /// gives: meaning carried by bold, underline and reverse, and by the ✓ ✗ + − marks.
    pub(crate) fn high_contrast() -> Theme {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        Theme {
            dim: plain,
            border: plain,
            link_url: plain,
            code_gutter: plain,
            rule: plain,
            placeholder: plain.add_modifier(Modifier::ITALIC),
            diff_hunk: bold,
            diff_add: bold,
            accent: bold,
            ..Theme::no_color()
        }
    }

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

    /// Whether `NO_COLOR` (its value passed in, so tests leave the process environment
    /// alone) asks for no colours: set and not empty.
    pub(crate) fn no_color_asked(value: Option<&std::ffi::OsStr>) -> bool {
        value.is_some_and(|v| !v.is_empty())
    }

    /// Every style in the theme, for checks that apply to all of them.
    #[cfg(test)]
    pub(crate) fn all_styles(&self) -> Vec<Style> {
        self.roles().into_iter().map(|(_, style)| style).collect()
    }

    /// Every role with its name, for checks and reports that name them.
    #[cfg(test)]
    pub(crate) fn roles(&self) -> Vec<(&'static str, Style)> {
        vec![
            ("text", self.text),
            ("dim", self.dim),
            ("accent", self.accent),
            ("user", self.user),
            ("agent", self.agent),
            ("ok", self.ok),
            ("error", self.error),
            ("warning", self.warning),
            ("code", self.code),
            ("diff_add", self.diff_add),
            ("diff_del", self.diff_del),
            ("diff_hunk", self.diff_hunk),
            ("diff_header", self.diff_header),
            ("border", self.border),
            ("border_focused", self.border_focused),
            ("title", self.title),
            ("heading", self.heading),
            ("emphasis", self.emphasis),
            ("strong", self.strong),
            ("strikethrough", self.strikethrough),
            ("link", self.link),
            ("link_url", self.link_url),
            ("quote", self.quote),
            ("code_gutter", self.code_gutter),
            ("list_marker", self.list_marker),
            ("rule", self.rule),
            ("selection", self.selection),
            ("placeholder", self.placeholder),
            ("key_hint", self.key_hint),
            ("status_live", self.status_live),
            ("status_retrying", self.status_retrying),
            ("status_failed", self.status_failed),
            ("badge", self.badge),
            ("search_match", self.search_match),
            ("search_current", self.search_current),
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
    fn the_name_picks_the_theme_and_auto_follows_colorfgbg() {
        let deep = Depth::Indexed256;
        assert_eq!(Theme::named(ThemeName::Auto, deep, None), Theme::dark(deep));
        assert_eq!(
            Theme::named(ThemeName::Dark, Depth::Ansi16, None),
            Theme::default()
        );
        assert_eq!(
            Theme::named(ThemeName::Auto, deep, Some("0;15")),
            Theme::light(deep)
        );
        assert_eq!(
            Theme::named(ThemeName::Auto, deep, Some("0;default;7")),
            Theme::light(deep)
        );
        assert_eq!(
            Theme::named(ThemeName::Auto, deep, Some("15;0")),
            Theme::dark(deep)
        );
        assert_eq!(
            Theme::named(ThemeName::Auto, deep, Some("junk")),
            Theme::dark(deep)
        );
        assert_eq!(
            Theme::named(ThemeName::HighContrast, deep, Some("0;15")),
            Theme::high_contrast()
        );
        // The key cycles dark → light → high contrast → colour-blind → dark, auto counting
        // as its pick.
        let mut name = ThemeName::Auto;
        let seen: Vec<&str> = (0..4)
            .map(|_| {
                name = name.next(false);
                name.as_str()
            })
            .collect();
        assert_eq!(seen, ["light", "high-contrast", "colorblind", "dark"]);
        assert_eq!(ThemeName::Auto.next(true), ThemeName::HighContrast);
        assert_eq!(ThemeName::parse("light"), Some(ThemeName::Light));
        assert_eq!(ThemeName::parse("Light"), None);
        assert_eq!(
            Depth::from_vars(None, Some("xterm-256color")),
            Depth::Indexed256
        );
        assert_eq!(
            Depth::from_vars(Some("truecolor"), Some("screen")),
            Depth::Indexed256
        );
        assert_eq!(Depth::from_vars(None, Some("screen")), Depth::Ansi16);
    }

    #[test]
    fn light_and_high_contrast_never_set_a_background_nor_dim_text() {
        for theme in [
            Theme::light(Depth::Ansi16),
            Theme::light(Depth::Indexed256),
            Theme::dark(Depth::Indexed256),
            Theme::high_contrast(),
        ] {
            for style in theme.all_styles() {
                assert!(style.bg.is_none(), "backgrounds are the user's");
                // Faint text measures about 2.5:1 on light backgrounds.
                assert!(!style.add_modifier.contains(Modifier::DIM), "{style:?}");
            }
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
        assert!(Theme::no_color_asked(Some(OsStr::new("1"))));
        assert!(!Theme::no_color_asked(Some(OsStr::new(""))));
        assert!(!Theme::no_color_asked(None));
    }
}
