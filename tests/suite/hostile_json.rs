//! One lone surrogate escape (`"\ud83d"`, what a JavaScript backend sends when it cuts an
//! emoji) never fails a whole document: that string gets U+FFFD and everything else is
//! used, so a pending approval in such a session is shown and can be answered.

use crate::support::actions::PromptFixture;
use crate::support::scripted_server::{Reply, Server};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gobare_api::model::{Event, EventPayload, Input, Session};
use gobare_tui::ui::prompt::PromptAction;
use serde_json::{Value, json};

fn examples() -> Value {
    serde_json::from_str(include_str!("../../assets/event-payloads.json")).unwrap()
}

/// The example session, titled with a cut emoji and waiting on an approval.
fn cut_session_json() -> String {
    let mut session = examples()["session"].clone();
    session["title"] = json!("TITLE");
    let mut action = examples()["required_action"].clone();
    action["type"] = json!("approval");
    action["call_id"] = json!("call_cut");
    action["name"] = json!("bash TOOL");
    session["required_actions"] = json!([action]);
    session
        .to_string()
        .replace("\"TITLE\"", r#""deploy \ud83d""#)
        .replace("bash TOOL", r#"bash \udc00"#)
}

#[tokio::test]
async fn a_session_with_a_lone_surrogate_is_read_and_its_approval_answered() {
    let body = cut_session_json();
    assert!(
        serde_json::from_str::<Value>(&body).is_err(),
        "serde alone refuses it"
    );
    let server = Server::start(vec![Reply::raw(200, "application/json", &body)]).await;
    let session: Session = server.client().get_session("s1").await.unwrap();
    assert_eq!(session.title.as_deref(), Some("deploy \u{fffd}"));
    assert_eq!(session.required_actions.len(), 1);

    let mut prompt = PromptFixture::new(&session.required_actions);
    let y = KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE);
    assert_eq!(
        prompt.handle_key(y),
        PromptAction::Answer(Input::Approval {
            call_id: "call_cut".into(),
            approved: true,
        })
    );
}

#[test]
fn an_event_with_a_lone_surrogate_is_applied_with_a_replacement_character() {
    let mut envelope = examples()["user.message"].clone();
    envelope["payload"]["text"] = json!("TEXT");
    let data = envelope
        .to_string()
        .replace("\"TEXT\"", r#""it broke \ud83d""#);
    let event = Event::parse(&data).unwrap();
    match event.payload {
        EventPayload::UserMessage(m) => assert_eq!(m.text, "it broke \u{fffd}"),
        other => panic!("{other:?}"),
    }
}
