//! Keys → where they go, decided by the one [`Mode`] and the one key table
//! ([`table::TABLE`]). While typing, every printable key is text; single-letter
//! commands act only in the panes (Shift+Tab gets there, and the box then says letters are
//! commands); decisions are the prompt's keys in the deciding mode (Tab from the box while
//! something waits). Scrolling keys the box has no use for (PgUp/PgDn, the wheel) always
//! scroll, so reading back never needs a mode change.

pub(crate) mod decision;
pub(crate) mod fleet;
pub(crate) mod intent;
pub(crate) mod keymap;
pub(crate) mod mode;
pub(crate) mod pane;
pub(crate) mod table;
pub(crate) mod view;

pub(crate) use intent::Intent;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use keymap::KeyMap;
use mode::Mode;
use table::{Binding, Scope, TABLE};

pub(crate) use table::{KeyRoute, scope_of};

/// The first binding of `scope` that `key` matches.
fn find(scope: Scope, key: &KeyEvent) -> Option<&'static Binding> {
    TABLE
        .iter()
        .filter(|b| b.scope == scope)
        .find(|b| b.chords.iter().any(|c| c.matches(key.code, key.modifiers)))
}

/// A printable key, as text (no Ctrl or Alt).
pub(crate) fn is_text(key: &KeyEvent) -> bool {
    matches!(key.code, KeyCode::Char(_))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

pub(crate) fn route(key: KeyEvent, mode: &Mode, extra: &KeyMap) -> KeyRoute {
    if key.kind == KeyEventKind::Release {
        return KeyRoute::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let scope = scope_of(mode);
    match scope {
        // These take every key but the way out of the program.
        Scope::Search => return KeyRoute::Search,
        Scope::Viewing => {
            // An Esc just before Ctrl+C can reach us as Alt+Ctrl+C: still the way out.
            let mut plain = key;
            if ctrl {
                plain.modifiers.remove(KeyModifiers::ALT);
            }
            return find(scope, &plain).map_or(KeyRoute::Overlay, |b| b.route.clone());
        }
        _ => {}
    }
    if let Some(intent) = extra.intent_for(&key, scope) {
        return KeyRoute::Do(intent);
    }
    if let Some(b) = find(scope, &key) {
        return b.route.clone();
    }
    if scope.takes_everywhere()
        && let Some(b) = find(Scope::Everywhere, &key)
    {
        return b.route.clone();
    }
    match scope {
        Scope::Typing => KeyRoute::Input,
        Scope::Deciding => KeyRoute::Prompt,
        Scope::Decided if is_text(&key) || key.code == KeyCode::Enter => KeyRoute::Held,
        Scope::Confirming if ctrl && key.code == KeyCode::Char('c') => KeyRoute::Do(Intent::Quit),
        Scope::Confirming if is_text(&key) => KeyRoute::Decline,
        _ => KeyRoute::Ignore,
    }
}

#[cfg(test)]
mod tests;
