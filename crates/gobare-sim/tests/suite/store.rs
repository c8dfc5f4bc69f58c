//! A simulator with a data directory: sessions and their history survive a restart, a turn
//! running at the stop is ended, a store of another layout is set aside, and the event
//! retention bound drops the oldest sessions' events.

use std::path::Path;
use std::time::Duration;

use gobare_sim::SimConfig;
use serde_json::{Value, json};

use crate::support::{Api, WAIT};

fn kept_in(dir: &Path) -> SimConfig {
    SimConfig {
        data_dir: Some(dir.to_path_buf()),
        ..SimConfig::for_tests()
    }
}

/// Every persisted event the org stream replays from 0, as `(seq, data)`, read until the
/// one carrying `last` (the highest assigned).
async fn replay_all(api: &Api, last: u64) -> Vec<(u64, String)> {
    let resp = api
        .req(reqwest::Method::GET, "/v1/events?last_event_id=0")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut sse = crate::support::Sse::new(resp);
    let mut out = Vec::new();
    while out.last().map(|(s, _)| *s) != Some(last) {
        let f = sse
            .next(WAIT)
            .await
            .unwrap_or_else(|| panic!("replay ended at {:?} of {last}", out.last()));
        if let Some(id) = &f.id {
            out.push((id.parse().unwrap(), f.data.clone().unwrap()));
        }
    }
    out
}

/// What a client reads of a session besides its stream: the object, turns and items.
async fn reads(api: &Api, id: &str) -> (Value, Value, Value) {
    let mut session = api.session(id).await;
    // Said by the sandbox's clock, not the store.
    session.as_object_mut().unwrap().remove("environment");
    let (_, turns) = api.get(&format!("/v1/sessions/{id}/turns?limit=100")).await;
    let (_, items) = api.get(&format!("/v1/sessions/{id}/items?limit=100")).await;
    (session, turns["data"].clone(), items["data"].clone())
}

#[tokio::test]
async fn a_restarted_simulator_has_every_session_and_event_back() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    let seeded = api.sim.create_session(Some("seeded"));
    api.sim.seed_turns(&seeded, 3, Duration::from_secs(3600));
    let played = api.new_session().await;
    let mut sse = api.stream(&played, None).await;
    api.message(&played, "#quick fix the bug").await;
    // Its report is published after the turn ends.
    sse.until("turn.ended").await;
    sse.until("artifact.created").await;
    api.until_session(&played, |s| s["status"] == "idle").await;
    let art = api.sim.add_artifact(
        &seeded,
        "turn_kept",
        "/workspace/outputs/a.md",
        b"A".to_vec(),
    );
    let last = api.sim.last_seq();
    let before = replay_all(&api, last).await;
    let reads_before = (reads(&api, &seeded).await, reads(&api, &played).await);
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path())).await;
    assert_eq!(api.sim.last_seq(), last, "nothing was added by the restart");
    assert_eq!(replay_all(&api, last).await, before);
    assert_eq!(reads(&api, &seeded).await, reads_before.0);
    assert_eq!(reads(&api, &played).await, reads_before.1);
    let (_, list) = api.get("/v1/sessions?limit=100").await;
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{list}");
    let content = api
        .req(
            reqwest::Method::GET,
            &format!("/v1/sessions/{seeded}/artifacts/{art}/content"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(content.bytes().await.unwrap().as_ref(), b"A");

    // New events continue the counter: no seq is handed out twice.
    let mut sse = api.stream(&played, None).await;
    api.message(&played, "#quick and the next one").await;
    sse.until("turn.ended").await;
    let after = replay_all(&api, api.sim.last_seq()).await;
    assert_eq!(after[..before.len()], before[..]);
    let seqs: Vec<u64> = after.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs[before.len()], last + 1);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    api.sim.shutdown().await;
}

#[tokio::test]
async fn a_turn_running_at_the_stop_ends_failed_on_restart_and_its_action_lapses() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#approval restart it").await;
    sse.until("approval.requested").await;
    let parked = api.session(&id).await;
    assert_eq!(parked["status"], "requires_action");
    let call = parked["required_actions"][0]["call_id"].clone();
    let turn = parked["required_actions"][0]["turn_id"]
        .as_str()
        .unwrap()
        .to_string();
    let last = api.sim.last_seq();
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path())).await;
    let session = api.session(&id).await;
    assert_eq!(session["status"], "failed", "{session}");
    assert_eq!(session["required_actions"], json!([]));
    let ended = api.turn(&id, &turn).await;
    assert_eq!(ended["status"], "failed", "{ended}");
    assert_eq!(ended["error"]["code"], "internal_error");
    assert!(ended["completed_at"].is_i64());
    let mut sse = api.stream(&id, Some(last)).await;
    let told = sse.events_until("turn.ended").await;
    let kinds = crate::support::kinds(&told);
    assert_eq!(kinds, ["agent.error", "turn.ended"], "{kinds:?}");
    assert_eq!(
        told[1].json()["payload"]["turnId"],
        turn,
        "{}",
        told[1].json()
    );
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

    // It still takes work.
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#quick again").await;
    sse.until("turn.ended").await;
    api.until_session(&id, |s| s["status"] == "idle").await;
    api.sim.shutdown().await;
}

