//! The simulator's REST surface over real HTTP: auth, headers, validation, idempotency,
//! the message queue, steer/cancel, required actions, lifecycle, paging.

use std::time::Duration;

use crate::support::{Api, kinds};
use gobare_api::model::{Event, EventPayload};
use gobare_sim::{Faults, RateLimits, SimConfig};
use serde_json::{Value, json};

#[tokio::test]
async fn every_v1_route_needs_the_token_and_errors_use_the_envelope() {
    let api = Api::test().await;
    let r = api.http.get(api.url("/v1/sessions")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    let request_id = r.headers()["x-request-id"].to_str().unwrap().to_string();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "authentication_error");
    assert_eq!(body["error"]["request_id"], request_id.as_str());
    crate::support::same_shape(&body, &crate::support::examples()["error"], "error").unwrap();

    let wrong = api
        .http
        .get(api.url("/v1/health"))
        .bearer_auth("gbr_pat_wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);

    // Anonymous endpoints answer without a token.
    let anon = api
        .http
        .get(api.url("/v1/model-connectors"))
        .send()
        .await
        .unwrap();
    assert_eq!(anon.status().as_u16(), 200);
}

#[tokio::test]
async fn authenticated_responses_carry_request_id_rate_limit_and_link_headers() {
    let api = Api::test().await;
    let r = api
        .req(reqwest::Method::GET, "/v1/health")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let h = r.headers();
    for name in [
        "x-request-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-ratelimit-resource",
        "link",
    ] {
        assert!(h.contains_key(name), "missing {name}");
    }
    assert_eq!(h["x-ratelimit-resource"], "general");
    // The tests' buckets are too large to run short (`SimConfig::for_tests`).
    assert_eq!(h["x-ratelimit-limit"], "1000000");
    let missing = api.get("/v1/nope").await;
    assert_eq!(missing.0, 404);
    assert_eq!(missing.1["error"]["code"], "not_found");
    let r = api
        .req(reqwest::Method::PUT, "/v1/sessions")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert!(r.headers().contains_key("allow"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
}

#[tokio::test]
async fn session_creates_are_throttled_by_their_own_bucket() {
    let mut config = SimConfig::for_tests();
    config.rate_limits = RateLimits {
        sessions_per_minute: 2,
        general_per_minute: 120,
        enforce: true,
    };
    let api = Api::start(config).await;
    api.new_session().await;
    api.new_session().await;
    let r = api
        .req(reqwest::Method::POST, "/v1/sessions")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    assert_eq!(r.headers()["x-ratelimit-resource"], "sessions");
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limit_exceeded");
    // The general bucket is independent.
    assert_eq!(api.get("/v1/sessions").await.0, 200);
}

#[tokio::test]
async fn each_token_spends_its_own_budget() {
    let mut config = SimConfig::for_tests();
    config.rate_limits = RateLimits {
        sessions_per_minute: 10,
        general_per_minute: 3,
        enforce: true,
    };
    let api = Api::start(config).await;
    let other = api.sim.mint_token(&["sessions:read"]);
    let get_as = |token: String| {
        let r = api.http.get(api.url("/v1/sessions")).bearer_auth(token);
        async move { r.send().await.unwrap() }
    };
    for left in [2, 1, 0] {
        let r = get_as(api.token.clone()).await;
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["x-ratelimit-remaining"], left.to_string());
    }
    assert_eq!(get_as(api.token.clone()).await.status().as_u16(), 429);
    // The other token's bucket is untouched by the first one's requests.
    let r = get_as(other.clone()).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["x-ratelimit-remaining"], "2");
    assert_eq!(get_as(api.token.clone()).await.status().as_u16(), 429);
}

#[tokio::test]
async fn validation_refuses_unknown_fields_params_bad_limits_and_big_bodies() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let cases: Vec<(u16, Value)> = vec![
        api.post("/v1/sessions", json!({"titel": "typo"})).await,
        api.get("/v1/sessions?before=abc").await,
        api.get("/v1/sessions?limit=0").await,
        api.get("/v1/sessions?limit=101").await,
        api.get(&format!("/v1/sessions/{id}/items?order=sideways"))
            .await,
        api.post(
            &format!("/v1/sessions/{id}/events"),
            json!({"events": [
                {"type": "input.message", "content": "a"},
                {"type": "input.message", "content": "b"}]}),
        )
        .await,
        api.send(
            &id,
            json!({"type": "input.message", "content": "x", "extra": 1}),
        )
        .await,
        api.send(&id, json!({"type": "input.approval", "call_id": "call_1"}))
            .await,
        api.send(
            &id,
            json!({"type": "input.approval", "call_id": "call_1", "approved": "yes"}),
        )
        .await,
        api.send(
            &id,
            json!({"type": "input.question_answer", "call_id": "c", "answer": ""}),
        )
        .await,
        api.send(&id, json!({"type": "input.teleport"})).await,
        api.post(&format!("/v1/sessions/{id}/events"), json!({"events": []}))
            .await,
    ];
    for (i, (status, body)) in cases.iter().enumerate() {
        assert_eq!(*status, 400, "case {i}: {body}");
        assert_eq!(body["error"]["code"], "invalid_request", "case {i}");
        assert!(body.get("data").is_none());
    }
    let big = "x".repeat(1024 * 1024 + 10);
    let (status, body) = api.message(&id, &big).await;
    assert_eq!(status, 400, "{body}");
    let r = api
        .req(reqwest::Method::PATCH, &format!("/v1/sessions/{id}"))
        .json(&json!({"approval_mode": "plan"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = api
        .req(reqwest::Method::PATCH, &format!("/v1/sessions/{id}"))
        .json(&json!({"title": "Nightly", "agent": {"approval_mode": "plan"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["title"], "Nightly");
    assert_eq!(s["agent"]["approval_mode"], "plan");
}

#[tokio::test]
async fn idempotency_replays_and_refuses_in_flight_duplicates() {
    let mut config = SimConfig::for_tests();
    config.write_latency = Duration::from_millis(300);
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let send = |key: &'static str| {
        api.req(reqwest::Method::POST, &format!("/v1/sessions/{id}/events"))
            .header("Idempotency-Key", key)
            .json(&json!({"events": [{"type": "input.message", "content": "#approval go"}]}))
            .send()
    };
    let (a, b) = tokio::join!(send("k-1"), send("k-1"));
    let mut statuses = [a.unwrap().status().as_u16(), b.unwrap().status().as_u16()];
    statuses.sort();
    assert_eq!(statuses, [202, 409]);
    let first = send("k-1").await.unwrap();
    assert_eq!(first.status().as_u16(), 202);
    let replay: Value = first.json().await.unwrap();
    assert_eq!(replay["type"], "input.message");
    assert_eq!(replay["queued"], false);
    assert_eq!(api.sim.messages_with_key("k-1"), 1);
    // A refusal releases the key: the retry is a real attempt.
    let r = api
        .req(reqwest::Method::POST, "/v1/sessions/nope/events")
        .header("Idempotency-Key", "k-2")
        .json(&json!({"events": [{"type": "input.message", "content": "x"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert_eq!(api.sim.messages_with_key("k-2"), 0);
}

#[tokio::test]
async fn a_delayed_accept_answers_202_after_the_delay_and_records_the_message_once() {
    let api = Api::start(SimConfig::for_tests()).await;
    let id = api.sim.create_session(None);
    let delay = Duration::from_millis(1_500);
    api.sim.set_faults(Faults {
        delay_send_accept_ms: delay.as_millis() as u64,
        ..Faults::default()
    });
    let started = std::time::Instant::now();
    let r = api
        .req(reqwest::Method::POST, &format!("/v1/sessions/{id}/events"))
        .header("Idempotency-Key", "k-slow")
        .json(&json!({"events": [{"type": "input.message", "content": "slow one"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    assert_eq!(
        api.sim.accepted_messages(),
        vec![gobare_sim::AcceptedMessage {
            key: Some("k-slow".into()),
            text: "slow one".into(),
        }]
    );
}

#[tokio::test]
async fn queue_holds_five_then_refuses_and_queued_turns_have_no_start() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    assert_eq!(api.message(&id, "#approval restart it").await.0, 202);
    sse.until("approval.requested").await;
    for position in 1..=5 {
        let (status, body) = api.message(&id, &format!("follow-up {position}")).await;
        assert_eq!(status, 202);
        assert_eq!(body["queued"], true);
        assert_eq!(body["queue_position"], position);
    }
    let (status, body) = api.message(&id, "one too many").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["code"], "queue_full");
    let frames = sse.until("message.queued").await;
    assert_eq!(frames.last().unwrap().json()["payload"]["position"], 1);
    let (_, turns) = api
        .get(&format!("/v1/sessions/{id}/turns?order=asc&limit=100"))
        .await;
    let turns = turns["data"].as_array().unwrap().clone();
    assert_eq!(turns.len(), 6);
    assert!(turns[0]["started_at"].is_i64());
    assert!(turns[1..].iter().all(|t| t["started_at"].is_null()));
    assert!(turns.iter().all(|t| t["status"] == "working"));
    // Cancel the parked turn: it settles cancelled and the next one starts.
    let (status, _) = api.send(&id, json!({"type": "input.cancel"})).await;
    assert_eq!(status, 202);
    let frames = sse.until("message.dequeued").await;
    assert!(kinds(&frames).contains(&"turn.ended".to_string()));
    let first = api.turn(&id, turns[0]["id"].as_str().unwrap()).await;
    assert_eq!(first["status"], "cancelled");
}

#[tokio::test]
async fn steer_needs_a_running_turn_and_is_acknowledged() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let (status, body) = api
        .send(&id, json!({"type": "input.steer", "content": "use rust"}))
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["error"]["code"], "conflict");
    // Cancel with nothing running is still accepted.
    assert_eq!(api.send(&id, json!({"type": "input.cancel"})).await.0, 202);

    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    let frames = sse.until("approval.requested").await;
    let call = frames.last().unwrap().json()["payload"]["toolCallId"].clone();
    let (status, _) = api
        .send(
            &id,
            json!({"type": "input.steer", "content": "only touch staging"}),
        )
        .await;
    assert_eq!(status, 202);
    api.send(
        &id,
        json!({"type": "input.approval", "call_id": call, "approved": true}),
    )
    .await;
    let frames = sse.until("agent.message").await;
    let text = frames.last().unwrap().json()["payload"]["text"].clone();
    assert!(
        text.as_str().unwrap().contains("only touch staging"),
        "{text}"
    );
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed");
}

#[tokio::test]
async fn each_required_action_kind_is_answered_with_each_outcome() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;

    // Approval.
    api.message(&id, "#approval go").await;
    sse.until("approval.requested").await;
    let s = api.session(&id).await;
    assert_eq!(s["status"], "requires_action");
    let action = s["required_actions"][0].clone();
    assert_eq!(action["type"], "approval");
    let call = action["call_id"].as_str().unwrap().to_string();
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                          "call_id": call, "success": true, "output": "x"}),
        )
        .await;
    assert_eq!(status, 400, "not a function call: {body}");
    let approve = json!({"type": "input.approval", "call_id": call, "approved": false});
    let (status, body) = api.send(&id, approve.clone()).await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
    let (_, body) = api.send(&id, approve).await;
    assert_eq!(body["outcome"], "already_resolved");
    let frames = sse.until("approval.resolved").await;
    assert_eq!(frames.last().unwrap().json()["payload"]["approved"], false);
    sse.until("turn.ended").await;

    // Question.
    api.message(&id, "#question which way").await;
    let frames = sse.until("question.asked").await;
    let call = frames.last().unwrap().json()["payload"]["toolCallId"].clone();
    let s = api.session(&id).await;
    assert_eq!(s["required_actions"][0]["type"], "question");
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.question_answer", "call_id": call, "answer": "roll back"}),
        )
        .await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
    let frames = sse.until("agent.message").await;
    let said = frames.last().unwrap().json()["payload"]["text"].clone();
    assert!(said.as_str().unwrap().contains("roll back"));
    sse.until("turn.ended").await;

    // Function call.
    api.sim.declare_function(&id, "lookup_order", None);
    api.message(&id, "#function look it up").await;
    sse.until("tool.required").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    assert_eq!(action["type"], "function_call");
    assert_eq!(action["name"], "lookup_order");
    let unknown = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                          "call_id": "call_nope", "success": true, "output": "{}"}),
        )
        .await;
    assert_eq!(unknown.0, 404);
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                          "call_id": action["call_id"], "success": true, "output": "shipped"}),
        )
        .await;
    assert_eq!((status, body["outcome"].clone()), (202, json!("accepted")));
    sse.until("tool.resolved").await;
    sse.until("turn.ended").await;
    let s = api.until_session(&id, |s| s["status"] == "idle").await;
    assert_eq!(s["required_actions"], json!([]));
}

