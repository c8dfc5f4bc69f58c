//! The fleet's key list (F1, or `?` while no question or text field is open): the key
//! table's fleet rows over the fleet, scrolled as the session's key list is.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::help;
use crate::ui::theme::Theme;

/// What a key did to the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HelpKey {
    /// Not the list's: the fleet has it.
    NotMine,
    /// Opened, scrolled or closed the list.
    Consumed,
    /// Ctrl+C while the list is open: leave, as everywhere in the fleet.
    Quit,
}

#[derive(Debug, Default)]
pub(crate) struct FleetHelp {
    /// `Some(rows scrolled)` while the list is open.
    open: Option<u16>,
    rows: Vec<(String, String)>,
}

impl FleetHelp {
    /// The list of `rows` (the key table's fleet rows), closed.
    pub(crate) fn new(rows: Vec<(String, String)>) -> FleetHelp {
        FleetHelp { open: None, rows }
    }

    #[cfg(test)]
    fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// `modal`: the fleet is asking a question or taking text (`?` is text there).
    pub(crate) fn key(&mut self, key: KeyEvent, modal: bool) -> HelpKey {
        let Some(scroll) = self.open.as_mut() else {
            let opens = key.code == KeyCode::F(1) || (!modal && key.code == KeyCode::Char('?'));
            if !opens {
                return HelpKey::NotMine;
            }
            self.open = Some(0);
            return HelpKey::Consumed;
        };
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return HelpKey::Quit;
        }
        match key.code {
            KeyCode::Esc | KeyCode::F(1) | KeyCode::Char('?' | 'q') => self.open = None,
            KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            _ => {}
        }
        HelpKey::Consumed
    }

    /// Draws the list over `area` while it is open.
    pub(crate) fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if let Some(scroll) = self.open {
            help::render(area, buf, theme, scroll, &self.rows);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn press(help: &mut FleetHelp, code: KeyCode, modal: bool) -> HelpKey {
        help.key(KeyEvent::new(code, KeyModifiers::NONE), modal)
    }

    #[test]
    fn f1_or_question_mark_shows_the_fleets_keys_and_esc_closes() {
        let mut help = FleetHelp::new(crate::app::key_table::help_rows_of(
            crate::app::key_table::Scope::Fleet,
        ));
        assert_eq!(press(&mut help, KeyCode::Char('?'), true), HelpKey::NotMine);
        assert!(!help.is_open(), "? is text while renaming or filtering");
        assert_eq!(
            press(&mut help, KeyCode::Char('?'), false),
            HelpKey::Consumed
        );
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        terminal
            .draw(|f| help.render(f.area(), f.buffer_mut(), &Theme::no_color()))
            .unwrap();
        let shown: String = terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        for words in ["Fleet", "rename", "delete · fork", "filter", "leave"] {
            assert!(shown.contains(words), "{words}: {shown}");
        }
        assert_eq!(
            press(&mut help, KeyCode::Char('n'), false),
            HelpKey::Consumed
        );
        assert!(help.is_open(), "a fleet key does nothing under the list");
        assert_eq!(press(&mut help, KeyCode::Esc, false), HelpKey::Consumed);
        assert!(!help.is_open());
        assert_eq!(press(&mut help, KeyCode::F(1), true), HelpKey::Consumed);
        assert!(help.is_open(), "F1 opens it from anywhere");
    }
}
