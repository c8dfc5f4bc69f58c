//! The production shapes and rules the simulator follows: the question shape, approval
//! modes and permission rules, function timeouts, scoped tokens.

use crate::support::{Api, kinds};
use serde_json::{Value, json};

async fn session_with(api: &Api, agent: Value) -> String {
    let (status, body) = api.post("/v1/sessions", json!({ "agent": agent })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn the_choice_scenario_lists_its_question_in_the_production_shape() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#choice which way").await;
    sse.until("question.asked").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    assert_eq!(action["type"], "question");
    assert_eq!(action["name"], "Roll back to v2.3.1 or patch forward?");
    assert_eq!(
        action["arguments"]["options"],
        json!([{"label": "roll back"}, {"label": "patch"}])
    );
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.question_answer", "call_id": action["call_id"], "answer": "patch"}),
        )
        .await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
    sse.until("turn.ended").await;
}

/// Plays `#approval` on a session made with `agent` and returns the event types until the
/// turn ended, and the `approval.resolved` payload if one came.
async fn approval_turn(agent: Value) -> (Vec<String>, Option<Value>) {
    let api = Api::test().await;
    let id = session_with(&api, agent).await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    let frames = sse.events_until("turn.ended").await;
    let resolved = frames
        .iter()
        .find(|f| f.kind() == "approval.resolved")
        .map(|f| f.json()["payload"].clone());
    (kinds(&frames), resolved)
}

#[tokio::test]
async fn read_only_refuses_without_asking() {
    let (kinds, resolved) = approval_turn(json!({"approval_mode": "read_only"})).await;
    assert!(
        !kinds.contains(&"approval.requested".to_string()),
        "{kinds:?}"
    );
    let resolved = resolved.expect("a refusal is reported");
    assert_eq!(resolved["approved"], false);
    assert_eq!(resolved["code"], "denied_read_only");
    assert_eq!(resolved["name"], "bash");
}

#[tokio::test]
async fn a_deny_rule_refuses_without_asking() {
    let (kinds, resolved) = approval_turn(json!({
        "approval_mode": "auto",
        "permission_rules": [{"decision": "deny", "tool": "bash", "command": "systemctl restart export-worker"}]
    }))
    .await;
    assert!(
        !kinds.contains(&"approval.requested".to_string()),
        "{kinds:?}"
    );
    assert_eq!(resolved.expect("a refusal")["code"], "denied_by_rule");
}

#[tokio::test]
async fn an_allow_rule_runs_the_step_without_asking() {
    let (kinds, resolved) = approval_turn(json!({
        "approval_mode": "per_step",
        "permission_rules": [{"decision": "allow", "tool": "bash"}]
    }))
    .await;
    assert!(
        !kinds.contains(&"approval.requested".to_string()),
        "{kinds:?}"
    );
    assert!(resolved.is_none());
    let results = kinds.iter().filter(|k| *k == "agent.tool_result").count();
    assert_eq!(results, 3, "every tool ran: {kinds:?}");
}

#[tokio::test]
async fn per_step_asks() {
    let api = Api::test().await;
    let id = session_with(&api, json!({"approval_mode": "per_step"})).await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
    let s = api.session(&id).await;
    assert_eq!(s["required_actions"][0]["type"], "approval");
}

#[tokio::test]
async fn an_unanswered_function_call_expires_and_the_turn_goes_on() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    api.sim.declare_function(&id, "lookup_order", Some(1));
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#expiring look it up").await;
    sse.until("tool.required").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    let created = action["created_at"].as_i64().unwrap();
    assert_eq!(
        action["expires_at"].as_i64(),
        Some(created + 1000),
        "{action}"
    );

    let frames = sse.events_until("turn.ended").await;
    let resolved = frames.iter().find(|f| f.kind() == "tool.resolved").unwrap();
    assert_eq!(resolved.json()["payload"]["success"], false);
    let said: Vec<String> = frames
        .iter()
        .filter(|f| f.kind() == "agent.message")
        .map(|f| f.json()["payload"]["text"].as_str().unwrap().to_string())
        .collect();
    assert!(said.iter().any(|t| t.contains("timed out")), "{said:?}");
    let turn = api.turn(&id, action["turn_id"].as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed", "{turn}");
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                   "call_id": action["call_id"], "success": true, "output": "late"}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("no_longer_pending")),
        "an expired call is no longer pending"
    );
}

#[tokio::test]
async fn a_token_without_a_scope_is_refused_naming_it() {
    let mut api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
    let call = api.session(&id).await["required_actions"][0]["call_id"].clone();

    api.token = api.sim.mint_token(&["sessions:read", "tools:respond"]);
    let (status, _) = api.get(&format!("/v1/sessions/{id}")).await;
    assert_eq!(status, 200, "sessions:read reads");
    let (status, body) = api.message(&id, "more").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "permission_denied");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"sessions:write\"")
    );
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.approval", "call_id": call, "approved": true}),
        )
        .await;
    assert_eq!(
        status, 403,
        "tools:respond does not answer an approval: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"sessions:write\"")
    );
    let (status, body) = api.get(&format!("/v1/sessions/{id}/artifacts")).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"artifacts:read\"")
    );

    api.token = api.sim.mint_token(&["sessions:read", "sessions:write"]);
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": "turn_x", "call_id": call,
                   "success": true, "output": "x"}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"tools:respond\"")
    );
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.approval", "call_id": call, "approved": true}),
        )
        .await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
}
