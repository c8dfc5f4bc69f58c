//! Keys → commands. The input box has focus by default and takes every printable key;
//! single-letter commands (`q`, `z`, `?`, …) act when a pane has focus (Tab / Esc moves it
//! there). Scrolling keys that the input box has no use for (PgUp/PgDn, the wheel) always
//! scroll the transcript or the focused pane, so reading back never needs a focus change.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyCommand {
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

pub(crate) fn command_for(key: KeyEvent, ctx: KeyContext) -> KeyCommand {
    if key.kind == KeyEventKind::Release {
        return KeyCommand::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    // Keys that mean the same everywhere.
    match key.code {
        KeyCode::Char('c') if ctrl => {
            return if ctx.input_has_text {
                KeyCommand::ArmQuit
            } else {
                KeyCommand::Quit
            };
        }
        KeyCode::Char('z') if ctrl => return KeyCommand::Suspend,
        KeyCode::Char('r') if ctrl => return KeyCommand::Refresh,
        KeyCode::Char('o') if ctrl => return KeyCommand::OpenPicker,
        KeyCode::Tab => return KeyCommand::FocusNext,
        KeyCode::BackTab => return KeyCommand::FocusPrev,
        KeyCode::PageUp => return KeyCommand::PageUp,
        KeyCode::PageDown => return KeyCommand::PageDown,
        _ => {}
    }
    if ctx.help_open {
        return match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') => KeyCommand::ToggleHelp,
            _ => KeyCommand::Ignore,
        };
    }
    if ctx.input_focused {
        return match key.code {
            KeyCode::Esc if !ctx.input_has_text => KeyCommand::FocusNext,
            // A message rarely starts with `?`: on an empty box it opens the key list.
            KeyCode::Char('?') if !ctx.input_has_text && !ctrl => KeyCommand::ToggleHelp,
            // With an empty box, y/n answer an open approval prompt directly.
            KeyCode::Char('y') if ctx.approval_pending && !ctx.input_has_text && !ctrl => {
                KeyCommand::Approve
            }
            KeyCode::Char('n') if ctx.approval_pending && !ctx.input_has_text && !ctrl => {
                KeyCommand::Deny
            }
            _ => KeyCommand::ToInput,
        };
    }
    match key.code {
        KeyCode::Char('q') => KeyCommand::Quit,
        KeyCode::Esc | KeyCode::Char('i') => KeyCommand::FocusInput,
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
        KeyCode::Char('y') if ctx.approval_pending => KeyCommand::Approve,
        KeyCode::Char('n') if ctx.approval_pending => KeyCommand::Deny,
        // Typing anything else starts a message.
        KeyCode::Char(_) | KeyCode::Enter => KeyCommand::FocusInput,
        _ => KeyCommand::Ignore,
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
            assert_eq!(
                command_for(key(KeyCode::Char(c)), INPUT),
                KeyCommand::ToInput
            );
        }
        let typing = KeyContext {
            input_has_text: true,
            ..INPUT
        };
        assert_eq!(
            command_for(key(KeyCode::Char('?')), typing),
            KeyCommand::ToInput
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?')), INPUT),
            KeyCommand::ToggleHelp
        );
    }

    #[test]
    fn letters_are_commands_on_a_pane() {
        assert_eq!(command_for(key(KeyCode::Char('q')), PANE), KeyCommand::Quit);
        assert_eq!(
            command_for(key(KeyCode::Char('z')), PANE),
            KeyCommand::ToggleZoom
        );
        assert_eq!(
            command_for(key(KeyCode::Char('?')), PANE),
            KeyCommand::ToggleHelp
        );
        assert_eq!(
            command_for(key(KeyCode::Char('m')), PANE),
            KeyCommand::ToggleMouseCapture
        );
        assert_eq!(command_for(key(KeyCode::Up), PANE), KeyCommand::ScrollUp(1));
    }

    #[test]
    fn ctrl_c_quits_at_once_only_with_an_empty_box() {
        assert_eq!(command_for(ctrl('c'), INPUT), KeyCommand::Quit);
        let typed = KeyContext {
            input_has_text: true,
            ..INPUT
        };
        assert_eq!(command_for(ctrl('c'), typed), KeyCommand::ArmQuit);
    }

    #[test]
    fn paging_and_focus_work_from_anywhere() {
        for ctx in [INPUT, PANE] {
            assert_eq!(command_for(key(KeyCode::PageUp), ctx), KeyCommand::PageUp);
            assert_eq!(command_for(key(KeyCode::Tab), ctx), KeyCommand::FocusNext);
            assert_eq!(
                command_for(key(KeyCode::BackTab), ctx),
                KeyCommand::FocusPrev
            );
            assert_eq!(command_for(ctrl('z'), ctx), KeyCommand::Suspend);
        }
    }

    #[test]
    fn y_and_n_answer_an_approval_only_when_one_is_open_and_the_box_is_empty() {
        let open = KeyContext {
            approval_pending: true,
            ..INPUT
        };
        assert_eq!(
            command_for(key(KeyCode::Char('y')), open),
            KeyCommand::Approve
        );
        assert_eq!(command_for(key(KeyCode::Char('n')), open), KeyCommand::Deny);
        assert_eq!(
            command_for(key(KeyCode::Char('y')), INPUT),
            KeyCommand::ToInput
        );
        let typing = KeyContext {
            input_has_text: true,
            ..open
        };
        assert_eq!(
            command_for(key(KeyCode::Char('y')), typing),
            KeyCommand::ToInput
        );
    }

    #[test]
    fn help_swallows_keys_until_closed() {
        let help = KeyContext {
            help_open: true,
            ..PANE
        };
        assert_eq!(
            command_for(key(KeyCode::Char('z')), help),
            KeyCommand::Ignore
        );
        assert_eq!(command_for(key(KeyCode::Esc), help), KeyCommand::ToggleHelp);
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(command_for(k, PANE), KeyCommand::Ignore);
    }
}
