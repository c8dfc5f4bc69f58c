//! The keys a person presses, through the real router, app and screen (no terminal, no
//! network: what would be sent is read from the send executor's record).

use super::super::{AppOptions, SessionFront};
use crate::keys::mode::Mode;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::model::{Content, Input, RequiredAction, RequiredActionKind};
use gobare_api::stream::StreamOptions;
use proptest::prelude::*;

/// An app on a session no one serves: nothing it hands the sender ever leaves (the test's
/// runtime never runs the send tasks).
pub(crate) struct Rig {
    pub(crate) app: SessionFront,
    listed: Vec<RequiredAction>,
    next_call: u32,
    _runtime: tokio::runtime::Runtime,
}

impl Rig {
    pub(crate) fn new() -> Rig {
        Rig::with_store(None)
    }

    /// With the session's state kept by `store` (its memory, on disk).
    pub(crate) fn with_store(store: Option<crate::store::StateStore>) -> Rig {
        Rig::with_options(|options| options.store = store)
    }

    /// With the app's options as `set` leaves them.
    pub(crate) fn with_options(set: impl FnOnce(&mut AppOptions)) -> Rig {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let app = {
            let _in = runtime.enter();
            let api = url::Url::parse("http://127.0.0.1:9").unwrap();
            let client = ApiClient::new(ClientOptions::new(api.clone(), None)).unwrap();
            let stream = StreamOptions {
                api,
                ..StreamOptions::default()
            };
            let mut options = AppOptions::new(client, stream, "ses_keys");
            set(&mut options);
            let mut app = SessionFront::new(options, crate::terminal::detached());
            app.clipboard_record = Some(Vec::new());
            app
        };
        Rig {
            app,
            listed: Vec::new(),
            next_call: 0,
            _runtime: runtime,
        }
    }

    pub(crate) fn key(&mut self, code: KeyCode, mods: KeyModifiers) {
        let _in = self._runtime.enter();
        self.app
            .on_terminal_event(Event::Key(KeyEvent::new(code, mods)))
            .unwrap();
    }

    pub(crate) fn press(&mut self, code: KeyCode) {
        self.key(code, KeyModifiers::NONE);
    }

    pub(crate) fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.press(KeyCode::Char(c));
        }
    }

    /// A required action of `kind` is listed (sensitive: an approval that asks twice).
    pub(crate) fn arrive(&mut self, kind: Arrival) -> String {
        self.next_call += 1;
        let call_id = format!("call_{}", self.next_call);
        let (action_kind, name) = match kind {
            Arrival::Approval | Arrival::SensitiveApproval => {
                (RequiredActionKind::Approval, "bash")
            }
            Arrival::Question | Arrival::ChoiceQuestion => {
                (RequiredActionKind::Question, "question")
            }
            Arrival::FunctionCall => (RequiredActionKind::FunctionCall, "lookup_order"),
        };
        self.listed.push(RequiredAction {
            kind: action_kind,
            turn_id: "turn_1".into(),
            call_id: call_id.clone(),
            name: Some(name.into()),
            arguments: serde_json::json!({"command": "ls"}),
            created_at: Some(0),
            expires_at: None,
        });
        self.listed_changed();
        let actions = self.app.session.actions_mut();
        match kind {
            Arrival::SensitiveApproval => {
                actions.set_approval_details(&call_id, "bash", serde_json::json!({}), true)
            }
            Arrival::Question => actions.set_question_details(
                &call_id,
                "Which way?",
                vec!["left".into(), "right".into()],
                None,
            ),
            Arrival::ChoiceQuestion => actions.set_question_details(
                &call_id,
                "Which way?",
                vec!["left".into(), "right".into()],
                Some(false),
            ),
            _ => {}
        }
        call_id
    }

    /// A persisted event as the stream delivers it: applied, indexed for search.
    pub(crate) fn stream_event(&mut self, kind: &str, seq: u64, payload: serde_json::Value) {
        use gobare_api::stream::{QueueSlot, StreamFrame, StreamUpdate};
        let env = serde_json::json!({"type": kind, "seq": seq,
            "created_at": 1_789_319_090_000i64 + seq as i64 * 1000, "payload": payload});
        let event = gobare_api::model::Event::parse(&env.to_string()).unwrap();
        let frame = StreamFrame {
            id: Some(seq),
            data: Default::default(),
            created_at: event.created_at,
            event: Ok(event),
            slot: QueueSlot::default(),
        };
        self.app
            .on_stream(StreamUpdate::Frame(frame), std::time::Instant::now());
    }

    /// Until the query typed last has read the whole index, its hits handed to the app as
    /// the loop hands them (older queries' hits are dropped there).
    pub(crate) fn search_done(&mut self) {
        loop {
            let msg = self
                .app
                .msgs_rx
                .blocking_recv()
                .expect("the app's channel is open");
            let done = matches!(&msg, crate::app::session::AppMsg::SearchHits { generation, done: true, .. }
                if *generation == self.app.screen.search.generation());
            self.app.on_msg(msg);
            if done {
                return;
            }
        }
    }

    /// The first listed action goes away (expired, or resolved elsewhere).
    pub(crate) fn expire(&mut self) {
        if self.listed.is_empty() {
            return;
        }
        let gone = self.listed.remove(0);
        self.app.session.actions_mut().resolved(&gone.call_id);
        self.listed_changed();
    }

    /// The session lists `listed` now; the first is on screen long enough for Tab to
    /// decide it (a test of one just come resets `decision_seen` itself).
    fn listed_changed(&mut self) {
        self.app.session.actions_mut().replace(&self.listed);
        if let Some(first) = self.listed.first() {
            self.app.decision_seen.seen_long_ago(&first.call_id);
        }
    }

    /// A sensitive approval whose command (eight restarts joined) is too long for a small
    /// screen; gives the command.
    pub(crate) fn arrive_long_sensitive(&mut self) -> String {
        let call = self.arrive(Arrival::SensitiveApproval);
        let command = (1..=8)
            .map(|n| format!("systemctl restart export-worker-{n}"))
            .collect::<Vec<_>>()
            .join(" && ");
        self.app.session.actions_mut().set_approval_details(
            &call,
            "bash",
            serde_json::json!({ "command": command }),
            true,
        );
        command
    }

    pub(crate) fn sent(&self) -> &[Input] {
        &self.app.acting.sent
    }

    pub(crate) fn box_text(&self) -> String {
        self.app.screen.composer.text()
    }

    /// The screen as it would be drawn now, as text.
    pub(crate) fn screen_text(&mut self, width: u16, height: u16) -> String {
        self.app.prepare_frame();
        let away = self.app.away_on_screen();
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
        let SessionFront {
            screen,
            session,
            theme,
            ..
        } = &mut self.app;
        terminal
            .draw(|f| super::super::draw::frame(f, screen, session, theme, None, away.as_ref()))
            .unwrap();
        let buf = terminal.backend().buffer();
        crate::ui::text::buffer_text::rows(buf)
    }

    pub(crate) fn notice(&self) -> String {
        self.app
            .session
            .notice()
            .map(|n| n.text.clone())
            .unwrap_or_default()
    }

    pub(crate) fn mode(&self) -> Mode {
        self.app.screen.mode().clone()
    }

    /// The input box's title as the next frame draws it.
    pub(crate) fn title(&mut self) -> String {
        self.app.prepare_frame();
        self.app.screen.mode_title().to_string()
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Arrival {
    Approval,
    SensitiveApproval,
    Question,
    /// A question that takes only its options' words.
    ChoiceQuestion,
    FunctionCall,
}

#[derive(Debug, Clone)]
enum Step {
    Esc,
    Tab,
    BackTab,
    Enter,
    Arrive(Arrival),
    Expire,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Esc),
        2 => Just(Step::Tab),
        1 => Just(Step::BackTab),
        1 => Just(Step::Enter),
        1 => Just(Step::Arrive(Arrival::Approval)),
        1 => Just(Step::Arrive(Arrival::SensitiveApproval)),
        1 => Just(Step::Arrive(Arrival::Question)),
        1 => Just(Step::Arrive(Arrival::FunctionCall)),
        1 => Just(Step::Expire),
    ]
}

