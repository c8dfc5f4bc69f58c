//! The fleet's key list (F1, or `?` while no question or text field is open): the key
//! table's fleet rows over the fleet, scrolled as the session's key list is.

use crossterm::event::KeyEvent;

use crate::keys::table::fleet_key;
use crate::ui::fleet::{FleetKey, FleetScope};
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

    /// A key, as the key table's fleet rows route it: F1 (or `?` in the list) opens the
    /// list over the fleet whose keys are `fleet`'s; while it is open it has every key.
    pub(crate) fn key(&mut self, key: KeyEvent, fleet: FleetScope) -> HelpKey {
        let Some(scroll) = self.open.as_mut() else {
            if fleet_key(fleet, key.code, key.modifiers) != Some(FleetKey::Help) {
                return HelpKey::NotMine;
            }
            self.open = Some(0);
            return HelpKey::Consumed;
        };
        match fleet_key(FleetScope::Help, key.code, key.modifiers) {
            Some(FleetKey::Quit) => return HelpKey::Quit,
            Some(FleetKey::CloseHelp) => self.open = None,
            Some(FleetKey::Up) => *scroll = scroll.saturating_sub(1),
            Some(FleetKey::Down) => *scroll = scroll.saturating_add(1),
            Some(FleetKey::PageUp) => *scroll = scroll.saturating_sub(10),
            Some(FleetKey::PageDown) => *scroll = scroll.saturating_add(10),
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

    use crossterm::event::{KeyCode, KeyModifiers};

    /// `typing`: the fleet takes text (renaming); else its list has the keys.
    fn press(help: &mut FleetHelp, code: KeyCode, typing: bool) -> HelpKey {
        let fleet = if typing {
            FleetScope::Rename
        } else {
            FleetScope::List
        };
        help.key(KeyEvent::new(code, KeyModifiers::NONE), fleet)
    }

    #[test]
    fn f1_or_question_mark_shows_the_fleets_keys_and_esc_closes() {
        let mut help = FleetHelp::new(crate::keys::table::fleet_help_rows());
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
        for words in ["Fleet", "rename", "delete", "fork", "filter", "leave"] {
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
