//! Answering required actions against the simulator: each kind through the prompt widget's
//! keys and text, and each outcome (accepted, already_resolved, not_delivered, 404).

use crate::support::actions::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::client::ApiClient;
use gobare_api::model::{Input, InputOutcome, RequiredAction, RequiredActionKind};
use gobare_sim::SimConfig;
use gobare_tui::app::shared::sender::{SendEvent, Sender};
use gobare_tui::session::Severity;
use gobare_tui::ui::prompt::PromptAction;
use tokio::sync::mpsc::UnboundedReceiver;

/// A session whose turn, started by a message naming its scenario, is parked on a required
/// action: the sender that sent the message, its events, and the action.
struct Parked {
    id: String,
    sender: Sender<ApiClient>,
    events: UnboundedReceiver<SendEvent>,
    action: RequiredAction,
}

async fn parked(rig: &Rig, text: &str) -> Parked {
    let id = rig.sim.create_session(None);
    // `#function` calls only what the session declared.
    rig.sim.declare_function(&id, "lookup_order", None);
    let (mut sender, mut events) = Sender::new(rig.client.clone(), &id, None, fast_policy());
    sender.send(message(text));
    settled(&mut events).await;
    let action = rig.until_required(&id).await;
    Parked {
        id,
        sender,
        events,
        action,
    }
}

fn key(c: char, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), modifiers)
}

#[tokio::test]
async fn approval_answered_with_y_is_accepted_then_a_second_answer_is_already_resolved() {
    let rig = Rig::test().await;
    let Parked {
        id,
        mut sender,
        mut events,
        action,
    } = parked(&rig, "restart the worker #approval").await;
    assert_eq!(action.kind, RequiredActionKind::Approval);
    let mut prompt = prompt_for(std::slice::from_ref(&action));
    let PromptAction::Answer(answer) = prompt.handle_key(key('y', KeyModifiers::NONE)) else {
        panic!("y answers an approval");
    };
    assert_eq!(
        answer,
        Input::Approval {
            call_id: action.call_id.clone(),
            approved: true
        }
    );
    sender.send(answer.clone());
    let report = settled(&mut events).await;
    assert!(report.accepted(), "{:?}", report.outcome);
    assert_eq!(report.outcome.text, "approved");
    prompt.apply_answer_report(&report);
    assert!(!prompt.is_empty(), "stays until the resolved event arrives");
    rig.until_session(&id, "the approval to resolve", |s| {
        s.required_actions.is_empty()
    })
    .await;
    // The same answer again (another window answered first, at-least-once): quiet.
    sender.send(answer);
    let again = settled(&mut events).await;
    assert_eq!(
        again.result.as_ref().unwrap().outcome,
        Some(InputOutcome::AlreadyResolved)
    );
    assert_eq!(again.outcome.severity, Severity::Quiet);
    prompt.apply_answer_report(&again);
    assert!(prompt.is_empty());
}

#[tokio::test]
async fn a_question_is_answered_with_one_of_its_options() {
    let rig = Rig::test().await;
    let Parked {
        id,
        mut sender,
        mut events,
        action,
    } = parked(&rig, "fix the deploy #question").await;
    assert_eq!(action.kind, RequiredActionKind::Question);
    let mut prompt = prompt_for(std::slice::from_ref(&action));
    prompt.set_question_details(
        &action.call_id,
        "Roll back or patch?",
        vec!["roll back".into(), "patch".into()],
        Some(false),
    );
    let answer = prompt.answer_with_text("patch").expect("an option");
    sender.send(answer);
    let report = settled(&mut events).await;
    assert!(report.accepted(), "{:?}", report.outcome);
    assert_eq!(report.outcome.text, "answer sent");
    rig.until_session(&id, "the question to close", |s| {
        s.required_actions.is_empty()
    })
    .await;
}

