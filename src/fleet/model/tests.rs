use super::*;
use crate::fleet::order::ordered;
use serde_json::json;

fn session(value: serde_json::Value) -> Session {
    serde_json::from_value(value).unwrap()
}

fn event(session_id: &str, seq: u64, at: i64, kind: &str, payload: serde_json::Value) -> Event {
    Event::parse(
        &json!({
            "type": kind, "session_id": session_id, "seq": seq, "created_at": at,
            "payload": payload,
        })
        .to_string(),
    )
    .unwrap()
}

#[test]
fn events_drive_status_needs_turn_todos_queue_workspace_and_artifacts() {
    let mut fleet = FleetModel::new();
    fleet.apply_session(&session(json!({
        "id": "a", "status": "idle", "title": "Nightly", "created_at": 1, "updated_at": 10,
    })));
    let applied = fleet.apply_event(&event("a", 1, 20, "turn.started", json!({"turnId": "t1"})));
    assert!(applied.visible);
    let row = fleet.get("a").unwrap();
    assert_eq!(row.status, SessionStatus::Working);
    assert_eq!(row.turn_started_at, Some(20));
    assert_eq!(row.attention(), Attention::Working);

    fleet.apply_event(&event(
        "a",
        2,
        21,
        "agent.todos",
        json!({"items": [{"label": "x", "status": "done"}, {"label": "y", "status": "pending"}]}),
    ));
    fleet.apply_event(&event(
        "a",
        3,
        22,
        "message.queued",
        json!({"text": "more", "position": 1}),
    ));
    fleet.apply_event(&event(
        "a",
        4,
        23,
        "sandbox.created",
        json!({"state": "running"}),
    ));
    fleet.apply_event(&event(
        "a",
        5,
        24,
        "artifact.created",
        json!({"id": "art", "path": "/workspace/outputs/r.md", "size_bytes": 3, "turn_id": "t1"}),
    ));
    let applied = fleet.apply_event(&event(
        "a",
        6,
        25,
        "approval.requested",
        json!({"toolCallId": "c1", "name": "shell", "args": {}, "sensitive": false}),
    ));
    assert!(applied.newly_needs_you);
    let row = fleet.get("a").unwrap();
    assert_eq!(row.todos, Some((1, 2)));
    assert_eq!(row.queued, 1);
    assert_eq!(row.workspace, Some(WorkspaceState::Running));
    assert_eq!(row.artifacts, 1);
    assert_eq!(row.needs(), Some(Needs::Approval));
    assert_eq!(row.attention(), Attention::NeedsYou);
    assert_eq!(row.last_activity, 25);

    fleet.apply_event(&event(
        "a",
        7,
        26,
        "approval.resolved",
        json!({"toolCallId": "c1", "approved": true}),
    ));
    assert_eq!(fleet.get("a").unwrap().attention(), Attention::Working);
    fleet.apply_event(&event(
        "a",
        8,
        27,
        "message.dequeued",
        json!({"text": "more"}),
    ));
    assert!(fleet.take_refreshes().is_empty(), "nothing to ask yet");
    fleet.apply_event(&event("a", 9, 28, "turn.ended", json!({"turnId": "t1"})));
    let row = fleet.get("a").unwrap();
    assert_eq!((row.turn_started_at, row.queued), (None, 0));
    assert_eq!(row.attention(), Attention::Idle);
    assert!(
        fleet.take_refreshes().is_empty(),
        "a known row is not read again: its outcome comes with its turns read"
    );
}

/// A busy organization ends turns by the thousand a minute: rows already read follow the
/// stream, and the failed outcome comes from the session's own turns read.
#[test]
fn ended_turns_ask_for_no_session_read_and_the_turns_read_says_failed() {
    use crate::fleet::reads::TurnsRead;
    use gobare_api::model::TurnStatus;
    let mut fleet = FleetModel::new();
    for n in 0..1_000 {
        fleet.apply_session(&session(json!({
            "id": format!("s{n}"), "status": "working", "created_at": 1, "updated_at": 10,
        })));
    }
    for n in 0..1_000 {
        let id = format!("s{n}");
        fleet.apply_event(&event(&id, n + 1, 20, "turn.ended", json!({"turnId": "t"})));
    }
    assert!(fleet.take_refreshes().is_empty(), "no read, and so no list");
    assert!(fleet.rows().all(|r| r.status == SessionStatus::Idle));

    let failed = TurnsRead {
        ended: vec![
            ("t2".into(), TurnStatus::Failed),
            ("t1".into(), TurnStatus::Completed),
        ],
        ..TurnsRead::default()
    };
    assert!(fleet.set_turns("s1", &failed).visible);
    assert_eq!(fleet.get("s1").unwrap().attention(), Attention::Failed);
    let completed = TurnsRead {
        ended: vec![("t3".into(), TurnStatus::Completed)],
        ..failed.clone()
    };
    assert!(fleet.set_turns("s1", &completed).visible);
    assert_eq!(fleet.get("s1").unwrap().status, SessionStatus::Idle);
    // Still running (or queued): the last ended turn says nothing of the session now.
    let queued = TurnsRead {
        queued: 1,
        ..failed
    };
    fleet.set_turns("s2", &queued);
    assert_ne!(fleet.get("s2").unwrap().status, SessionStatus::Failed);
}

