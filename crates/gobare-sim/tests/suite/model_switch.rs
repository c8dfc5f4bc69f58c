//! `GET /v1/model-credentials` and the model switch by `PATCH` (§6.3): the list the
//! simulator serves, the session's model and credential after the switch, the next turn
//! naming the model, and the refusals in the reference's error body.

use crate::support::Api;
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

#[tokio::test]
async fn credentials_are_listed_with_the_models_they_run() {
    let api = Api::test().await;
    let (status, list) = api.get("/v1/model-credentials").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["object"], "list");
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    for cred in data {
        assert_eq!(cred["object"], "model_credential");
        assert!(cred["id"].as_str().unwrap().starts_with("cred_"), "{cred}");
        assert!(!cred["models"].as_array().unwrap().is_empty(), "{cred}");
    }
    let (status, _) = api.get("/v1/model-credentials?order=asc").await;
    assert_eq!(status, 400, "credentials take no order");
}

#[tokio::test]
async fn a_switch_keeps_the_transcript_and_the_next_turn_names_the_model() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "Fix the CSV export totals").await;
    sse.until("turn.ended").await;
    let (status, body) = patch(
        &api,
        &id,
        json!({"agent": {"model": "glm-5", "model_credential_id": "cred_d05a6c3e9f1b2477"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["agent"]["model"], "glm-5");
    assert_eq!(
        body["agent"]["model_credential_id"],
        "cred_d05a6c3e9f1b2477"
    );
    let (_, items) = api.get(&format!("/v1/sessions/{id}/items")).await;
    assert!(!items["data"].as_array().unwrap().is_empty(), "{items}");

    api.message(&id, "Now add a test for it").await;
    let frames = sse.events_until("turn.ended").await;
    let closing = frames
        .iter()
        .rfind(|f| f.kind() == "agent.message")
        .map(|f| f.json()["payload"]["text"].as_str().unwrap().to_string())
        .unwrap();
    assert!(closing.ends_with("(answered by glm-5)"), "{closing}");
}

#[tokio::test]
async fn a_model_the_credential_does_not_run_or_a_model_alone_is_a_400() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let (status, body) = patch(
        &api,
        &id,
        json!({"agent": {"model": "glm-6", "model_credential_id": "cred_d05a6c3e9f1b2477"}}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"glm-6\""),
        "{body}"
    );
    let (status, body) = patch(&api, &id, json!({"agent": {"model": "glm-5"}})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = patch(
        &api,
        &id,
        json!({"agent": {"model": "glm-5", "model_credential_id": "cred_nope"}}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(api.session(&id).await["agent"]["model"], "MiniMax-M3");
}
