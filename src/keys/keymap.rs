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
use super::table::{self as key_table, Chord, KeyRoute, Scope, TABLE};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Names earlier configs used for actions that have since been named after what they do.
const ALIASES: &[(&str, &str)] = &[("focus_next", "pane_next"), ("focus_prev", "pane_prev")];

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct KeyMap {
    /// Extra chords, each acting where its table row acts.
    bindings: Vec<(Chord, Scope, Intent)>,
}

impl KeyMap {
    /// Reads `[keys]`; the warnings name what was ignored and why, and which key a binding
    /// now hides.
    pub(crate) fn from_table(table: &toml::Table) -> (KeyMap, Vec<String>) {
        let mut map = KeyMap::default();
        let mut warnings = Vec::new();
        for (action, value) in table {
            let name = ALIASES
                .iter()
                .find(|(old, _)| old == action)
                .map_or(action.as_str(), |(_, new)| new);
            let Some(row) = TABLE.iter().find(|b| b.action == Some(name)) else {
                warnings.push(format!(
                    "config: [keys] {action} is not an action (one of: {}); ignored",
                    key_table::action_names().join(", ")
                ));
                continue;
            };
            let KeyRoute::Do(intent) = row.route.clone() else {
                continue;
            };
            let Some((code, mods)) = value.as_str().and_then(parse_key) else {
                warnings.push(format!(
                    "config: [keys] {action} = {value} is not a key like \"ctrl+q\", \"f2\" or \"z\"; ignored"
                ));
                continue;
            };
            let chord = Chord { code, mods };
            let plain_char = matches!(code, KeyCode::Char(_)) && mods.is_empty();
            if plain_char && matches!(row.scope, Scope::Everywhere | Scope::Typing) {
                // A letter everywhere would be a letter taken from the box.
                warnings.push(format!(
                    "config: [keys] {action} = {value}: a plain character acts only in the panes"
                ));
            }
            let scope = if plain_char { Scope::Panes } else { row.scope };
            if let Some(hidden) = shadowed(chord, scope) {
                warnings.push(format!(
                    "config: [keys] {action} = {value} hides {} ({}) in {}",
                    chord.label(),
                    hidden.label,
                    hidden.scope.short()
                ));
            }
            map.bindings.push((chord, scope, intent));
        }
        (map, warnings)
    }

    /// The intent bound to `key` in `scope`, if any.
    pub(crate) fn intent_for(&self, key: &KeyEvent, scope: Scope) -> Option<Intent> {
        self.bindings
            .iter()
            .find(|(chord, at, _)| chord.matches(key.code, key.modifiers) && reaches(*at, scope))
            .map(|(_, _, intent)| intent.clone())
    }
}

/// A binding of `at` acts in `scope`.
fn reaches(at: Scope, scope: Scope) -> bool {
    at == scope || (at == Scope::Everywhere && scope.takes_everywhere())
}

/// The table row a new `chord` in `scope` would hide, if any.
fn shadowed(chord: Chord, scope: Scope) -> Option<&'static key_table::Binding> {
    TABLE.iter().find(|b| {
        (reaches(b.scope, scope) || reaches(scope, b.scope))
            && b.chords
                .iter()
                .any(|c| c.matches(chord.code, chord.mods) || chord.matches(c.code, c.mods))
    })
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
mod tests;
