use super::*;
use crossterm::event::{KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

fn press(c: &mut Composer, code: KeyCode) -> ComposerAction {
    c.handle_key(key(code, KeyModifiers::NONE))
}

fn type_str(c: &mut Composer, s: &str) {
    for ch in s.chars() {
        assert_eq!(press(c, KeyCode::Char(ch)), ComposerAction::Consumed);
    }
}

#[test]
fn enter_sends_trimmed_text_and_keeps_it_until_cleared() {
    let mut c = Composer::new();
    type_str(&mut c, "  hello  ");
    assert_eq!(
        press(&mut c, KeyCode::Enter),
        ComposerAction::Send("hello".into())
    );
    assert_eq!(c.text(), "  hello  ", "draft stays until the app clears it");
    c.clear();
    assert!(c.is_empty());
}

#[test]
fn enter_on_blank_text_sends_nothing() {
    let mut c = Composer::new();
    type_str(&mut c, "   ");
    assert_eq!(press(&mut c, KeyCode::Enter), ComposerAction::Consumed);
}

#[test]
fn shift_alt_enter_and_ctrl_j_insert_newlines() {
    let mut c = Composer::new();
    type_str(&mut c, "a");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter, KeyModifiers::SHIFT)),
        ComposerAction::Consumed
    );
    type_str(&mut c, "b");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter, KeyModifiers::ALT)),
        ComposerAction::Consumed
    );
    type_str(&mut c, "c");
    assert_eq!(
        c.handle_key(key(KeyCode::Char('j'), KeyModifiers::CONTROL)),
        ComposerAction::Consumed
    );
    type_str(&mut c, "d");
    assert_eq!(c.text(), "a\nb\nc\nd");
    assert_eq!(
        press(&mut c, KeyCode::Enter),
        ComposerAction::Send("a\nb\nc\nd".into())
    );
}