fn user_version(path: &Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

#[tokio::test]
async fn a_store_of_another_version_is_set_aside_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let planted = dir.path().join("sim.sqlite");
    {
        let conn = rusqlite::Connection::open(&planted).unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, ord INTEGER, json TEXT);
             INSERT INTO sessions VALUES ('from-the-future', 0, '{\"id\": 1}');
             PRAGMA user_version = 99;",
        )
        .unwrap();
    }
    let api = Api::start(kept_in(dir.path())).await;
    let (_, list) = api.get("/v1/sessions").await;
    assert_eq!(list["data"], json!([]), "{list}");
    let aside = dir.path().join("sim.sqlite.version-99.set-aside-1");
    assert_eq!(user_version(&aside), 99, "the old store is kept as it was");
    let id = api.new_session().await;
    api.sim.shutdown().await;

    // The fresh store is this layout: the next start reads it.
    let api = Api::start(kept_in(dir.path())).await;
    api.session(&id).await;
    api.sim.shutdown().await;

    // A file that is not a store at all goes aside too.
    std::fs::write(&planted, b"not a database, not at all, no").unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    let (_, list) = api.get("/v1/sessions").await;
    assert_eq!(list["data"], json!([]), "{list}");
    let garbage = dir.path().join("sim.sqlite.an-unreadable-kind.set-aside-1");
    assert_eq!(
        std::fs::read(garbage).unwrap(),
        b"not a database, not at all, no"
    );
    api.sim.shutdown().await;
}

#[tokio::test]
async fn past_the_retention_bound_the_oldest_sessions_events_go() {
    let config = SimConfig {
        retention_events: 100,
        ..SimConfig::for_tests()
    };
    let api = Api::start(config).await;
    let sessions: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|t| api.sim.create_session(Some(t)))
        .collect();
    for id in &sessions {
        api.sim.seed_events(id, 60);
    }
    let last = api.sim.last_seq();
    assert_eq!(last, 180);
    // 120 stored once b is seeded: a's 60 go; 120 again with c: b's go.
    let kept = replay_all(&api, last).await;
    let seqs: Vec<u64> = kept.iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (121..=180).collect::<Vec<_>>());
    assert!(kept.iter().all(|(_, d)| d.contains(&sessions[2])));

    // A replay from below the retained range gives what is kept after the cursor, in
    // order (gaps are normal, §7.4), then live frames.
    let mut sse = api.stream(&sessions[0], Some(0)).await;
    api.sim.seed_events(&sessions[0], 1);
    let f = loop {
        let f = sse.next(WAIT).await.expect("a frame");
        if f.id.is_some() {
            break f;
        }
    };
    assert_eq!(
        f.id.as_deref(),
        Some("181"),
        "only the live event: a's history is gone"
    );

    // The transcript stays: items are not the stream's history.
    let (_, items) = api
        .get(&format!("/v1/sessions/{}/items?limit=100", sessions[0]))
        .await;
    assert!(!items["data"].as_array().unwrap().is_empty(), "{items}");
    api.sim.shutdown().await;
}

#[tokio::test]
async fn a_fresh_start_forgets_the_directory_and_a_held_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    api.new_session().await;
    let second = gobare_sim::Simulator::start(kept_in(dir.path())).await;
    let refused = second.err().expect("one simulator per directory");
    assert_eq!(refused.kind(), std::io::ErrorKind::WouldBlock);
    api.sim.shutdown().await;

    let api = Api::start(SimConfig {
        fresh_data: true,
        ..kept_in(dir.path())
    })
    .await;
    assert_eq!(api.sim.session_ids(), Vec::<String>::new());
    assert_eq!(api.sim.last_seq(), 0);
    api.sim.shutdown().await;
}

#[tokio::test]
async fn a_random_token_holds_across_a_restart_with_the_minted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let random = SimConfig {
        token: None,
        ..kept_in(dir.path())
    };
    let api = Api::start(random.clone()).await;
    let minted = api.sim.mint_token(&["sessions:read"]);
    let token = api.sim.token();
    api.sim.shutdown().await;
    let mut api = Api::start(random).await;
    assert_eq!(api.sim.token(), token);
    api.token = minted;
    let (status, body) = api.get("/v1/sessions").await;
    assert_eq!(status, 200, "the minted token still reads: {body}");
    let (status, _) = api.post("/v1/sessions", json!({})).await;
    assert_eq!(status, 403, "and still only reads");
    api.sim.shutdown().await;
}

#[tokio::test]
async fn a_kept_fleet_is_reopened_not_made_again_and_grows_to_the_size_asked() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path()).with_fleet(8)).await;
    let first = api.sim.fleet();
    assert_eq!(first.len(), 8);
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path()).with_fleet(8)).await;
    assert_eq!(api.sim.fleet(), first, "the same sessions");
    assert_eq!(api.sim.session_ids(), first, "and no others");
    api.sim.shutdown().await;

    // Asked for more, the kept ones come back and the rest are made as in a fleet made at
    // once: the ninth, made now, is a member of the crew the (kept) seventh leads.
    let api = Api::start(kept_in(dir.path()).with_fleet(12)).await;
    let grown = api.sim.fleet();
    assert_eq!(grown[..8], first[..]);
    assert_eq!(grown.len(), 12);
    assert_eq!(api.sim.session_ids().len(), 12);
    let ninth = api.session(&grown[8]).await;
    assert_eq!(ninth["parent_session_id"], grown[6].as_str(), "{ninth}");
    api.sim.shutdown().await;
}