fn apply(rig: &mut Rig, step: &Step) {
    match step {
        Step::Esc => rig.press(KeyCode::Esc),
        Step::Tab => rig.press(KeyCode::Tab),
        Step::BackTab => rig.key(KeyCode::BackTab, KeyModifiers::SHIFT),
        Step::Enter => rig.press(KeyCode::Enter),
        Step::Arrive(kind) => {
            rig.arrive(*kind);
        }
        Step::Expire => rig.expire(),
    }
}

fn message_text(input: &Input) -> Option<&str> {
    match input {
        Input::Message {
            content: Content::Text(text),
        } => Some(text),
        _ => None,
    }
}

fn is_answer(input: &Input) -> bool {
    matches!(
        input,
        Input::Approval { .. } | Input::QuestionAnswer { .. } | Input::ToolResult { .. }
    )
}

/// Where keys may be while a sentence is typed: anywhere that is not a command mode.
fn takes_text_or_decides(mode: &Mode) -> bool {
    !matches!(
        mode,
        Mode::Navigating | Mode::Help | Mode::Search | Mode::Overlay
    )
}

/// What became of `sentence` (typed, then Enter) after `steps`, with `during` happening
/// after its `at`-th character. `Err` says how it went wrong.
fn outcome(steps: &[Step], sentence: &str, during: Option<(usize, Step)>) -> Result<(), String> {
    let mut rig = Rig::new();
    for s in steps {
        apply(&mut rig, s);
    }
    let sent_before = rig.sent().len();
    let box_before = rig.box_text();
    let mode_at_start = rig.mode();
    if mode_at_start == Mode::Navigating {
        // Shift+Tab, the one deliberate key into the panes: letters are commands there,
        // and the screen must say so before the first of them.
        let shown = rig.screen_text(100, 30);
        if !shown.contains(crate::ui::composer::COMMANDS_TEXT) {
            return Err(format!("the panes have the keys unannounced:\n{shown}"));
        }
        return Ok(());
    }
    let first_decides = mode_at_start == Mode::Deciding
        && sentence
            .chars()
            .next()
            // `a` / `d` on an approval ask before deciding and adding a rule: a decision key
            // of the visible deciding mode, hinted there like y and n.
            .is_some_and(|c| "yYnNfad0123456789".contains(c));
    for (i, c) in sentence.chars().enumerate() {
        rig.press(KeyCode::Char(c));
        let typed: String = sentence.chars().take(i + 1).collect();
        if !takes_text_or_decides(&rig.mode()) {
            return Err(format!(
                "after {typed:?} the keys became commands: mode {:?}",
                rig.mode()
            ));
        }
        if rig.app.quit {
            return Err(format!("{typed:?} quit the app"));
        }
        if let Some((at, s)) = &during
            && *at == i
        {
            apply(&mut rig, s);
        }
    }
    rig.press(KeyCode::Enter);
    let new: Vec<Input> = rig.sent()[sent_before..].to_vec();
    let trimmed = sentence.trim();
    let messages: Vec<&str> = new.iter().filter_map(message_text).collect();
    let answers: Vec<&Input> = new.iter().filter(|i| is_answer(i)).collect();
    let others = new.len() - messages.len() - answers.len();
    if others > 0 {
        return Err(format!("sent something else: {new:?}"));
    }
    let whole_message = messages == [trimmed] && answers.is_empty();
    let kept_whole = new.is_empty() && rig.box_text() == format!("{box_before}{sentence}");
    let text_answer = messages.is_empty()
        && answers.len() == 1
        && match answers[0] {
            Input::QuestionAnswer { answer, .. } => answer == trimmed,
            Input::ToolResult { output, .. } => output.as_deref() == Some(trimmed),
            _ => false,
        };
    // A decision key pressed in the visible deciding mode: at most that one answer, and none
    // of the sentence left behind as text.
    let decided =
        first_decides && messages.is_empty() && answers.len() <= 1 && rig.box_text() == box_before;
    if whole_message || kept_whole || text_answer || decided {
        Ok(())
    } else {
        Err(format!(
            "{sentence:?} from {mode_at_start:?}: sent {new:?}, box {:?}",
            rig.box_text()
        ))
    }
}

