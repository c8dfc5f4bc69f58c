use super::*;
use crate::keys::mode::Confirm;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}
fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}
fn at(k: KeyEvent, mode: &Mode) -> KeyRoute {
    route(k, mode, &KeyMap::default())
}

#[test]
fn every_printable_key_is_text_while_typing() {
    for c in "qzmjyn2?/edcoa[]!f GNx".chars() {
        assert_eq!(
            at(key(KeyCode::Char(c)), &Mode::Typing),
            KeyRoute::Input,
            "{c}"
        );
    }
}

#[test]
fn esc_never_leaves_the_box_and_shift_tab_enters_the_panes() {
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Typing),
        KeyRoute::Do(Intent::Escape)
    );
    let back_tab = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(
        at(back_tab, &Mode::Typing),
        KeyRoute::Do(Intent::EnterPanes)
    );
    assert_eq!(
        at(key(KeyCode::Tab), &Mode::Typing),
        KeyRoute::Do(Intent::Decide)
    );
}

#[test]
fn esc_from_every_mode_leads_back_toward_typing() {
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Navigating),
        KeyRoute::Do(Intent::Back)
    );
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Deciding),
        KeyRoute::Do(Intent::FocusInput)
    );
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Decided),
        KeyRoute::Do(Intent::FocusInput)
    );
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Help),
        KeyRoute::Do(Intent::ToggleHelp)
    );
    assert_eq!(
        at(key(KeyCode::Esc), &Mode::Confirming(Confirm::CancelTurn)),
        KeyRoute::Confirm(false)
    );
    assert_eq!(at(key(KeyCode::Esc), &Mode::Search), KeyRoute::Search);
    assert_eq!(at(key(KeyCode::Esc), &Mode::Overlay), KeyRoute::Overlay);
}

#[test]
fn letters_are_commands_in_the_panes_and_others_do_nothing() {
    let nav = Mode::Navigating;
    let cases = [
        ('q', Intent::Quit),
        ('z', Intent::ToggleZoom),
        ('?', Intent::ToggleHelp),
        ('a', Intent::OpenArtifacts),
        ('c', Intent::Copy),
        ('/', Intent::StartSearch),
        ('n', Intent::SearchStep { older: true }),
        ('N', Intent::SearchStep { older: false }),
        ('i', Intent::FocusInput),
        ('x', Intent::Export),
    ];
    for (c, intent) in cases {
        assert_eq!(at(key(KeyCode::Char(c)), &nav), KeyRoute::Do(intent), "{c}");
    }
    for c in ['y', 'w', 'h', '1'] {
        assert_eq!(at(key(KeyCode::Char(c)), &nav), KeyRoute::Ignore, "{c}");
    }
    assert_eq!(at(key(KeyCode::Tab), &nav), KeyRoute::Do(Intent::PaneNext));
}

#[test]
fn a_confirmation_takes_y_for_yes_and_never_enter() {
    let sensitive = Mode::Confirming(Confirm::ApproveSensitive {
        call_id: "c".into(),
    });
    assert_eq!(
        at(key(KeyCode::Char('y')), &sensitive),
        KeyRoute::Confirm(true)
    );
    assert_eq!(
        at(key(KeyCode::Enter), &sensitive),
        KeyRoute::ExplainConfirm
    );
    assert_eq!(
        at(key(KeyCode::Char('n')), &sensitive),
        KeyRoute::Confirm(false)
    );
    assert_eq!(at(key(KeyCode::Char('e')), &sensitive), KeyRoute::Decline);
    assert_eq!(at(key(KeyCode::Tab), &sensitive), KeyRoute::Ignore);
    // Ctrl+C asks to quit; only a quit question takes it as yes (the app decides).
    assert_eq!(at(ctrl('c'), &sensitive), KeyRoute::Do(Intent::Quit));
}

#[test]
fn decisions_are_the_prompts_keys_only_while_deciding() {
    for c in ['y', 'n', '1', 'f', 'h'] {
        assert_eq!(at(key(KeyCode::Char(c)), &Mode::Deciding), KeyRoute::Prompt);
    }
    assert_eq!(at(key(KeyCode::Char('y')), &Mode::Decided), KeyRoute::Held);
    assert_eq!(at(key(KeyCode::Enter), &Mode::Decided), KeyRoute::Held);
    assert_eq!(
        at(key(KeyCode::Tab), &Mode::Decided),
        KeyRoute::Do(Intent::Decide)
    );
}

#[test]
fn paging_quit_and_help_work_outside_the_modal_modes() {
    for mode in [
        Mode::Typing,
        Mode::Navigating,
        Mode::Deciding,
        Mode::Decided,
    ] {
        assert_eq!(
            at(key(KeyCode::PageUp), &mode),
            KeyRoute::Do(Intent::Page { up: true })
        );
        assert_eq!(at(ctrl('z'), &mode), KeyRoute::Do(Intent::Suspend));
        assert_eq!(at(ctrl('c'), &mode), KeyRoute::Do(Intent::Quit));
        assert_eq!(
            at(key(KeyCode::F(1)), &mode),
            KeyRoute::Do(Intent::ToggleHelp)
        );
    }
    assert_eq!(at(ctrl('c'), &Mode::Overlay), KeyRoute::Do(Intent::Quit));
    assert_eq!(at(key(KeyCode::Char('z')), &Mode::Help), KeyRoute::Ignore);
}

#[test]
fn key_releases_are_ignored() {
    let mut k = key(KeyCode::Char('q'));
    k.kind = KeyEventKind::Release;
    assert_eq!(at(k, &Mode::Navigating), KeyRoute::Ignore);
}
