//! `[theme.colors]`: a person's own colour for a role, over whichever theme is in use.
//!
//! ```toml
//! [theme.colors]
//! accent = "#5f87af"     # hex, shown as near as the terminal's colours allow
//! error = "bright-red"   # or one of the 16 ANSI names
//! ```
//!
//! A value replaces the role's colour and keeps its bold, underline and the rest. Hex is
//! written as it is where the terminal says it has true colour (`COLORTERM`), as the
//! nearest of the xterm 256 colours where it has those, else as the nearest of the 16 under
//! xterm's palette.

use super::{Depth, Theme};
use ratatui::style::{Color, Style};

/// Where in a theme a role's style is.
type RoleStyle = fn(&mut Theme) -> &mut Style;

/// The roles a person may colour, with the theme's style each sets.
const ROLES: &[(&str, RoleStyle)] = &[
    ("text", |t| &mut t.text),
    ("muted", |t| &mut t.dim),
    ("accent", |t| &mut t.accent),
    ("user", |t| &mut t.user),
    ("agent", |t| &mut t.agent),
    ("success", |t| &mut t.ok),
    ("error", |t| &mut t.error),
    ("warning", |t| &mut t.warning),
    ("code", |t| &mut t.code),
    ("diff_add", |t| &mut t.diff_add),
    ("diff_remove", |t| &mut t.diff_del),
    ("diff_hunk", |t| &mut t.diff_hunk),
    ("heading", |t| &mut t.heading),
    ("link", |t| &mut t.link),
    ("border", |t| &mut t.border),
    ("focus", |t| &mut t.border_focused),
    ("selection", |t| &mut t.selection),
    ("search_match", |t| &mut t.search_match),
    ("key_hint", |t| &mut t.key_hint),
];

/// The 16 ANSI names, in colour-number order, with xterm's shade of each.
const ANSI: [(&str, Color, (u8, u8, u8)); 16] = [
    ("black", Color::Black, (0, 0, 0)),
    ("red", Color::Red, (205, 0, 0)),
    ("green", Color::Green, (0, 205, 0)),
    ("yellow", Color::Yellow, (205, 205, 0)),
    ("blue", Color::Blue, (0, 0, 238)),
    ("magenta", Color::Magenta, (205, 0, 205)),
    ("cyan", Color::Cyan, (0, 205, 205)),
    ("white", Color::Gray, (229, 229, 229)),
    ("bright-black", Color::DarkGray, (127, 127, 127)),
    ("bright-red", Color::LightRed, (255, 0, 0)),
    ("bright-green", Color::LightGreen, (0, 255, 0)),
    ("bright-yellow", Color::LightYellow, (255, 255, 0)),
    ("bright-blue", Color::LightBlue, (92, 92, 255)),
    ("bright-magenta", Color::LightMagenta, (255, 0, 255)),
    ("bright-cyan", Color::LightCyan, (0, 255, 255)),
    ("bright-white", Color::White, (255, 255, 255)),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum ConfiguredColor {
    Named(Color),
    Hex(u8, u8, u8),
}

/// The colours asked for, by role.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ColorOverrides(Vec<(usize, ConfiguredColor)>);

impl ColorOverrides {
    /// Reads `[theme.colors]`; what cannot be used is a warning and is passed over.
    pub(crate) fn from_table(table: &toml::Table) -> (ColorOverrides, Vec<String>) {
        let mut wanted = Vec::new();
        let mut warnings = Vec::new();
        for (role, value) in table {
            let Some(at) = ROLES.iter().position(|(name, _)| name == role) else {
                let names: Vec<&str> = ROLES.iter().map(|(n, _)| *n).collect();
                warnings.push(format!(
                    "config: [theme.colors] {role} is not a role; the roles are {}",
                    names.join(", ")
                ));
                continue;
            };
            match value.as_str().and_then(parse_color) {
                Some(color) => wanted.push((at, color)),
                None => warnings.push(format!(
                    "config: [theme.colors] {role} = {value} is neither \"#rrggbb\" nor an \
                     ANSI name (red, bright-blue, …); the theme's colour is kept"
                )),
            }
        }
        (ColorOverrides(wanted), warnings)
    }

    /// `theme` with these colours, as near as a terminal of `depth` (`truecolor`: it takes
    /// any RGB colour) shows them.
    pub(crate) fn apply(&self, mut theme: Theme, depth: Depth, truecolor: bool) -> Theme {
        for &(at, wanted) in &self.0 {
            let color = match wanted {
                ConfiguredColor::Named(c) => c,
                ConfiguredColor::Hex(r, g, b) if truecolor => Color::Rgb(r, g, b),
                ConfiguredColor::Hex(r, g, b) if depth == Depth::Indexed256 => {
                    Color::Indexed(nearest_256((r, g, b)))
                }
                ConfiguredColor::Hex(r, g, b) => nearest_16((r, g, b)),
            };
            let style = (ROLES[at].1)(&mut theme);
            *style = style.fg(color);
        }
        theme
    }
}

fn parse_color(value: &str) -> Option<ConfiguredColor> {
    let value = value.trim().to_ascii_lowercase();
    if let Some(hex) = value.strip_prefix('#') {
        if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        return Some(ConfiguredColor::Hex(byte(0)?, byte(2)?, byte(4)?));
    }
    let name = value.replace(['_', ' '], "-");
    let name = match name.as_str() {
        "gray" | "grey" => "white",
        "dark-gray" | "dark-grey" => "bright-black",
        other => other,
    };
    ANSI.iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, c, _)| ConfiguredColor::Named(*c))
}