fn sentence() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9?/!\\[\\]][a-zA-Z0-9 ?/!\\[\\],.]{0,24}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// For any sequence of Esc, Tab, Shift+Tab, Enter and decisions arriving and going, a
    /// sentence then typed and sent is one whole message, kept whole in the box, or an
    /// explicit answer: never a command, never a part of it. (After Shift+Tab, the one key
    /// into the panes, the screen says letters are commands.)
    #[test]
    fn a_typed_sentence_is_never_a_command_nor_partial(
        steps in prop::collection::vec(step(), 0..8),
        text in sentence(),
        during in prop::option::of((0usize..24, prop_oneof![
            Just(Step::Expire),
            Just(Step::Arrive(Arrival::Question)),
            Just(Step::Arrive(Arrival::FunctionCall)),
            Just(Step::Arrive(Arrival::Approval)),
        ])),
    ) {
        if let Err(why) = outcome(&steps, &text, during) {
            return Err(TestCaseError::fail(why));
        }
    }
}

#[test]
fn esc_pressed_three_times_then_a_sentence_is_text() {
    let steps = [Step::Esc, Step::Esc, Step::Esc];
    outcome(&steps, "a question on the job", None).unwrap();
}

#[test]
fn tab_goes_to_the_waiting_decision_and_only_there() {
    let mut rig = Rig::new();
    rig.press(KeyCode::Tab);
    assert_eq!(rig.mode(), Mode::Typing);
    assert_eq!(rig.notice(), "nothing waits on you");
    rig.type_text("yy");
    assert_eq!(
        rig.box_text(),
        "yy",
        "a decision's keys typed early are text"
    );
    assert!(rig.sent().is_empty());
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    assert_eq!(rig.mode(), Mode::Deciding);
}

#[test]
fn shift_tab_enters_the_panes_and_the_screen_says_so() {
    let mut rig = Rig::new();
    rig.type_text("draft");
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(rig.mode(), Mode::Navigating);
    let shown = rig.screen_text(100, 30);
    assert!(
        shown.contains(crate::ui::composer::COMMANDS_TEXT),
        "{shown}"
    );
    assert!(shown.contains("Panes · Transcript"), "{shown}");
    assert!(shown.contains("keys → Transcript pane"), "{shown}");
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), Mode::Typing);
    assert_eq!(rig.box_text(), "draft", "the draft waited");
}

#[test]
fn a_sensitive_approval_takes_y_twice_and_never_enter() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::SensitiveApproval);
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    assert!(matches!(rig.mode(), Mode::Confirming(_)));
    rig.press(KeyCode::Enter);
    assert!(rig.sent().is_empty(), "Enter approved: {:?}", rig.sent());
    assert!(
        rig.notice().contains("Enter does not approve"),
        "{}",
        rig.notice()
    );
    rig.type_text("y");
    assert!(
        matches!(rig.sent(), [Input::Approval { approved: true, .. }]),
        "{:?}",
        rig.sent()
    );
    assert_eq!(rig.mode(), Mode::Decided);
    rig.type_text("es and more");
    rig.press(KeyCode::Enter);
    assert_eq!(rig.sent().len(), 1, "held after the decision");
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), Mode::Typing);
}

#[test]
fn an_answer_whose_call_expired_stays_in_the_box_until_a_second_enter() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::FunctionCall);
    rig.type_text("order 42 shipped");
    rig.expire();
    rig.press(KeyCode::Enter);
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert_eq!(rig.box_text(), "order 42 shipped");
    assert!(
        rig.notice().contains("Enter sends this as a message"),
        "{}",
        rig.notice()
    );
    rig.press(KeyCode::Enter);
    assert_eq!(
        rig.sent()
            .iter()
            .filter_map(message_text)
            .collect::<Vec<_>>(),
        ["order 42 shipped"]
    );
}