#[tokio::test]
async fn a_restarted_sandbox_answers_not_delivered_and_the_turn_stays_working() {
    let mut config = SimConfig::for_tests();
    config.tool_results_not_delivered = true;
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.sim.declare_function(&id, "lookup_order", None);
    api.message(&id, "#function look it up").await;
    sse.until("tool.required").await;
    let action = api.session(&id).await["required_actions"][0].clone();
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.tool_result", "turn_id": action["turn_id"],
                          "call_id": action["call_id"], "success": false,
                          "error": "The tool failed. Ask the user how to proceed."}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("not_delivered"))
    );
    let s = api.session(&id).await;
    assert_eq!(s["status"], "working");
    assert_eq!(s["required_actions"], json!([]));
}

#[tokio::test]
async fn a_turn_settles_with_items_artifacts_and_context() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    let (status, body) = api.message(&id, "fix the export").await;
    assert_eq!((status, body["queued"].clone()), (202, json!(false)));
    assert!(body["queue_position"].is_null());
    let frames = sse.until("turn.ended").await;
    assert_eq!(frames[1].kind(), "user.message", "{:?}", kinds(&frames));
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    sse.until("artifact.created").await;
    let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
    assert_eq!(turn["status"], "completed");
    let turn = loop {
        let t = api.turn(&id, turn_id.as_str().unwrap()).await;
        if t["artifacts"] == "ready" {
            break t;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert!(turn["completed_at"].is_i64());
    let (_, arts) = api.get(&format!("/v1/sessions/{id}/artifacts")).await;
    assert!(
        arts["data"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("/workspace/outputs/")
    );
    let (_, items) = api
        .get(&format!("/v1/sessions/{id}/items?order=asc&limit=100"))
        .await;
    let items = items["data"].as_array().unwrap();
    let calls = items
        .iter()
        .filter(|i| i["type"] == "tool_call" && i["detail"]["event"] == "agent.tool_call")
        .count();
    let results = items
        .iter()
        .filter(|i| i["type"] == "tool_call" && i["detail"]["event"] == "agent.tool_result")
        .count();
    assert!(calls > 0 && calls == results);
    let change = items.iter().find(|i| i["type"] == "file_change").unwrap();
    assert_eq!(change["detail"]["event"], "file.modified");
    assert!(change["detail"]["kind"].is_string());
    assert_eq!(items[0]["role"], "user");

    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.context", "content": "FYI: staging only"}),
        )
        .await;
    assert_eq!(status, 202);
    assert_eq!(body["delivered"], false);
    sse.until("user.context").await;
}

#[tokio::test]
async fn the_workspace_pauses_when_idle_wakes_on_input_and_is_rebuilt_after_its_lifetime() {
    let mut config = SimConfig::for_tests();
    config.idle_pause = Duration::from_millis(150);
    // Running time only, and the first turn must finish and pause well inside it even on a
    // loaded 2-core CI machine; the parked second turn then waits it out.
    config.workspace_lifetime = Duration::from_millis(4000);
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    assert_eq!(api.session(&id).await["environment"]["state"], "unknown");
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "first").await;
    sse.until("sandbox.created").await;
    sse.until("turn.ended").await;
    sse.until("sandbox.paused").await;
    assert_eq!(api.session(&id).await["environment"]["state"], "paused");
    // A parked turn keeps the workspace running until its lifetime (running time only)
    // runs out: it is destroyed without an event.
    api.message(&id, "#approval second").await;
    sse.until("sandbox.resumed").await;
    let frames = sse.until("turn.ended").await;
    assert!(!crate::support::kinds(&frames).contains(&"sandbox.paused".to_string()));
    api.until_session(&id, |s| s["environment"]["state"] == "destroyed")
        .await;
    api.message(&id, "third").await;
    let frames = sse.until("sandbox.created").await;
    assert!(!kinds(&frames).contains(&"sandbox.resumed".to_string()));
    assert_eq!(api.session(&id).await["environment"]["state"], "running");
}

