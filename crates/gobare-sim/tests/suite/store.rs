//! A simulator with a data directory: sessions and their history survive a restart, a turn
//! running at the stop is ended, and a store of another layout is set aside.

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
async fn a_turn_between_steps_at_the_stop_ends_failed_on_restart_with_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    // A slow agent: the turn is between steps, not parked, when the simulator stops.
    let slow = SimConfig {
        speed: 0.001,
        ..kept_in(dir.path())
    };
    let api = Api::start(slow.clone()).await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#quick fix it").await;
    api.message(&id, "#quick and then this").await;
    sse.until("turn.started").await;
    let running = api.session(&id).await;
    assert_eq!(running["required_actions"], json!([]));
    let (_, turns) = api.get(&format!("/v1/sessions/{id}/turns?limit=10")).await;
    let turn_ids: Vec<String> = turns["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(turn_ids.len(), 2, "{turns}");
    let last = api.sim.last_seq();
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path())).await;
    let session = api.session(&id).await;
    assert_eq!(session["status"], "failed", "{session}");
    for turn in &turn_ids {
        let ended = api.turn(&id, turn).await;
        assert_eq!(ended["status"], "failed", "{ended}");
        assert_eq!(ended["error"]["code"], "internal_error");
        assert!(ended["completed_at"].is_i64());
    }
    let mut sse = api.stream(&id, Some(last)).await;
    let told = sse.events_until("turn.ended").await;
    let kinds = crate::support::kinds(&told);
    assert_eq!(kinds, ["agent.error", "turn.ended"], "{kinds:?}");

    // It still takes work.
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#quick again").await;
    sse.until("turn.ended").await;
    api.until_session(&id, |s| s["status"] == "idle").await;
    api.sim.shutdown().await;
}

#[tokio::test]
async fn a_parked_approval_and_function_call_are_answered_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    let approval = api.new_session().await;
    let function = api.new_session().await;
    api.sim
        .declare_function(&function, "lookup_order", Some(600));
    let mut sse = api.stream(&approval, None).await;
    api.message(&approval, "#approval restart it").await;
    sse.until("approval.requested").await;
    let mut sse = api.stream(&function, None).await;
    api.message(&function, "#function look it up").await;
    sse.until("tool.required").await;
    let asked_approval = api.session(&approval).await["required_actions"][0].clone();
    let asked_function = api.session(&function).await["required_actions"][0].clone();
    assert!(asked_function["expires_at"].is_i64(), "{asked_function}");
    let last = api.sim.last_seq();
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path())).await;
    assert_eq!(api.sim.last_seq(), last, "the restart ended nothing");
    for (id, asked) in [(&approval, &asked_approval), (&function, &asked_function)] {
        let session = api.session(id).await;
        assert_eq!(session["status"], "requires_action", "{session}");
        assert_eq!(session["required_actions"], json!([asked]), "{session}");
        let turn = api.turn(id, asked["turn_id"].as_str().unwrap()).await;
        assert_eq!(turn["status"], "working", "{turn}");
    }
    let mut sse = api.stream(&approval, Some(last)).await;
    let (status, body) = api
        .send(
            &approval,
            json!({"type": "input.approval", "call_id": asked_approval["call_id"],
                   "approved": true}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("accepted")),
        "{body}"
    );
    let frames = sse.events_until("turn.ended").await;
    let kinds = crate::support::kinds(&frames);
    assert!(
        kinds.contains(&"agent.tool_call".to_string()),
        "ran after the approval: {kinds:?}"
    );
    assert!(!kinds.contains(&"agent.error".to_string()), "{kinds:?}");
    let turn = api
        .turn(&approval, asked_approval["turn_id"].as_str().unwrap())
        .await;
    assert_eq!(turn["status"], "completed", "{turn}");

    let mut sse = api.stream(&function, Some(last)).await;
    let (status, body) = api
        .send(
            &function,
            json!({"type": "input.tool_result", "turn_id": asked_function["turn_id"],
                   "call_id": asked_function["call_id"], "success": true,
                   "output": "shipped after the restart"}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, json!("accepted")),
        "{body}"
    );
    let frames = sse.events_until("turn.ended").await;
    let said: Vec<String> = frames
        .iter()
        .filter(|f| f.kind() == "agent.message")
        .map(|f| {
            f.json()["payload"]["text"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert!(
        said.iter().any(|t| t.contains("shipped after the restart")),
        "{said:?}"
    );
    api.until_session(&function, |s| s["status"] == "idle")
        .await;
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

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).unwrap().mode() & 0o777
}

#[tokio::test]
async fn a_data_directory_and_everything_in_it_are_private() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let api = Api::start(kept_in(&dir)).await;
    let id = api.new_session().await;
    api.sim.seed_events(&id, 50);
    api.sim.shutdown().await;
    assert_eq!(mode(&dir), 0o700);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        names.push(entry.file_name().into_string().unwrap());
        assert_eq!(mode(&entry.path()), 0o600, "{:?}", entry.file_name());
    }
    assert!(names.contains(&"sim.sqlite".to_string()), "{names:?}");
    assert!(names.contains(&"lock".to_string()), "{names:?}");
}