#[tokio::test]
async fn a_function_call_gets_typed_output_with_turn_and_call_ids_copied_verbatim() {
    let rig = Rig::test().await;
    let Parked {
        mut sender,
        mut events,
        action,
        ..
    } = parked(&rig, "look it up #function").await;
    assert_eq!(action.kind, RequiredActionKind::FunctionCall);
    let mut prompt = prompt_for(std::slice::from_ref(&action));
    let answer = prompt.answer_with_text("{\"rows\": 3}").unwrap();
    match &answer {
        Input::ToolResult {
            turn_id,
            call_id,
            success,
            ..
        } => {
            assert_eq!(turn_id, &action.turn_id);
            assert_eq!(call_id, &action.call_id);
            assert!(success);
        }
        other => panic!("{other:?}"),
    }
    sender.send(answer);
    let report = settled(&mut events).await;
    assert_eq!(
        report.result.as_ref().unwrap().outcome,
        Some(InputOutcome::Accepted)
    );
    assert!(report.outcome.text.contains("resumes"));
}

#[tokio::test]
async fn a_failed_function_call_sends_the_fixed_sentence_only() {
    let rig = Rig::test().await;
    let Parked {
        mut sender,
        mut events,
        action,
        ..
    } = parked(&rig, "look it up #function").await;
    let mut prompt = prompt_for(&[action]);
    let PromptAction::Answer(answer) = prompt.handle_key(key('f', KeyModifiers::CONTROL)) else {
        panic!("Ctrl+F fails a function call");
    };
    match &answer {
        Input::ToolResult { success, error, .. } => {
            assert!(!success);
            assert_eq!(error.as_deref(), Some(Input::TOOL_FAILED));
        }
        other => panic!("{other:?}"),
    }
    sender.send(answer);
    assert!(settled(&mut events).await.accepted());
}

#[tokio::test]
async fn not_delivered_is_loud_and_closes_the_prompt() {
    let rig = Rig::start(SimConfig {
        tool_results_not_delivered: true,
        ..SimConfig::for_tests()
    })
    .await;
    let Parked {
        mut sender,
        mut events,
        action,
        ..
    } = parked(&rig, "look it up #function").await;
    let mut prompt = prompt_for(&[action]);
    sender.send(prompt.answer_with_text("42").unwrap());
    let report = settled(&mut events).await;
    assert_eq!(
        report.result.as_ref().unwrap().outcome,
        Some(InputOutcome::NotDelivered)
    );
    assert_eq!(report.outcome.severity, Severity::Error);
    assert!(report.outcome.text.contains("new message"));
    prompt.apply_answer_report(&report);
    assert!(prompt.is_empty());
}

#[tokio::test]
async fn an_answer_to_a_call_nobody_waits_for_is_a_404_explained_quietly() {
    let rig = Rig::test().await;
    let id = rig.sim.create_session(None);
    let (mut sender, mut events) = Sender::new(rig.client.clone(), &id, None, fast_policy());
    let stale: gobare_api::model::RequiredAction = serde_json::from_value(serde_json::json!({
        "type": "function_call", "turn_id": "turn_gone", "call_id": "call_gone"
    }))
    .unwrap();
    let mut prompt = prompt_for(&[stale]);
    sender.send(prompt.answer_with_text("late").unwrap());
    let report = settled(&mut events).await;
    assert_eq!(report.result.as_ref().unwrap_err().status, Some(404));
    assert_eq!(report.attempts, 1);
    assert_eq!(report.outcome.severity, Severity::Warn);
    assert!(report.outcome.text.contains("no longer pending"));
    prompt.apply_answer_report(&report);
    assert!(prompt.is_empty());
    // An approval nobody waits for reads the same way, pointing nowhere else.
    sender.send(Input::Approval {
        call_id: "call_gone".into(),
        approved: true,
    });
    let report = settled(&mut events).await;
    assert!(report.outcome.text.contains("nothing is waiting"));
}

/// The prompt as the app builds it: empty, then the session's list of required actions.
fn prompt_for(actions: &[RequiredAction]) -> PromptFixture {
    PromptFixture::new(actions)
}
