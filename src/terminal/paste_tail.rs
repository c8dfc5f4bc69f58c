//! The keys read with a paste, put back into it as the text they came from. A pasted text
//! holding `ESC [ 201 ~` ends the bracketed paste early (tmux passes it through): crossterm
//! hands over the paste up to it, then the rest as keys (a carriage return as Enter, which
//! sent it), and drops the paste's real end, which it cannot read without a start. So what
//! had already arrived when the paste is handed over, which no person types that fast, is
//! the paste's.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A paste and the text that arrived with it.
#[derive(Debug)]
pub(crate) struct PasteTail {
    text: String,
}

impl PasteTail {
    pub(crate) fn new(text: String) -> PasteTail {
        PasteTail { text }
    }

    /// `event`, arrived with the paste: taken into it (`true`), or not part of it (`false`:
    /// the paste ends before it).
    pub(crate) fn take(&mut self, event: &Event) -> bool {
        match event {
            Event::Paste(more) => self.text.push_str(more),
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                if let Some(text) = text_of(key) {
                    self.text.push_str(&text);
                }
                // A key with no text (an arrow) came with the paste too: it is no person's.
            }
            Event::Key(_) => {}
            _ => return false,
        }
        true
    }

    pub(crate) fn into_paste(self) -> Event {
        Event::Paste(self.text)
    }
}

/// The bytes a key came from, as text.
fn text_of(key: &KeyEvent) -> Option<String> {
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let c = match key.code {
        KeyCode::Enter => '\r',
        KeyCode::Tab => '\t',
        KeyCode::Backspace => '\u{7f}',
        KeyCode::Esc => '\u{1b}',
        KeyCode::Char(c) if ctrl && c.is_ascii_alphabetic() => {
            char::from(c.to_ascii_lowercase() as u8 - b'a' + 1)
        }
        KeyCode::Char(c) if !ctrl => c,
        _ => return None,
    };
    Some(if alt {
        format!("\u{1b}{c}")
    } else {
        c.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
        Event::Key(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn keys_that_came_with_a_paste_are_its_text() {
        // `ESC[200~one ESC[201~ CR two CR ESC[201~`, as crossterm reads it.
        let mut paste = PasteTail::new("one".into());
        let tail = [
            key(KeyCode::Enter, KeyModifiers::NONE),
            key(KeyCode::Char('t'), KeyModifiers::NONE),
            key(KeyCode::Char('W'), KeyModifiers::SHIFT),
            key(KeyCode::Char('o'), KeyModifiers::NONE),
            key(KeyCode::Tab, KeyModifiers::NONE),
            key(KeyCode::Char('j'), KeyModifiers::CONTROL),
            key(KeyCode::Up, KeyModifiers::NONE),
            Event::Paste("more".into()),
            key(KeyCode::Enter, KeyModifiers::NONE),
        ];
        for event in &tail {
            assert!(paste.take(event), "{event:?}");
        }
        assert_eq!(
            paste.into_paste(),
            Event::Paste("one\rtWo\t\nmore\r".into())
        );
    }

    #[test]
    fn a_resize_or_the_mouse_ends_it() {
        let mut paste = PasteTail::new("one".into());
        assert!(!paste.take(&Event::Resize(80, 24)));
        assert!(!paste.take(&Event::FocusLost));
        assert_eq!(paste.into_paste(), Event::Paste("one".into()));
    }
}
