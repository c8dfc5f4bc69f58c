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

#[test]
fn a_decision_in_a_workspace_started_before_the_fleet_is_timed_from_its_usage_then_its_events() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session(
        "a",
        "Nightly",
        json!([listed("approval", "c1", json!({}))]),
    )]);
    let deadline = |model: &FleetModel, now| items(model, WORKSPACE_LIFETIME_MS, now)[0].deadline;
    let first = items(&model, WORKSPACE_LIFETIME_MS, NOW);
    assert_eq!(first[0].deadline, Deadline::Unknown);
    assert_eq!(
        first[0].unknown_why().short(),
        "? reading",
        "says why: the usage is not read yet"
    );
    // Usage: 4 minutes of running time as of NOW.
    assert!(model.know_usage("a", 240, NOW).visible);
    assert_eq!(
        deadline(&model, NOW),
        Deadline::Estimate(NOW + WORKSPACE_LIFETIME_MS - 4 * M)
    );
    // Paused for ten minutes, then resumed: those ten do not count.
    model.apply_event(&event(
        "a",
        1,
        NOW + M,
        "sandbox.paused",
        json!({"state": "paused"}),
    ));
    model.apply_event(&event(
        "a",
        2,
        NOW + 11 * M,
        "sandbox.resumed",
        json!({"state": "running"}),
    ));
    assert_eq!(
        deadline(&model, NOW + 11 * M),
        Deadline::Estimate(NOW + 10 * M + WORKSPACE_LIFETIME_MS - 4 * M)
    );
    // What a restart hands over, before the sessions are listed again.
    let saved = model.waits().get("a").unwrap().clock.saved().unwrap();
    let mut again = FleetModel::new();
    again.waits_mut().know_clock(
        "a",
        crate::deadline::WorkspaceClock::restored(saved.0, saved.1, saved.2),
    );
    again.apply_full_list(&[session(
        "a",
        "Nightly",
        json!([listed("approval", "c1", json!({}))]),
    )]);
    assert_eq!(
        deadline(&again, NOW + 11 * M),
        deadline(&model, NOW + 11 * M),
        "known after a restart as before it"
    );
}

#[test]
fn a_server_without_usage_says_so() {
    let mut model = FleetModel::new();
    model.apply_full_list(&[session(
        "a",
        "Nightly",
        json!([listed("question", "c1", json!({}))]),
    )]);
    assert!(model.no_usage("a").visible);
    let item = &items(&model, WORKSPACE_LIFETIME_MS, NOW)[0];
    assert_eq!(item.deadline, Deadline::Unknown);
    assert_eq!(item.unknown_why().short(), "? no usage");
}