fn distance((r1, g1, b1): (u8, u8, u8), (r2, g2, b2): (u8, u8, u8)) -> u32 {
    let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).unsigned_abs().pow(2);
    d(r1, r2) + d(g1, g2) + d(b1, b2)
}

/// The xterm colour 16–255 nearest `rgb` (the cube and the greys; 0–15 differ by terminal).
fn nearest_256(rgb: (u8, u8, u8)) -> u8 {
    (16..=255u8)
        .min_by_key(|&i| distance(rgb, xterm_256(i)))
        .unwrap_or(16)
}

/// xterm's RGB of colour `i` (16–255).
fn xterm_256(i: u8) -> (u8, u8, u8) {
    if i >= 232 {
        let v = 8 + 10 * (i - 232);
        return (v, v, v);
    }
    let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
    let n = i - 16;
    (level(n / 36), level(n / 6 % 6), level(n % 6))
}

fn nearest_16(rgb: (u8, u8, u8)) -> Color {
    ANSI.iter()
        .min_by_key(|(_, _, shade)| distance(rgb, *shade))
        .map_or(Color::Reset, |(_, c, _)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    fn read(text: &str) -> (ColorOverrides, Vec<String>) {
        ColorOverrides::from_table(&toml::from_str(text).unwrap())
    }

    #[test]
    fn a_colour_replaces_the_role_s_and_keeps_its_bold() {
        let (colors, warnings) = read("heading = \"#5f87af\"\nerror = \"bright-red\"\n");
        assert!(warnings.is_empty(), "{warnings:?}");
        let base = Theme::dark(Depth::Indexed256);
        let theme = colors.apply(base.clone(), Depth::Indexed256, true);
        assert_eq!(theme.heading.fg, Some(Color::Rgb(0x5f, 0x87, 0xaf)));
        assert!(theme.heading.add_modifier.contains(Modifier::BOLD));
        assert_eq!(theme.error.fg, Some(Color::LightRed));
        assert_eq!(theme.accent, base.accent, "other roles are the theme's");
    }

    #[test]
    fn hex_is_brought_down_to_what_the_terminal_shows() {
        let (colors, _) = read("accent = \"#5f87af\"\n");
        // 0x5f, 0x87, 0xaf are cube levels 1, 2, 3: colour 16 + 36 + 12 + 3.
        let cube = colors.apply(Theme::dark(Depth::Indexed256), Depth::Indexed256, false);
        assert_eq!(cube.accent.fg, Some(Color::Indexed(67)));
        let sixteen = colors.apply(Theme::dark(Depth::Ansi16), Depth::Ansi16, false);
        assert_eq!(sixteen.accent.fg, Some(Color::DarkGray));
        let (colors, _) = read("accent = \"#c00000\"\n");
        let sixteen = colors.apply(Theme::dark(Depth::Ansi16), Depth::Ansi16, false);
        assert_eq!(sixteen.accent.fg, Some(Color::Red));
    }

    #[test]
    fn an_unknown_role_or_colour_is_a_warning_and_changes_nothing() {
        let (colors, warnings) = read("tool_name = \"red\"\naccent = \"#12345\"\nuser = 3\n");
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings.iter().any(|w| w.contains("the roles are")),
            "{warnings:?}"
        );
        let base = Theme::light(Depth::Indexed256);
        assert_eq!(colors.apply(base.clone(), Depth::Indexed256, true), base);
    }
}