#[test]
fn a_question_arriving_never_takes_a_draft_begun_before_it() {
    let mut rig = Rig::new();
    rig.type_text("run the tests");
    rig.arrive(Arrival::Question);
    rig.press(KeyCode::Enter);
    assert_eq!(
        rig.sent()
            .iter()
            .filter_map(message_text)
            .collect::<Vec<_>>(),
        ["run the tests"]
    );
    rig.type_text("left");
    rig.press(KeyCode::Enter);
    assert!(
        matches!(rig.sent().last(), Some(Input::QuestionAnswer { answer, .. }) if answer == "left"),
        "{:?}",
        rig.sent()
    );
}

#[test]
fn quitting_asks_only_when_something_would_be_lost() {
    let mut idle = Rig::new();
    idle.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(idle.app.quit, "nothing to lose: at once");
    let mut drafting = Rig::new();
    drafting.type_text("half a thought");
    drafting.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(!drafting.app.quit);
    assert!(matches!(drafting.mode(), Mode::Confirming(_)));
    drafting.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(drafting.app.quit, "a second Ctrl+C confirms");
}

#[test]
fn ctrl_c_on_a_sensitive_confirmation_is_not_yes() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::SensitiveApproval);
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    rig.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert!(
        matches!(
            rig.mode(),
            Mode::Confirming(crate::keys::mode::Confirm::Quit { .. })
        ),
        "{:?}",
        rig.mode()
    );
}

#[test]
fn esc_any_number_of_times_from_anywhere_ends_in_typing() {
    for opening in [
        vec![(KeyCode::BackTab, KeyModifiers::SHIFT)],
        vec![(KeyCode::F(1), KeyModifiers::NONE)],
        vec![
            (KeyCode::BackTab, KeyModifiers::SHIFT),
            (KeyCode::Char('/'), KeyModifiers::NONE),
        ],
        vec![(KeyCode::Tab, KeyModifiers::NONE)],
    ] {
        let mut rig = Rig::new();
        rig.arrive(Arrival::Approval);
        for (code, mods) in &opening {
            rig.key(*code, *mods);
        }
        for _ in 0..3 {
            rig.press(KeyCode::Esc);
        }
        assert_eq!(rig.mode(), Mode::Typing, "after {opening:?}");
    }
}

#[test]
fn a_decision_takes_the_boxs_text_along_as_a_steer_note() {
    for (key, approved) in [('y', true), ('n', false)] {
        let mut rig = Rig::new();
        rig.arrive(Arrival::Approval);
        rig.type_text("only in /tmp");
        let shown = rig.screen_text(100, 30);
        assert!(shown.contains("Tab decide"), "{shown}");
        rig.press(KeyCode::Tab);
        let shown = rig.screen_text(100, 30);
        assert!(shown.contains("a note never narrows"), "{shown}");
        rig.type_text(&key.to_string());
        match rig.sent() {
            [
                Input::Approval { approved: a, .. },
                Input::Steer {
                    content: Content::Text(note),
                },
            ] => {
                assert_eq!(*a, approved);
                assert_eq!(note, "only in /tmp");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(rig.box_text(), "", "the note left the box");
    }
}

#[test]
fn a_sensitive_approval_with_a_note_sends_it_after_the_second_y() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::SensitiveApproval);
    rig.type_text("and restart nothing else");
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    assert!(rig.sent().is_empty());
    rig.type_text("y");
    assert!(
        matches!(
            rig.sent(),
            [Input::Approval { approved: true, .. }, Input::Steer { .. }]
        ),
        "{:?}",
        rig.sent()
    );
}

#[test]
fn a_recalled_message_still_queued_says_so_and_enter_asks_before_queuing_it_twice() {
    use crate::keys::mode::Confirm;
    use crate::session::Update;
    let mut rig = Rig::new();
    let event = |kind: &str, seq: u64, payload: serde_json::Value| {
        let env =
            serde_json::json!({"type": kind, "seq": seq, "created_at": 1000, "payload": payload});
        gobare_api::model::Event::parse(&env.to_string()).unwrap()
    };
    let text = "also check the retry queue";
    rig.app.session.apply(Update::Event(event(
        "turn.started",
        1,
        serde_json::json!({"turnId": "turn_1"}),
    )));
    rig.app.session.apply(Update::Event(event(
        "message.queued",
        2,
        serde_json::json!({"text": text, "position": 1}),
    )));
    rig.app.acting.history.push(text);

    rig.press(KeyCode::Up);
    assert_eq!(rig.box_text(), text);
    assert!(
        rig.notice().contains("cannot be withdrawn"),
        "{}",
        rig.notice()
    );
    rig.press(KeyCode::Enter);
    assert_eq!(rig.mode(), Mode::Confirming(Confirm::QueueAgain));
    // Enter is not yes; n keeps it in the box and says what else there is.
    rig.press(KeyCode::Enter);
    rig.press(KeyCode::Char('n'));
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert_eq!(rig.box_text(), text);
    assert!(rig.notice().contains("Ctrl+S sends it as a steer"));
    // y queues it a second time, deliberately.
    rig.press(KeyCode::Enter);
    rig.press(KeyCode::Char('y'));
    let sent: Vec<&str> = rig.sent().iter().filter_map(message_text).collect();
    assert_eq!(sent, [text]);
}