#[test]
fn deltas_change_nothing_and_an_unknown_session_is_read() {
    let mut fleet = FleetModel::new();
    let delta = Event::parse(
        &json!({"type": "agent.text", "session_id": "n", "payload": {"delta": "hi"}}).to_string(),
    )
    .unwrap();
    assert_eq!(fleet.apply_event(&delta), Applied::default());
    assert!(fleet.is_empty());
    fleet.apply_event(&event(
        "n",
        1,
        5,
        "user.message",
        json!({"text": "Fix \u{1b}[31mit\nnow"}),
    ));
    let row = fleet.get("n").unwrap();
    assert!(!row.known);
    let label = row.label().unwrap().to_string();
    assert!(label.starts_with("Fix") && !label.contains('\u{1b}') && !label.contains('\n'));
    assert_eq!(fleet.take_refreshes(), ["n"]);
    fleet.apply_session(&session(json!({
        "id": "n", "status": "working", "parent_session_id": "lead", "created_at": 1,
        "updated_at": 5,
    })));
    let row = fleet.get("n").unwrap();
    assert!(row.known);
    assert_eq!(row.parent.as_deref(), Some("lead"));
    assert_eq!(
        row.label(),
        Some(label.as_str()),
        "the first message stays the label"
    );
}

#[test]
fn an_older_copy_of_a_session_does_not_undo_newer_events() {
    let mut fleet = FleetModel::new();
    let old = session(json!({"id": "a", "status": "idle", "created_at": 1, "updated_at": 10}));
    fleet.apply_session(&old);
    fleet.apply_event(&event(
        "a",
        1,
        30,
        "question.asked",
        json!({"toolCallId": "q", "question": "Which?"}),
    ));
    fleet.apply_session(&old);
    assert_eq!(fleet.get("a").unwrap().needs(), Some(Needs::Question));
}

#[test]
fn a_complete_list_drops_the_deleted_and_remove_drops_one() {
    let mut fleet = FleetModel::new();
    let a = session(json!({"id": "a", "status": "idle", "title": "A"}));
    let b = session(json!({"id": "b", "status": "idle", "title": "B"}));
    fleet.apply_full_list(&[a.clone(), b]);
    assert_eq!(fleet.len(), 2);
    let applied = fleet.apply_full_list(std::slice::from_ref(&a));
    assert!(applied.visible);
    assert!(fleet.get("b").is_none(), "deleted while listed");
    fleet.remove("a");
    assert!(fleet.is_empty());
}

#[test]
fn crews_are_trees_ranked_by_their_most_urgent_member_and_a_filter_is_flat() {
    let mut fleet = FleetModel::new();
    for value in [
        json!({"id": "solo", "status": "working", "title": "Solo", "updated_at": 90}),
        json!({"id": "lead", "status": "idle", "title": "Lead", "updated_at": 10}),
        json!({"id": "m1", "status": "idle", "title": "Member one", "parent_session_id": "lead", "updated_at": 20}),
        json!({"id": "m2", "status": "requires_action", "title": "Member two", "parent_session_id": "lead", "updated_at": 5,
               "required_actions": [{"type": "question", "turn_id": "t", "call_id": "c"}]}),
        json!({"id": "orphan", "status": "idle", "title": "Orphan", "parent_session_id": "gone", "updated_at": 1}),
        json!({"id": "x", "status": "idle", "title": "Loop x", "parent_session_id": "y", "updated_at": 1}),
        json!({"id": "y", "status": "idle", "title": "Loop y", "parent_session_id": "x", "updated_at": 1}),
    ] {
        fleet.apply_session(&session(value));
    }
    let shown: Vec<(&str, u16)> = ordered(&fleet, "")
        .iter()
        .map(|s| (s.row.id.as_str(), s.depth))
        .collect();
    assert_eq!(
        shown,
        [
            ("lead", 0),
            ("m2", 1),
            ("m1", 1),
            ("solo", 0),
            ("orphan", 0),
            ("x", 0),
            ("y", 0)
        ]
    );
    let shown: Vec<&str> = ordered(&fleet, "MEMBER")
        .iter()
        .map(|s| s.row.id.as_str())
        .collect();
    assert_eq!(shown, ["m2", "m1"]);
}

