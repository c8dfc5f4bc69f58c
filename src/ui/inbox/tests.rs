use super::*;
use crate::deadline::WORKSPACE_LIFETIME_MS;
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::model::{Event, Session};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

const NOW: i64 = 1_789_400_000_000;
const M: i64 = 60_000;

fn session(id: &str, title: &str, actions: Value) -> Session {
    serde_json::from_value(json!({
        "id": id, "title": title, "status": "requires_action",
        "created_at": NOW - 90 * M, "updated_at": NOW - 90 * M,
        "environment": {"state": "running"}, "required_actions": actions,
    }))
    .unwrap()
}

fn event(id: &str, seq: u64, at: i64, kind: &str, payload: Value) -> Event {
    Event::parse(
        &json!({"object": "event", "seq": seq, "session_id": id, "type": kind,
                "created_at": at, "payload": payload})
        .to_string(),
    )
    .unwrap()
}

/// Four waits: a function call about to expire, a sensitive approval with ≈ 48 min of
/// workspace left, a question whose workspace history is unknown, and an expired call.
fn fleet() -> FleetModel {
    let mut model = FleetModel::new();
    model.apply_full_list(&[
        session(
            "billing-1",
            "Billing migration",
            json!([{"type": "function_call", "turn_id": "turn_b", "call_id": "call_f",
                    "name": "lookup_order", "arguments": {"order_id": "A-1042"},
                    "created_at": NOW - M, "expires_at": NOW + 95_000}]),
        ),
        session("nightly-1", "Nightly: rebuild the search index", json!([])),
        session(
            "docs-1",
            "Docs \u{1b}[31mrefresh",
            json!([{"type": "question", "turn_id": "turn_d", "call_id": "call_q",
                    "name": "Roll back or patch forward?",
                    "arguments": {"options": [{"label": "roll back"}, {"label": "patch forward"}]},
                    "created_at": NOW - 2 * M}]),
        ),
        session(
            "stale-1",
            "Stale lookup",
            json!([{"type": "function_call", "turn_id": "turn_s", "call_id": "call_x",
                    "name": "lookup_order", "arguments": {},
                    "created_at": NOW - 10 * M, "expires_at": NOW - 1_000}]),
        ),
    ]);
    model.apply_event(&event(
        "nightly-1",
        1,
        NOW - 72 * M,
        "sandbox.created",
        json!({"state": "running"}),
    ));
    model.apply_event(&event(
        "nightly-1",
        2,
        NOW - 3 * M,
        "approval.requested",
        json!({
        "toolCallId": "call_a", "name": "bash",
        "args": {"command": "systemctl restart search-indexer\nrm -rf /var/cache/index"},
        "sensitive": true}),
    ));
    model
}

fn screen(view: &mut InboxView, model: &FleetModel, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), NOW);
    crate::ui::text::buffer_text::rows_trimmed(&buf)
}

fn press(view: &mut InboxView, model: &FleetModel, code: KeyCode) -> InboxAction {
    view.handle_key(KeyEvent::new(code, KeyModifiers::NONE), model)
}

fn view_at(model: &FleetModel, call: &str) -> InboxView {
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    view.select_soonest(model, NOW);
    while view.selected().is_some_and(|(_, c)| c != call) {
        press(&mut view, model, KeyCode::Down);
    }
    view
}

#[test]
fn snapshot_the_inbox_wide_and_narrow() {
    let model = fleet();
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    view.select_soonest(&model, NOW);
    insta::assert_snapshot!("inbox_160x48", screen(&mut view, &model, 160, 48));
    insta::assert_snapshot!("inbox_70x20", screen(&mut view, &model, 70, 20));
}

#[test]
fn snapshot_deciding_a_sensitive_approval_shows_the_whole_command() {
    let model = fleet();
    let mut view = view_at(&model, "call_a");
    screen(&mut view, &model, 160, 48);
    press(&mut view, &model, KeyCode::Tab);
    insta::assert_snapshot!("inbox_deciding_160x48", screen(&mut view, &model, 160, 48));
    insta::assert_snapshot!("inbox_deciding_70x20", screen(&mut view, &model, 70, 20));
}

