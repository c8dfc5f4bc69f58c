//! Keys → commands, decided by the one [`Mode`]. While typing, every printable key is text;
//! single-letter commands (`q`, `z`, `?`, …) act only in pane navigation (Esc gets there),
//! where letters that are not commands do nothing. Decisions (approve, deny, pick) are the
//! prompt's keys in the deciding mode (Tab from the box while something waits). Scrolling
//! keys the input box has no use for (PgUp/PgDn, the wheel) always scroll, so reading back
//! never needs a mode change.

use crate::ui::mode::Mode;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyCommand {
    /// `q` on a pane, or Ctrl+C: quits, asking first when work is in flight.
    Quit,
    FocusNext,
    FocusPrev,
    /// Give the focus back to the input box.
    FocusInput,
    ScrollUp(u16),
    ScrollDown(u16),
    PageUp,
    PageDown,
    ScrollTop,
    ScrollBottom,
    ToggleZoom,
    ToggleHelp,
    ToggleMouseCapture,
    ToggleDeltas,
    StartEventFilter,
    ToggleDiff,
    Suspend,
    /// A key for the required-action prompt (deciding mode).
    ToPrompt,
    /// y/Enter (or Ctrl+C for a quit) in a confirmation.
    ConfirmYes,
    /// n/Esc in a confirmation.
    ConfirmNo,
    /// A key for the Events filter being typed.
    ToFilter,
    /// Ctrl+R: refresh the session, turns and items from the API.
    Refresh,
    /// Ctrl+O: the session picker.
    OpenPicker,
    /// Pass the key to the input box (or the prompt being answered).
    ToInput,
    /// Nothing to do.
    Ignore,
}