#[tokio::test]
async fn lists_page_by_order_and_after_with_unplaceable_cursors_empty() {
    let api = Api::test().await;
    let ids: Vec<String> = (0..5)
        .map(|i| api.sim.create_session(Some(&format!("s{i}"))))
        .collect();
    let (_, page) = api.get("/v1/sessions?limit=2").await;
    assert_eq!(page["object"], "list");
    assert_eq!(
        page["data"][0]["id"],
        ids[4].as_str(),
        "default order is desc"
    );
    assert_eq!(page["has_more"], true);
    assert!(page["data"][0]["agent"].get("tools").is_none());
    let after = page["last_id"].as_str().unwrap();
    let (_, next) = api
        .get(&format!("/v1/sessions?limit=2&after={after}"))
        .await;
    assert_eq!(next["data"][0]["id"], ids[2].as_str());
    let (_, asc) = api.get("/v1/sessions?order=asc&limit=100").await;
    assert_eq!(asc["data"][0]["id"], ids[0].as_str());
    assert_eq!(asc["has_more"], false);
    let (status, none) = api.get("/v1/sessions?after=invented").await;
    assert_eq!(status, 200);
    assert_eq!(none["data"], json!([]));
    assert_eq!(none["has_more"], false);
    let (status, empty) = api.get("/v1/sessions?after=").await;
    assert_eq!(status, 400, "an empty cursor names nothing: {empty}");
    // Fork, delete.
    let (status, fork) = api
        .post(&format!("/v1/sessions/{}/fork", ids[0]), json!({}))
        .await;
    assert_eq!(status, 201);
    assert_eq!(fork["forked_from"], ids[0].as_str());
    assert_eq!(fork["parent_session_id"], ids[0].as_str());
    let (_, tree) = api.get(&format!("/v1/sessions?root={}", ids[0])).await;
    assert_eq!(tree["data"].as_array().unwrap().len(), 2);
    let r = api
        .req(reqwest::Method::DELETE, &format!("/v1/sessions/{}", ids[1]))
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body,
        json!({"object": "session.deleted", "id": ids[1], "deleted": true})
    );
    assert_eq!(api.get(&format!("/v1/sessions/{}", ids[1])).await.0, 404);
}

