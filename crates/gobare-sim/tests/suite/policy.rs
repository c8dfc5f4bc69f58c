//! The session's permission policy (§6.2 `approval_mode`, `permission_rules`) over every
//! tool step of the scripted agent: refused steps are reported and never run, `per_step`
//! asks for each step that may change something, and the default policy asks only for a
//! step a `#tag`ged scenario flags sensitive.

use std::collections::{BTreeMap, BTreeSet};

use gobare_sim::SimConfig;
use serde_json::{Value, json};

use crate::support::{Api, Frame, WAIT, kinds};

/// Tools of the `quick` scenario that only look.
const READS: [&str; 2] = ["read", "grep"];

async fn session_with(api: &Api, agent: Value) -> String {
    let (status, body) = api.post("/v1/sessions", json!({ "agent": agent })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

fn payload(f: &Frame) -> Value {
    f.json()["payload"].clone()
}

fn of_kind<'a>(frames: &'a [Frame], kind: &'a str) -> impl Iterator<Item = Value> + 'a {
    frames.iter().filter(move |f| f.kind() == kind).map(payload)
}

#[tokio::test]
async fn a_read_only_session_never_writes_and_says_so() {
    let api = Api::test().await;
    let id = session_with(&api, json!({"approval_mode": "read_only"})).await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "fix the export").await;
    let frames = sse.events_until("turn.ended").await;

    assert!(
        !kinds(&frames).iter().any(|k| k == "file.changed"),
        "{:?}",
        kinds(&frames)
    );
    let ran: BTreeSet<String> = of_kind(&frames, "agent.tool_call")
        .map(|p| p["toolName"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ran, READS.iter().map(|s| s.to_string()).collect());
    let refused: Vec<Value> = of_kind(&frames, "approval.resolved").collect();
    assert_eq!(refused.len(), 5, "bash ×3, edit, write: {refused:?}");
    for r in &refused {
        assert_eq!(r["approved"], false);
        assert_eq!(r["code"], "denied_read_only", "{r}");
    }
    let said: Vec<String> = of_kind(&frames, "agent.message")
        .map(|p| p["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        said.iter().any(|t| t.contains("I didn't run `edit`")),
        "{said:?}"
    );
    assert!(!kinds(&frames).iter().any(|k| k == "approval.requested"));
}

#[tokio::test]
async fn per_step_asks_for_each_step_that_may_change_something() {
    let api = Api::test().await;
    let id = session_with(&api, json!({"approval_mode": "per_step"})).await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "fix the export").await;
    let mut asked = BTreeSet::new();
    let mut calls = BTreeMap::new();
    loop {
        let frame = sse.next(WAIT).await.expect("the turn goes on");
        match frame.kind().as_str() {
            "approval.requested" => {
                let call = payload(&frame)["toolCallId"].as_str().unwrap().to_string();
                let (status, body) = api
                    .send(
                        &id,
                        json!({"type": "input.approval", "call_id": call, "approved": true}),
                    )
                    .await;
                assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
                asked.insert(call);
            }
            "agent.tool_call" => {
                let p = payload(&frame);
                calls.insert(
                    p["toolCallId"].as_str().unwrap().to_string(),
                    p["toolName"].as_str().unwrap().to_string(),
                );
            }
            "turn.ended" => break,
            _ => {}
        }
    }
    assert_eq!(calls.len(), 7, "{calls:?}");
    for (call, tool) in &calls {
        let reads = READS.contains(&tool.as_str());
        assert_eq!(asked.contains(call), !reads, "{tool} {call}");
    }
    assert_eq!(asked.len(), 5);
}

#[tokio::test]
async fn a_deny_rule_refuses_the_step_and_the_agent_says_so() {
    let api = Api::test().await;
    let id = session_with(
        &api,
        json!({"permission_rules": [{"decision": "deny", "tool": "write"}]}),
    )
    .await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "fix the export").await;
    let frames = sse.events_until("turn.ended").await;

    let tools: Vec<String> = of_kind(&frames, "agent.tool_call")
        .map(|p| p["toolName"].as_str().unwrap().to_string())
        .collect();
    assert!(!tools.contains(&"write".to_string()), "{tools:?}");
    assert!(tools.contains(&"edit".to_string()), "{tools:?}");
    let refused: Vec<Value> = of_kind(&frames, "approval.resolved").collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["code"], "denied_by_rule");
    assert_eq!(refused[0]["name"], "write");
    let said: Vec<String> = of_kind(&frames, "agent.message")
        .map(|p| p["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        said.iter()
            .any(|t| t.contains("I didn't run `write`") && t.contains("permission rule")),
        "{said:?}"
    );
    let changed: Vec<String> = of_kind(&frames, "file.changed")
        .map(|p| p["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        changed.len(),
        1,
        "only the edit changed a file: {changed:?}"
    );
}

#[tokio::test]
async fn untagged_messages_under_the_default_policy_never_park_on_an_approval() {
    let mut config = SimConfig::for_tests();
    config.scenario = "mix".into();
    let api = Api::start(config).await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    for round in ["first round", "second round"] {
        api.message(&id, round).await;
        let frames = sse.events_until("turn.ended").await;
        assert!(
            !kinds(&frames).iter().any(|k| k == "approval.requested"),
            "{round}: {:?}",
            kinds(&frames)
        );
    }
    api.message(&id, "#approval restart the worker").await;
    let frames = sse.until("approval.requested").await;
    let asked = frames.last().map(payload).unwrap();
    assert_eq!(asked["sensitive"], true, "{asked}");
}

#[tokio::test]
async fn malformed_permission_rules_are_refused_at_creation_and_patch() {
    let api = Api::test().await;
    for rules in [
        json!([{"path": "/etc"}]),
        json!([{"decision": "never", "path": "/etc"}]),
        json!([{"decision": "deny", "folder": "/etc"}]),
        json!({"decision": "deny"}),
    ] {
        let (status, body) = api
            .post(
                "/v1/sessions",
                json!({"agent": {"permission_rules": rules.clone()}}),
            )
            .await;
        assert_eq!(status, 400, "{rules}: {body}");
        assert_eq!(body["error"]["code"], "invalid_request");
    }
    let id = api.new_session().await;
    let r = api
        .req(reqwest::Method::PATCH, &format!("/v1/sessions/{id}"))
        .json(&json!({"agent": {"permission_rules": [{"decision": "perhaps"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}