#[test]
fn a_sentence_typed_after_a_decision_is_held_not_sent_and_ctrl_y_puts_it_back() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    assert!(
        matches!(rig.sent(), [Input::Approval { approved: true, .. }]),
        "{:?}",
        rig.sent()
    );
    rig.type_text("check the logs next");
    rig.press(KeyCode::Enter);
    assert_eq!(rig.sent().len(), 1, "held, not sent: {:?}", rig.sent());
    assert_eq!(rig.box_text(), "", "held, not text");
    assert!(
        rig.notice()
            .contains("held, not sent: \"check the logs next\"")
            && rig.notice().contains("Ctrl+Y"),
        "{}",
        rig.notice()
    );
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), Mode::Typing);
    rig.key(KeyCode::Char('y'), KeyModifiers::CONTROL);
    assert_eq!(rig.box_text(), "check the logs next", "offered back whole");
    assert_eq!(rig.sent().len(), 1, "still only the decision");
}

#[test]
fn shift_t_in_the_panes_goes_to_the_next_theme_and_says_which() {
    use crate::ui::theme::ThemeName;
    let mut rig = Rig::new();
    rig.app.theme_name = ThemeName::Dark;
    rig.app.no_color = false;
    let before = rig.app.theme.clone();
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    rig.key(KeyCode::Char('T'), KeyModifiers::SHIFT);
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        assert!(rig.notice().contains("colours are off"), "{}", rig.notice());
        return;
    }
    assert_eq!(rig.app.theme_name, ThemeName::Light);
    assert_ne!(rig.app.theme, before);
    assert!(rig.notice().contains("theme: light"), "{}", rig.notice());
    // Typing, the same letter is text.
    rig.press(KeyCode::Esc);
    rig.type_text("T");
    assert_eq!(
        (rig.app.theme_name, rig.box_text()),
        (ThemeName::Light, "T".to_string())
    );
    // With colours off there is no theme to go to, and it says so.
    rig.app.no_color = true;
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    rig.key(KeyCode::Char('T'), KeyModifiers::SHIFT);
    assert!(rig.notice().contains("colours are off"), "{}", rig.notice());
}

/// A send that got no answer comes back into the box; the draft typed meanwhile goes to
/// the history, and that history is the session file's too: one ↑ away after a restart.
#[test]
fn a_draft_stashed_by_an_unanswered_send_is_in_the_history_after_a_restart() {
    use crate::app::shared::saved_session::LockOrRecover;
    use crate::app::shared::send_outcome::{Outcome, SendFailure};
    use crate::app::shared::sender::{SendReport, SendTicket};
    use crate::session::Severity;

    let home = tempfile::tempdir().unwrap();
    let api = url::Url::parse("http://127.0.0.1:9").unwrap();
    let store = crate::store::StateStore::at(home.path(), &api);
    let mut rig = Rig::with_store(Some(store.clone()));
    rig.type_text("first");
    rig.press(KeyCode::Enter);
    rig.type_text("second thought");
    let report = SendReport {
        ticket: SendTicket(1),
        input: Input::Message {
            content: Content::Text("first".into()),
        },
        key: "k1".into(),
        text: Some("first".into()),
        recovered: false,
        attempts: 3,
        result: Err(SendFailure::default()),
        unanswered: true,
        outcome: Outcome {
            severity: Severity::Warn,
            text: "no answer".into(),
            queued_at: None,
            keep_draft: true,
            offer_send_as_message: false,
        },
    };
    rig.app.on_send_settled(report);
    assert_eq!(rig.box_text(), "first");
    assert_eq!(rig.app.acting.history.entries(), ["second thought"]);
    let saved_session = rig.app.acting.saved_session().unwrap().clone();
    saved_session.lock_or_recover().flush().unwrap();
    drop(rig);

    let again = crate::app::shared::saved_session::SavedSession::open(store, "ses_keys");
    assert_eq!(
        again.history().entries(),
        ["second thought"],
        "the stashed draft survives a restart"
    );
}

fn turn_event(kind: &str, seq: u64) -> gobare_api::model::Event {
    let env = serde_json::json!({"type": kind, "seq": seq, "created_at": 1000,
        "payload": {"turnId": "turn_1"}});
    gobare_api::model::Event::parse(&env.to_string()).unwrap()
}

#[test]
fn keys_are_held_after_a_decision_only_until_the_turn_that_asked_it_ends() {
    use crate::session::Update;
    let mut rig = Rig::new();
    rig.app
        .session
        .apply(Update::Event(turn_event("turn.started", 1)));
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    assert_eq!(rig.mode(), Mode::Decided);
    rig.type_text("ok");
    assert!(rig.notice().contains("held, not sent"), "{}", rig.notice());
    rig.app
        .session
        .apply(Update::Event(turn_event("turn.ended", 2)));
    rig.app.end_hold_if_over(std::time::Instant::now());
    assert_eq!(rig.mode(), Mode::Typing, "the turn that asked ended");
    assert!(
        rig.screen_text(100, 30).contains(" Typing"),
        "the title says the box has the keys"
    );
    assert!(rig.notice().contains("typing again"), "{}", rig.notice());
    rig.type_text("thanks");
    assert_eq!(rig.box_text(), "thanks", "text, not held");
    // Ctrl+Y puts back what was held, and the word about it goes with it.
    rig.key(KeyCode::Char('y'), KeyModifiers::CONTROL);
    assert_eq!(rig.box_text(), "thanksok");
    assert_eq!(rig.notice(), "", "the notice went with the held keys");
}