#[tokio::test]
async fn every_scenario_is_embedded_and_the_mix_rotates_through_them() {
    let mut config = SimConfig::for_tests();
    config.scenario = "mix".into();
    let api = Api::start(config).await;
    let mut names = api.sim.scenarios();
    names.sort();
    assert_eq!(
        names,
        [
            "approval", "choice", "edits", "error", "expiring", "function", "long", "question",
            "quick", "recovery", "undiffed"
        ]
    );
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "first").await;
    sse.until("turn.ended").await;
    api.message(&id, "second").await;
    let second = sse.events_until("turn.ended").await;
    let restarted = second.iter().any(|f| {
        f.kind() == "agent.tool_result"
            && f.json()["payload"]["summary"]
                .as_str()
                .is_some_and(|s| s.contains("export-worker restarted"))
    });
    assert!(
        restarted,
        "the rotation's approval scenario runs under auto"
    );
}

#[tokio::test]
async fn the_organization_session_ceiling_is_project_limit_exceeded() {
    let mut config = SimConfig::for_tests();
    config.max_sessions = 2;
    let api = Api::start(config).await;
    api.new_session().await;
    api.new_session().await;
    let r = api
        .req(reqwest::Method::POST, "/v1/sessions")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    assert!(
        !r.headers().contains_key("retry-after"),
        "never retry this one"
    );
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "project_limit_exceeded");
}

#[tokio::test]
async fn a_turn_running_when_the_workspace_is_reclaimed_fails() {
    let mut config = SimConfig::for_tests();
    config.workspace_lifetime = Duration::from_millis(300);
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval go").await;
    sse.until("approval.requested").await;
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
    assert_eq!(turn["status"], "failed");
    assert!(turn["error"]["message"].is_string());
    let s = api.session(&id).await;
    assert_eq!(s["status"], "failed");
    assert_eq!(s["environment"]["state"], "destroyed");
    assert_eq!(s["required_actions"], json!([]));
}

#[tokio::test]
async fn a_parked_question_ends_failed_when_its_workspace_has_run_its_lifetime() {
    let mut config = SimConfig::for_tests();
    config.workspace_lifetime = Duration::from_millis(1_500);
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#question which way").await;
    let asked = sse.until("question.asked").await;
    let started = asked
        .iter()
        .find(|f| f.kind() == "sandbox.created")
        .expect("the workspace starts with the turn")
        .json()["created_at"]
        .as_i64()
        .unwrap();
    let call = asked.last().unwrap().json()["payload"]["toolCallId"].clone();
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
    assert_eq!(turn["status"], "failed", "{turn}");
    // Parked, the workspace never paused: it ended its lifetime of running time after it
    // started (the timer's own lateness aside).
    let ended = turn["completed_at"].as_i64().unwrap();
    assert!(
        (1_500..2_500).contains(&(ended - started)),
        "ended {} ms after the workspace started",
        ended - started
    );
    assert!(!kinds(&frames).contains(&"sandbox.paused".to_string()));
    // A late answer finds nothing waiting, and the record says so.
    let (status, body) = api
        .send(
            &id,
            json!({"type": "input.question_answer", "call_id": call, "answer": "left"}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("no_longer_pending"))
    );
    let answers = api.sim.answers();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].session_id, id);
    assert_eq!(answers[0].outcome, "no_longer_pending");
}

/// The persisted frames' decoded events, in order.
fn persisted_events(frames: &[crate::support::Frame]) -> Vec<Event> {
    frames
        .iter()
        .filter(|f| f.id.is_some())
        .map(|f| Event::parse(f.data.as_deref().unwrap()).expect("a well-formed envelope"))
        .collect()
}

#[tokio::test]
async fn an_agent_error_ends_the_turn_failed_and_the_session_still_accepts_input() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#error migrate the billing tables").await;
    let frames = sse.until("turn.ended").await;
    let events = persisted_events(&frames);
    let errors: Vec<(usize, &str)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.payload {
            EventPayload::AgentError(m) => Some((i, m.message.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        errors.iter().map(|(_, m)| *m).collect::<Vec<_>>(),
        [
            "the model provider timed out; retrying the request",
            "the model provider returned 502"
        ],
        "{:?}",
        kinds(&frames)
    );
    // The first error is survived: the run goes on to another tool call.
    assert!(
        events[errors[0].0..errors[1].0]
            .iter()
            .any(|e| matches!(e.payload, EventPayload::AgentToolCall(_)))
    );
    // The fatal one is the run's last word: the turn ends right after it.
    let (fatal, _) = errors[1];
    let after: Vec<&str> = events[fatal + 1..]
        .iter()
        .map(|e| e.kind.as_ref())
        .collect();
    assert_eq!(after, ["turn.ended"]);
    let EventPayload::TurnEnded(ended) = &events.last().unwrap().payload else {
        panic!("the last frame is turn.ended");
    };
    let turn = api.turn(&id, &ended.turn_id).await;
    assert_eq!(turn["status"], "failed");
    assert!(turn["started_at"].is_i64() && turn["completed_at"].is_i64());
    assert_eq!(
        turn["error"],
        json!({"code": "provider_error", "message": "the model provider returned 502"})
    );
    let s = api.session(&id).await;
    assert_eq!(s["status"], "failed");
    assert_eq!(s["required_actions"], json!([]));
    assert_eq!(s["environment"]["state"], "running");
    let (_, items) = api
        .get(&format!("/v1/sessions/{id}/items?order=asc&limit=100"))
        .await;
    let error_items: Vec<&Value> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "error")
        .collect();
    assert_eq!(error_items.len(), 2);
    assert_eq!(
        error_items[1]["detail"],
        json!({"event": "agent.error", "message": "the model provider returned 502"})
    );

    // `failed` is only the last turn's outcome: the next message runs normally.
    api.message(&id, "#quick try again").await;
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    assert_eq!(
        api.turn(&id, turn_id.as_str().unwrap()).await["status"],
        "completed"
    );
    assert_eq!(api.session(&id).await["status"], "idle");
}

