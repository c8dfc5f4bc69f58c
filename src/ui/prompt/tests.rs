use super::*;
use serde_json::json;

fn action(kind: &str, call_id: &str, name: Option<&str>, arguments: Value) -> RequiredAction {
    RequiredAction {
        kind: RequiredActionKind::from(kind),
        turn_id: format!("turn_of_{call_id}"),
        call_id: call_id.into(),
        name: name.map(str::to_string),
        arguments,
        created_at: Some(1_789_319_093_000),
        expires_at: None,
    }
}

fn approval() -> RequiredAction {
    action(
        "approval",
        "call_9a1f20bd",
        Some("bash"),
        json!({"command": "systemctl restart export"}),
    )
}

fn question() -> RequiredAction {
    action("question", "call_7be1c4d0", None, json!({}))
}

fn function_call() -> RequiredAction {
    action(
        "function_call",
        "call_4f01aa27",
        Some("lookup_order"),
        json!({"order_id": "A-4471"}),
    )
}

fn with_question_details(state: &mut Prompt) {
    state.set_question_details(
        "call_7be1c4d0",
        "Roll back or patch forward?",
        vec!["roll back".into(), "patch".into()],
        Some(true),
    );
}

fn press(state: &mut Prompt, code: KeyCode) -> PromptAction {
    state.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ctrl(state: &mut Prompt, c: char) -> PromptAction {
    state.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn screen(state: &Prompt, width: u16) -> String {
    let height = state.desired_height(width);
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    state.render(area, &mut buf, &Theme::default());
    crate::ui::text::buffer_text::rows_trimmed(&buf)
}

fn snapshot(name: &str, state: &Prompt, width: u16) {
    // Beside the test file, as every snapshot in the crate.
    insta::assert_snapshot!(name, screen(state, width));
}

#[test]
fn nothing_pending_takes_no_room_and_no_keys() {
    let mut state = prompt_for(&[]);
    assert_eq!(state.desired_height(80), 0);
    assert_eq!(press(&mut state, KeyCode::Char('y')), PromptAction::NotMine);
    assert_eq!(state.answer_with_text("hello"), None);
}

#[test]
fn y_and_n_answer_an_approval_with_the_verbatim_call_id() {
    for (c, approved) in [('y', true), ('n', false), ('Y', true), ('N', false)] {
        let mut state = prompt_for(&[approval()]);
        assert_eq!(
            press(&mut state, KeyCode::Char(c)),
            PromptAction::Answer(Input::Approval {
                call_id: "call_9a1f20bd".into(),
                approved
            })
        );
    }
}

#[test]
fn approval_ignores_other_keys_and_text() {
    let mut state = prompt_for(&[approval()]);
    assert_eq!(press(&mut state, KeyCode::Char('x')), PromptAction::NotMine);
    assert_eq!(press(&mut state, KeyCode::Enter), PromptAction::NotMine);
    assert_eq!(ctrl(&mut state, 'y'), PromptAction::NotMine);
    assert_eq!(state.answer_with_text("yes"), None);
    assert!(!state.is_sending());
}

#[test]
fn a_second_answer_is_refused_while_the_first_is_in_flight() {
    let mut state = prompt_for(&[approval()]);
    assert!(matches!(
        press(&mut state, KeyCode::Char('y')),
        PromptAction::Answer(_)
    ));
    assert!(state.is_sending());
    assert_eq!(
        press(&mut state, KeyCode::Char('n')),
        PromptAction::Consumed
    );
    // A failed send makes it answerable again.
    state.send_failed("call_9a1f20bd");
    assert!(matches!(
        press(&mut state, KeyCode::Char('n')),
        PromptAction::Answer(Input::Approval {
            approved: false,
            ..
        })
    ));
}

#[test]
fn question_option_picked_by_arrows_then_enter() {
    let mut state = prompt_for(&[question()]);
    with_question_details(&mut state);
    // Nothing highlighted yet: a stray Enter answers nothing, and says what would.
    assert!(matches!(
        press(&mut state, KeyCode::Enter),
        PromptAction::Explain(_)
    ));
    assert_eq!(press(&mut state, KeyCode::Down), PromptAction::Consumed);
    assert_eq!(press(&mut state, KeyCode::Down), PromptAction::Consumed);
    assert_eq!(press(&mut state, KeyCode::Down), PromptAction::Consumed);
    assert_eq!(
        press(&mut state, KeyCode::Enter),
        PromptAction::Answer(Input::QuestionAnswer {
            call_id: "call_7be1c4d0".into(),
            answer: "patch".into()
        })
    );
}

#[test]
fn question_option_picked_by_digit_then_enter() {
    let mut state = prompt_for(&[question()]);
    with_question_details(&mut state);
    assert_eq!(press(&mut state, KeyCode::Char('3')), PromptAction::NotMine);
    assert_eq!(
        press(&mut state, KeyCode::Char('1')),
        PromptAction::Consumed
    );
    assert_eq!(
        press(&mut state, KeyCode::Enter),
        PromptAction::Answer(Input::QuestionAnswer {
            call_id: "call_7be1c4d0".into(),
            answer: "roll back".into()
        })
    );
}

#[test]
fn question_free_text_answer_and_empty_refused() {
    let mut state = prompt_for(&[question()]);
    with_question_details(&mut state);
    assert_eq!(state.answer_with_text("   \n "), None);
    assert_eq!(state.answer_with_text(""), None);
    assert_eq!(
        state.answer_with_text("neither, wait"),
        Some(Input::QuestionAnswer {
            call_id: "call_7be1c4d0".into(),
            answer: "neither, wait".into()
        })
    );
    assert!(state.is_sending());
    assert_eq!(
        state.answer_with_text("again"),
        None,
        "one answer in flight"
    );
}

#[test]
fn question_without_free_text_only_takes_an_option() {
    let mut state = prompt_for(&[question()]);
    state.set_question_details(
        "call_7be1c4d0",
        "Which?",
        vec!["Roll back".into(), "patch".into()],
        Some(false),
    );
    assert_eq!(state.answer_with_text("something else"), None);
    assert_eq!(
        state.answer_with_text("roll back"),
        Some(Input::QuestionAnswer {
            call_id: "call_7be1c4d0".into(),
            answer: "Roll back".into()
        })
    );
}

#[test]
fn question_details_fall_back_to_the_action_arguments() {
    let q = action(
        "question",
        "call_q",
        None,
        json!({"question": "Deploy now?", "options": ["yes", "later"]}),
    );
    let mut state = prompt_for(&[q]);
    assert_eq!(
        press(&mut state, KeyCode::Char('2')),
        PromptAction::Consumed
    );
    assert!(matches!(
        press(&mut state, KeyCode::Enter),
        PromptAction::Answer(Input::QuestionAnswer { ref answer, .. }) if answer == "later"
    ));
    assert!(screen(&state, 60).contains("Deploy now?"));
}

#[test]
fn function_call_text_becomes_a_successful_tool_result() {
    let mut state = prompt_for(&[function_call()]);
    assert_eq!(state.answer_with_text(" "), None);
    assert_eq!(
        state.answer_with_text("{\"status\":\"shipped\"}"),
        Some(Input::ToolResult {
            turn_id: "turn_of_call_4f01aa27".into(),
            call_id: "call_4f01aa27".into(),
            success: true,
            output: Some("{\"status\":\"shipped\"}".into()),
            error: None,
        })
    );
}

#[test]
fn ctrl_f_fails_a_function_call_with_the_fixed_sentence_only() {
    let mut state = prompt_for(&[function_call()]);
    assert_eq!(press(&mut state, KeyCode::Char('x')), PromptAction::NotMine);
    assert_eq!(
        ctrl(&mut state, 'f'),
        PromptAction::Answer(Input::ToolResult {
            turn_id: "turn_of_call_4f01aa27".into(),
            call_id: "call_4f01aa27".into(),
            success: false,
            output: None,
            error: Some("The tool failed. Ask the user how to proceed.".into()),
        })
    );
    assert_eq!(ctrl(&mut state, 'f'), PromptAction::Consumed);
}

#[test]
fn ids_are_copied_verbatim_even_when_odd() {
    let odd = RequiredAction {
        turn_id: " turn\u{1b}[0m ".into(),
        ..action("function_call", "call/ä b", Some("x"), Value::Null)
    };
    let mut state = prompt_for(&[odd]);
    assert!(matches!(
        state.answer_with_text("ok"),
        Some(Input::ToolResult { ref turn_id, ref call_id, .. })
            if turn_id == " turn\u{1b}[0m " && call_id == "call/ä b"
    ));
}

#[test]
fn close_call_reveals_the_next_action() {
    let mut state = prompt_for(&[approval(), question(), function_call()]);
    assert_eq!(state.pending_count(), 3);
    assert!(press(&mut state, KeyCode::Char('y')) != PromptAction::NotMine);
    state.close_call("call_9a1f20bd");
    assert!(!state.is_sending());
    assert_eq!(state.current().unwrap().call_id, "call_7be1c4d0");
    state.close_call("unknown");
    assert_eq!(state.pending_count(), 2);
    state.close_call("call_4f01aa27");
    state.close_call("call_7be1c4d0");
    assert!(state.is_empty());
    assert_eq!(state.desired_height(80), 0);
}

#[test]
fn replace_keeps_a_send_in_flight_only_while_listed() {
    let mut state = prompt_for(&[approval(), function_call()]);
    state.set_approval_details("call_9a1f20bd", "bash", json!({"command": "ls"}), true);
    // Sensitive: `y` asks again, and only the confirmed approval is sent.
    assert_eq!(
        press(&mut state, KeyCode::Char('y')),
        PromptAction::ConfirmSensitive("call_9a1f20bd".into())
    );
    assert!(!state.is_sending());
    assert!(state.approve_confirmed("call_9a1f20bd").is_some());
    state.replace(&[approval(), function_call()]);
    assert!(state.is_sending(), "still listed: still sending");
    state.replace(&[function_call()]);
    assert!(!state.is_sending());
    assert_eq!(state.current().unwrap().call_id, "call_4f01aa27");
    // Details that arrived before the refresh listing their call are kept.
    state.replace(&[approval()]);
    assert!(screen(&state, 60).contains("⚠ sensitive"));
}

#[test]
fn key_releases_are_ignored() {
    let mut state = prompt_for(&[approval()]);
    let mut key = KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE);
    key.kind = KeyEventKind::Release;
    assert_eq!(state.handle_key(key), PromptAction::NotMine);
}

#[test]
fn hostile_strings_are_sanitized_in_the_buffer() {
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}gnp.exe";
    let mut state = prompt_for(&[
        action("approval", "c1", Some(evil), json!({ "command": evil })),
        action("question", "c2", None, json!({})),
    ]);
    state.set_question_details("c2", evil, vec![evil.into()], Some(true));
    let approval_screen = screen(&state, 70);
    state.close_call("c1");
    let question_screen = screen(&state, 70);
    for text in [approval_screen, question_screen] {
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(!text.contains('\u{7}'), "{text}");
        assert!(!text.contains('\u{202e}'), "{text}");
        assert!(text.contains("pwned"), "shown, made visible: {text}");
    }
}

