//! Every decision kind × every inbox mode it can be met in: each hint of the inbox's hint
//! line is pressed and must do what it says, and each key of that line that does something
//! is hinted (issue 54.2) — the approval's note (issue 54.3) among them.

use super::{InboxAction, InboxView};
use crate::deadline::WORKSPACE_LIFETIME_MS;
use crate::fleet::model::FleetModel;
use crate::keys::fleet::FleetScope;
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::model::{Event, Input, Session};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

const NOW: i64 = 1_789_400_000_000;
const NOTE: &str = "only in /tmp";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Approval,
    SensitiveApproval,
    Question,
    ChoiceQuestion,
    FunctionCall,
}

const KINDS: [Kind; 5] = [
    Kind::Approval,
    Kind::SensitiveApproval,
    Kind::Question,
    Kind::ChoiceQuestion,
    Kind::FunctionCall,
];

impl Kind {
    fn call(self) -> &'static str {
        match self {
            Kind::Approval => "call_ap",
            Kind::SensitiveApproval => "call_sa",
            Kind::Question => "call_q",
            Kind::ChoiceQuestion => "call_c",
            Kind::FunctionCall => "call_f",
        }
    }
}

/// Where the person is: each mode the inbox has while an action is decided.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Where {
    Deciding,
    /// A note typed (`t`) and kept (Enter).
    DecidingWithNote,
    /// Typing the note.
    Note,
    /// Typing an answer.
    Reply,
    /// Asked the second `y`.
    Confirm,
}

const WHERES: [Where; 5] = [
    Where::Deciding,
    Where::DecidingWithNote,
    Where::Note,
    Where::Reply,
    Where::Confirm,
];

fn listed(id: &str, action: Value) -> Session {
    serde_json::from_value(json!({
        "id": id, "title": id, "status": "requires_action",
        "created_at": NOW - 60_000, "updated_at": NOW - 60_000,
        "environment": {"state": "running"}, "required_actions": [action],
    }))
    .unwrap()
}

fn asked(id: &str, call: &str, sensitive: bool) -> Event {
    Event::parse(
        &json!({"object": "event", "seq": 1, "session_id": id, "type": "approval.requested",
                "created_at": NOW - 60_000,
                "payload": {"toolCallId": call, "name": "bash",
                            "args": {"command": "make deploy"}, "sensitive": sensitive}})
        .to_string(),
    )
    .unwrap()
}

/// One session per kind, each waiting on its one action.
fn fleet() -> FleetModel {
    let mut model = FleetModel::new();
    let action = |kind: &str, call: &str, arguments: Value| {
        json!({"type": kind, "turn_id": "t", "call_id": call, "name": "ask",
               "arguments": arguments, "created_at": NOW - 60_000})
    };
    let options = json!([{"label": "roll back"}, {"label": "patch forward"}]);
    model.apply_full_list(&[
        listed("s-ap", action("approval", "call_ap", json!({}))),
        listed("s-sa", action("approval", "call_sa", json!({}))),
        listed(
            "s-q",
            action("question", "call_q", json!({"options": options})),
        ),
        listed(
            "s-c",
            action(
                "question",
                "call_c",
                json!({"options": options, "allowFreeform": false}),
            ),
        ),
        listed("s-f", action("function_call", "call_f", json!({}))),
    ]);
    model.apply_event(&asked("s-ap", "call_ap", false));
    model.apply_event(&asked("s-sa", "call_sa", true));
    model
}

fn press(view: &mut InboxView, model: &FleetModel, code: KeyCode) -> InboxAction {
    view.handle_key(KeyEvent::new(code, KeyModifiers::NONE), model)
}

fn type_text(view: &mut InboxView, model: &FleetModel, text: &str) {
    for c in text.chars() {
        press(view, model, KeyCode::Char(c));
    }
}

