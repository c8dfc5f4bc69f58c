use super::*;
use crate::away::lines::lines;
use serde_json::{Value, json};

const T0: i64 = 1_789_000_000_000;
const MIN: i64 = 60_000;

fn envelope(seq: u64, minute: i64, kind: &str, payload: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "object": "event", "type": kind, "session_id": "s1", "seq": seq,
        "created_at": T0 + minute * MIN, "payload": payload,
    }))
    .unwrap()
}

fn turn(id: &str, status: &str, started: i64, ended: Option<i64>, error: Value) -> Turn {
    serde_json::from_value(json!({
        "object": "turn", "id": id, "session_id": "s1", "status": status,
        "created_at": T0 + started * MIN, "started_at": T0 + started * MIN,
        "completed_at": ended.map(|m| T0 + m * MIN), "error": error,
    }))
    .unwrap()
}

fn session(actions: Value, workspace: &str) -> Session {
    serde_json::from_value(json!({
        "object": "session", "id": "s1", "title": "fix the export", "status": "requires_action",
        "created_at": T0, "updated_at": T0,
        "environment": {"type": "sandbox", "state": workspace},
        "required_actions": actions,
    }))
    .unwrap()
}

/// A session's log: seen up to seq 3; then a turn that failed after an agent error, one
/// that completed with an artifact, an approval still waiting, the workspace paused.
fn history() -> Vec<(u64, Vec<u8>)> {
    let tid = |id: &str| json!({"turnId": id});
    vec![
        (
            1,
            envelope(1, 0, "sandbox.created", json!({"state": "running"})),
        ),
        (2, envelope(2, 0, "turn.started", tid("turn_a"))),
        (
            3,
            envelope(3, 1, "agent.message", json!({"text": "working on it"})),
        ),
        (
            4,
            envelope(
                4,
                10,
                "agent.error",
                json!({"message": "provider timed out\x1b[2J"}),
            ),
        ),
        (5, envelope(5, 11, "turn.ended", tid("turn_a"))),
        (6, envelope(6, 20, "turn.started", tid("turn_b"))),
        (7, envelope(7, 21, "agent.text", json!({"delta": "x"}))),
        (8, envelope(8, 30, "turn.ended", tid("turn_b"))),
        (
            9,
            envelope(
                9,
                31,
                "artifact.created",
                json!({"id": "art_1", "path": "/workspace/outputs/report.md", "size_bytes": 2048, "turn_id": "turn_b"}),
            ),
        ),
        (10, envelope(10, 40, "turn.started", tid("turn_c"))),
        (
            11,
            envelope(
                11,
                41,
                "approval.requested",
                json!({"toolCallId": "call_1", "name": "bash", "args": {}, "sensitive": false}),
            ),
        ),
        (
            12,
            envelope(
                12,
                42,
                "question.asked",
                json!({"toolCallId": "call_2", "question": "which host?"}),
            ),
        ),
        (
            13,
            envelope(
                13,
                43,
                "question.answered",
                json!({"toolCallId": "call_2", "answer": "prod"}),
            ),
        ),
        (
            14,
            envelope(14, 50, "sandbox.paused", json!({"state": "paused"})),
        ),
    ]
}

fn built(window: Window) -> DigestBuilder {
    let mut b = DigestBuilder::new("s1", window, T0 + MIN, false);
    for (seq, json) in history() {
        b.feed_raw(seq, &json);
    }
    b
}

#[test]
fn events_alone_say_what_ended_what_waits_and_what_was_published() {
    let d = built(Window {
        after_seq: Some(3),
        from_ms: None,
    })
    .digest(T0 + 60 * MIN);
    assert_eq!(d.events, 11);
    assert_eq!(d.turns_unread, 2, "outcomes come from the turns");
    assert_eq!(d.decisions_waiting, 1, "the question was answered");
    assert_eq!(d.decisions_new, 1, "asked in the absence");
    assert!(d.has_news());
    assert_eq!(d.decisions[0].kind, "approval");
    assert_eq!(d.artifacts_added, 1);
    assert_eq!(
        d.workspace,
        [(WorkspaceChange::Paused, Some(T0 + 50 * MIN))]
    );
    assert_eq!(d.away_ms(), 59 * MIN);
}

#[test]
fn the_resources_add_outcomes_reasons_running_time_and_the_list_that_waits() {
    let mut b = built(Window {
        after_seq: Some(3),
        from_ms: None,
    });
    b.turns_read(
        &[
            turn("turn_a", "failed", 0, Some(11), Value::Null),
            turn("turn_b", "completed", 20, Some(30), Value::Null),
            turn("turn_c", "working", 40, None, Value::Null),
        ],
        T0 + 60 * MIN,
    );
    b.session_read(&session(
        json!([{"type": "function_call", "turn_id": "turn_c", "call_id": "call_9",
                "name": "lookup_order", "expires_at": T0 + 64 * MIN}]),
        "destroyed",
    ));
    b.usage_read(5_400);
    let d = b.digest(T0 + 60 * MIN);
    assert_eq!(
        (d.turns_failed, d.turns_completed, d.turns_unread),
        (1, 1, 0)
    );
    let reason = d.failed[0].reason.as_deref().unwrap();
    assert!(
        reason.starts_with("provider timed out"),
        "the turn's last error: {reason}"
    );
    assert!(!reason.contains('\u{1b}'), "sanitized");
    assert_eq!(
        d.decisions_waiting, 1,
        "the session's list replaces the events'"
    );
    assert_eq!(d.decisions[0].expires_at, Some(T0 + 64 * MIN));
    // turn_a from the absence's start (minute 1) to 11, turn_b 10, turn_c 20 so far.
    assert_eq!(d.turn_seconds, (10 + 10 + 20) * 60);
    assert_eq!(
        d.workspace.last(),
        Some(&(WorkspaceChange::Reclaimed, None)),
        "destroyed now, with a workspace before: reclaimed"
    );
    assert_eq!(d.title.as_deref(), Some("fix the export"));
    insta::assert_snapshot!("banner", render(&d, false));
    insta::assert_snapshot!("named", render(&d, true));
}