#[test]
fn key_releases_are_ignored() {
    let mut c = Composer::new();
    let mut release = key(KeyCode::Char('x'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    release.state = KeyEventState::NONE;
    assert_eq!(c.handle_key(release), ComposerAction::None);
    assert!(c.is_empty());
}

#[test]
fn paste_keeps_newlines_and_never_sends() {
    let mut c = Composer::new();
    type_str(&mut c, "> ");
    c.handle_paste("line one\r\nline two\rthree\x1b[31m\n");
    assert_eq!(c.text(), "> line one\nline two\nthree[31m\n");
    // Still editing: the next typed char lands after the paste.
    type_str(&mut c, "x");
    assert_eq!(c.text(), "> line one\nline two\nthree[31m\nx");
}

#[test]
fn a_carriage_return_in_a_paste_is_a_newline_and_enter_then_sends_it_all_once() {
    let mut c = Composer::new();
    c.handle_paste("line1\rline2");
    assert_eq!(c.text(), "line1\nline2", "the paste asked for no send");
    assert_eq!(
        press(&mut c, KeyCode::Enter),
        ComposerAction::Send("line1\nline2".into())
    );
}

fn rendered(c: &mut Composer, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| c.render(f.area(), f.buffer_mut(), &Theme::default(), BoxLook::Typing))
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn pending_sends_are_drawn_dim_above_the_draft() {
    let mut c = Composer::new();
    type_str(&mut c, "next thought");
    assert_eq!(c.desired_height(40), 3);
    c.set_pending(vec!["waiting 3 s to retry: first intent".into()]);
    assert_eq!(c.desired_height(40), 4, "one row per pending send");
    let rows = rendered(&mut c, 40, 4);
    assert!(
        rows[0].starts_with("waiting 3 s to retry: first intent"),
        "{rows:#?}"
    );
    assert!(rows[2].contains("next thought"), "{rows:#?}");
    let mut terminal = Terminal::new(TestBackend::new(40, 4)).unwrap();
    terminal
        .draw(|f| c.render(f.area(), f.buffer_mut(), &Theme::default(), BoxLook::Typing))
        .unwrap();
    let dim = terminal.backend().buffer()[(0, 0)].modifier;
    assert!(dim.contains(ratatui::style::Modifier::DIM), "{dim:?}");

    // Short of rows, the box keeps its own and the pending line gives way.
    let rows = rendered(&mut c, 40, 3);
    assert!(rows[1].contains("next thought"), "{rows:#?}");
}

#[test]
fn many_pending_sends_are_summed_up() {
    let mut c = Composer::new();
    c.set_pending((1..=5).map(|i| format!("sending: message {i}")).collect());
    assert_eq!(c.desired_height(40), 3 + 3);
    let rows = rendered(&mut c, 40, 6);
    assert!(rows[0].starts_with("sending: message 1"), "{rows:#?}");
    assert!(rows[1].starts_with("sending: message 2"), "{rows:#?}");
    assert!(
        rows[2].starts_with("… and 3 more sends in flight"),
        "{rows:#?}"
    );
    c.set_pending(Vec::new());
    assert_eq!(c.desired_height(40), 3);
}

#[test]
fn steer_and_cancel() {
    let mut c = Composer::new();
    assert_eq!(
        c.handle_key(key(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        ComposerAction::Consumed,
        "nothing to steer with"
    );
    type_str(&mut c, "go left ");
    assert_eq!(
        c.handle_key(key(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        ComposerAction::Steer("go left".into())
    );
    assert_eq!(
        c.handle_key(key(KeyCode::Char('x'), KeyModifiers::CONTROL)),
        ComposerAction::Cancel
    );
}

#[test]
fn up_and_down_ask_for_history_only_at_the_edges() {
    let mut c = Composer::new();
    c.set_text("one\ntwo");
    // Cursor at the end of the last line.
    assert_eq!(press(&mut c, KeyCode::Down), ComposerAction::HistoryNext);
    assert_eq!(press(&mut c, KeyCode::Up), ComposerAction::Consumed);
    assert!(c.textarea.at_first_line());
    assert_eq!(press(&mut c, KeyCode::Up), ComposerAction::HistoryPrev);
    assert_eq!(press(&mut c, KeyCode::Down), ComposerAction::Consumed);
    assert_eq!(press(&mut c, KeyCode::Down), ComposerAction::HistoryNext);
}

#[test]
fn app_keys_are_not_consumed() {
    let mut c = Composer::new();
    for code in [
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Esc,
        KeyCode::PageUp,
        KeyCode::F(1),
    ] {
        assert_eq!(press(&mut c, code), ComposerAction::None, "{code:?}");
    }
    for ch in ['c', 'z'] {
        assert_eq!(
            c.handle_key(key(KeyCode::Char(ch), KeyModifiers::CONTROL)),
            ComposerAction::None
        );
    }
    assert!(c.is_empty(), "Tab must not insert a tab");
}

#[test]
fn desired_height_grows_with_content_up_to_the_cap() {
    let mut c = Composer::new();
    assert_eq!(c.desired_height(40), 3);
    c.set_text("a\nb\nc");
    assert_eq!(c.desired_height(40), 5);
    c.set_text(&"x".repeat(76)); // 38 columns inside the borders → 2 rows
    assert_eq!(c.desired_height(40), 4);
    c.set_text(&"l\n".repeat(20));
    assert_eq!(c.desired_height(40), DEFAULT_MAX_LINES + 2);
}

#[test]
fn renders_title_and_placeholder() {
    let mut c = Composer::new();
    let mut terminal = Terminal::new(TestBackend::new(60, 3)).unwrap();
    terminal
        .draw(|f| c.render(f.area(), f.buffer_mut(), &Theme::default(), BoxLook::Typing))
        .unwrap();
    let screen = format!("{:?}", terminal.backend().buffer());
    assert!(screen.contains("Typing · Enter send"), "{screen}");
    assert!(screen.contains("Type a message"), "{screen}");
}

#[test]
fn history_browses_and_returns_the_draft() {
    let mut h = History::default();
    assert_eq!(h.older("draft"), None);
    h.push("first");
    h.push("second");
    h.push("second"); // consecutive duplicate
    h.push("  ");
    assert_eq!(h.entries(), ["first", "second"]);
    assert_eq!(h.older("draft").as_deref(), Some("second"));
    assert_eq!(h.older("ignored").as_deref(), Some("first"));
    assert_eq!(h.older("ignored"), None);
    assert_eq!(h.newer().as_deref(), Some("second"));
    assert_eq!(h.newer().as_deref(), Some("draft"));
    assert_eq!(h.newer(), None);
}

#[test]
fn snapshot_with_text_while_a_turn_runs() {
    let mut c = Composer::new();
    c.set_turn_running(true);
    c.set_text("first line\nsecond line");
    let height = c.desired_height(70);
    let mut terminal = Terminal::new(TestBackend::new(70, height)).unwrap();
    terminal
        .draw(|f| c.render(f.area(), f.buffer_mut(), &Theme::default(), BoxLook::Typing))
        .unwrap();
    insta::assert_snapshot!(terminal.backend());
}

#[test]
fn snapshot_with_a_send_waiting_to_retry_above_a_new_draft() {
    let mut c = Composer::new();
    c.set_pending(vec![
        "waiting 3 s to retry: deploy the fix to staging".into(),
    ]);
    c.set_text("and then run the smoke tests");
    let height = c.desired_height(70);
    let mut terminal = Terminal::new(TestBackend::new(70, height)).unwrap();
    terminal
        .draw(|f| c.render(f.area(), f.buffer_mut(), &Theme::default(), BoxLook::Typing))
        .unwrap();
    insta::assert_snapshot!(terminal.backend());
}

#[test]
fn a_draft_of_many_lines_is_edited_browsed_and_given_back_whole() {
    let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let mut c = Composer::new();
    c.set_text(&text);
    assert_eq!(c.desired_height(80), DEFAULT_MAX_LINES + 2);
    press(&mut c, KeyCode::Char('!'));
    assert_eq!(c.text(), format!("{text}!"));
    // Up through every line reaches the first one, where Up asks for history.
    for _ in 0..20_000 {
        assert_eq!(press(&mut c, KeyCode::Up), ComposerAction::Consumed);
    }
    assert_eq!(press(&mut c, KeyCode::Up), ComposerAction::HistoryPrev);
    press(&mut c, KeyCode::Home);
    press(&mut c, KeyCode::Char('>'));
    assert!(c.text().starts_with(">line 0\nline 1\n"));
    assert!(c.text().ends_with("line 19999\n!"));
}

fn ctrl(c: &mut Composer, ch: char) -> ComposerAction {
    c.handle_key(key(KeyCode::Char(ch), KeyModifiers::CONTROL))
}

fn alt(c: &mut Composer, ch: char) -> ComposerAction {
    c.handle_key(key(KeyCode::Char(ch), KeyModifiers::ALT))
}

/// The text with `|` where the cursor is (one-line drafts).
fn with_cursor(c: &Composer) -> String {
    let mut text = c.text();
    let col = c.textarea.cursor().1;
    let at = text.char_indices().nth(col).map_or(text.len(), |(i, _)| i);
    text.insert(at, '|');
    text
}

/// A draft of `text` with the cursor `back` characters before its end.
fn draft(text: &str, back: usize) -> Composer {
    let mut c = Composer::new();
    c.set_text(text);
    for _ in 0..back {
        press(&mut c, KeyCode::Left);
    }
    c
}

#[test]
fn ctrl_a_and_ctrl_e_go_to_the_line_s_start_and_end() {
    let mut c = draft("deploy the fix", 4);
    assert_eq!(ctrl(&mut c, 'a'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "|deploy the fix");
    assert_eq!(ctrl(&mut c, 'e'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "deploy the fix|");
}

#[test]
fn ctrl_k_kills_to_the_end_of_the_line_and_ctrl_y_puts_it_back() {
    let mut c = draft("deploy the fix", 3);
    assert_eq!(ctrl(&mut c, 'k'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "deploy the |");
    ctrl(&mut c, 'a');
    assert_eq!(ctrl(&mut c, 'y'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "fix|deploy the ");
}

#[test]
fn ctrl_u_kills_to_the_start_of_the_line_rather_than_undoing() {
    let mut c = draft("deploy the fix", 3);
    assert_eq!(ctrl(&mut c, 'u'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "|fix");
    // Only the current line goes.
    let mut c = draft("first\nsecond line", 4);
    ctrl(&mut c, 'u');
    assert_eq!(c.text(), "first\nline");
}

#[test]
fn ctrl_w_kills_back_to_the_previous_whitespace() {
    let mut c = draft("cd /usr/local/bin", 0);
    assert_eq!(ctrl(&mut c, 'w'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "cd |");
    ctrl(&mut c, 'w');
    assert_eq!(with_cursor(&c), "|");
}

#[test]
fn alt_b_and_alt_f_move_by_words_as_readline() {
    let mut c = draft("fix the-export now", 0);
    assert_eq!(alt(&mut c, 'b'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "fix the-export |now");
    alt(&mut c, 'b');
    assert_eq!(with_cursor(&c), "fix the-|export now");
    alt(&mut c, 'b');
    alt(&mut c, 'b');
    assert_eq!(with_cursor(&c), "|fix the-export now");
    assert_eq!(alt(&mut c, 'f'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "fix| the-export now");
    alt(&mut c, 'f');
    assert_eq!(with_cursor(&c), "fix the|-export now");
    // Ctrl+← / Ctrl+→ are the same moves.
    c.handle_key(key(KeyCode::Right, KeyModifiers::CONTROL));
    assert_eq!(with_cursor(&c), "fix the-export| now");
    c.handle_key(key(KeyCode::Left, KeyModifiers::CONTROL));
    assert_eq!(with_cursor(&c), "fix the-|export now");
}

#[test]
fn alt_f_and_alt_b_cross_line_breaks() {
    let mut c = Composer::new();
    c.set_text("one\n  two");
    alt(&mut c, 'b');
    alt(&mut c, 'b');
    assert_eq!(c.textarea.cursor(), (0, 0));
    ctrl(&mut c, 'e');
    alt(&mut c, 'f');
    assert_eq!(c.textarea.cursor(), (1, 5));
}

#[test]
fn alt_d_kills_the_word_after_and_alt_backspace_the_word_before() {
    let mut c = draft("fix the export now", 11);
    assert_eq!(alt(&mut c, 'd'), ComposerAction::Consumed);
    assert_eq!(with_cursor(&c), "fix the| now");
    alt(&mut c, 'd');
    assert_eq!(with_cursor(&c), "fix the|");
    c.handle_key(key(KeyCode::Backspace, KeyModifiers::ALT));
    assert_eq!(with_cursor(&c), "fix |");
}

#[test]
fn ctrl_underscore_undoes_whichever_way_the_terminal_reports_it_and_alt_underscore_redoes() {
    // 0x1F reads as Ctrl+7; with key disambiguation it is Ctrl+_ (or Ctrl+/).
    for undo in ['_', '7', '/'] {
        let mut c = Composer::new();
        type_str(&mut c, "ab");
        ctrl(&mut c, 'w');
        assert!(c.is_empty());
        assert_eq!(ctrl(&mut c, undo), ComposerAction::Consumed, "{undo}");
        assert_eq!(c.text(), "ab", "Ctrl+{undo}");
        alt(&mut c, '_');
        assert!(c.is_empty(), "Alt+_ redoes the kill");
    }
}

#[test]
fn readline_character_keys_move_and_delete() {
    let mut c = draft("abc", 1);
    ctrl(&mut c, 'b');
    assert_eq!(with_cursor(&c), "a|bc");
    ctrl(&mut c, 'f');
    assert_eq!(with_cursor(&c), "ab|c");
    ctrl(&mut c, 'd');
    assert_eq!(with_cursor(&c), "ab|");
    ctrl(&mut c, 'h');
    assert_eq!(with_cursor(&c), "a|");
}

#[test]
fn the_app_s_chords_are_left_to_the_app_and_unknown_chords_change_nothing() {
    let mut c = draft("keep this", 0);
    for ch in ['r', 'o', 'c', 'z', 'l', 'q', 'v'] {
        assert_eq!(ctrl(&mut c, ch), ComposerAction::None, "Ctrl+{ch}");
    }
    for ch in ['x', 'v', 'n', 'p'] {
        assert_eq!(alt(&mut c, ch), ComposerAction::None, "Alt+{ch}");
    }
    assert_eq!(with_cursor(&c), "keep this|");
}

#[test]
fn every_edit_key_names_its_edit() {
    let k = |code, m| edit_op_for(key(code, m));
    let c = KeyModifiers::CONTROL;
    let a = KeyModifiers::ALT;
    assert_eq!(k(KeyCode::Char('a'), c), Some(EditOp::LineStart));
    assert_eq!(k(KeyCode::Char('e'), c), Some(EditOp::LineEnd));
    assert_eq!(k(KeyCode::Char('k'), c), Some(EditOp::KillToLineEnd));
    assert_eq!(k(KeyCode::Char('u'), c), Some(EditOp::KillToLineStart));
    assert_eq!(k(KeyCode::Char('w'), c), Some(EditOp::KillBigWordBack));
    assert_eq!(k(KeyCode::Char('b'), a), Some(EditOp::WordBack));
    assert_eq!(k(KeyCode::Char('f'), a), Some(EditOp::WordForward));
    assert_eq!(k(KeyCode::Char('d'), a), Some(EditOp::KillWordForward));
    assert_eq!(k(KeyCode::Char('_'), c), Some(EditOp::Undo));
    assert_eq!(k(KeyCode::Char('7'), c), Some(EditOp::Undo));
    assert_eq!(k(KeyCode::Char('_'), a), Some(EditOp::Redo));
    assert_eq!(k(KeyCode::Char('y'), c), Some(EditOp::Yank));
    assert_eq!(k(KeyCode::Char('j'), c), Some(EditOp::Newline));
    assert_eq!(
        k(KeyCode::Enter, KeyModifiers::SHIFT),
        Some(EditOp::Newline)
    );
    assert_eq!(k(KeyCode::Enter, KeyModifiers::NONE), None, "Enter sends");
    assert_eq!(
        k(KeyCode::Char('Q'), KeyModifiers::SHIFT),
        Some(EditOp::Insert('Q'))
    );
    for app in ['r', 'o', 'c', 'z', 'x', 's', 't', 'g'] {
        assert_eq!(k(KeyCode::Char(app), c), None, "Ctrl+{app}");
    }
    assert_eq!(k(KeyCode::Tab, KeyModifiers::NONE), None);
}

#[test]
fn edit_is_what_the_keys_do() {
    let mut c = draft("deploy the fix", 3);
    c.edit(EditOp::KillToLineStart);
    c.edit(EditOp::LineEnd);
    c.edit(EditOp::Insert('!'));
    assert_eq!(with_cursor(&c), "fix!|");
    c.edit(EditOp::TextStart);
    assert_eq!(with_cursor(&c), "|fix!");
    c.edit(EditOp::TextEnd);
    assert_eq!(with_cursor(&c), "fix!|");
}

#[test]
fn ctrl_p_and_ctrl_n_browse_history_at_the_edges_as_the_arrows_do() {
    let mut c = Composer::new();
    c.set_text("one\ntwo");
    assert_eq!(ctrl(&mut c, 'p'), ComposerAction::Consumed);
    assert_eq!(ctrl(&mut c, 'p'), ComposerAction::HistoryPrev);
    assert_eq!(ctrl(&mut c, 'n'), ComposerAction::Consumed);
    assert_eq!(ctrl(&mut c, 'n'), ComposerAction::HistoryNext);
}

#[test]
fn ctrl_g_asks_for_the_external_editor_and_leaves_the_draft() {
    let mut c = draft("fix it", 0);
    assert_eq!(ctrl(&mut c, 'g'), ComposerAction::EditExternally);
    assert_eq!(c.text(), "fix it");
}
