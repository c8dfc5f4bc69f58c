//! Request validation and reply shapes the reference pins down: creation's 400s,
//! `no_longer_pending` for an action that lapsed, and a published preview's workspace
//! that is never reclaimed.

use std::time::Duration;

use gobare_sim::SimConfig;
use serde_json::{Value, json};

use crate::support::Api;

#[tokio::test]
async fn creation_refuses_what_the_reference_refuses_with_invalid_request() {
    let api = Api::test().await;
    for (body, names) in [
        (json!({"agent": {"model": "gpt-17"}}), "gpt-17"),
        (
            json!({"agent": {"text": {"verbosity": "loud"}}}),
            "verbosity",
        ),
        (
            json!({"agent": {"text": {"format": {"type": "yaml"}}}}),
            "format",
        ),
        (json!([{"title": "an array"}]), "object"),
        (
            json!({"agent": {"permission_rules": [{"decision": "sometimes"}]}}),
            "decision",
        ),
        (
            json!({"agent": {"approval_mode": "whenever"}}),
            "approval_mode",
        ),
    ] {
        let (status, refused) = api.post("/v1/sessions", body.clone()).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert_eq!(refused["error"]["code"], "invalid_request", "{body}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(names), "{body}: {message}");
    }
    let (status, body) = api
        .post(
            "/v1/sessions",
            json!({"agent": {"model": "MiniMax-M3", "text": {"verbosity": "low"}}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(api.sim.accepted_messages().len(), 0);
}

#[tokio::test]
async fn answering_an_action_whose_turn_ended_is_no_longer_pending() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
    let call = api.session(&id).await["required_actions"][0]["call_id"].clone();
    let (status, _) = api.send(&id, json!({"type": "input.cancel"})).await;
    assert_eq!(status, 202);
    sse.until("turn.ended").await;

    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.approval", "call_id": call, "approved": true}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("no_longer_pending")),
        "{body}"
    );
}

#[tokio::test]
async fn a_published_preview_keeps_its_workspace_past_the_lifetime() {
    let mut config = SimConfig::for_tests();
    // Long enough for the first turn to reach its preview on a loaded machine (the
    // scripted turn takes about a second in a debug build there).
    config.workspace_lifetime = Duration::from_secs(3);
    let api = Api::start(config).await;
    // Both workspaces come up in this order, so the published one's lifetime runs out
    // first: once the other is reclaimed, the published one has outlived its own.
    let published = api.new_session().await;
    let unpublished = api.new_session().await;
    for id in [&published, &unpublished] {
        let mut sse = api.stream(id, None).await;
        api.message(id, "#quick fix it").await;
        sse.until("sandbox.created").await;
        if id == &published {
            sse.until("preview.ready").await;
            let (status, body) = api
                .post(&format!("/v1/sessions/{id}/preview"), json!({}))
                .await;
            assert_eq!(status, 201, "{body}");
        }
    }
    let state = |s: &Value| s["environment"]["state"].as_str().unwrap_or("").to_string();
    api.until_session(&unpublished, |s| state(s) == "destroyed")
        .await;
    let kept = api.session(&published).await;
    assert_ne!(state(&kept), "destroyed", "{kept}");
}