#[tokio::test]
async fn a_workspace_that_cannot_be_rebuilt_reports_recovery_failed_until_a_rebuild_succeeds() {
    let mut config = SimConfig::for_tests();
    // Long enough for the `recovering` state to be seen by polling on a loaded machine.
    config.sandbox_boot = Duration::from_millis(800);
    let api = Api::start(config).await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;

    // The scripted run loses its workspace: destroyed (no event), the turn fails.
    api.message(&id, "#recovery build the site").await;
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    let turn = api.turn(&id, turn_id.as_str().unwrap()).await;
    assert_eq!(turn["status"], "failed");
    assert_eq!(turn["error"]["code"], "sandbox_error");
    let s = api.session(&id).await;
    assert_eq!(
        (&s["status"], &s["environment"]["state"]),
        (&json!("failed"), &json!("destroyed"))
    );

    // The next input rebuilds it (`recovering`, no event), and the rebuild gives up.
    api.message(&id, "#quick and now?").await;
    api.until_session(&id, |s| s["environment"]["state"] == "recovering")
        .await;
    let frames = sse.until("turn.ended").await;
    let events = persisted_events(&frames);
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_ref()).collect();
    assert_eq!(
        kinds,
        ["user.message", "workspace.recovery_failed", "turn.ended"]
    );
    let EventPayload::WorkspaceRecoveryFailed(failed) = &events[1].payload else {
        panic!("{:?}", events[1]);
    };
    assert_eq!(
        failed.message,
        "no snapshot was available for this workspace"
    );
    let EventPayload::TurnEnded(ended) = &events[2].payload else {
        panic!("{:?}", events[2]);
    };
    let turn = api.turn(&id, &ended.turn_id).await;
    assert_eq!(turn["status"], "failed");
    assert!(turn["started_at"].is_null(), "the run never started");
    assert_eq!(
        turn["error"],
        json!({"code": "workspace_recovery_failed",
               "message": "no snapshot was available for this workspace"})
    );
    let s = api.session(&id).await;
    assert_eq!(
        (&s["status"], &s["environment"]["state"]),
        (&json!("failed"), &json!("recovery_failed"))
    );
    let (_, items) = api.get(&format!("/v1/sessions/{id}/items?limit=1")).await;
    assert_eq!(items["data"][0]["type"], "error");
    assert_eq!(
        items["data"][0]["detail"],
        json!({"message": "no snapshot was available for this workspace", "origin": "sandbox"}),
        "a run-start failure is an error item without `event` (§9.3)"
    );

    // Operations that need the workspace are refused with the matching code, not retried.
    let r = api
        .req(
            reqwest::Method::POST,
            &format!("/v1/sessions/{id}/files/refresh"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 500);
    assert!(!r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "workspace_recovery_failed");

    // The fault makes every rebuild give up while it is set.
    api.sim.set_faults(Faults {
        fail_recovery: true,
        ..Faults::default()
    });
    api.message(&id, "#quick once more").await;
    let frames = sse.until("turn.ended").await;
    let events = persisted_events(&frames);
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.payload, EventPayload::WorkspaceRecoveryFailed(_))),
        "{:?}",
        crate::support::kinds(&frames)
    );
    assert_eq!(
        api.session(&id).await["environment"]["state"],
        "recovery_failed"
    );

    // Without it the next input rebuilds the workspace and the turn runs.
    api.sim.set_faults(Faults::default());
    api.message(&id, "#quick last try").await;
    let frames = sse.until("turn.ended").await;
    let kinds = crate::support::kinds(&frames);
    let created = kinds.iter().position(|k| k == "sandbox.created");
    let started = kinds.iter().position(|k| k == "turn.started");
    assert!(created.is_some() && created < started, "{kinds:?}");
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"].clone();
    assert_eq!(
        api.turn(&id, turn_id.as_str().unwrap()).await["status"],
        "completed"
    );
    let s = api.session(&id).await;
    assert_eq!(
        (&s["status"], &s["environment"]["state"]),
        (&json!("idle"), &json!("running"))
    );
}

#[test]
fn sim_flags_parse_into_a_config() {
    use clap::Parser;
    use gobare_sim::SimArgs;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        sim: SimArgs,
    }
    let cli = Cli::try_parse_from([
        "sim",
        "--addr",
        "127.0.0.1:0",
        "--speed",
        "3",
        "--scenario",
        "long",
        "--crlf",
        "--chunk-max",
        "7",
        "--drop-every",
        "40",
        "--no-rate-limits",
        "--retry-ms",
        "8000",
        "--fail-recovery",
    ])
    .unwrap();
    let config = cli.sim.to_config();
    assert_eq!(config.speed, 3.0);
    assert_eq!(config.scenario, "long");
    assert_eq!(config.retry_ms, 8000);
    assert!(config.faults.crlf);
    assert_eq!(config.faults.chunk_writes, Some((1, 7)));
    assert_eq!(config.faults.drop_every_n_frames, Some(40));
    assert!(!config.rate_limits.enforce);
    assert!(config.faults.fail_recovery);
    let defaults = Cli::try_parse_from(["sim"]).unwrap().sim.to_config();
    assert_eq!(defaults.addr.port(), 4780);
    assert_eq!(defaults.scenario, "mix");
    assert!(defaults.rate_limits.enforce);
}

/// Runs a `#quick` turn (a file change, a preview on port 5173, one artifact) and waits
/// until its artifact is published; returns the turn id.
async fn quick_turn(api: &Api, id: &str) -> String {
    let mut sse = api.stream(id, None).await;
    api.message(id, "#quick fix the export").await;
    let frames = sse.until("turn.ended").await;
    let turn_id = frames.last().unwrap().json()["payload"]["turnId"]
        .as_str()
        .unwrap()
        .to_string();
    sse.until("artifact.created").await;
    turn_id
}