#[test]
fn long_arguments_are_cut_to_a_few_lines() {
    let long = action(
        "approval",
        "c",
        Some("bash"),
        json!({"command": "x".repeat(2000)}),
    );
    let state = prompt_for(&[long]);
    // border + name + 6 arg lines + hint + border
    assert_eq!(state.desired_height(40), 2 + 1 + MAX_ARG_LINES as u16 + 1);
    assert!(screen(&state, 40).contains('…'));
}

#[test]
fn snapshot_approval_sensitive() {
    let mut state = prompt_for(&[approval()]);
    state.set_approval_details(
        "call_9a1f20bd",
        "bash",
        json!({"command": "systemctl restart export"}),
        true,
    );
    snapshot("approval_sensitive", &state, 60);
}

#[test]
fn snapshot_question_with_options() {
    let mut state = prompt_for(&[question()]);
    with_question_details(&mut state);
    let _ = press(&mut state, KeyCode::Down);
    snapshot("question_with_options", &state, 60);
}

#[test]
fn snapshot_function_call() {
    let state = prompt_for(&[function_call()]);
    snapshot("function_call", &state, 60);
}

#[test]
fn snapshot_one_of_three_pending() {
    let state = prompt_for(&[function_call(), approval(), question()]);
    snapshot("one_of_three", &state, 60);
}