#[test]
fn a_notification_names_the_session_and_what_it_needs() {
    let mut fleet = FleetModel::new();
    fleet.apply_session(&session(json!({"id": "a", "status": "idle"})));
    assert_eq!(fleet.get("a").unwrap().needs_you_line(), None);
    fleet.apply_event(&event(
        "a",
        1,
        5,
        "tool.required",
        json!({"toolCallId": "c", "name": "lookup", "arguments": {}}),
    ));
    assert_eq!(
        fleet.get("a").unwrap().needs_you_line().as_deref(),
        Some("a session: needs you: function call")
    );
    fleet.set_first_message("a", "Answer the\u{1b}]0;x\u{7} customer");
    let line = fleet.get("a").unwrap().needs_you_line().unwrap();
    assert!(line.starts_with("Answer the") && line.ends_with("customer: needs you: function call"));
    assert!(!line.chars().any(gobare_api::text::is_unsafe), "{line:?}");
}

#[test]
fn a_row_version_moves_with_what_it_shows_and_a_new_row_on_the_stream_is_news() {
    let mut fleet = FleetModel::new();
    let applied = fleet.apply_event(&event("a", 1, 5, "agent.message", json!({"text": "x"})));
    assert!(
        applied.visible,
        "a session first seen on the stream is shown at once"
    );
    let first = fleet.get("a").unwrap().version;
    fleet.apply_event(&event("a", 2, 5, "agent.message", json!({"text": "x"})));
    assert_eq!(
        fleet.get("a").unwrap().version,
        first,
        "nothing shown moved"
    );
    fleet.apply_event(&event("a", 3, 6, "message.queued", json!({"text": "x"})));
    let queued = fleet.get("a").unwrap().version;
    assert!(queued > first);
    assert_eq!(queued, fleet.generation());
    fleet.set_details("a", Some(40), None);
    assert!(fleet.get("a").unwrap().version > queued);
    let copy = fleet.clone();
    assert_ne!(copy.version(), fleet.version(), "a copy is another model");
}

/// A chain of `depth` sessions, each the parent of the next.
fn chain(depth: usize) -> FleetModel {
    let mut fleet = FleetModel::new();
    let mut member = session(json!({"id": "s0", "status": "idle"}));
    for i in 0..depth {
        member.parent_session_id = i.checked_sub(1).map(|p| format!("s{p}"));
        member.id = format!("s{i}");
        member.updated_at = i as i64;
        fleet.apply_session(&member);
    }
    fleet
}

#[test]
fn a_crew_100000_sessions_deep_is_ordered_without_recursion() {
    let fleet = chain(100_000);
    let shown = ordered(&fleet, "");
    assert_eq!(shown.len(), 100_000);
    for (i, s) in shown.iter().enumerate() {
        assert_eq!(s.row.id, format!("s{i}"));
        assert_eq!(usize::from(s.depth), i.min(usize::from(u16::MAX)));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3))]
    /// Any depth up to 1,000,000: every member is shown once, each after its parent. A
    /// minute of a debug build: `cargo test -- --ignored crews_of_any_depth`.
    #[test]
    #[ignore = "a minute of a debug build"]
    fn crews_of_any_depth_are_ordered(depth in 1usize..=1_000_000) {
        let fleet = chain(depth);
        let shown = ordered(&fleet, "");
        proptest::prop_assert_eq!(shown.len(), depth);
        proptest::prop_assert_eq!(shown.last().map(|s| s.row.id.clone()), Some(format!("s{}", depth - 1)));
    }
}

