//! One line typed in the fleet's bottom line — a session's new title, its labels: text up
//! to a number of characters, Backspace, Ctrl+U to clear it, Enter to be done with it, Esc
//! to drop it. The keys arrive as the key table routes them ([`FleetKey`]); the characters
//! as typed.

use super::FleetKey;
use gobare_api::text;

/// The text being typed and how long it may grow.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct LineEdit {
    text: String,
    max_chars: usize,
}

/// What a key did to the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edited {
    /// Still being typed.
    Editing,
    /// Enter: the line as it stands ([`LineEdit::text`]) is to be used.
    Done,
    /// Esc: dropped.
    Cancelled,
}

impl LineEdit {
    /// A line starting from `text` (what is there now: a fix is an edit, not a retype),
    /// cut to `max_chars`.
    pub(crate) fn new(text: &str, max_chars: usize) -> LineEdit {
        LineEdit {
            text: text.chars().take(max_chars).collect(),
            max_chars,
        }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// A typed character, unless the line is full.
    pub(crate) fn type_char(&mut self, c: char) {
        if self.text.chars().count() < self.max_chars {
            self.text.push(c);
        }
    }

    /// A key the table routed while typing.
    pub(crate) fn key(&mut self, key: FleetKey) -> Edited {
        match key {
            FleetKey::Cancel => return Edited::Cancelled,
            FleetKey::Done => return Edited::Done,
            FleetKey::Erase => {
                self.text.pop();
            }
            FleetKey::EraseAll => self.text.clear(),
            _ => {}
        }
        Edited::Editing
    }

    /// The line as shown, with the cursor's mark at its end (server text made safe).
    pub(crate) fn shown(&self) -> String {
        format!("{}▏", text::line(&self.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_erasing_and_the_limit() {
        let mut line = LineEdit::new("abcdef", 4);
        assert_eq!(line.text(), "abcd", "cut to the limit");
        line.type_char('x');
        assert_eq!(line.text(), "abcd", "full");
        assert_eq!(line.key(FleetKey::Erase), Edited::Editing);
        line.type_char('é');
        assert_eq!(line.shown(), "abcé▏");
        assert_eq!(line.key(FleetKey::EraseAll), Edited::Editing);
        assert_eq!(line.text(), "");
        assert_eq!(
            line.key(FleetKey::Down),
            Edited::Editing,
            "not a line's key"
        );
        assert_eq!(line.key(FleetKey::Done), Edited::Done);
        assert_eq!(line.key(FleetKey::Cancel), Edited::Cancelled);
    }
}
