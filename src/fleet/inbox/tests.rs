use super::*;
use crate::deadline::WORKSPACE_LIFETIME_MS;
use gobare_api::model::{Event, Session};
use serde_json::{Value, json};

const NOW: i64 = 1_789_400_000_000;
const M: i64 = 60_000;

fn session(id: &str, title: &str, actions: Value) -> Session {
    serde_json::from_value(json!({
        "id": id, "title": title, "status": "requires_action",
        "created_at": NOW - 60 * M, "updated_at": NOW - 60 * M,
        "environment": {"state": "running"}, "required_actions": actions,
    }))
    .unwrap()
}

fn event(id: &str, seq: u64, at: i64, kind: &str, payload: Value) -> Event {
    Event::parse(
        &json!({"object": "event", "seq": seq, "session_id": id, "type": kind,
                "created_at": at, "payload": payload})
        .to_string(),
    )
    .unwrap()
}

fn listed(kind: &str, call: &str, extra: Value) -> Value {
    let mut a = json!({"type": kind, "turn_id": "turn_1", "call_id": call});
    for (k, v) in extra.as_object().unwrap() {
        a[k] = v.clone();
    }
    a
}

#[test]
fn soonest_first_unknown_after_known_each_with_session_and_request() {
    let mut model = FleetModel::new();
    // A: a function call expiring in 5 minutes (workspace history unknown).
    model.apply_full_list(&[
        session(
            "a",
            "Billing",
            json!([listed(
                "function_call",
                "call_f",
                json!({
                "name": "lookup_order", "arguments": {"order_id": "A-1"},
                "created_at": NOW - M, "expires_at": NOW + 5 * M})
            )]),
        ),
        // B: an approval whose workspace started 100 minutes ago (seen below): ≈ 20m.
        session("b", "Nightly", json!([])),
        // C: a question, its workspace history unknown.
        session(
            "c",
            "Docs",
            json!([listed(
                "question",
                "call_q",
                json!({
                "name": "Roll back or patch forward?",
                "arguments": {"options": [{"label": "roll back"}, {"label": "patch"}]},
                "created_at": NOW - 2 * M})
            )]),
        ),
    ]);
    model.apply_event(&event(
        "b",
        1,
        NOW - 100 * M,
        "sandbox.created",
        json!({"state": "running"}),
    ));
    model.apply_event(&event(
        "b",
        2,
        NOW - 3 * M,
        "approval.requested",
        json!({
        "toolCallId": "call_a", "name": "bash",
        "args": {"command": "systemctl restart worker\nrm -rf /tmp/x"}, "sensitive": true}),
    ));
    let items = items(&model, WORKSPACE_LIFETIME_MS, NOW);
    let rows: Vec<(String, String, String)> = items
        .iter()
        .map(|i| (i.session.clone(), i.deadline.show(NOW), i.request.clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (
                "Billing".into(),
                "5m 00s".into(),
                r#"lookup_order({"order_id":"A-1"})"#.into()
            ),
            (
                "Nightly".into(),
                "≈ 20m 00s".into(),
                "bash systemctl restart worker…".into()
            ),
            (
                "Docs".into(),
                "unknown".into(),
                "Roll back or patch forward? [roll back · patch]".into()
            ),
        ]
    );
    assert!(items[1].sensitive);
    // Seen as an event only: an approval is answerable by its call id alone.
    assert!(items[1].answerable);
}

#[test]
fn a_function_call_seen_only_as_its_event_waits_for_its_listing() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session("a", "Billing", json!([]))]);
    model.apply_event(&event(
        "a",
        1,
        NOW,
        "tool.required",
        json!({
        "toolCallId": "call_f", "name": "lookup_order", "arguments": {}}),
    ));
    let items = items(&model, WORKSPACE_LIFETIME_MS, NOW);
    assert_eq!(items.len(), 1);
    assert!(!items[0].answerable);
    // And the fleet reads the session for it.
    assert_eq!(model.take_refreshes(), ["a"]);
}

#[test]
fn answered_or_ended_leaves_the_inbox() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session("a", "A", json!([])), session("b", "B", json!([]))]);
    model.apply_event(&event(
        "a",
        1,
        NOW,
        "question.asked",
        json!({
        "toolCallId": "q1", "question": "Which?", "options": ["x", "y"]}),
    ));
    model.apply_event(&event(
        "b",
        2,
        NOW,
        "approval.requested",
        json!({
        "toolCallId": "a1", "name": "bash", "args": {}, "sensitive": false}),
    ));
    assert_eq!(items(&model, WORKSPACE_LIFETIME_MS, NOW).len(), 2);
    model.apply_event(&event(
        "a",
        3,
        NOW,
        "question.answered",
        json!({
        "toolCallId": "q1", "answer": "x"}),
    ));
    model.apply_event(&event("b", 4, NOW, "turn.ended", json!({"turnId": "t"})));
    assert!(items(&model, WORKSPACE_LIFETIME_MS, NOW).is_empty());
}

#[test]
fn server_text_is_one_safe_line() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session("a", "evil\u{1b}[2Jtitle", json!([]))]);
    model.apply_event(&event(
        "a",
        1,
        NOW,
        "question.asked",
        json!({
        "toolCallId": "q1", "question": "clear\u{1b}]0;pwned\u{7}\nnow?", "options": []}),
    ));
    let items = items(&model, WORKSPACE_LIFETIME_MS, NOW);
    for s in [&items[0].session, &items[0].request] {
        assert!(!s.chars().any(|c| c.is_control()), "{s:?}");
    }
}

#[test]
fn gathered_again_only_where_the_fleet_moved_on_and_the_same_as_all_at_once() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[
        session(
            "a",
            "A",
            json!([listed("question", "qa", json!({"name": "Which?"}))]),
        ),
        session("b", "B", json!([])),
        session(
            "c",
            "C",
            json!([listed(
                "function_call",
                "fc",
                json!({
            "name": "lookup", "expires_at": NOW + M})
            )]),
        ),
    ]);
    let mut gathered = Gathered::default();
    gathered.update(&model, WORKSPACE_LIFETIME_MS, NOW);
    assert_eq!(gathered.items(), items(&model, WORKSPACE_LIFETIME_MS, NOW));
    let steps = [
        event("b", 1, NOW, "sandbox.created", json!({"state": "running"})),
        event(
            "b",
            2,
            NOW,
            "approval.requested",
            json!({
            "toolCallId": "ab", "name": "bash", "args": {}, "sensitive": false}),
        ),
        event(
            "a",
            3,
            NOW,
            "question.answered",
            json!({"toolCallId": "qa", "answer": "x"}),
        ),
        event("c", 4, NOW, "turn.ended", json!({"turnId": "t"})),
        event(
            "a",
            5,
            NOW,
            "question.asked",
            json!({
            "toolCallId": "qa2", "question": "And now?", "options": ["x"]}),
        ),
    ];
    for (n, step) in steps.iter().enumerate() {
        model.apply_event(step);
        let now = NOW + n as i64 * 1_000;
        gathered.update(&model, WORKSPACE_LIFETIME_MS, now);
        assert_eq!(
            gathered.items(),
            items(&model, WORKSPACE_LIFETIME_MS, now),
            "after {step:?}"
        );
    }
    // A rename shows: the row's version is part of what was gathered.
    let renamed = session("b", "B renamed", json!([]));
    model.apply_session(&renamed);
    gathered.update(&model, WORKSPACE_LIFETIME_MS, NOW);
    assert!(gathered.items().iter().any(|i| i.session == "B renamed"));
}
