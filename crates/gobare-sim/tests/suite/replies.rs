//! The scripted agent answers the message it is given: its plan, checklist and closing
//! reply name the request's subject and files, and a follow-up names the request before.

use serde_json::Value;

use crate::support::{Api, Frame};

const FIRST: &str = "#quick Build robots.py: a warehouse robot status API. Keep it small.";
const SECOND: &str = "#quick Now add a /health route to robots.py";

/// The envelopes of the frames of one type.
fn of(frames: &[Frame], kind: &str) -> Vec<Value> {
    frames
        .iter()
        .filter(|f| f.kind() == kind)
        .map(Frame::json)
        .collect()
}

/// The `agent.message` texts and the last `agent.todos` labels of one turn's frames.
fn said(frames: &[Frame]) -> (Vec<String>, Vec<String>) {
    let messages = of(frames, "agent.message")
        .iter()
        .map(|e| e["payload"]["text"].as_str().unwrap().to_string())
        .collect();
    let todos = of(frames, "agent.todos")
        .last()
        .map(|e| e["payload"]["items"].as_array().unwrap().clone())
        .unwrap_or_default()
        .iter()
        .map(|t: &Value| t["label"].as_str().unwrap().to_string())
        .collect();
    (messages, todos)
}

#[tokio::test]
async fn a_reply_names_the_request_and_a_follow_up_the_one_before() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, Some(0)).await;

    api.message(&id, FIRST).await;
    let (messages, todos) = said(&sse.until("turn.ended").await);
    let subject = "Build robots.py: a warehouse robot status API";
    let plan = messages.first().unwrap();
    assert!(
        plan.starts_with(&format!(
            "You asked: “{subject}”. I'll work in `robots.py`."
        )),
        "{plan}"
    );
    assert_eq!(todos[0], format!("Read the request: {subject}"));
    let closing = messages.last().unwrap();
    assert!(
        closing.starts_with(&format!("**Done: {subject}** (files: `robots.py`)")),
        "{closing}"
    );
    assert!(!closing.contains("earlier"), "{closing}");

    api.message(&id, SECOND).await;
    let (messages, _) = said(&sse.until("turn.ended").await);
    let plan = messages.first().unwrap();
    assert!(
        plan.contains("This builds on your earlier request, “#quick Build robots.py"),
        "{plan}"
    );
    let closing = messages.last().unwrap();
    assert!(
        closing.starts_with(
            "**Done: Now add a /health route to robots.py** (files: `/health`, `robots.py`)"
        ) || closing
            .starts_with("**Done: Now add a /health route to robots.py** (files: `robots.py`)"),
        "{closing}"
    );
    assert!(
        closing.contains("earlier message, “#quick Build robots.py"),
        "{closing}"
    );
    api.sim.shutdown().await;
}