#[test]
fn keys_are_held_only_for_the_moment_after_a_decision() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    rig.type_text("y");
    assert_eq!(rig.mode(), Mode::Decided, "a second y at once is held");
    let later = std::time::Instant::now() + super::super::decided_hold::HOLD_FOR;
    rig.app.end_hold_if_over(later);
    assert_eq!(rig.mode(), Mode::Typing);
    rig.type_text("thanks");
    assert_eq!(rig.box_text(), "thanks");
    assert_eq!(rig.sent().len(), 1, "only the decision");
}

#[test]
fn ctrl_y_putting_held_keys_back_takes_the_held_notice_away() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("yabc");
    assert!(rig.notice().contains("held, not sent"), "{}", rig.notice());
    rig.press(KeyCode::Esc);
    rig.key(KeyCode::Char('y'), KeyModifiers::CONTROL);
    assert_eq!(rig.box_text(), "abc");
    assert_eq!(rig.notice(), "");
}

/// An option picked, then the question gone (it expired): the rest of the sentence was typed
/// at the prompt, so it is held, never sent as a message (proptest seed `7dac011d…`).
#[test]
fn a_question_gone_after_an_option_was_picked_holds_what_follows() {
    let steps = [Step::Arrive(Arrival::Question), Step::Tab];
    outcome(&steps, "1,a?A ", Some((0, Step::Expire))).unwrap();

    let mut rig = Rig::new();
    rig.arrive(Arrival::Question);
    rig.press(KeyCode::Tab);
    rig.type_text("1");
    rig.expire();
    rig.type_text("and more");
    rig.press(KeyCode::Enter);
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert_eq!(rig.box_text(), "");
    assert_eq!(rig.mode(), Mode::Decided);
    assert!(
        rig.notice()
            .starts_with("that decision no longer waits — held, not sent: \"and more\""),
        "{}",
        rig.notice()
    );
    rig.press(KeyCode::Esc);
    rig.key(KeyCode::Char('y'), KeyModifiers::CONTROL);
    assert_eq!(rig.box_text(), "and more", "what was held comes back");
}

/// An approval drawn the instant before a Tab meant for the box: the Tab does not take the
/// keys to it, and the `yes` that follows is text (Tab decides once it has been seen).
#[test]
fn tab_the_instant_an_approval_arrives_leaves_the_keys_in_the_box() {
    let mut rig = Rig::new();
    let call = rig.arrive(Arrival::Approval);
    let now = crate::app::session::decided_hold::key_time();
    rig.app.decision_seen = Default::default();
    rig.app.decision_seen.drawn(Some(&call), now);
    rig.press(KeyCode::Tab);
    assert_eq!(rig.mode(), Mode::Typing);
    assert!(
        rig.notice().starts_with("a decision just arrived"),
        "{}",
        rig.notice()
    );
    rig.type_text("yes, and");
    assert_eq!(rig.box_text(), "yes, and");
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    // Once it has been on screen a moment, Tab decides it.
    rig.app.decision_seen.seen_long_ago(&call);
    rig.press(KeyCode::Tab);
    assert_eq!(rig.mode(), Mode::Deciding);
}

/// Tab, the approval expires, then the `y` and Enter habit: the `y` was meant for the
/// approval; neither it nor the Enter becomes a message.
#[test]
fn y_then_enter_after_the_approval_went_away_sends_nothing() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.expire();
    rig.press(KeyCode::Char('y'));
    rig.press(KeyCode::Enter);
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert_eq!(rig.box_text(), "");
    assert!(
        rig.notice().starts_with("that decision no longer waits"),
        "{}",
        rig.notice()
    );
    // A word that decides nothing is the start of the person's text, as before.
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.expire();
    rig.type_text("go on");
    assert_eq!(rig.box_text(), "go on");
    assert_eq!(rig.mode(), Mode::Typing);
}

/// `a` asks to add a rule, `n` says no: back at the prompt, the next key is not the start
/// of a message (proptest seed `13194f5b…`: "an0" sent "0").
#[test]
fn after_declining_a_rule_question_the_prompt_keeps_the_keys() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("an");
    assert_eq!(rig.mode(), Mode::Deciding);
    rig.type_text("0");
    rig.press(KeyCode::Enter);
    assert!(rig.sent().is_empty(), "{:?}", rig.sent());
    assert_eq!(rig.box_text(), "");
    assert!(
        rig.notice().contains("decides nothing here"),
        "{}",
        rig.notice()
    );
}

