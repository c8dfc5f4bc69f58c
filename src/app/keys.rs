//! Keys → commands. The input box has focus by default and takes every printable key;
//! single-letter commands (`q`, `z`, `?`, …) act when a pane has focus (Tab / Esc moves it
//! there). Scrolling keys that the input box has no use for (PgUp/PgDn, the wheel) always
//! scroll the transcript or the focused pane, so reading back never needs a focus change.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    /// `q` on a pane, or Ctrl+C (see [`KeyContext::input_has_text`]).
    Quit,
    /// Ctrl+C with text in the input box: the first press warns and keeps the draft, the
    /// second quits.
    ArmQuit,
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
    Approve,
    Deny,
    /// Ctrl+R: refresh the session, turns and items from the API.
    Refresh,
    /// Ctrl+O: the session picker.
    OpenPicker,
    /// Pass the key to the input box (or the prompt being answered).
    ToInput,
    /// Nothing to do.
    Ignore,
}

/// What the mapping needs to know about the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct KeyContext {
    pub(crate) input_focused: bool,
    pub(crate) input_has_text: bool,
    pub(crate) help_open: bool,
    /// An approval prompt is open above the input box.
    pub(crate) approval_pending: bool,
}

pub(crate) fn command_for(key: KeyEvent, ctx: KeyContext) -> Command {
    if key.kind == KeyEventKind::Release {
        return Command::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    // Keys that mean the same everywhere.
    match key.code {
        KeyCode::Char('c') if ctrl => {
            return if ctx.input_has_text {
                Command::ArmQuit
            } else {
                Command::Quit
            };
        }
        KeyCode::Char('z') if ctrl => return Command::Suspend,
        KeyCode::Char('r') if ctrl => return Command::Refresh,
        KeyCode::Char('o') if ctrl => return Command::OpenPicker,
        KeyCode::Tab => return Command::FocusNext,
        KeyCode::BackTab => return Command::FocusPrev,
        KeyCode::PageUp => return Command::PageUp,
        KeyCode::PageDown => return Command::PageDown,
        _ => {}
    }
    if ctx.help_open {
        return match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') => Command::ToggleHelp,
            _ => Command::Ignore,
        };
    }
    if ctx.input_focused {
        return match key.code {
            KeyCode::Esc if !ctx.input_has_text => Command::FocusNext,
            // A message rarely starts with `?`: on an empty box it opens the key list.
            KeyCode::Char('?') if !ctx.input_has_text && !ctrl => Command::ToggleHelp,
            // With an empty box, y/n answer an open approval prompt directly.
            KeyCode::Char('y') if ctx.approval_pending && !ctx.input_has_text && !ctrl => {
                Command::Approve
            }
            KeyCode::Char('n') if ctx.approval_pending && !ctx.input_has_text && !ctrl => {
                Command::Deny
            }
            _ => Command::ToInput,
        };
    }
    match key.code {
        KeyCode::Char('q') => Command::Quit,
        KeyCode::Esc | KeyCode::Char('i') => Command::FocusInput,
        KeyCode::Up | KeyCode::Char('k') => Command::ScrollUp(1),
        KeyCode::Down | KeyCode::Char('j') => Command::ScrollDown(1),
        KeyCode::Home | KeyCode::Char('g') => Command::ScrollTop,
        KeyCode::End | KeyCode::Char('G') => Command::ScrollBottom,
        KeyCode::Char('z') => Command::ToggleZoom,
        KeyCode::Char('?') => Command::ToggleHelp,
        KeyCode::Char('m') => Command::ToggleMouseCapture,
        KeyCode::Char('d') => Command::ToggleDeltas,
        KeyCode::Char('/') => Command::StartEventFilter,
        KeyCode::Char('e') => Command::ToggleDiff,
        KeyCode::Char('y') if ctx.approval_pending => Command::Approve,
        KeyCode::Char('n') if ctx.approval_pending => Command::Deny,
        // Typing anything else starts a message.
        KeyCode::Char(_) | KeyCode::Enter => Command::FocusInput,
        _ => Command::Ignore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    const INPUT: KeyContext = KeyContext {
        input_focused: true,
        input_has_text: false,
        help_open: false,
        approval_pending: false,
    };
    const PANE: KeyContext = KeyContext {
        input_focused: false,
        ..INPUT
    };

    #[test]
    fn letters_type_into_the_focused_input_box() {
        for c in ['q', 'z', 'm', 'j'] {
            assert_eq!(command_for(key(KeyCode::Char(c)), INPUT), Command::ToInput);
        }
        let typing = KeyContext {
            input_has_text: true,
            ..INPUT
        };
        assert_eq!(
            command_for(key(KeyCode::Char('?')), typing),
            Command::ToInput
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?')), INPUT),
            Command::ToggleHelp
        );
    }

    #[test]
    fn letters_are_commands_on_a_pane() {
        assert_eq!(command_for(key(KeyCode::Char('q')), PANE), Command::Quit);
        assert_eq!(
            command_for(key(KeyCode::Char('z')), PANE),
            Command::ToggleZoom
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?')), PANE),
            Command::ToggleHelp
        );
        assert_eq!(
            command_for(key(KeyCode::Char('m')), PANE),
            Command::ToggleMouseCapture
        );
        assert_eq!(command_for(key(KeyCode::Up), PANE), Command::ScrollUp(1));
    }

    #[test]
    fn ctrl_c_quits_at_once_only_with_an_empty_box() {
        assert_eq!(command_for(ctrl('c'), INPUT), Command::Quit);
        let typed = KeyContext {
            input_has_text: true,
            ..INPUT
        };
        assert_eq!(command_for(ctrl('c'), typed), Command::ArmQuit);
    }

    #[test]
    fn paging_and_focus_work_from_anywhere() {
        for ctx in [INPUT, PANE] {
            assert_eq!(command_for(key(KeyCode::PageUp), ctx), Command::PageUp);
            assert_eq!(command_for(key(KeyCode::Tab), ctx), Command::FocusNext);
            assert_eq!(command_for(key(KeyCode::BackTab), ctx), Command::FocusPrev);
            assert_eq!(command_for(ctrl('z'), ctx), Command::Suspend);
        }
    }

    #[test]
    fn y_and_n_answer_an_approval_only_when_one_is_open_and_the_box_is_empty() {
        let open = KeyContext {
            approval_pending: true,
            ..INPUT
        };
        assert_eq!(command_for(key(KeyCode::Char('y')), open), Command::Approve);
        assert_eq!(command_for(key(KeyCode::Char('n')), open), Command::Deny);
        assert_eq!(
            command_for(key(KeyCode::Char('y')), INPUT),
            Command::ToInput
        );
        let typing = KeyContext {
            input_has_text: true,
            ..open
        };
        assert_eq!(
            command_for(key(KeyCode::Char('y')), typing),
            Command::ToInput
        );
    }

    #[test]
    fn help_swallows_keys_until_closed() {
        let help = KeyContext {
            help_open: true,
            ..PANE
        };
        assert_eq!(command_for(key(KeyCode::Char('z')), help), Command::Ignore);
        assert_eq!(command_for(key(KeyCode::Esc), help), Command::ToggleHelp);
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(command_for(k, PANE), Command::Ignore);
    }
}
