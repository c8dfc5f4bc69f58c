//! Extra key bindings from the `[keys]` section of `config.toml`:
//!
//! ```toml
//! [keys]
//! quit = "ctrl+q"
//! zoom = "f2"
//! help = "f1"
//! ```
//!
//! A binding adds a key for an action; the default keys keep working (nobody is locked out of
//! quitting by a typo). A plain character binding acts only while a pane has the focus, like
//! the default single-letter commands, so it never steals a key from the input box.

use super::intent::Intent;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The actions that can be bound, by their config names.
const ACTIONS: &[(&str, Intent)] = &[
    ("quit", Intent::Quit),
    ("focus_next", Intent::FocusNext),
    ("focus_prev", Intent::FocusPrev),
    ("focus_input", Intent::FocusInput),
    ("page_up", Intent::Page { up: true }),
    ("page_down", Intent::Page { up: false }),
    ("top", Intent::ScrollTop),
    ("bottom", Intent::ScrollBottom),
    ("zoom", Intent::ToggleZoom),
    ("help", Intent::ToggleHelp),
    ("mouse", Intent::ToggleMouseCapture),
    ("deltas", Intent::ToggleDeltas),
    ("filter", Intent::StartEventFilter),
    ("search", Intent::StartSearch),
    ("search_older", Intent::SearchStep { older: true }),
    ("search_newer", Intent::SearchStep { older: false }),
    ("diff", Intent::ToggleDiff),
    ("copy", Intent::Copy),
    ("open_link", Intent::OpenLink),
    ("next_error", Intent::NextError),
    ("export", Intent::Export),
    ("suspend", Intent::Suspend),
    ("refresh", Intent::Refresh),
    ("picker", Intent::OpenPicker),
    ("shell", Intent::Shell),
    ("artifacts", Intent::OpenArtifacts),
    ("files", Intent::OpenFiles),
];

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct KeyMap {
    bindings: Vec<(KeyCode, KeyModifiers, Intent)>,
}

impl KeyMap {
    /// Reads `[keys]`; the warnings name what was ignored and why.
    pub(crate) fn from_table(table: &toml::Table) -> (KeyMap, Vec<String>) {
        let mut map = KeyMap::default();
        let mut warnings = Vec::new();
        for (action, value) in table {
            let Some(command) = ACTIONS
                .iter()
                .find(|(n, _)| n == action)
                .map(|(_, c)| c.clone())
            else {
                let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
                warnings.push(format!(
                    "config: [keys] {action} is not an action (one of: {}); ignored",
                    names.join(", ")
                ));
                continue;
            };
            match value.as_str().and_then(parse_key) {
                Some((code, mods)) => map.bindings.push((code, mods, command)),
                None => warnings.push(format!(
                    "config: [keys] {action} = {value} is not a key like \"ctrl+q\", \"f2\" or \"z\"; ignored"
                )),
            }
        }
        (map, warnings)
    }

    /// The intent bound to `key`, if any. `pane_focused` gates plain characters.
    pub(crate) fn intent_for(&self, key: KeyEvent, pane_focused: bool) -> Option<Intent> {
        let mods = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        // Shift is left out: terminals report Shift+h as 'H', which is what a binding names.
        self.bindings
            .iter()
            .find(|(c, m, _)| *c == key.code && *m == mods)
            .filter(|(c, m, _)| pane_focused || !(matches!(c, KeyCode::Char(_)) && m.is_empty()))
            .map(|(_, _, intent)| intent.clone())
    }
}

/// `"ctrl+q"`, `"alt+x"`, `"f2"`, `"z"`, `"?"`, `"tab"`, `"esc"`, `"pageup"`, `"home"`…
fn parse_key(spec: &str) -> Option<(KeyCode, KeyModifiers)> {
    let mut mods = KeyModifiers::NONE;
    let parts: Vec<&str> = spec.split('+').collect();
    let (last, prefix) = parts.split_last()?;
    for p in prefix {
        match p.trim().to_ascii_lowercase().as_str() {
            "ctrl" | "control" => mods |= KeyModifiers::CONTROL,
            "alt" | "meta" => mods |= KeyModifiers::ALT,
            _ => return None,
        }
    }
    let name = last.trim();
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "tab" => KeyCode::Tab,
        "esc" | "escape" => KeyCode::Esc,
        "enter" => KeyCode::Enter,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "space" => KeyCode::Char(' '),
        f if f.len() >= 2 && f.starts_with('f') => KeyCode::F(f[1..].parse().ok()?),
        _ => {
            let mut chars = name.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            // Ctrl+letter arrives lower-case.
            KeyCode::Char(if mods.is_empty() {
                c
            } else {
                c.to_ascii_lowercase()
            })
        }
    };
    Some((code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn bindings_parse_and_match() {
        let (map, warnings) = KeyMap::from_table(&table(
            "quit = \"ctrl+q\"\nzoom = \"f2\"\nhelp = \"H\"\npicker = \"alt+p\"",
        ));
        assert!(warnings.is_empty(), "{warnings:?}");
        let ctrl_q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert_eq!(map.intent_for(ctrl_q, false), Some(Intent::Quit));
        let f2 = KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE);
        assert_eq!(map.intent_for(f2, false), Some(Intent::ToggleZoom));
        let alt_p = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::ALT);
        assert_eq!(map.intent_for(alt_p, true), Some(Intent::OpenPicker));
        let shift_h = KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT);
        assert_eq!(map.intent_for(shift_h, true), Some(Intent::ToggleHelp));
    }

    #[test]
    fn plain_characters_never_steal_from_the_input_box() {
        let (map, _) = KeyMap::from_table(&table("zoom = \"x\""));
        let x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(map.intent_for(x, false), None);
        assert_eq!(map.intent_for(x, true), Some(Intent::ToggleZoom));
    }

    #[test]
    fn unknown_actions_and_keys_are_reported_not_fatal() {
        let (map, warnings) = KeyMap::from_table(&table(
            "launch = \"ctrl+l\"\nquit = \"ctrl+shift+nope\"\nzoom = 3",
        ));
        assert_eq!(map, KeyMap::default());
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("launch") || warnings.iter().any(|w| w.contains("launch")));
    }
}