/// Keys held after a decision, then Ctrl+C at once: the quit question speaks of a draft
/// and the box keeps what was typed (nothing typed is lost by quitting).
#[test]
fn quitting_with_keys_held_keeps_them_as_the_draft() {
    let mut rig = Rig::new();
    rig.arrive(Arrival::Approval);
    rig.press(KeyCode::Tab);
    rig.type_text("ydraft kept");
    assert_eq!(rig.mode(), Mode::Decided);
    assert_eq!(rig.box_text(), "");
    rig.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    match rig.mode() {
        Mode::Confirming(crate::keys::mode::Confirm::Quit { why }) => {
            assert!(why.contains("you have a draft"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(rig.box_text(), "draft kept");
    assert!(!rig.notice().contains("held, not sent"), "{}", rig.notice());
}

#[test]
fn a_kept_search_ends_when_the_panes_give_the_keys_back() {
    let mut rig = Rig::new();
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    rig.press(KeyCode::Char('/'));
    rig.type_text("Review");
    rig.press(KeyCode::Enter);
    assert_eq!(rig.mode(), Mode::Navigating);
    let shown = rig.screen_text(120, 30);
    assert!(
        shown.contains("/Review") && shown.contains("n older"),
        "{shown}"
    );
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), Mode::Typing);
    let shown = rig.screen_text(120, 30);
    assert!(
        !shown.contains("/Review") && !shown.contains("n older"),
        "the search's line outlived it:\n{shown}"
    );
    assert!(!rig.app.screen.search.is_active());
    rig.type_text("n");
    assert_eq!(rig.box_text(), "n", "n is text in the box");
}

#[test]
fn the_away_digest_waits_under_an_overlay_and_esc_closes_the_overlay_first() {
    let mut rig = Rig::new();
    rig.app.away_show_for_test();
    assert!(rig.app.away_on_screen().is_some());
    let pager = crate::ui::overlays::pager::Pager::plain(
        "changes",
        "+ a line",
        &crate::ui::theme::Theme::default(),
    );
    rig.app.screen.open_overlay(Box::new(pager));
    assert!(
        rig.app.away_on_screen().is_none(),
        "the digest is not drawn over the overlay"
    );
    rig.press(KeyCode::Esc);
    assert!(!rig.app.screen.overlay_open(), "Esc closed the overlay");
    assert!(rig.app.away_on_screen().is_some(), "the digest is back");
    rig.press(KeyCode::Esc);
    assert!(rig.app.away_on_screen().is_none(), "the next Esc closed it");
}

/// What the transcript shows of a preview is found by any part of it: `/p-7ba19` (or the
/// domain, or the port) in the session's search finds the preview's line, selects it, and
/// the status bar counts the match.
#[test]
fn searching_part_of_a_previews_address_finds_the_line_the_screen_shows() {
    let mut rig = Rig::new();
    rig.stream_event(
        "preview.ready",
        1,
        serde_json::json!({"port": 5173, "url": "https://p-7ba19a6dbaeb.gobare.dev"}),
    );
    let shown = rig.screen_text(120, 30);
    assert!(
        shown.contains("preview ready :5173 https://p-7ba19a6dbaeb.gobare.dev"),
        "{shown}"
    );
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    for query in ["p-7ba19", "gobare.dev", "5173"] {
        rig.press(KeyCode::Char('/'));
        rig.type_text(query);
        rig.search_done();
        rig.press(KeyCode::Enter);
        let shown = rig.screen_text(120, 30);
        let status = shown.lines().last().unwrap_or_default();
        assert!(
            status.contains(&format!("/{query} 1/1 · n older")),
            "/{query} found nothing:\n{shown}"
        );
        let selected = rig
            .app
            .screen
            .selected_entry(&rig.app.session)
            .map(|entry| entry.copy_text());
        assert!(
            selected.is_some_and(|text| text.contains("https://p-7ba19a6dbaeb.gobare.dev")),
            "/{query} selects the preview's line"
        );
    }
}

/// The fleet's `D` opens a session with its changes view (`open_changes`); the session's
/// digest, ready after the view opened, waits under it: Esc closes the view, then the digest.
#[test]
fn the_changes_view_the_fleet_opens_keeps_the_digest_under_it_until_esc() {
    let mut rig = Rig::with_options(|options| options.open_changes = true);
    {
        let _in = rig._runtime.enter();
        rig.app.start();
    }
    assert!(
        rig.app.screen.overlay_open(),
        "opened with its changes view"
    );
    rig.app.away_show_for_test();
    for (w, h) in [(40, 15), (160, 48)] {
        let shown = rig.screen_text(w, h);
        assert!(shown.contains("Changes"), "{shown}");
        assert!(
            !shown.contains("While you were away"),
            "the digest is drawn over the changes view:\n{shown}"
        );
    }
    rig.press(KeyCode::Esc);
    assert!(
        !rig.app.screen.overlay_open(),
        "Esc closed the changes view"
    );
    let shown = rig.screen_text(160, 48);
    assert!(
        shown.contains("While you were away"),
        "the digest is back:\n{shown}"
    );
    rig.press(KeyCode::Esc);
    let shown = rig.screen_text(160, 48);
    assert!(
        !shown.contains("While you were away"),
        "the next Esc closed it:\n{shown}"
    );
}

mod hint_walk;
mod policy_words;

#[test]
fn quitting_speaks_of_a_draft_only_when_there_is_one() {
    use crate::keys::mode::Confirm;
    let question = |rig: &Rig| match rig.mode() {
        Mode::Confirming(Confirm::Quit { why }) => why,
        other => panic!("{other:?}"),
    };
    let mut waiting = Rig::new();
    waiting.arrive(Arrival::Approval);
    waiting.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let why = question(&waiting);
    assert!(!why.contains("draft"), "{why}");
    assert!(why.contains("it stays on the server"), "{why}");
    let mut drafting = Rig::new();
    drafting.type_text("half a thought");
    drafting.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let why = question(&drafting);
    assert_eq!(why, "you have a draft (the draft is kept)");
}

#[test]
fn o_without_an_opener_copies_the_url_and_says_so() {
    use crate::session::Update;
    let mut rig = Rig::new();
    rig.app.open_command = "gobare-tui-test-no-such-opener".into();
    let env = serde_json::json!({"type": "agent.message", "seq": 1, "created_at": 1000,
        "payload": {"text": "preview ready https://p-7ba19a6dbaeb.gobare.dev"}});
    rig.app.session.apply(Update::Event(
        gobare_api::model::Event::parse(&env.to_string()).unwrap(),
    ));
    rig.screen_text(100, 30);
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    rig.press(KeyCode::Up);
    rig.press(KeyCode::Char('o'));
    let notice = rig.notice();
    assert!(
        notice.contains("no gobare-tui-test-no-such-opener to open it")
            && notice.contains("copied")
            && notice.contains("https://p-7ba19a6dbaeb.gobare.dev"),
        "{notice}"
    );
    let copied = String::from_utf8(rig.app.clipboard_record.clone().unwrap()).unwrap();
    assert_eq!(
        copied, "\x1b]52;c;aHR0cHM6Ly9wLTdiYTE5YTZkYmFlYi5nb2JhcmUuZGV2Lw==\x07",
        "the URL, as OSC 52 would carry it"
    );
}

#[test]
fn a_sensitive_command_cut_to_fit_says_so_before_y_is_asked_for() {
    let mut rig = Rig::new();
    rig.arrive_long_sensitive();
    rig.press(KeyCode::Tab);
    rig.type_text("y");
    assert!(matches!(rig.mode(), Mode::Confirming(_)));
    let shown = rig.screen_text(40, 15);
    // The mark offers the key that shows the whole command here, in words of the key table.
    let offer = crate::keys::table::whole_request_hint(crate::keys::table::Scope::Confirming)
        .expect("a key shows the request whole while the sensitive approval is asked again");
    let mark = shown
        .lines()
        .find(|l| l.contains("lines cut"))
        .unwrap_or_else(|| panic!("a cut without a mark:\n{shown}"));
    assert!(mark.contains(offer), "the mark offers {offer:?}:\n{shown}");
    assert!(
        !mark.trim_end_matches([' ', '│']).ends_with('…'),
        "the mark itself is cut:\n{shown}"
    );
    insta::assert_snapshot!("sensitive_cut_40x15", shown);
    let shown = rig.screen_text(160, 48);
    assert!(shown.contains("export-worker-8"), "{shown}");
    assert!(!shown.contains("lines cut"), "{shown}");
    insta::assert_snapshot!("sensitive_cut_160x48", shown);
}

/// The key the mark offers shows the cut command whole, from the question asked before the
/// second `y` and from the deciding mode before the first; Esc comes back to where it was.
#[test]
fn the_key_a_cut_command_offers_shows_it_whole_and_esc_comes_back_to_the_question() {
    use crate::keys::mode::Confirm;
    use crate::keys::table::{Scope, whole_request_hint};
    let mut rig = Rig::new();
    let command = rig.arrive_long_sensitive();
    let whole = |rig: &mut Rig| {
        let shown = rig.screen_text(40, 15);
        let flat = shown
            .lines()
            .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(flat.contains(&command), "the whole command:\n{shown}");
    };
    rig.press(KeyCode::Tab);
    let offer = whole_request_hint(Scope::Deciding).unwrap();
    assert!(rig.screen_text(40, 15).contains(offer));
    rig.press(KeyCode::F(2));
    assert_eq!(rig.mode(), Mode::Overlay);
    whole(&mut rig);
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), Mode::Deciding, "back to deciding");
    rig.type_text("y");
    let asked = rig.mode();
    assert!(
        matches!(asked, Mode::Confirming(Confirm::ApproveSensitive { .. })),
        "{asked:?}"
    );
    rig.press(KeyCode::F(2));
    assert_eq!(rig.mode(), Mode::Overlay);
    whole(&mut rig);
    assert!(rig.sent().is_empty(), "showing it decides nothing");
    rig.press(KeyCode::Esc);
    assert_eq!(rig.mode(), asked, "back to the question");
    rig.press(KeyCode::Esc);
    assert_eq!(
        rig.mode(),
        Mode::Deciding,
        "the question still goes back to deciding"
    );
    rig.type_text("yy");
    assert!(
        matches!(rig.sent(), [Input::Approval { approved: true, .. }]),
        "{:?}",
        rig.sent()
    );
}

