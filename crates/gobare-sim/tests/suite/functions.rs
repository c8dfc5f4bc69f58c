//! Declared functions (§6.2 `agent.tools`, §6.9 `PUT …/tools`, §9.4): the scripted agent
//! calls only what the session declared, with the declared `timeout_seconds` as
//! `expires_at`; a `#tag` picks the scenario and never changes the session's tools.

use gobare_sim::SimConfig;
use serde_json::{Value, json};

use crate::support::{Api, Frame, kinds};

/// A simulator whose untagged messages play the `function` scenario: no tag declares
/// anything, so only the session's own declarations count.
async fn untagged_function_calls() -> Api {
    let mut config = SimConfig::for_tests();
    config.scenario = "function".into();
    Api::start(config).await
}

fn said(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .filter(|f| f.kind() == "agent.message")
        .map(|f| {
            f.json()["payload"]["text"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn an_undeclared_function_is_never_called() {
    let api = untagged_function_calls().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "look up order A-4471").await;
    let frames = sse.events_until("turn.ended").await;
    assert!(
        !kinds(&frames).iter().any(|k| k == "tool.required"),
        "{:?}",
        kinds(&frames)
    );
    assert!(
        said(&frames)
            .iter()
            .any(|t| t.contains("declares no `lookup_order` function")),
        "{:?}",
        said(&frames)
    );
    let session = api.session(&id).await;
    assert_eq!(session["required_actions"], json!([]));
}

#[tokio::test]
async fn a_function_declared_at_creation_is_called_with_its_timeout_as_expires_at() {
    let api = untagged_function_calls().await;
    let (status, body) = api
        .post(
            "/v1/sessions",
            json!({"agent": {"tools": [{"type": "function", "name": "lookup_order",
                                         "parameters": {}, "timeout_seconds": 2}]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "look up order A-4471").await;
    sse.until("tool.required").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    assert_eq!(action["name"], "lookup_order");
    let created = action["created_at"].as_i64().unwrap();
    assert_eq!(
        action["expires_at"].as_i64(),
        Some(created + 2000),
        "{action}"
    );

    let frames = sse.events_until("turn.ended").await;
    let resolved = frames.iter().find(|f| f.kind() == "tool.resolved").unwrap();
    assert_eq!(resolved.json()["payload"]["success"], false, "expired");
}

#[tokio::test]
async fn a_function_declared_with_put_tools_and_no_timeout_waits_for_its_answer() {
    let api = untagged_function_calls().await;
    let id = api.new_session().await;
    let r = api
        .req(reqwest::Method::PUT, &format!("/v1/sessions/{id}/tools"))
        .json(&json!({"tools": [{"type": "function", "name": "lookup_order"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "look up order A-4471").await;
    sse.until("tool.required").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    assert_eq!(action["expires_at"], Value::Null, "{action}");
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                   "call_id": action["call_id"], "success": true, "output": "shipped"}),
        )
        .await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
    let frames = sse.events_until("turn.ended").await;
    assert!(
        said(&frames).iter().any(|t| t.contains("shipped")),
        "{:?}",
        said(&frames)
    );
}

#[tokio::test]
async fn a_tag_leaves_the_sessions_own_declaration_in_force() {
    let api = Api::test().await;
    let declared = json!({"type": "function", "name": "lookup_order",
                          "description": "The shop's own order lookup.",
                          "parameters": {"type": "object"}, "timeout_seconds": 30});
    let (status, body) = api
        .post(
            "/v1/sessions",
            json!({"agent": {"tools": [declared.clone()]}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let mut sse = api.stream(&id, None).await;
    for tag in ["#function", "#expiring"] {
        api.message(&id, &format!("{tag} look it up")).await;
        sse.until("tool.required").await;
        let action = api.session(&id).await["required_actions"][0].clone();
        let created = action["created_at"].as_i64().unwrap();
        assert_eq!(
            action["expires_at"].as_i64(),
            Some(created + 30_000),
            "{tag}: {action}"
        );
        let (_, tools) = api.get(&format!("/v1/sessions/{id}/tools")).await;
        let mut read_back = declared.clone();
        read_back["redacted"] = json!([]);
        assert_eq!(tools["tools"], json!([read_back]), "{tag}");
        api.send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                   "call_id": action["call_id"], "success": true, "output": "shipped"}),
        )
        .await;
        sse.until("turn.ended").await;
    }
}

#[tokio::test]
async fn a_tag_does_not_call_a_function_the_session_declared_no_tools_for() {
    let api = Api::test().await;
    let (status, body) = api
        .post("/v1/sessions", json!({"agent": {"tools": []}}))
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let mut sse = api.stream(&id, None).await;
    for tag in ["#function", "#expiring"] {
        api.message(&id, &format!("{tag} look it up")).await;
        let frames = sse.events_until("turn.ended").await;
        assert!(
            !kinds(&frames).iter().any(|k| k == "tool.required"),
            "{tag}: {:?}",
            kinds(&frames)
        );
        assert!(
            said(&frames)
                .iter()
                .any(|t| t.contains("declares no `lookup_order` function")),
            "{tag}: {:?}",
            said(&frames)
        );
        let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
        let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
        assert_eq!(turn["status"], "completed", "{tag}: {turn}");
    }
    let (_, tools) = api.get(&format!("/v1/sessions/{id}/tools")).await;
    assert_eq!(tools["tools"], json!([]), "{tools}");
}