pub(crate) fn command_for(key: KeyEvent, mode: &Mode) -> KeyCommand {
    if key.kind == KeyEventKind::Release {
        return KeyCommand::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if let Mode::Confirming(_) = mode {
        return match key.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => KeyCommand::ConfirmYes,
            // Ctrl+C twice quits, as in most terminal tools.
            KeyCode::Char('c') if ctrl => KeyCommand::ConfirmYes,
            KeyCode::Char('n' | 'N') | KeyCode::Esc => KeyCommand::ConfirmNo,
            _ => KeyCommand::Ignore,
        };
    }
    if let Mode::Filter(_) = mode {
        return KeyCommand::ToFilter;
    }
    // Keys that mean the same everywhere else.
    match key.code {
        KeyCode::Char('c') if ctrl => return KeyCommand::Quit,
        KeyCode::Char('z') if ctrl => return KeyCommand::Suspend,
        KeyCode::Char('r') if ctrl => return KeyCommand::Refresh,
        KeyCode::Char('o') if ctrl => return KeyCommand::OpenPicker,
        KeyCode::F(1) => return KeyCommand::ToggleHelp,
        KeyCode::Tab => return KeyCommand::FocusNext,
        KeyCode::BackTab => return KeyCommand::FocusPrev,
        KeyCode::PageUp => return KeyCommand::PageUp,
        KeyCode::PageDown => return KeyCommand::PageDown,
        _ => {}
    }
    match mode {
        Mode::Help => match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') => KeyCommand::ToggleHelp,
            KeyCode::Up | KeyCode::Char('k') => KeyCommand::ScrollUp(1),
            KeyCode::Down | KeyCode::Char('j') => KeyCommand::ScrollDown(1),
            _ => KeyCommand::Ignore,
        },
        Mode::Typing => KeyCommand::ToInput,
        Mode::Deciding => match key.code {
            KeyCode::Esc => KeyCommand::FocusInput,
            _ => KeyCommand::ToPrompt,
        },
        Mode::Navigating => match key.code {
            KeyCode::Char('q') => KeyCommand::Quit,
            KeyCode::Esc | KeyCode::Char('i') | KeyCode::Enter => KeyCommand::FocusInput,
            KeyCode::Up | KeyCode::Char('k') => KeyCommand::ScrollUp(1),
            KeyCode::Down | KeyCode::Char('j') => KeyCommand::ScrollDown(1),
            KeyCode::Home | KeyCode::Char('g') => KeyCommand::ScrollTop,
            KeyCode::End | KeyCode::Char('G') => KeyCommand::ScrollBottom,
            KeyCode::Char('z') => KeyCommand::ToggleZoom,
            KeyCode::Char('?') => KeyCommand::ToggleHelp,
            KeyCode::Char('m') => KeyCommand::ToggleMouseCapture,
            KeyCode::Char('d') => KeyCommand::ToggleDeltas,
            KeyCode::Char('/') => KeyCommand::StartEventFilter,
            KeyCode::Char('e') => KeyCommand::ToggleDiff,
            // Any other letter is nothing here: it never leaks into the box.
            _ => KeyCommand::Ignore,
        },
        Mode::Confirming(_) | Mode::Filter(_) => KeyCommand::Ignore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::mode::Confirm;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    #[test]
    fn every_printable_key_is_text_while_typing() {
        for c in ['q', 'z', 'm', 'j', 'y', 'n', '2', '?', '/', 'e', 'd'] {
            assert_eq!(
                command_for(key(KeyCode::Char(c)), &Mode::Typing),
                KeyCommand::ToInput,
                "{c}"
            );
        }
        assert_eq!(
            command_for(key(KeyCode::Esc), &Mode::Typing),
            KeyCommand::ToInput
        );
    }

    #[test]
    fn letters_are_commands_in_pane_navigation_and_others_do_nothing() {
        let nav = Mode::Navigating;
        assert_eq!(command_for(key(KeyCode::Char('q')), &nav), KeyCommand::Quit);
        assert_eq!(
            command_for(key(KeyCode::Char('z')), &nav),
            KeyCommand::ToggleZoom
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?')), &nav),
            KeyCommand::ToggleHelp
        );
        assert_eq!(
            command_for(key(KeyCode::Char('m')), &nav),
            KeyCommand::ToggleMouseCapture
        );
        assert_eq!(command_for(key(KeyCode::Up), &nav), KeyCommand::ScrollUp(1));
        for c in ['y', 'n', 'x', 'h', '1'] {
            assert_eq!(
                command_for(key(KeyCode::Char(c)), &nav),
                KeyCommand::Ignore,
                "{c}"
            );
        }
        assert_eq!(command_for(key(KeyCode::Esc), &nav), KeyCommand::FocusInput);
    }

    #[test]
    fn ctrl_c_asks_the_app_to_quit_and_a_second_confirms() {
        assert_eq!(command_for(ctrl('c'), &Mode::Typing), KeyCommand::Quit);
        let asking = Mode::Confirming(Confirm::Quit {
            why: "a turn runs".into(),
        });
        assert_eq!(command_for(ctrl('c'), &asking), KeyCommand::ConfirmYes);
    }

    #[test]
    fn a_confirmation_takes_only_yes_or_no() {
        let asking = Mode::Confirming(Confirm::CancelTurn);
        assert_eq!(
            command_for(key(KeyCode::Char('y')), &asking),
            KeyCommand::ConfirmYes
        );
        assert_eq!(
            command_for(key(KeyCode::Enter), &asking),
            KeyCommand::ConfirmYes
        );
        assert_eq!(
            command_for(key(KeyCode::Char('n')), &asking),
            KeyCommand::ConfirmNo
        );
        assert_eq!(
            command_for(key(KeyCode::Esc), &asking),
            KeyCommand::ConfirmNo
        );
        assert_eq!(
            command_for(key(KeyCode::Char('e')), &asking),
            KeyCommand::Ignore
        );
        assert_eq!(command_for(key(KeyCode::Tab), &asking), KeyCommand::Ignore);
    }

    #[test]
    fn decisions_are_the_prompts_keys_only_in_deciding_mode() {
        for c in ['y', 'n', '1', 'f'] {
            assert_eq!(
                command_for(key(KeyCode::Char(c)), &Mode::Deciding),
                KeyCommand::ToPrompt
            );
        }
        assert_eq!(
            command_for(key(KeyCode::Esc), &Mode::Deciding),
            KeyCommand::FocusInput
        );
    }

    #[test]
    fn paging_focus_and_help_work_from_anywhere() {
        for mode in [Mode::Typing, Mode::Navigating, Mode::Deciding] {
            assert_eq!(command_for(key(KeyCode::PageUp), &mode), KeyCommand::PageUp);
            assert_eq!(command_for(key(KeyCode::Tab), &mode), KeyCommand::FocusNext);
            assert_eq!(
                command_for(key(KeyCode::BackTab), &mode),
                KeyCommand::FocusPrev
            );
            assert_eq!(command_for(ctrl('z'), &mode), KeyCommand::Suspend);
            assert_eq!(
                command_for(key(KeyCode::F(1)), &mode),
                KeyCommand::ToggleHelp
            );
        }
    }

    #[test]
    fn help_swallows_keys_until_closed() {
        assert_eq!(
            command_for(key(KeyCode::Char('z')), &Mode::Help),
            KeyCommand::Ignore
        );
        assert_eq!(
            command_for(key(KeyCode::Esc), &Mode::Help),
            KeyCommand::ToggleHelp
        );
    }

    #[test]
    fn the_filter_takes_every_key_while_typed() {
        let filter = Mode::Filter("agent".into());
        assert_eq!(
            command_for(key(KeyCode::Char('q')), &filter),
            KeyCommand::ToFilter
        );
        assert_eq!(command_for(ctrl('c'), &filter), KeyCommand::ToFilter);
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(command_for(k, &Mode::Navigating), KeyCommand::Ignore);
    }
}