#[tokio::test]
async fn the_workspace_routes_need_the_token_and_know_no_session_they_were_not_given() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    // Each with a body it would accept, so the session is what is missing.
    let routes = [
        (reqwest::Method::GET, "usage", None),
        (reqwest::Method::GET, "tools", None),
        (reqwest::Method::PUT, "tools", Some(json!({"tools": []}))),
        (reqwest::Method::GET, "files", None),
        (reqwest::Method::POST, "files", Some(json!({"files": []}))),
        (reqwest::Method::GET, "files/content?path=a", None),
        (reqwest::Method::POST, "files/refresh", None),
        (reqwest::Method::POST, "preview", None),
        (reqwest::Method::DELETE, "preview", None),
        (reqwest::Method::GET, "artifacts/archive", None),
        (reqwest::Method::DELETE, "artifacts/art_0", None),
    ];
    for (method, route, body) in routes {
        let r = api
            .http
            .request(
                method.clone(),
                api.url(&format!("/v1/sessions/{id}/{route}")),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 401, "{method} {route}");
        let refusal: Value = r.json().await.unwrap();
        assert_eq!(refusal["error"]["code"], "authentication_error");

        let mut req = api.req(method.clone(), &format!("/v1/sessions/nope/{route}"));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let r = req.send().await.unwrap();
        assert_eq!(
            r.status().as_u16(),
            404,
            "{method} {route} on an unknown session"
        );
        let refusal: Value = r.json().await.unwrap();
        assert_eq!(refusal["error"]["code"], "not_found", "{method} {route}");
    }
    // A route this simulator does not serve answers with the envelope, not a bare 404.
    let (status, body) = api.get("/v1/webhooks").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("simulator")
    );
}