/// The inbox deciding `kind` at `at`, or `None` where that mode cannot be reached for it.
fn view_at(model: &FleetModel, kind: Kind, at: Where) -> Option<InboxView> {
    let mut view = InboxView::new(WORKSPACE_LIFETIME_MS);
    view.select_soonest(model, NOW);
    for _ in 0..KINDS.len() {
        if view.selected().is_some_and(|(_, c)| c == kind.call()) {
            break;
        }
        press(&mut view, model, KeyCode::Down);
    }
    assert_eq!(view.selected().map(|(_, c)| c), Some(kind.call()));
    press(&mut view, model, KeyCode::Tab);
    let wanted = match at {
        Where::Deciding => FleetScope::InboxDeciding,
        Where::DecidingWithNote => {
            press(&mut view, model, KeyCode::Char('t'));
            type_text(&mut view, model, NOTE);
            press(&mut view, model, KeyCode::Enter);
            if view.note_for_selected() != Some(NOTE) {
                return None;
            }
            FleetScope::InboxDeciding
        }
        Where::Note => {
            press(&mut view, model, KeyCode::Char('t'));
            FleetScope::InboxNote
        }
        Where::Reply => {
            press(&mut view, model, KeyCode::Char('t'));
            FleetScope::InboxReply
        }
        Where::Confirm => {
            press(&mut view, model, KeyCode::Char('y'));
            FleetScope::InboxConfirm
        }
    };
    (view.scope() == wanted).then_some(view)
}

fn hints(view: &InboxView, model: &FleetModel) -> Vec<String> {
    view.hint_line(model)
        .split(" · ")
        .map(str::to_string)
        .collect()
}

fn approval(action: &InboxAction, approved: bool) -> bool {
    matches!(action, InboxAction::Answer { input: Input::Approval { approved: a, .. }, .. } if *a == approved)
}

/// Presses the key `hint` names; whether it did what the hint says.
fn does_what_it_says(model: &FleetModel, kind: Kind, at: Where, hint: &str) -> Result<(), String> {
    let mut view = view_at(model, kind, at).unwrap();
    let ok = match hint {
        "y approve" => {
            let done = press(&mut view, model, KeyCode::Char('y'));
            approval(&done, true) || view.scope() == FleetScope::InboxConfirm
        }
        "n deny" => approval(&press(&mut view, model, KeyCode::Char('n')), false),
        "t type an answer" => {
            press(&mut view, model, KeyCode::Char('t'));
            view.scope() == FleetScope::InboxReply
        }
        "t note" => {
            press(&mut view, model, KeyCode::Char('t'));
            view.scope() == FleetScope::InboxNote
        }
        "Esc list" => {
            press(&mut view, model, KeyCode::Esc);
            view.scope() == FleetScope::Inbox
        }
        "Enter send" => {
            type_text(&mut view, model, "patch forward");
            matches!(
                press(&mut view, model, KeyCode::Enter),
                InboxAction::Answer {
                    input: Input::QuestionAnswer { .. } | Input::ToolResult { .. },
                    ..
                }
            )
        }
        "Enter keep" => {
            type_text(&mut view, model, "x");
            press(&mut view, model, KeyCode::Enter);
            view.scope() == FleetScope::InboxDeciding && view.note_for_selected().is_some()
        }
        "Esc drop" => {
            type_text(&mut view, model, "x");
            press(&mut view, model, KeyCode::Esc);
            view.scope() == FleetScope::InboxDeciding && view.note_for_selected().is_none()
        }
        "n/Esc back" => {
            press(&mut view, model, KeyCode::Char('n'));
            view.scope() == FleetScope::InboxDeciding
        }
        other => return Err(format!("no check for the hint {other:?}: add one")),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{kind:?} at {at:?}: {hint:?} did not do it"))
    }
}

/// What a key of the hint line's does at `at`, if anything: the hint that must say so.
fn effect_of(model: &FleetModel, kind: Kind, at: Where, code: KeyCode) -> Option<&'static str> {
    let mut view = view_at(model, kind, at).unwrap();
    let before = view.scope();
    let done = press(&mut view, model, code);
    match (&done, view.scope()) {
        _ if approval(&done, true) => Some("y approve"),
        _ if approval(&done, false) => Some("n deny"),
        (_, FleetScope::InboxConfirm) if before != FleetScope::InboxConfirm => Some("y approve"),
        (_, FleetScope::InboxReply) if before != FleetScope::InboxReply => Some("t type an answer"),
        (_, FleetScope::InboxNote) if before != FleetScope::InboxNote => Some("t note"),
        (_, FleetScope::Inbox) => Some("Esc list"),
        (_, FleetScope::InboxDeciding) if before == FleetScope::InboxConfirm => Some("n/Esc back"),
        (_, FleetScope::InboxDeciding) if before != FleetScope::InboxDeciding => Some("Esc drop"),
        _ => None,
    }
}

