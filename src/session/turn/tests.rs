use super::*;

fn turn(id: &str, created: i64, started: Option<i64>, status: &str) -> Turn {
    serde_json::from_value(serde_json::json!({
        "object": "turn", "id": id, "session_id": "s", "status": status,
        "created_at": created, "started_at": started,
    }))
    .unwrap()
}

#[test]
fn a_queued_turn_read_from_the_server_never_replaces_the_one_that_runs() {
    let mut state = TurnState::default();
    state.started("t1", Some(1_000));
    state.absorb(&turn("t1", 900, Some(1_000), "working"));
    // A queued message's turn, read when coming back from the fleet.
    state.absorb(&turn("t2", 5_000, None, "working"));
    let current = state.current().unwrap();
    assert_eq!(current.id, "t1");
    assert_eq!(current.phase(false), TurnPhase::Working);
    // Its own start makes the queued one current.
    state.started("t2", Some(9_000));
    assert_eq!(state.current().unwrap().id, "t2");
    assert_eq!(state.current().unwrap().created_at, Some(5_000));
}

#[test]
fn a_queued_turn_is_current_when_nothing_runs() {
    let mut state = TurnState::default();
    state.absorb(&turn("t2", 5_000, None, "working"));
    assert_eq!(state.current().unwrap().phase(false), TurnPhase::Queued);
}

#[test]
fn a_turn_that_ended_never_runs_on_with_the_clock() {
    let mut state = TurnState::default();
    state.started("t1", Some(1_000));
    state.ended("t1", Some(4_000));
    let t = state.current().unwrap();
    assert_eq!(t.phase(false), TurnPhase::Settling);
    assert_eq!(
        t.elapsed_ms(Some(79 * 24 * 3_600_000)),
        Some(3_000),
        "3s, not the 79 days since it started"
    );
    let mut unknown = TurnState::default();
    unknown.started("t2", Some(1_000));
    unknown.ended("t2", None);
    assert_eq!(unknown.current().unwrap().elapsed_ms(Some(9_000_000)), None);
}