#[test]
fn snapshot_sending() {
    let mut state = prompt_for(&[approval(), question()]);
    let _ = press(&mut state, KeyCode::Char('y'));
    snapshot("sending", &state, 60);
}

#[test]
fn a_short_area_keeps_the_key_hint() {
    let mut state = prompt_for(&[question()]);
    state.set_question_details(
        "call_7be1c4d0",
        "Pick one",
        (1..=9).map(|i| format!("option {i}")).collect(),
        Some(false),
    );
    let area = Rect::new(0, 0, 60, 5);
    let mut buf = Buffer::empty(area);
    state.render(area, &mut buf, &Theme::default());
    let text: String = (0..5)
        .map(|y| (0..60).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    assert!(text.contains("Pick one"), "{text}");
    assert!(text.contains("Enter answers"), "{text}");
    assert!(
        !text.contains("or type an answer"),
        "free text not allowed: {text}"
    );
}

#[test]
fn the_unfocused_hint_says_whether_typing_answers() {
    // While typing, Enter answers a question or function call with the box's text, and
    // never an approval: the hint under each says which.
    for (action, says) in [
        (approval(), "typing never answers"),
        (question(), "or type an answer below + Enter"),
        (function_call(), "or type the result below + Enter"),
    ] {
        let mut state = prompt_for(&[action]);
        state.view.set_focused(false);
        let text = screen(&state, 80);
        assert!(text.contains(says), "{text}");
    }
}

#[test]
fn in_the_inbox_the_hints_say_the_key_that_types_an_answer() {
    // The inbox has no box below: an answer is typed on the line `t` opens.
    for (action, says) in [
        (question(), "type your answer after t"),
        (function_call(), "t types the result + Enter"),
    ] {
        let mut state = prompt_for(&[action]);
        state.view.set_typed_with("t");
        let text = screen(&state, 80);
        assert!(text.contains(says), "{text}");
        assert!(
            !text.contains("below") && !text.contains("in the box"),
            "{text}"
        );
    }
}

#[test]
fn a_sensitive_approval_has_a_warning_border_and_flag() {
    let mut state = prompt_for(&[approval()]);
    let theme = Theme::default();
    let draw = |state: &Prompt| {
        let area = Rect::new(0, 0, 60, state.desired_height(60));
        let mut buf = Buffer::empty(area);
        state.render(area, &mut buf, &theme);
        buf
    };
    assert_eq!(draw(&state)[(0, 0)].fg, theme.border_focused.fg.unwrap());
    state.set_approval_details("call_9a1f20bd", "bash", Value::Null, true);
    let buf = draw(&state);
    assert_eq!(buf[(0, 0)].fg, theme.warning.fg.unwrap());
    assert_eq!(buf[(2, 1)].symbol(), "⚠");
    assert_eq!(buf[(2, 1)].fg, theme.error.fg.unwrap());
    // Null args from the event fall back to the action's own arguments.
    let text: String = (0..60).map(|x| buf[(x, 2)].symbol()).collect();
    assert!(text.contains("systemctl restart export"), "{text}");
}

/// The prompt as the app builds it: empty, then the session's list of required actions.
fn prompt_for(actions: &[RequiredAction]) -> Prompt {
    let mut prompt = Prompt::default();
    prompt.facts.replace(actions);
    // The deciding mode: the prompt has the keys and its hint lists them.
    prompt.view.set_focused(true);
    prompt
}

/// The prompt as the app has it: the session model's facts and the widget's view state.
#[derive(Default)]
struct Prompt {
    facts: Actions,
    view: PromptState,
}

impl Prompt {
    fn replace(&mut self, actions: &[RequiredAction]) {
        self.facts.replace(actions);
    }
    fn set_question_details(
        &mut self,
        id: &str,
        q: &str,
        options: Vec<String>,
        free: Option<bool>,
    ) {
        self.facts.set_question_details(id, q, options, free);
    }
    fn set_approval_details(&mut self, id: &str, name: &str, args: Value, sensitive: bool) {
        self.facts.set_approval_details(id, name, args, sensitive);
    }
    /// A resolved event: the model forgets the call.
    fn close_call(&mut self, id: &str) {
        self.facts.resolved(id);
        self.view.send_over(id);
    }
    fn send_failed(&mut self, id: &str) {
        self.view.send_over(id);
    }
    fn is_empty(&self) -> bool {
        self.facts.nothing_listed()
    }
    fn pending_count(&self) -> usize {
        self.facts.listed().count()
    }
    fn current(&self) -> Option<&RequiredAction> {
        PromptState::current(&self.facts)
    }
    fn is_sending(&self) -> bool {
        self.view.is_sending(&self.facts)
    }
    fn answer_with_text(&mut self, text: &str) -> Option<Input> {
        self.view.answer_with_text(&self.facts, text)
    }
    fn approve_confirmed(&mut self, id: &str) -> Option<Input> {
        self.view.approve_confirmed(&self.facts, id)
    }
    fn handle_key(&mut self, key: KeyEvent) -> PromptAction {
        self.view.handle_key(&self.facts, key)
    }
    fn desired_height(&self, width: u16) -> u16 {
        self.view
            .clone()
            .lay_out(&self.facts, width, &Theme::default())
    }
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.view.render(&self.facts, area, buf, theme);
    }
}