#[tokio::test]
async fn usage_counts_sandbox_intervals_of_the_session_or_its_tree() {
    let mut config = SimConfig::for_tests();
    config.idle_pause = Duration::from_millis(100);
    let api = Api::start(config).await;
    let id = api.new_session().await;
    let (status, usage) = api.get(&format!("/v1/sessions/{id}/usage")).await;
    assert_eq!(status, 200, "{usage}");
    let keys: Vec<&str> = usage
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "as_of",
            "chargeable_seconds",
            "intervals",
            "needs_review_intervals",
            "object",
            "sandbox_seconds",
            "scope",
            "session_id",
            "sessions"
        ]
    );
    assert_eq!(usage["object"], "session.usage");
    assert_eq!(usage["session_id"], id.as_str());
    assert_eq!(
        (&usage["scope"], &usage["sessions"]),
        (&json!("session"), &json!(1))
    );
    assert_eq!(
        (&usage["sandbox_seconds"], &usage["intervals"]),
        (&json!(0), &json!(0))
    );
    assert!(usage["as_of"].is_i64());

    quick_turn(&api, &id).await;
    api.until_session(&id, |s| s["environment"]["state"] == "paused")
        .await;
    let (_, usage) = api.get(&format!("/v1/sessions/{id}/usage")).await;
    assert_eq!(
        usage["intervals"], 1,
        "one running interval, closed by the pause"
    );
    assert!(usage["sandbox_seconds"].is_u64() && usage["chargeable_seconds"].is_u64());
    assert_eq!(usage["needs_review_intervals"], 0);

    let (status, fork) = api
        .post(&format!("/v1/sessions/{id}/fork"), json!({}))
        .await;
    assert_eq!(status, 201, "{fork}");
    let (_, tree) = api.get(&format!("/v1/sessions/{id}/usage?root={id}")).await;
    assert_eq!(
        (&tree["scope"], &tree["sessions"]),
        (&json!("tree"), &json!(2))
    );
    let child = fork["id"].as_str().unwrap();
    let (status, body) = api
        .get(&format!("/v1/sessions/{id}/usage?root={child}"))
        .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("invalid_request"))
    );
    let (status, _) = api.get(&format!("/v1/sessions/{id}/usage?order=asc")).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn tools_read_back_without_secrets_and_a_put_replaces_them_whole() {
    let api = Api::test().await;
    let (status, created) = api
        .post(
            "/v1/sessions",
            json!({"agent": {"tools": [{"type": "mcp", "name": "tracker",
                "url": "https://mcp.example", "authorization": "Bearer secret"}]}}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let (status, tools) = api.get(&format!("/v1/sessions/{id}/tools")).await;
    assert_eq!(status, 200);
    assert_eq!(
        tools,
        json!({"object": "session.tools", "session_id": id, "text": null,
               "tools": [{"type": "mcp", "name": "tracker", "url": "https://mcp.example",
                          "redacted": ["authorization"]}]})
    );
    assert_eq!(api.session(&id).await["agent"]["tools"], tools["tools"]);

    let put = |body: Value| {
        api.req(reqwest::Method::PUT, &format!("/v1/sessions/{id}/tools"))
            .json(&body)
            .send()
    };
    let r = put(
        json!({"tools": [{"type": "function", "name": "lookup_order",
                                 "parameters": {"type": "object"}}],
                       "text": {"verbosity": "low"}}),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let replaced: Value = r.json().await.unwrap();
    assert_eq!(
        replaced["tools"].as_array().unwrap().len(),
        1,
        "never merged"
    );
    assert_eq!(replaced["tools"][0]["name"], "lookup_order");
    assert_eq!(replaced["text"], json!({"verbosity": "low"}));
    let (_, read) = api.get(&format!("/v1/sessions/{id}/tools")).await;
    assert_eq!(read, replaced);

    for bad in [
        json!({"tools": read["tools"]}), // carries `redacted`
        json!({"tools": [{"type": "skill", "name": "x"}]}),
        json!({"tools": (0..33).map(|_| json!({"type": "web_fetch"})).collect::<Vec<_>>()}),
        json!({"text": {}}),
        json!({"tools": [], "merge": true}),
    ] {
        let r = put(bad.clone()).await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "{bad}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_request");
    }
}

#[tokio::test]
async fn workspace_files_are_read_from_snapshots_and_written_live() {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut config = SimConfig::for_tests();
    // Long enough that the write right after `PUT …/tools` surely lands while it restarts.
    config.bridge_restart = Duration::from_secs(1);
    let api = Api::start(config).await;
    let (status, created) = api
        .post(
            "/v1/sessions",
            json!({"environment": {"files": [
                {"type": "inline", "path": "notes.md", "data": b64(b"# Notes\n")},
                {"path": "/workspace/.env", "data": b64(b"TOKEN=x\n")}
            ]}}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let files = format!("/v1/sessions/{id}/files");
    let (status, tree) = api.get(&files).await;
    assert_eq!(status, 200);
    assert_eq!(
        tree,
        json!({"object": "list", "data": [], "captured_at": null, "state": "missing",
               "truncated": false}),
        "no snapshot yet is not an empty workspace"
    );
    let write = json!({"files": [{"path": "src/app.ts", "data": b64(b"export {}\n")}]});
    let (status, body) = api.post(&files, write.clone()).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("conflict")),
        "not up yet"
    );

    quick_turn(&api, &id).await;
    let (status, written) = api.post(&files, write).await;
    assert_eq!(status, 200, "{written}");
    assert_eq!(
        written,
        json!({"object": "list", "data": [
            {"object": "workspace_file", "type": "file", "path": "src/app.ts", "size_bytes": 10,
             "readable": true}]})
    );
    let (_, tree) = api.get(&files).await;
    assert_eq!(tree["state"], "missing", "a write is not a snapshot");

    let (status, tree) = api.get(&format!("{files}?refresh=1")).await;
    assert_eq!(status, 200, "{tree}");
    assert_eq!(tree["state"], "ready");
    assert!(tree["captured_at"].is_i64());
    let listed: Vec<(&str, bool)> = tree["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["readable"].as_bool().unwrap(),
            )
        })
        .collect();
    for expected in [(".env", false), ("notes.md", true), ("src/app.ts", true)] {
        assert!(listed.contains(&expected), "{expected:?} in {listed:?}");
    }
    let typed: Vec<(&str, &str)> = tree["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["type"].as_str().unwrap()))
        .collect();
    assert!(typed.contains(&("src", "directory")), "{typed:?}");
    assert!(typed.contains(&("src/app.ts", "file")), "{typed:?}");
    let (status, refreshed) = api.post(&format!("{files}/refresh"), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(refreshed["data"], tree["data"]);

    let content = |path: &str| {
        let url = format!("{files}/content?path={path}");
        let api = &api;
        async move { api.get(&url).await }
    };
    let (status, notes) = content("/workspace/notes.md").await;
    assert_eq!(status, 200, "{notes}");
    assert_eq!(notes["object"], "workspace_file.content");
    assert_eq!(notes["path"], "notes.md");
    assert_eq!(
        (&notes["content"], &notes["encoding"], &notes["truncated"]),
        (&json!("# Notes\n"), &json!("utf8"), &json!(false))
    );
    assert_eq!(notes["captured_at"], refreshed["captured_at"]);
    let (status, body) = content(".env").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("permission_denied"))
    );
    let (status, _) = content("missing.txt").await;
    assert_eq!(status, 404);
    for bad in ["/etc/passwd", "../x"] {
        let (status, _) = content(bad).await;
        assert_eq!(status, 400, "{bad}");
    }
    assert_eq!(api.get(&format!("{files}/content")).await.0, 400);
    assert_eq!(api.get(&format!("{files}?refresh=yes")).await.0, 400);

    let (status, _) = api
        .post(&files, json!({"files": [{"path": "/tmp/x", "data": ""}]}))
        .await;
    assert_eq!(status, 400);
    let many: Vec<Value> = (0..51)
        .map(|i| json!({"path": format!("f{i}"), "data": ""}))
        .collect();
    assert_eq!(api.post(&files, json!({"files": many})).await.0, 400);

    // `PUT …/tools` restarts the bridge: writes are refused until it is back.
    let r = api
        .req(reqwest::Method::PUT, &format!("/v1/sessions/{id}/tools"))
        .json(&json!({"tools": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let bin = json!({"files": [{"path": "blob.bin", "data": b64(&[0xff, 0x00])}]});
    let (status, body) = api.post(&files, bin.clone()).await;
    assert_eq!((status, &body["error"]["code"]), (409, &json!("conflict")));
    let deadline = tokio::time::Instant::now() + crate::support::WAIT;
    while api.post(&files, bin.clone()).await.0 != 200 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bridge never came back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    api.post(&format!("{files}/refresh"), json!({})).await;
    let (_, blob) = content("blob.bin").await;
    assert_eq!(
        (&blob["encoding"], &blob["content"]),
        (&json!("base64"), &json!("/wA="))
    );
}

#[tokio::test]
async fn a_preview_is_published_once_per_subdomain_and_unpublished_idempotently() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let preview = format!("/v1/sessions/{id}/preview");
    let (status, body) = api.post(&preview, json!({})).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("conflict")),
        "nothing serving"
    );

    quick_turn(&api, &id).await;
    let (status, published) = api.post(&preview, json!({})).await;
    assert_eq!(status, 201, "{published}");
    let keys: Vec<&str> = published
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["object", "port", "published_url", "subdomain", "url"]
    );
    assert_eq!(published["object"], "preview");
    assert_eq!(published["port"], 5173);
    let subdomain = published["subdomain"].as_str().unwrap().to_string();
    assert!(
        published["published_url"]
            .as_str()
            .unwrap()
            .contains(&subdomain)
    );
    assert_eq!(
        published["url"], published["published_url"],
        "the reply's url is the public address"
    );
    assert_eq!(
        api.session(&id).await["preview"]["published_url"],
        published["published_url"]
    );
    let (status, again) = api
        .post(&preview, json!({"subdomain": subdomain.clone()}))
        .await;
    assert_eq!(
        (status, &again),
        (200, &published),
        "an identical republish"
    );
    let (status, _) = api.post(&preview, json!({"subdomain": "elsewhere"})).await;
    assert_eq!(status, 409, "already published under another name");

    let other = api.new_session().await;
    quick_turn(&api, &other).await;
    let (status, body) = api
        .post(
            &format!("/v1/sessions/{other}/preview"),
            json!({"subdomain": subdomain}),
        )
        .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("conflict")),
        "taken"
    );
    for bad in [
        "x",
        "Upper",
        "under_score",
        "api",
        "-bad",
        "bad-",
        &"a".repeat(64),
    ] {
        let (status, _) = api.post(&preview, json!({"subdomain": bad})).await;
        assert_eq!(status, 400, "{bad}");
    }

    for _ in 0..2 {
        let r = api
            .req(reqwest::Method::DELETE, &preview)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            body,
            json!({"object": "preview.deleted", "id": id, "deleted": true})
        );
    }
    assert!(api.session(&id).await["preview"]["published_url"].is_null());
    let (status, _) = api.post(&preview, json!({"subdomain": "my-app"})).await;
    assert_eq!(status, 201);
}