#[test]
fn soonest_first_the_expired_on_top_the_unknown_last() {
    let model = fleet();
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    let text = screen(&mut view, &model, 160, 48);
    let order: Vec<&str> = ["Stale lookup", "Billing migration", "Nightly", "Docs"]
        .into_iter()
        .collect();
    let at: Vec<usize> = order.iter().map(|s| text.find(s).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        text.contains("expired") && text.contains("1m 35s"),
        "{text}"
    );
    assert!(
        text.contains("≈ 48m 00s") && text.contains("? reading"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "server text made safe: {text}");
}

#[test]
fn letters_decide_nothing_until_tab_and_a_sensitive_approval_takes_two_ys() {
    let model = fleet();
    let mut view = view_at(&model, "call_a");
    // In the list, y and n are nothing.
    assert_eq!(
        press(&mut view, &model, KeyCode::Char('y')),
        InboxAction::Consumed
    );
    assert_eq!(
        press(&mut view, &model, KeyCode::Char('n')),
        InboxAction::Consumed
    );
    assert_eq!(view.scope(), FleetScope::Inbox);
    press(&mut view, &model, KeyCode::Tab);
    assert_eq!(view.scope(), FleetScope::InboxDeciding);
    assert_eq!(
        press(&mut view, &model, KeyCode::Char('y')),
        InboxAction::Consumed
    );
    assert_eq!(view.scope(), FleetScope::InboxConfirm);
    // Enter is never the second y.
    assert_eq!(
        press(&mut view, &model, KeyCode::Enter),
        InboxAction::Consumed
    );
    assert_eq!(view.scope(), FleetScope::InboxConfirm);
    assert_eq!(
        press(&mut view, &model, KeyCode::Char('y')),
        InboxAction::Answer {
            session_id: "nightly-1".into(),
            input: Input::Approval {
                call_id: "call_a".into(),
                approved: true
            },
            note: None,
        }
    );
    // Back in the list: a third y in haste decides nothing, and the call is not
    // answered twice.
    assert_eq!(view.scope(), FleetScope::Inbox);
    assert_eq!(
        press(&mut view, &model, KeyCode::Char('y')),
        InboxAction::Consumed
    );
    press(&mut view, &model, KeyCode::Tab);
    assert_eq!(view.scope(), FleetScope::Inbox, "its answer is being sent");
}

#[test]
fn a_question_is_answered_by_its_option_or_typed_words() {
    let model = fleet();
    let mut view = view_at(&model, "call_q");
    press(&mut view, &model, KeyCode::Tab);
    press(&mut view, &model, KeyCode::Char('2'));
    assert_eq!(
        press(&mut view, &model, KeyCode::Enter),
        InboxAction::Answer {
            session_id: "docs-1".into(),
            input: Input::QuestionAnswer {
                call_id: "call_q".into(),
                answer: "patch forward".into()
            },
            note: None,
        }
    );
}

#[test]
fn a_function_call_takes_a_typed_result_or_f() {
    let model = fleet();
    let mut view = view_at(&model, "call_f");
    press(&mut view, &model, KeyCode::Tab);
    press(&mut view, &model, KeyCode::Char('t'));
    assert_eq!(view.scope(), FleetScope::InboxReply);
    // Letters are the answer here: q and y neither quit nor approve.
    for c in "qy shipped".chars() {
        press(&mut view, &model, KeyCode::Char(c));
    }
    assert_eq!(
        press(&mut view, &model, KeyCode::Enter),
        InboxAction::Answer {
            session_id: "billing-1".into(),
            input: Input::ToolResult {
                turn_id: "turn_b".into(),
                call_id: "call_f".into(),
                success: true,
                output: Some("qy shipped".into()),
                error: None
            },
            note: None,
        }
    );
    let mut view = view_at(&model, "call_x");
    press(&mut view, &model, KeyCode::Tab);
    assert!(matches!(
        press(&mut view, &model, KeyCode::Char('f')),
        InboxAction::Answer {
            input: Input::ToolResult { success: false, .. },
            ..
        }
    ));
}

#[test]
fn an_approval_the_fleet_only_saw_listed_counts_as_sensitive() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session(
        "a",
        "Listed only",
        json!([{"type": "approval", "turn_id": "t", "call_id": "call_l", "name": "bash",
                "arguments": {"command": "rm -rf build"}}]),
    )]);
    let mut view = view_at(&model, "call_l");
    press(&mut view, &model, KeyCode::Tab);
    press(&mut view, &model, KeyCode::Char('y'));
    assert_eq!(view.scope(), FleetScope::InboxConfirm);
}

#[test]
fn enter_opens_the_session_and_esc_goes_back_to_the_fleet() {
    let model = fleet();
    let mut view = view_at(&model, "call_q");
    assert_eq!(
        press(&mut view, &model, KeyCode::Enter),
        InboxAction::Open("docs-1".into())
    );
    assert_eq!(press(&mut view, &model, KeyCode::Esc), InboxAction::Close);
}

#[test]
fn the_countdown_asks_for_a_frame_when_its_second_changes() {
    let model = fleet();
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    screen(&mut view, &model, 160, 48);
    // The function call has 95 s left: "1m 35s" until 94.999 s are left.
    assert_eq!(
        view.true_for(),
        Some(std::time::Duration::from_millis(1_000))
    );
}

#[test]
fn the_sensitive_question_says_its_keys_once_and_answers_enter_with_a_word() {
    let model = fleet();
    let mut view = view_at(&model, "call_a");
    press(&mut view, &model, KeyCode::Tab);
    press(&mut view, &model, KeyCode::Char('y'));
    assert_eq!(view.scope(), FleetScope::InboxConfirm);
    for (w, h) in [(160, 48), (70, 20)] {
        let shown = screen(&mut view, &model, w, h);
        assert_eq!(
            shown.matches("n/Esc back").count(),
            1,
            "{w}x{h}: the hint line once:\n{shown}"
        );
        assert!(shown.contains("Approve this SENSITIVE action?"), "{shown}");
    }
    press(&mut view, &model, KeyCode::Enter);
    let shown = screen(&mut view, &model, 160, 48);
    assert!(
        shown.contains("Enter does not approve a sensitive action"),
        "Enter says what it does not do:\n{shown}"
    );
    insta::assert_snapshot!("inbox_sensitive_enter_160x48", shown);
    insta::assert_snapshot!(
        "inbox_sensitive_enter_40x15",
        screen(&mut view, &model, 40, 15)
    );
}

#[test]
fn a_question_that_takes_only_its_options_offers_no_typed_answer() {
    use crate::keys::decision::Decision;
    use crate::keys::table::inbox_hints;
    let choice = Some(Decision::Question {
        options: true,
        choice_only: true,
    });
    let open = Some(Decision::Question {
        options: true,
        choice_only: false,
    });
    let hints = inbox_hints(FleetScope::InboxDeciding, false, choice);
    assert!(
        !hints.contains("t type") && !hints.contains("y approve"),
        "{hints}"
    );
    let hints = inbox_hints(FleetScope::InboxDeciding, false, open);
    assert!(
        hints.contains("t type") && !hints.contains("y approve"),
        "{hints}"
    );
    let hints = inbox_hints(FleetScope::InboxDeciding, false, Some(Decision::Approval));
    assert!(
        !hints.contains("t type") && hints.contains("y approve"),
        "{hints}"
    );
}