#[tokio::test]
async fn a_planted_lock_link_or_a_shared_directory_is_refused_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let victim = root.path().join("victim");
    std::fs::write(&victim, b"the victim's own file").unwrap();
    let planted = root.path().join("planted");
    std::fs::create_dir(&planted).unwrap();
    std::os::unix::fs::symlink(&victim, planted.join("lock")).unwrap();
    let e = gobare_sim::Simulator::start(kept_in(&planted))
        .await
        .err()
        .expect("refused");
    assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"the victim's own file");
    assert!(!planted.join("sim.sqlite").exists());

    let shared = root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = gobare_sim::Simulator::start(kept_in(&shared))
        .await
        .err()
        .expect("refused");
    assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0);
}

/// A session's workspace as a client reads it: the last snapshot's listing and, for each
/// file, its content.
async fn workspace_read(api: &Api, id: &str) -> (Value, Vec<Value>) {
    let (status, tree) = api.get(&format!("/v1/sessions/{id}/files")).await;
    assert_eq!(status, 200, "{tree}");
    let mut contents = Vec::new();
    for entry in tree["data"].as_array().unwrap() {
        if entry["type"] == "file" {
            let path = entry["path"].as_str().unwrap();
            let (_, file) = api
                .get(&format!("/v1/sessions/{id}/files/content?path={path}"))
                .await;
            contents.push(file);
        }
    }
    (tree, contents)
}

#[tokio::test]
async fn a_workspace_and_its_snapshot_come_back_with_what_the_session_changed() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(kept_in(dir.path())).await;
    let id = api.new_session().await;
    let mut sse = api.stream(&id, None).await;
    api.message(&id, "#edits").await;
    sse.until("turn.ended").await;
    // A snapshot of the workspace after the turn: changed, created and deleted files.
    let deadline = tokio::time::Instant::now() + WAIT;
    while api
        .get(&format!("/v1/sessions/{id}/files?refresh=1"))
        .await
        .0
        != 200
    {
        assert!(tokio::time::Instant::now() < deadline, "never listed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = workspace_read(&api, &id).await;
    let paths: Vec<&str> = before.0["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["path"].as_str())
        .collect();
    assert!(paths.contains(&"notes/todo.md"), "created: {paths:?}");
    assert!(!paths.contains(&"docs/old.md"), "deleted: {paths:?}");
    assert!(
        paths.contains(&"src/export.ts"),
        "the repository: {paths:?}"
    );
    api.sim.shutdown().await;

    let api = Api::start(kept_in(dir.path())).await;
    assert_eq!(workspace_read(&api, &id).await, before);
}