/// The entries of a ustar archive: (name, contents).
fn untar(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let field = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .trim_end_matches('\0')
            .to_string()
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at + 512 <= bytes.len() && bytes[at..at + 512].iter().any(|&b| b != 0) {
        let header = &bytes[at..at + 512];
        assert_eq!(&header[257..262], b"ustar");
        let (prefix, name) = (field(&header[345..500]), field(&header[..100]));
        let name = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let size = usize::from_str_radix(field(&header[124..136]).trim(), 8).unwrap();
        out.push((name, bytes[at + 512..at + 512 + size].to_vec()));
        at += 512 + size.next_multiple_of(512);
    }
    assert_eq!(bytes.len(), at + 1024, "two zero blocks end the archive");
    out
}

#[tokio::test]
async fn the_artifact_archive_is_a_tar_of_stored_copies_and_deletes_are_typed() {
    let api = Api::test().await;
    let id = api.new_session().await;
    let turn_id = quick_turn(&api, &id).await;
    let (_, list) = api.get(&format!("/v1/sessions/{id}/artifacts")).await;
    let artifact = list["data"][0].clone();
    let (art_id, path) = (
        artifact["id"].as_str().unwrap(),
        artifact["path"].as_str().unwrap(),
    );
    let body = api
        .req(
            reqwest::Method::GET,
            &format!("/v1/sessions/{id}/artifacts/{art_id}/content"),
        )
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();

    let (api, id) = (&api, id.as_str());
    let archive = move |query: String| async move {
        let r = api
            .req(
                reqwest::Method::GET,
                &format!("/v1/sessions/{id}/artifacts/archive{query}"),
            )
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let content_type = r.headers().get("content-type").cloned();
        (status, content_type, r.bytes().await.unwrap())
    };
    let (status, content_type, all) = archive(String::new()).await;
    assert_eq!(status, 200);
    assert_eq!(content_type.unwrap(), "application/x-tar");
    let relative = path.trim_start_matches('/');
    assert_eq!(
        untar(&all),
        [(format!("{turn_id}/{relative}"), body.to_vec())]
    );
    let (_, _, one_turn) = archive(format!("?turn_id={turn_id}")).await;
    assert_eq!(untar(&one_turn), [(relative.to_string(), body.to_vec())]);
    assert_eq!(archive("?turn_id=turn_nope".into()).await.0, 404);
    assert_eq!(archive("?order=asc".into()).await.0, 400);

    let delete = || {
        api.req(
            reqwest::Method::DELETE,
            &format!("/v1/sessions/{id}/artifacts/{art_id}"),
        )
        .send()
    };
    let r = delete().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let deleted: Value = r.json().await.unwrap();
    assert_eq!(
        deleted,
        json!({"object": "artifact.deleted", "id": art_id, "deleted": true})
    );
    assert_eq!(delete().await.unwrap().status().as_u16(), 404);
    let (status, _) = api
        .get(&format!("/v1/sessions/{id}/artifacts/{art_id}"))
        .await;
    assert_eq!(status, 404);
    assert!(untar(&archive(String::new()).await.2).is_empty());
}

/// The actions whose only input is the path refuse a body or a query parameter with the
/// envelope (§1.1: unknown input is an error, not ignored), and take none or `{}`.
#[tokio::test]
async fn path_only_actions_refuse_a_body_or_a_query_parameter() {
    use reqwest::Method;
    let api = Api::test().await;
    let id = api.new_session().await;
    let routes = [
        (Method::POST, format!("/v1/sessions/{id}/fork")),
        (Method::POST, format!("/v1/sessions/{id}/files/refresh")),
        (Method::DELETE, format!("/v1/sessions/{id}/preview")),
        (
            Method::DELETE,
            format!("/v1/sessions/{id}/artifacts/art_none"),
        ),
        (Method::DELETE, format!("/v1/sessions/{id}")),
    ];
    for (method, path) in &routes {
        let with_body = api
            .req(method.clone(), path)
            .json(&json!({"force": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            with_body.status().as_u16(),
            400,
            "{method} {path} with a body"
        );
        let body: Value = with_body.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_request", "{method} {path}");

        let with_query = api
            .req(method.clone(), &format!("{path}?force=1"))
            .send()
            .await
            .unwrap();
        assert_eq!(with_query.status().as_u16(), 400, "{method} {path}?force=1");
    }
    // `{}` counts as no body: the delete goes through.
    let r = api
        .req(Method::DELETE, &format!("/v1/sessions/{id}"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

/// Seeded history is a real history: every turn its events name can be read back, settled
/// (a client reads the turn after `turn.ended`; a 404 there would be a false alarm).
#[tokio::test]
async fn seeded_turns_have_records() {
    let api = Api::test().await;
    let id = api.sim.create_session(Some("seeded"));
    api.sim.seed_events(&id, 80);
    let (status, turns) = api.get(&format!("/v1/sessions/{id}/turns?limit=100")).await;
    assert_eq!(status, 200, "{turns}");
    let listed = turns["data"].as_array().unwrap();
    assert_eq!(listed.len(), 10, "80 events are 10 turns of 8");
    for t in listed {
        assert_eq!(t["status"], "completed");
        assert_eq!(t["artifacts"], "ready");
        let turn_id = t["id"].as_str().unwrap();
        let (status, one) = api.get(&format!("/v1/sessions/{id}/turns/{turn_id}")).await;
        assert_eq!(status, 200, "{one}");
    }
}

#[tokio::test]
async fn a_second_rounds_reply_names_the_first_rounds_message() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    let mut sse = api.stream(&id, None).await;
    let closing = |frames: &[crate::support::Frame]| {
        frames
            .iter()
            .rfind(|f| f.kind() == "agent.message")
            .map(|f| f.json()["payload"]["text"].as_str().unwrap().to_string())
            .unwrap()
    };
    api.message(&id, "Fix the CSV export totals").await;
    let first = closing(&sse.events_until("turn.ended").await);
    assert!(!first.contains("earlier message"), "{first}");
    api.message(&id, "Now add a test for it").await;
    let second = closing(&sse.events_until("turn.ended").await);
    assert!(second.contains("“Fix the CSV export totals”"), "{second}");
}