#[test]
fn every_inbox_hint_of_every_decision_in_every_mode_does_what_it_says() {
    let model = fleet();
    let mut wrong = Vec::new();
    let mut walked = 0;
    for kind in KINDS {
        for at in WHERES {
            let Some(view) = view_at(&model, kind, at) else {
                continue;
            };
            walked += 1;
            let shown = hints(&view, &model);
            for hint in &shown {
                if let Err(why) = does_what_it_says(&model, kind, at, hint) {
                    wrong.push(format!("{why}\n    hints: {shown:?}"));
                }
            }
            // Keys typed on the note and answer lines are text: only their Enter and Esc.
            let keys: &[KeyCode] = match at {
                Where::Note | Where::Reply => &[KeyCode::Esc],
                _ => &[
                    KeyCode::Char('y'),
                    KeyCode::Char('n'),
                    KeyCode::Char('t'),
                    KeyCode::Esc,
                ],
            };
            for &code in keys {
                if let Some(said) = effect_of(&model, kind, at, code)
                    && !shown.iter().any(|h| h == said)
                {
                    wrong.push(format!(
                        "{kind:?} at {at:?}: {code:?} does {said:?} unhinted\n    hints: {shown:?}"
                    ));
                }
            }
        }
    }
    // Approvals: deciding, with a note, typing it; the sensitive one asked again too;
    // questions and the function call: deciding and typing (not the choice-only one).
    assert_eq!(walked, 3 + 4 + 2 + 1 + 2, "modes reached");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn screen(view: &mut InboxView, model: &FleetModel, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    view.render(area, &mut buf, model, &Theme::default(), NOW);
    crate::ui::text::buffer_text::rows_trimmed(&buf)
}

#[test]
fn an_approval_with_a_note_says_so_and_sends_the_note_after_the_decision() {
    let model = fleet();
    for (kind, key, approved) in [
        (Kind::Approval, 'y', true),
        (Kind::Approval, 'n', false),
        (Kind::SensitiveApproval, 'y', true),
        (Kind::SensitiveApproval, 'n', false),
    ] {
        let mut view = view_at(&model, kind, Where::DecidingWithNote).unwrap();
        let shown = screen(&mut view, &model, 160, 48);
        assert!(shown.contains("approve + note"), "{shown}");
        assert!(shown.contains("deny + note"), "{shown}");
        assert!(
            shown.contains(&format!("with the note \"{NOTE}\"")),
            "{shown}"
        );
        let mut done = press(&mut view, &model, KeyCode::Char(key));
        if kind == Kind::SensitiveApproval && approved {
            // Still asked again: the note changes nothing of the confirm.
            assert_eq!(done, InboxAction::Consumed);
            assert_eq!(view.scope(), FleetScope::InboxConfirm);
            done = press(&mut view, &model, KeyCode::Char('y'));
        }
        assert_eq!(
            done,
            InboxAction::Answer {
                session_id: if kind == Kind::Approval {
                    "s-ap"
                } else {
                    "s-sa"
                }
                .into(),
                input: Input::Approval {
                    call_id: kind.call().into(),
                    approved
                },
                note: Some(NOTE.into()),
            },
            "{kind:?} {key}"
        );
    }
    // A note belongs to its call: kept and then dropped, nothing goes with the decision.
    let mut view = view_at(&model, Kind::Approval, Where::DecidingWithNote).unwrap();
    press(&mut view, &model, KeyCode::Char('t'));
    press(&mut view, &model, KeyCode::Esc);
    assert!(matches!(
        press(&mut view, &model, KeyCode::Char('y')),
        InboxAction::Answer { note: None, .. }
    ));
    // Typed on its line, y and n are text, not decisions.
    let mut view = view_at(&model, Kind::Approval, Where::Note).unwrap();
    type_text(&mut view, &model, "yes, and only in /tmp");
    assert_eq!(view.scope(), FleetScope::InboxNote);
    assert!(screen(&mut view, &model, 160, 48).contains("note: yes, and only in /tmp▏"));
}

#[test]
fn snapshot_an_approval_with_a_note_wide_and_narrow() {
    let model = fleet();
    let mut view = view_at(&model, Kind::Approval, Where::DecidingWithNote).unwrap();
    insta::assert_snapshot!(
        "inbox_note_deciding_160x48",
        screen(&mut view, &model, 160, 48)
    );
    insta::assert_snapshot!(
        "inbox_note_deciding_40x15",
        screen(&mut view, &model, 40, 15)
    );
    let mut view = view_at(&model, Kind::Approval, Where::Note).unwrap();
    type_text(&mut view, &model, NOTE);
    insta::assert_snapshot!(
        "inbox_note_typing_160x48",
        screen(&mut view, &model, 160, 48)
    );
    insta::assert_snapshot!("inbox_note_typing_40x15", screen(&mut view, &model, 40, 15));
}
