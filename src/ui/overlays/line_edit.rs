//! One line of text typed in an overlay (a rule's command, the labels): letters are text,
//! Backspace erases one, Ctrl+U clears it; bounded, so a paste cannot grow it without end.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The longest line kept: a rule's value is at most 500 characters (§5).
const MAX_CHARS: usize = 500;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineEdit {
    text: String,
}

impl LineEdit {
    /// A line starting from `text` (what is being edited, as it is).
    pub(crate) fn new(text: &str) -> LineEdit {
        let mut line = LineEdit::default();
        line.paste(text);
        line
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// A key no table row has: `true` when it changed the line.
    pub(crate) fn key(&mut self, key: KeyEvent) -> bool {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Char(c) if plain => self.push(c),
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.text.clear();
                true
            }
            KeyCode::Backspace => self.text.pop().is_some(),
            _ => false,
        }
    }

    /// Pasted text, its line breaks as spaces (one line: a newline is never a command's).
    pub(crate) fn paste(&mut self, text: &str) -> bool {
        let mut changed = false;
        for c in text.chars() {
            changed |= self.push(if c == '\n' || c == '\r' { ' ' } else { c });
        }
        changed
    }

    fn push(&mut self, c: char) -> bool {
        if c.is_control() || self.text.chars().count() >= MAX_CHARS {
            return false;
        }
        self.text.push(c);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn letters_type_backspace_erases_ctrl_u_clears_and_controls_stay_out() {
        let mut line = LineEdit::new("make");
        assert!(line.key(key(KeyCode::Char(' '), KeyModifiers::NONE)));
        assert!(line.key(key(KeyCode::Char('T'), KeyModifiers::SHIFT)));
        assert_eq!(line.text(), "make T");
        assert!(line.key(key(KeyCode::Backspace, KeyModifiers::NONE)));
        assert_eq!(line.text(), "make ");
        line.paste("a\nb\u{1b}[2J");
        assert_eq!(line.text(), "make a b[2J");
        assert!(line.key(key(KeyCode::Char('u'), KeyModifiers::CONTROL)));
        assert_eq!(line.text(), "");
        line.paste(&"x".repeat(900));
        assert_eq!(line.text().len(), MAX_CHARS);
    }
}
