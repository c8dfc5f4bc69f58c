//! Seeded history as a real server gives it back: turns with their own times, long ago,
//! and the per-route count of what a client asked.

use std::time::Duration;

use crate::support::Api;

const DAY: Duration = Duration::from_secs(24 * 3600);

#[tokio::test]
async fn seeded_turns_carry_their_own_times_and_events() {
    let api = Api::test().await;
    let id = api.sim.create_session(Some("history"));
    let before = api.sim.last_seq();
    api.sim.seed_turns(&id, 3, 79 * DAY);
    assert_eq!(api.sim.last_seq() - before, 36, "twelve events a turn");
    let (status, page) = api
        .get(&format!("/v1/sessions/{id}/turns?order=desc&limit=2"))
        .await;
    assert_eq!(status, 200, "{page}");
    let turns = page["data"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(page["has_more"], true);
    let now = gobare_api::clock::unix_ms();
    let newest = &turns[0];
    assert_eq!(newest["status"], "completed");
    let completed = newest["completed_at"].as_i64().unwrap();
    let started = newest["started_at"].as_i64().unwrap();
    assert_eq!(completed - started, 3_000);
    let ago = now - completed;
    assert!(
        (79 * DAY.as_millis() as i64..80 * DAY.as_millis() as i64).contains(&ago),
        "{ago}"
    );
    assert_eq!(
        started - turns[1]["started_at"].as_i64().unwrap(),
        60_000,
        "a turn a minute"
    );
    api.sim.shutdown().await;
}

#[tokio::test]
async fn requests_are_counted_per_route() {
    let api = Api::test().await;
    let id = api.sim.create_session(None);
    api.sim.seed_turns(&id, 2, DAY);
    let (_, page) = api.get(&format!("/v1/sessions/{id}/turns?limit=1")).await;
    let turn = page["data"][0]["id"].as_str().unwrap().to_string();
    api.get(&format!("/v1/sessions/{id}/turns?limit=5")).await;
    api.get(&format!("/v1/sessions/{id}/turns/{turn}")).await;
    api.get("/v1/no-such-route").await;
    let counts = api.sim.request_counts();
    assert_eq!(counts["GET /v1/sessions/{session_id}/turns"], 2);
    assert_eq!(counts["GET /v1/sessions/{session_id}/turns/{turn_id}"], 1);
    assert_eq!(counts["GET (no route)"], 1);
    api.sim.shutdown().await;
}