#[test]
fn todos_are_replayed_once_for_a_turn_begun_unseen_and_never_over_what_the_stream_said() {
    let mut fleet = FleetModel::new();
    fleet.apply_session(&session(json!({
        "id": "a", "status": "working", "title": "Nightly", "created_at": 1, "updated_at": 10,
    })));
    let running = TurnsRead {
        running_since: Some(5),
        ..TurnsRead::default()
    };
    fleet.set_turns("a", &running);
    assert!(fleet.ask_todos("a"), "begun before the fleet opened");
    assert!(!fleet.ask_todos("a"), "asked once");
    assert!(
        fleet
            .set_replayed_todos("a", TodosFound::List(1, 3))
            .visible
    );
    assert_eq!(fleet.get("a").unwrap().todos, Some((1, 3)));

    // A turn the stream saw start: its todos come from the stream, no replay.
    fleet.apply_session(&session(json!({
        "id": "b", "status": "idle", "created_at": 1, "updated_at": 10,
    })));
    fleet.apply_event(&event("b", 7, 20, "turn.started", json!({"turnId": "t2"})));
    fleet.set_turns("b", &running);
    assert!(!fleet.ask_todos("b"));
    // A replay that ends after the stream moved on changes nothing.
    assert!(
        !fleet
            .set_replayed_todos("b", TodosFound::List(0, 9))
            .visible
    );
    assert_eq!(fleet.get("b").unwrap().todos, None);
    fleet.apply_event(&event(
        "b",
        8,
        21,
        "agent.todos",
        json!({"items": [{"label": "x", "status": "done"}]}),
    ));
    assert!(
        !fleet
            .set_replayed_todos("b", TodosFound::List(0, 9))
            .visible
    );
    assert_eq!(fleet.get("b").unwrap().todos, Some((1, 1)));
    assert!(!fleet.set_replayed_todos("a", TodosFound::Unknown).visible);
}

/// Issue 48.3: a running time kept by the last run is a deadline at once after a restart,
/// and the workspace's pause and resume on the stream carry it forward (the paused span
/// does not count) until the session's usage is read again.
#[test]
fn a_clock_kept_across_a_restart_is_carried_forward_by_pause_and_resume() {
    use crate::deadline::{Deadline, WorkspaceClock};
    const HOUR: i64 = 3_600_000;
    let t0 = 1_789_000_000_000;
    let mut fleet = FleetModel::new();
    // The last run knew 1 h of running time, running since t0.
    fleet
        .waits_mut()
        .know_clock("a", WorkspaceClock::restored(HOUR, Some(t0), false));
    fleet.apply_full_list(&[session(json!({
        "id": "a", "status": "requires_action", "created_at": 1, "updated_at": t0,
        "environment": {"state": "running"},
        "required_actions": [{"type": "approval", "call_id": "c1", "turn_id": "t1", "name": "bash",
                              "arguments": {"command": "ls"}}],
    }))]);
    let deadline_at = |fleet: &FleetModel, now| {
        let items = crate::fleet::inbox::items(fleet, 2 * HOUR, now);
        assert_eq!(items.len(), 1, "{items:?}");
        items[0].deadline
    };
    assert_eq!(deadline_at(&fleet, t0), Deadline::Estimate(t0 + HOUR));
    // Ran 10 minutes, paused for 30, resumed: the end moves by the pause.
    let (paused, resumed) = (t0 + HOUR / 6, t0 + HOUR / 6 + HOUR / 2);
    let pause = event("a", 1, paused, "sandbox.paused", json!({"state": "paused"}));
    fleet.apply_event(&pause);
    let left = HOUR - HOUR / 6;
    assert_eq!(
        deadline_at(&fleet, paused + 60_000),
        Deadline::Paused(left),
        "paused: what is left, no clock running"
    );
    let resume = event(
        "a",
        2,
        resumed,
        "sandbox.resumed",
        json!({"state": "running"}),
    );
    fleet.apply_event(&resume);
    assert_eq!(
        deadline_at(&fleet, resumed),
        Deadline::Estimate(t0 + HOUR + HOUR / 2)
    );
    // Kept again as carried: the next run starts from the same deadline.
    let kept = fleet.waits().clocks().find(|(id, _)| *id == "a").unwrap().1;
    let (ran, since, published) = kept.saved().unwrap();
    let mut next = FleetModel::new();
    next.waits_mut()
        .know_clock("a", WorkspaceClock::restored(ran, since, published));
    next.apply_full_list(&[session(json!({
        "id": "a", "status": "requires_action", "created_at": 1, "updated_at": resumed,
        "environment": {"state": "running"},
        "required_actions": [{"type": "approval", "call_id": "c1", "turn_id": "t1", "name": "bash",
                              "arguments": {"command": "ls"}}],
    }))]);
    assert_eq!(
        deadline_at(&next, resumed + 1_000),
        Deadline::Estimate(t0 + HOUR + HOUR / 2)
    );
}
