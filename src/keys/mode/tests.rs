use super::*;

fn at(mode: Mode) -> Modes {
    let mut m = Modes::default();
    m.set_for_test(mode);
    m
}

#[test]
fn to_typing_ends_everything_open() {
    let mut m = Modes::default();
    m.enter_panes();
    m.toggle_help();
    m.back_to_typing();
    assert_eq!(m.current(), &Mode::Typing);
    // Nothing comes back: a later close of what was open returns nowhere else.
    m.close_overlay();
    assert_eq!(m.current(), &Mode::Typing);
}

#[test]
fn panes_and_deciding_are_entered_from_the_box() {
    let mut m = Modes::default();
    m.enter_panes();
    assert_eq!(m.current(), &Mode::Navigating);
    m.start_deciding();
    assert_eq!(m.current(), &Mode::Deciding);
    assert!(!m.deciding_touched());
    m.touch_deciding();
    assert!(m.deciding_touched());
    m.start_deciding();
    assert!(!m.deciding_touched(), "a new visit starts untouched");
}

#[test]
fn a_decision_holds_the_keys_until_esc_or_tab() {
    let mut m = at(Mode::Deciding);
    m.decided();
    assert_eq!(m.current(), &Mode::Decided);
    assert!(!m.deciding_touched());
    m.back_to_typing();
    assert_eq!(m.current(), &Mode::Typing);
}

#[test]
fn a_confirmation_answers_back_to_where_it_was_asked() {
    let mut m = at(Mode::Deciding);
    m.ask(Confirm::ApproveSensitive {
        call_id: "c".into(),
    });
    assert!(matches!(m.current(), Mode::Confirming(_)));
    assert_eq!(
        m.answered(),
        Some(Confirm::ApproveSensitive {
            call_id: "c".into()
        })
    );
    assert_eq!(m.current(), &Mode::Deciding);
    assert_eq!(m.answered(), None, "nothing was asked");
    assert_eq!(m.current(), &Mode::Deciding);
}

#[test]
fn a_second_question_replaces_the_first_and_still_returns_home() {
    let mut m = at(Mode::Navigating);
    m.ask(Confirm::CancelTurn);
    m.ask(Confirm::PublishPreview);
    assert_eq!(m.answered(), Some(Confirm::PublishPreview));
    assert_eq!(m.current(), &Mode::Navigating);
}

#[test]
fn overlays_and_help_close_back_to_where_they_opened() {
    let mut m = at(Mode::Navigating);
    m.open_overlay();
    m.open_overlay();
    assert_eq!(m.current(), &Mode::Overlay);
    m.close_overlay();
    assert_eq!(m.current(), &Mode::Navigating);
    let mut m = at(Mode::Typing);
    m.toggle_help();
    assert_eq!(m.current(), &Mode::Help);
    m.toggle_help();
    assert_eq!(m.current(), &Mode::Typing);
}

#[test]
fn an_overlay_opened_from_a_question_closes_back_to_it_and_it_answers_back_home() {
    let sensitive = Confirm::ApproveSensitive {
        call_id: "c".into(),
    };
    let mut m = at(Mode::Deciding);
    m.ask(sensitive.clone());
    m.open_overlay();
    m.close_overlay();
    assert_eq!(m.current(), &Mode::Confirming(sensitive.clone()));
    assert_eq!(m.answered(), Some(sensitive));
    assert_eq!(
        m.current(),
        &Mode::Deciding,
        "the question still goes back to where it was asked"
    );
}

#[test]
fn the_search_bar_hands_back_to_the_panes() {
    let mut m = at(Mode::Navigating);
    m.start_search();
    assert_eq!(m.current(), &Mode::Search);
    m.leave_search();
    assert_eq!(m.current(), &Mode::Navigating);
    let mut typing = Modes::default();
    typing.leave_search();
    assert_eq!(
        typing.current(),
        &Mode::Typing,
        "only the search bar leaves"
    );
}

#[test]
fn enter_never_confirms_and_says_what_does() {
    let sensitive = Confirm::ApproveSensitive {
        call_id: "c".into(),
    };
    assert!(sensitive.enter_refusal().contains("y approves"));
    assert!(Confirm::PublishPreview.enter_refusal().contains("y does"));
}

#[test]
fn questions_say_what_they_ask() {
    assert_eq!(Confirm::CancelTurn.question(), "Cancel the running turn?");
    let q = Confirm::Quit {
        why: "a turn is running".into(),
    };
    assert_eq!(q.question(), "Quit? a turn is running");
}