#[test]
fn a_turn_s_own_error_is_the_reason_before_the_agent_s() {
    let mut b = built(Window {
        after_seq: Some(3),
        from_ms: None,
    });
    b.turns_read(
        &[turn(
            "turn_a",
            "failed",
            0,
            Some(11),
            json!({"code": "provider_error", "message": "upstream unavailable"}),
        )],
        T0 + 60 * MIN,
    );
    let d = b.digest(T0 + 60 * MIN);
    assert_eq!(
        d.failed[0].reason.as_deref(),
        Some("provider_error: upstream unavailable")
    );
}

#[test]
fn turns_read_before_their_events_arrive_still_say_how_they_ended() {
    let mut b = DigestBuilder::new(
        "s1",
        Window {
            after_seq: Some(3),
            from_ms: None,
        },
        T0 + MIN,
        false,
    );
    // The app's first read of the turns can answer before the stream's catch-up.
    let turns = [
        turn("turn_a", "failed", 0, Some(11), Value::Null),
        turn("turn_old", "completed", -300, Some(-200), Value::Null),
    ];
    b.turns_read(&turns, T0 + 60 * MIN);
    b.turns_read(
        &[turn("turn_b", "completed", 20, Some(30), Value::Null)],
        T0 + 60 * MIN,
    );
    for (seq, json) in history() {
        b.feed_raw(seq, &json);
    }
    let d = b.digest(T0 + 60 * MIN);
    assert_eq!(
        (d.turns_failed, d.turns_completed, d.turns_unread),
        (1, 1, 0)
    );
    assert_eq!(
        d.turn_seconds,
        20 * 60,
        "two pages read: their times add up"
    );
}

#[test]
fn a_window_by_time_and_feeding_twice_change_nothing() {
    let by_time = built(Window {
        after_seq: None,
        from_ms: Some(T0 + 25 * MIN),
    });
    let d = by_time.digest(T0 + 60 * MIN);
    assert_eq!(d.turns_unread, 1, "only turn_b ended after minute 25");
    let mut twice = built(Window {
        after_seq: Some(3),
        from_ms: None,
    });
    for (seq, json) in history() {
        twice.feed_raw(seq, &json);
        let event = Event::parse(std::str::from_utf8(&json).unwrap()).unwrap();
        twice.feed(seq, &event);
    }
    assert_eq!(
        twice.digest(T0),
        built(Window {
            after_seq: Some(3),
            from_ms: None
        })
        .digest(T0),
        "a seq is taken once, raw or decoded"
    );
}

#[test]
fn a_rebuild_inside_the_window_is_a_recovery_and_a_quiet_absence_is_quiet() {
    let mut b = DigestBuilder::new(
        "s1",
        Window {
            after_seq: Some(1),
            from_ms: None,
        },
        T0,
        false,
    );
    b.feed_raw(
        1,
        &envelope(1, 0, "sandbox.created", json!({"state": "running"})),
    );
    b.feed_raw(
        2,
        &envelope(
            2,
            5,
            "workspace.recovery_failed",
            json!({"message": "gave up"}),
        ),
    );
    b.feed_raw(
        3,
        &envelope(3, 6, "sandbox.created", json!({"state": "running"})),
    );
    let d = b.digest(T0 + 10 * MIN);
    let changes: Vec<WorkspaceChange> = d.workspace.iter().map(|w| w.0).collect();
    assert_eq!(
        changes,
        [WorkspaceChange::RecoveryFailed, WorkspaceChange::Recovered]
    );
    assert!(!d.is_quiet());
    // A decision asked before the absence still waits: said, but not news.
    let window = Window {
        after_seq: Some(11),
        from_ms: None,
    };
    let mut old = DigestBuilder::new("s1", window, T0, false);
    for (seq, json) in history().into_iter().take(11) {
        old.feed_raw(seq, &json);
    }
    old.session_read(&session(
        json!([{"type": "approval", "turn_id": "turn_c", "call_id": "call_1", "name": "bash"}]),
        "running",
    ));
    let d = old.digest(T0 + 60 * MIN);
    assert_eq!((d.decisions_waiting, d.decisions_new), (1, 0));
    assert!(!d.is_quiet() && !d.has_news());
    let mut quiet = DigestBuilder::new(
        "s1",
        Window {
            after_seq: Some(0),
            from_ms: None,
        },
        T0,
        false,
    );
    quiet.feed_raw(1, &envelope(1, 1, "agent.message", json!({"text": "hi"})));
    assert!(quiet.digest(T0).is_quiet());
    assert_eq!(quiet.events(), 1);
}

fn render(d: &crate::away::digest::Digest, named: bool) -> String {
    lines(d, named)
        .into_iter()
        .map(|(tone, text)| format!("{tone:?}: {text}"))
        .collect::<Vec<_>>()
        .join("\n")
}
