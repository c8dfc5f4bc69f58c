//! One row of the key table ([`Binding`]): its chords, where they go, its words.

use super::KeyRoute;
use super::Scope;
use crossterm::event::{KeyCode, KeyModifiers};

/// One key with its modifiers (Shift is part of the character: `G`, `N`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chord {
    pub(crate) code: KeyCode,
    pub(crate) mods: KeyModifiers,
}

impl Chord {
    pub(crate) const fn plain(code: KeyCode) -> Chord {
        Chord {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    /// Whether a key pressed with `mods` is this chord. Shift is ignored on characters
    /// (terminals report `G` with or without it) and on BackTab (which is Shift+Tab).
    pub(crate) fn matches(&self, code: KeyCode, mods: KeyModifiers) -> bool {
        let ignore_shift = matches!(code, KeyCode::Char(_) | KeyCode::BackTab);
        let mask = if ignore_shift {
            KeyModifiers::CONTROL | KeyModifiers::ALT
        } else {
            KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT
        };
        self.code == code && (self.mods & mask) == (mods & mask)
    }

    /// How the chord is written: `Ctrl+C`, `Alt+B`, `Shift+Tab`, `↑`, `PgUp`, `F1`, `y`.
    pub(crate) fn label(&self) -> String {
        let mut out = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            out.push_str("Ctrl+");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            out.push_str("Alt+");
        }
        if self.mods.contains(KeyModifiers::SHIFT) && !matches!(self.code, KeyCode::BackTab) {
            out.push_str("Shift+");
        }
        let name: String = match self.code {
            KeyCode::Char(' ') => "Space".into(),
            KeyCode::Char(c) if self.mods.contains(KeyModifiers::CONTROL) => {
                c.to_ascii_uppercase().to_string()
            }
            KeyCode::Char(c) if self.mods.contains(KeyModifiers::ALT) => {
                c.to_ascii_uppercase().to_string()
            }
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift+Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        out.push_str(&name);
        out
    }
}

/// When a binding's hint shows in the input box's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    Always,
    /// Only while a required action waits.
    Waiting,
    /// Only while a turn runs.
    Running,
    /// Only while Enter answers the waiting question or function call with any text.
    EnterAnswers,
    /// Only while Enter answers a question that takes nothing but an option's words.
    EnterPicks,
    /// Only while Enter sends a message.
    EnterSends,
    /// Deciding an approval.
    Approving,
    /// Deciding a question with options.
    Picking,
    /// Deciding, while Enter answers (an option picked, or the box's text taken).
    EnterDecides,
    /// Deciding a function call.
    Failing,
    /// Never in the title: the prompt's mark says it where it cut the request to fit.
    CutMark,
}

/// One row of the table.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub(crate) scope: Scope,
    /// The keys that match; empty for a row that only describes (keys a widget reads whose
    /// text `keys` gives, such as a range of digits).
    pub(crate) chords: &'static [Chord],
    /// Where a matching key goes.
    pub(crate) route: KeyRoute,
    /// What it does, for the key list and docs/keys.md.
    pub(crate) label: &'static str,
    /// The few words in the input box's title, if it is shown there, and when.
    pub(crate) hint: Option<(&'static str, Shown)>,
    /// Its name under `[keys]` in the config, if it can be given more keys.
    pub(crate) action: Option<&'static str>,
    /// The keys as written, where the chords alone would not say it.
    pub(crate) keys: Option<&'static str>,
}

impl Binding {
    /// The keys as the key list and docs/keys.md write them.
    pub(crate) fn keys_label(&self) -> String {
        if let Some(keys) = self.keys {
            return keys.to_string();
        }
        self.chords
            .iter()
            .map(Chord::label)
            .collect::<Vec<_>>()
            .join(" / ")
    }
}
