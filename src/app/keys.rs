//! Keys → intents, decided by the one [`Mode`]. While typing, every printable key is text;
//! single-letter commands (`q`, `z`, `?`, `c`, `o`, …) act only in pane navigation (Esc gets
//! there), where letters that are not commands do nothing and ↑↓/j/k move the selection.
//! Decisions (approve, deny, pick) are the prompt's keys in the deciding mode (Tab from the
//! box while something waits). Scrolling keys the input box has no use for (PgUp/PgDn, the
//! wheel) always scroll, so reading back never needs a mode change.

use super::intent::Intent;
use crate::ui::mode::Mode;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Where a key goes: straight to an intent, or to the widget that has the keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyRoute {
    Do(Intent),
    /// The input box (typing).
    Input,
    /// The required-action prompt (deciding).
    Prompt,
    /// The search being typed.
    Search,
    /// The answer to the confirmation shown: yes or no.
    Confirm(bool),
    /// The open overlay (pager, list, inspector).
    Overlay,
    Ignore,
}

pub(crate) fn route(key: KeyEvent, mode: &Mode) -> KeyRoute {
    if key.kind == KeyEventKind::Release {
        return KeyRoute::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match mode {
        Mode::Confirming(_) => {
            return match key.code {
                KeyCode::Char('y' | 'Y') | KeyCode::Enter => KeyRoute::Confirm(true),
                // Ctrl+C twice quits, as in most terminal tools.
                KeyCode::Char('c') if ctrl => KeyRoute::Confirm(true),
                KeyCode::Char('n' | 'N') | KeyCode::Esc => KeyRoute::Confirm(false),
                _ => KeyRoute::Ignore,
            };
        }
        Mode::Search => return KeyRoute::Search,
        Mode::Overlay => {
            return match key.code {
                KeyCode::Char('c') if ctrl => KeyRoute::Do(Intent::Quit),
                KeyCode::Char('z') if ctrl => KeyRoute::Do(Intent::Suspend),
                // The overlay names its own keys in its frame.
                _ => KeyRoute::Overlay,
            };
        }
        Mode::Help => {
            return match key.code {
                KeyCode::Esc | KeyCode::Char('?' | 'q') | KeyCode::F(1) => {
                    KeyRoute::Do(Intent::ToggleHelp)
                }
                KeyCode::Up | KeyCode::Char('k') => KeyRoute::Do(Intent::ScrollHelp(-1)),
                KeyCode::Down | KeyCode::Char('j') => KeyRoute::Do(Intent::ScrollHelp(1)),
                KeyCode::PageUp => KeyRoute::Do(Intent::ScrollHelp(-10)),
                KeyCode::PageDown => KeyRoute::Do(Intent::ScrollHelp(10)),
                KeyCode::Char('c') if ctrl => KeyRoute::Do(Intent::Quit),
                _ => KeyRoute::Ignore,
            };
        }
        _ => {}
    }
    // Keys that mean the same everywhere else.
    let everywhere = match key.code {
        KeyCode::Char('c') if ctrl => Some(Intent::Quit),
        KeyCode::Char('z') if ctrl => Some(Intent::Suspend),
        KeyCode::Char('r') if ctrl => Some(Intent::Refresh),
        KeyCode::Char('o') if ctrl => Some(Intent::OpenPicker),
        KeyCode::F(1) => Some(Intent::ToggleHelp),
        KeyCode::Tab => Some(Intent::FocusNext),
        KeyCode::BackTab => Some(Intent::FocusPrev),
        KeyCode::PageUp => Some(Intent::Page { up: true }),
        KeyCode::PageDown => Some(Intent::Page { up: false }),
        _ => None,
    };
    if let Some(intent) = everywhere {
        return KeyRoute::Do(intent);
    }
    match mode {
        Mode::Typing => match key.code {
            KeyCode::Esc => KeyRoute::Do(Intent::ToPanes),
            _ => KeyRoute::Input,
        },
        Mode::Deciding => match key.code {
            KeyCode::Esc => KeyRoute::Do(Intent::FocusInput),
            _ => KeyRoute::Prompt,
        },
        Mode::Navigating => match key.code {
            KeyCode::Char('q') => KeyRoute::Do(Intent::Quit),
            KeyCode::Char('i') => KeyRoute::Do(Intent::FocusInput),
            // Esc clears the selection first; Enter acts on it (else both go to the box).
            KeyCode::Esc => KeyRoute::Do(Intent::Back),
            KeyCode::Enter => KeyRoute::Do(Intent::Activate),
            KeyCode::Up | KeyCode::Char('k') => KeyRoute::Do(Intent::Select(-1)),
            KeyCode::Down | KeyCode::Char('j') => KeyRoute::Do(Intent::Select(1)),
            KeyCode::Char('[') => KeyRoute::Do(Intent::SelectTurn { forward: false }),
            KeyCode::Char(']') => KeyRoute::Do(Intent::SelectTurn { forward: true }),
            KeyCode::Char('!') => KeyRoute::Do(Intent::NextError),
            // `c`, not `y`: y answers yes in confirmations and approves while deciding.
            KeyCode::Char('c') => KeyRoute::Do(Intent::Copy),
            KeyCode::Char('o') => KeyRoute::Do(Intent::OpenLink),
            KeyCode::Home | KeyCode::Char('g') => KeyRoute::Do(Intent::ScrollTop),
            KeyCode::End | KeyCode::Char('G') => KeyRoute::Do(Intent::ScrollBottom),
            KeyCode::Char('z') => KeyRoute::Do(Intent::ToggleZoom),
            KeyCode::Char('?') => KeyRoute::Do(Intent::ToggleHelp),
            KeyCode::Char('m') => KeyRoute::Do(Intent::ToggleMouseCapture),
            KeyCode::Char('d') => KeyRoute::Do(Intent::ToggleDeltas),
            KeyCode::Char('/') => KeyRoute::Do(Intent::StartSearch),
            KeyCode::Char('n') => KeyRoute::Do(Intent::SearchStep { older: true }),
            KeyCode::Char('N') => KeyRoute::Do(Intent::SearchStep { older: false }),
            KeyCode::Char('e') => KeyRoute::Do(Intent::ToggleDiff),
            KeyCode::Char('p') => KeyRoute::Do(Intent::TogglePreview),
            KeyCode::Char('s') => KeyRoute::Do(Intent::Shell),
            KeyCode::Char('x') => KeyRoute::Do(Intent::Export),
            KeyCode::Char('a') => KeyRoute::Do(Intent::OpenArtifacts),
            KeyCode::Char('f') => KeyRoute::Do(Intent::OpenFiles),
            // Any other letter is nothing here: it never leaks into the box.
            _ => KeyRoute::Ignore,
        },
        Mode::Confirming(_) | Mode::Search | Mode::Help | Mode::Overlay => KeyRoute::Ignore,
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
    fn an_overlay_has_every_key_but_quit_and_suspend() {
        for code in [
            KeyCode::Char('q'),
            KeyCode::Esc,
            KeyCode::Tab,
            KeyCode::F(1),
        ] {
            assert_eq!(
                route(key(code), &Mode::Overlay),
                KeyRoute::Overlay,
                "{code:?}"
            );
        }
        assert_eq!(route(ctrl('c'), &Mode::Overlay), KeyRoute::Do(Intent::Quit));
        assert_eq!(
            route(ctrl('z'), &Mode::Overlay),
            KeyRoute::Do(Intent::Suspend)
        );
    }

    #[test]
    fn every_printable_key_is_text_while_typing() {
        for c in [
            'q', 'z', 'm', 'j', 'y', 'n', '2', '?', '/', 'e', 'd', 'c', 'o', '[', ']', '!', 'a',
            'f',
        ] {
            assert_eq!(
                route(key(KeyCode::Char(c)), &Mode::Typing),
                KeyRoute::Input,
                "{c}"
            );
        }
        assert_eq!(
            route(key(KeyCode::Esc), &Mode::Typing),
            KeyRoute::Do(Intent::ToPanes),
            "Esc leaves the box for the panes"
        );
    }

    #[test]
    fn letters_are_commands_in_pane_navigation_and_others_do_nothing() {
        let nav = Mode::Navigating;
        assert_eq!(
            route(key(KeyCode::Char('q')), &nav),
            KeyRoute::Do(Intent::Quit)
        );
        assert_eq!(
            route(key(KeyCode::Char('z')), &nav),
            KeyRoute::Do(Intent::ToggleZoom)
        );
        assert_eq!(
            route(key(KeyCode::Char('?')), &nav),
            KeyRoute::Do(Intent::ToggleHelp)
        );
        assert_eq!(
            route(key(KeyCode::Char('m')), &nav),
            KeyRoute::Do(Intent::ToggleMouseCapture)
        );
        assert_eq!(
            route(key(KeyCode::Char('a')), &nav),
            KeyRoute::Do(Intent::OpenArtifacts)
        );
        assert_eq!(
            route(key(KeyCode::Char('f')), &nav),
            KeyRoute::Do(Intent::OpenFiles)
        );
        assert_eq!(
            route(key(KeyCode::Up), &nav),
            KeyRoute::Do(Intent::Select(-1))
        );
        assert_eq!(
            route(key(KeyCode::Char('c')), &nav),
            KeyRoute::Do(Intent::Copy)
        );
        assert_eq!(
            route(key(KeyCode::Char('o')), &nav),
            KeyRoute::Do(Intent::OpenLink)
        );
        assert_eq!(
            route(key(KeyCode::Char('s')), &nav),
            KeyRoute::Do(Intent::Shell)
        );
        assert_eq!(
            route(key(KeyCode::Char('/')), &nav),
            KeyRoute::Do(Intent::StartSearch)
        );
        assert_eq!(
            route(key(KeyCode::Char('n')), &nav),
            KeyRoute::Do(Intent::SearchStep { older: true })
        );
        assert_eq!(
            route(key(KeyCode::Char('N')), &nav),
            KeyRoute::Do(Intent::SearchStep { older: false })
        );
        // Decisions' letters (y approves elsewhere) do nothing here.
        for c in ['y', 'w', 'h', '1'] {
            assert_eq!(route(key(KeyCode::Char(c)), &nav), KeyRoute::Ignore, "{c}");
        }
        assert_eq!(route(key(KeyCode::Esc), &nav), KeyRoute::Do(Intent::Back));
        assert_eq!(
            route(key(KeyCode::Char('i')), &nav),
            KeyRoute::Do(Intent::FocusInput)
        );
    }

    #[test]
    fn ctrl_c_asks_the_app_to_quit_and_a_second_confirms() {
        assert_eq!(route(ctrl('c'), &Mode::Typing), KeyRoute::Do(Intent::Quit));
        let asking = Mode::Confirming(Confirm::Quit {
            why: "a turn runs".into(),
        });
        assert_eq!(route(ctrl('c'), &asking), KeyRoute::Confirm(true));
    }

    #[test]
    fn a_confirmation_takes_only_yes_or_no() {
        let asking = Mode::Confirming(Confirm::CancelTurn);
        assert_eq!(
            route(key(KeyCode::Char('y')), &asking),
            KeyRoute::Confirm(true)
        );
        assert_eq!(route(key(KeyCode::Enter), &asking), KeyRoute::Confirm(true));
        assert_eq!(
            route(key(KeyCode::Char('n')), &asking),
            KeyRoute::Confirm(false)
        );
        assert_eq!(route(key(KeyCode::Esc), &asking), KeyRoute::Confirm(false));
        assert_eq!(route(key(KeyCode::Char('e')), &asking), KeyRoute::Ignore);
        assert_eq!(route(key(KeyCode::Tab), &asking), KeyRoute::Ignore);
    }

    #[test]
    fn decisions_are_the_prompts_keys_only_in_deciding_mode() {
        for c in ['y', 'n', '1', 'f'] {
            assert_eq!(
                route(key(KeyCode::Char(c)), &Mode::Deciding),
                KeyRoute::Prompt
            );
        }
        assert_eq!(
            route(key(KeyCode::Esc), &Mode::Deciding),
            KeyRoute::Do(Intent::FocusInput)
        );
    }

    #[test]
    fn paging_focus_and_help_work_from_anywhere() {
        for mode in [Mode::Typing, Mode::Navigating, Mode::Deciding] {
            assert_eq!(
                route(key(KeyCode::PageUp), &mode),
                KeyRoute::Do(Intent::Page { up: true })
            );
            assert_eq!(
                route(key(KeyCode::Tab), &mode),
                KeyRoute::Do(Intent::FocusNext)
            );
            assert_eq!(
                route(key(KeyCode::BackTab), &mode),
                KeyRoute::Do(Intent::FocusPrev)
            );
            assert_eq!(route(ctrl('z'), &mode), KeyRoute::Do(Intent::Suspend));
            assert_eq!(
                route(key(KeyCode::F(1)), &mode),
                KeyRoute::Do(Intent::ToggleHelp)
            );
        }
    }

    #[test]
    fn help_swallows_keys_until_closed() {
        assert_eq!(
            route(key(KeyCode::Char('z')), &Mode::Help),
            KeyRoute::Ignore
        );
        assert_eq!(
            route(key(KeyCode::Esc), &Mode::Help),
            KeyRoute::Do(Intent::ToggleHelp)
        );
    }

    #[test]
    fn the_search_takes_every_key_while_typed() {
        for k in [key(KeyCode::Char('q')), key(KeyCode::Char('n')), ctrl('c')] {
            assert_eq!(route(k, &Mode::Search), KeyRoute::Search);
        }
    }

    #[test]
    fn x_exports_from_the_panes_and_is_text_in_the_box() {
        assert_eq!(
            route(key(KeyCode::Char('x')), &Mode::Navigating),
            KeyRoute::Do(Intent::Export)
        );
        assert_eq!(
            route(key(KeyCode::Char('x')), &Mode::Typing),
            KeyRoute::Input
        );
        assert_eq!(
            route(key(KeyCode::Char('x')), &Mode::Deciding),
            KeyRoute::Prompt
        );
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(route(k, &Mode::Navigating), KeyRoute::Ignore);
    }
}