#[test]
fn a_short_area_shows_the_options_scrolled_to_the_highlighted_one() {
    let mut state = prompt_for(&[question()]);
    state.set_question_details(
        "call_7be1c4d0",
        "Which of these deploys should be rolled back first, given the error rates?",
        (1..=9).map(|i| format!("option {i}")).collect(),
        Some(false),
    );
    let draw = |state: &Prompt| {
        let area = Rect::new(0, 0, 36, 6);
        let mut buf = Buffer::empty(area);
        state.render(area, &mut buf, &Theme::default());
        (0..6)
            .map(|y| (0..36).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
            .collect::<String>()
    };
    let text = draw(&state);
    assert!(text.contains("1. option 1"), "{text}");
    assert!(text.contains("Which of these"), "{text}");
    let _ = press(&mut state, KeyCode::Char('7'));
    let text = draw(&state);
    assert!(
        text.contains("›7. option 7"),
        "scrolled to the highlight: {text}"
    );
    assert!(text.contains("Which of these"), "{text}");
    assert!(text.contains("pick"), "the key hint stays: {text}");
}

/// `may_decide` is what holds keys when a decision goes away under them: every key that
/// does something at a prompt of any kind (answers, asks again, picks) must be in it.
#[test]
fn every_key_a_prompt_takes_is_one_that_may_decide() {
    let prompts = || {
        let mut sensitive = prompt_for(&[approval()]);
        sensitive.set_approval_details("call_9a1f20bd", "bash", json!({}), true);
        let mut asked = prompt_for(&[question()]);
        with_question_details(&mut asked);
        [
            prompt_for(&[approval()]),
            sensitive,
            asked,
            prompt_for(&[function_call()]),
        ]
    };
    let keys = (' '..='~')
        .map(KeyCode::Char)
        .chain([KeyCode::Enter])
        .map(|code| KeyEvent::new(code, KeyModifiers::NONE));
    for key in keys {
        for mut prompt in prompts() {
            let taken = !matches!(
                prompt.handle_key(key),
                PromptAction::NotMine | PromptAction::Explain(_)
            );
            assert!(
                !taken || may_decide(&key),
                "{key:?} is taken by a {:?} prompt but not held when it goes away",
                prompt.current().map(|a| a.kind.clone())
            );
        }
    }
}
