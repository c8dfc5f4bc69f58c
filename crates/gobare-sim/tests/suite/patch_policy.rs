//! `PATCH /v1/sessions/{id}` (§6.3) changing the policy of a live session: a rule added
//! while an approval waits and the mode both take effect from the next turn, the rule
//! matching its command exactly; refusals come in the reference's error body.

use crate::support::{Api, kinds};
use serde_json::{Value, json};

async fn patch(api: &Api, id: &str, body: Value) -> (u16, Value) {
    let r = api
        .req(reqwest::Method::PATCH, &format!("/v1/sessions/{id}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

const RESTART: &str = "systemctl restart export-worker";

#[tokio::test]
async fn an_allow_rule_added_while_asked_runs_the_exact_command_unasked_next_turn() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    assert_eq!(action["arguments"]["command"], RESTART);

    let rule = json!({"decision": "allow", "tool": "bash", "command": RESTART});
    let (status, body) = patch(&api, &id, json!({"agent": {"permission_rules": [rule]}})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["agent"]["permission_rules"], json!([rule]));
    let (status, _) = api
        .send(
            &id,
            json!({"type": "input.approval", "call_id": action["call_id"], "approved": true}),
        )
        .await;
    assert_eq!(status, 202);
    sse.until("turn.ended").await;

    api.message(&id, "#approval restart it again").await;
    let frames = sse.events_until("turn.ended").await;
    assert!(
        !kinds(&frames).contains(&"approval.requested".to_string()),
        "{:?}",
        kinds(&frames)
    );
    let ran: Vec<String> = frames
        .iter()
        .filter(|f| f.kind() == "agent.tool_call")
        .filter_map(|f| {
            f.json()["payload"]["args"]["command"]
                .as_str()
                .map(String::from)
        })
        .collect();
    assert!(ran.contains(&RESTART.to_string()), "{ran:?}");
}

#[tokio::test]
async fn a_rule_with_a_prefix_of_the_command_does_not_cover_it() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let rule = json!({"decision": "allow", "tool": "bash", "command": "systemctl restart"});
    let (status, _) = patch(&api, &id, json!({"agent": {"permission_rules": [rule]}})).await;
    assert_eq!(status, 200);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
}

#[tokio::test]
async fn the_mode_changes_from_the_next_turn_not_the_running_one() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "fix the export").await;
    sse.until("turn.started").await;
    let (status, body) = patch(&api, &id, json!({"agent": {"approval_mode": "per_step"}})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["agent"]["approval_mode"], "per_step");
    let running = sse.events_until("turn.ended").await;
    assert!(
        !kinds(&running).contains(&"approval.requested".to_string()),
        "the running turn keeps auto: {:?}",
        kinds(&running)
    );
    api.message(&id, "fix the export again").await;
    sse.until("approval.requested").await;
}

#[tokio::test]
async fn read_only_set_by_patch_refuses_writes_next_turn() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let (status, _) = patch(&api, &id, json!({"agent": {"approval_mode": "read_only"}})).await;
    assert_eq!(status, 200);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "fix the export").await;
    let frames = sse.events_until("turn.ended").await;
    assert!(!kinds(&frames).contains(&"file.changed".to_string()));
    assert!(
        frames
            .iter()
            .filter(|f| f.kind() == "approval.resolved")
            .all(|f| f.json()["payload"]["code"] == "denied_read_only")
    );
}

#[tokio::test]
async fn labels_are_set_cleared_and_filter_the_list() {
    let api = Api::test().await;
    let tagged = api.new_session().await;
    let other = api.new_session().await;
    let (status, body) = patch(&api, &tagged, json!({"metadata": {"job": "8842"}})).await;
    assert_eq!(
        (status, body["metadata"].clone()),
        (200, json!({"job": "8842"}))
    );
    let (_, list) = api.get("/v1/sessions?metadata=job:8842").await;
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [tagged.as_str()]);
    assert!(!ids.contains(&other.as_str()));
    let (status, body) = patch(&api, &tagged, json!({"metadata": null})).await;
    assert_eq!(status, 200);
    assert!(body["metadata"].is_null(), "{body}");
}

#[tokio::test]
async fn refusals_come_in_the_error_body() {
    let api = Api::test().await;
    let id = api.new_session().await;
    for bad in [
        json!({}),
        json!({"approval_mode": "per_step"}),
        json!({"agent": {"approval_mode": "sometimes"}}),
        json!({"metadata": {"n": 3}}),
        json!({"agent": {"model": "MiniMax-M3"}}),
    ] {
        let (status, body) = patch(&api, &id, bad.clone()).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["error"]["code"], "invalid_request", "{bad}");
        assert!(body["error"]["message"].is_string());
        assert!(body["error"]["request_id"].is_string());
    }
    let (status, body) = patch(
        &api,
        "00000000-0000-4000-8000-000000000000",
        json!({"title": "x"}),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (404, json!("not_found"))
    );
}