#[test]
fn quitting_the_demo_mid_turn_names_the_queued_messages_that_end_with_it() {
    use crate::keys::mode::Confirm;
    use crate::session::Update;
    let mut rig = Rig::new();
    rig.app.demo_kept = true;
    rig.app.session = std::mem::take(&mut rig.app.session).with_origin("127.0.0.1", true);
    let mut seq = 0;
    let mut event = |rig: &mut Rig, kind: &str, payload: serde_json::Value| {
        seq += 1;
        let env = serde_json::json!({"type": kind, "seq": seq, "created_at": 1000 + seq,
            "payload": payload});
        rig.app.session.apply(Update::Event(
            gobare_api::model::Event::parse(&env.to_string()).unwrap(),
        ));
    };
    event(
        &mut rig,
        "turn.started",
        serde_json::json!({"turn_id": "turn_1"}),
    );
    let question = |rig: &mut Rig| {
        rig.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
        let why = match rig.mode() {
            Mode::Confirming(Confirm::Quit { why }) => why,
            other => panic!("{other:?}"),
        };
        rig.press(KeyCode::Esc);
        why
    };
    let why = question(&mut rig);
    assert!(why.ends_with("; the running turn ends with it)"), "{why}");
    for (n, text) in [(1, "also the invoices"), (2, "and the webhooks")] {
        event(
            &mut rig,
            "message.queued",
            serde_json::json!({"position": n, "text": text}),
        );
    }
    let why = question(&mut rig);
    assert!(
        why.ends_with("; the running turn and the 2 queued messages end with it)"),
        "{why}"
    );
}
