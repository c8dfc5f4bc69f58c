//! History retention: past the bound the oldest events go with the items, turns and
//! artifacts of their history, on a task of its own and in steps, never inside a
//! request's write; the fleet's activity prunes as much as it adds in its own batches.

use std::path::Path;
use std::time::Duration;

use gobare_sim::SimConfig;
use serde_json::Value;

use crate::support::{Api, WAIT};

/// A kept store holding at most `events`, pruned only when the test says so.
fn bounded(dir: &Path, events: u64) -> SimConfig {
    SimConfig {
        data_dir: Some(dir.to_path_buf()),
        retention_events: events,
        retention_every: Duration::from_secs(3600),
        ..SimConfig::for_tests()
    }
}

async fn data(api: &Api, path: &str) -> Vec<Value> {
    let (status, page) = api.get(path).await;
    assert_eq!(status, 200, "{path}: {page}");
    page["data"].as_array().unwrap().clone()
}

/// The seqs the org stream replays from 0, up to `last`.
async fn replayed_seqs(api: &Api, last: u64) -> Vec<u64> {
    let resp = api
        .req(reqwest::Method::GET, "/v1/events?last_event_id=0")
        .send()
        .await
        .unwrap();
    let mut sse = crate::support::Sse::new(resp);
    let mut seqs = Vec::new();
    while seqs.last() != Some(&last) {
        let f = sse
            .next(WAIT)
            .await
            .expect("the replay goes on to the last event");
        if let Some(id) = f.id {
            seqs.push(id.parse().unwrap());
        }
    }
    seqs
}

#[tokio::test]
async fn retention_prunes_the_oldest_events_with_their_items_turns_and_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(bounded(dir.path(), 600)).await;
    let old = api.sim.create_session(Some("old"));
    api.sim.seed_turns(&old, 50, Duration::from_secs(3600));
    let old_turns = data(&api, &format!("/v1/sessions/{old}/turns?limit=100")).await;
    assert_eq!(old_turns.len(), 50);
    // Newest first: the latest turn stays in memory, the 49 before it are stored.
    let first_turn = old_turns[49]["id"].as_str().unwrap().to_string();
    let old_artifact = api
        .sim
        .add_artifact(&old, &first_turn, "a.txt", vec![b'x'; 4096]);

    let new = api.sim.create_session(Some("new"));
    api.sim.seed_turns(&new, 50, Duration::ZERO);
    let new_turn = data(&api, &format!("/v1/sessions/{new}/turns?limit=1")).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let new_artifact = api
        .sim
        .add_artifact(&new, &new_turn, "b.txt", b"kept".to_vec());
    let new_items = data(&api, &format!("/v1/sessions/{new}/items?limit=100")).await;

    // A write past the bound prunes nothing itself, and the list answers meanwhile.
    assert_eq!(api.sim.last_seq(), 1200);
    assert_eq!(api.sim.stored_events(), 1200);
    assert_eq!(data(&api, "/v1/sessions").await.len(), 2);

    api.sim.prune_history();
    assert_eq!(api.sim.stored_events(), 600);
    assert_eq!(
        replayed_seqs(&api, 1200).await,
        (601..=1200).collect::<Vec<_>>()
    );

    // The first 600 events were old's: its transcript, settled turns and artifacts went
    // with them; its latest turn (the one its status reads) stays. new's history is whole.
    let after = Pruned {
        old,
        new,
        old_artifact,
        new_artifact,
        new_items,
        last_old_turn: old_turns[0]["id"].clone(),
    };
    after.check(&api).await;

    // A restart reads the pruned store as it was left.
    api.sim.shutdown().await;
    let api = Api::start(bounded(dir.path(), 600)).await;
    after.check(&api).await;
    api.sim.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn the_retention_task_prunes_on_its_own_every_interval() {
    let api = Api::start(SimConfig {
        retention_events: 100,
        retention_every: Duration::from_secs(1),
        ..SimConfig::for_tests()
    })
    .await;
    let id = api.sim.create_session(None);
    api.sim.seed_events(&id, 1_500);
    assert_eq!(api.sim.stored_events(), 1_500, "not pruned by the write");
    // The task's blocking prune holds the paused clock until it is done.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(api.sim.stored_events(), 100);
    api.sim.shutdown().await;
}

/// What a prune of the `old` session's history leaves.
struct Pruned {
    old: String,
    new: String,
    old_artifact: String,
    new_artifact: String,
    new_items: Vec<Value>,
    last_old_turn: Value,
}

impl Pruned {
    async fn check(&self, api: &Api) {
        let Pruned { old, new, .. } = self;
        let none = Vec::<Value>::new();
        assert_eq!(
            data(api, &format!("/v1/sessions/{old}/items?limit=100")).await,
            none
        );
        let turns = data(api, &format!("/v1/sessions/{old}/turns?limit=100")).await;
        let ids: Vec<&Value> = turns.iter().map(|t| &t["id"]).collect();
        assert_eq!(ids, [&self.last_old_turn]);
        assert_eq!(
            data(api, &format!("/v1/sessions/{old}/artifacts")).await,
            none
        );
        let gone = format!("/v1/sessions/{old}/artifacts/{}", self.old_artifact);
        assert_eq!(api.get(&gone).await.0, 404);
        let items = data(api, &format!("/v1/sessions/{new}/items?limit=100")).await;
        assert_eq!(items, self.new_items);
        let turns = data(api, &format!("/v1/sessions/{new}/turns?limit=100")).await;
        assert_eq!(turns.len(), 50);
        let artifacts = data(api, &format!("/v1/sessions/{new}/artifacts")).await;
        assert_eq!(artifacts[0]["id"], Value::from(self.new_artifact.clone()));
    }
}

/// The fleet's activity keeps the store at its bound by itself: each of its batches drops
/// as many of the oldest events as it added, with no pruning task to wait for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fleets_activity_prunes_as_much_as_it_adds() {
    const BOUND: u64 = 500;
    let mut config = SimConfig {
        retention_events: BOUND,
        // The task never runs in this test.
        retention_every: Duration::from_secs(3600),
        ..SimConfig::for_tests()
    }
    .with_fleet(12);
    config.fleet_activity = 4_000;
    let api = Api::start(config).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while api.sim.last_seq() < 10 * BOUND {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the fleet kept busy"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stored = api.sim.stored_events();
    // The scripted agent's own events, pruned by the batches after them, and one batch
    // in flight are all it may hold beyond the bound.
    assert!(
        (BOUND..=BOUND + 200).contains(&stored),
        "{stored} stored after {} written, bound {BOUND}",
        api.sim.last_seq()
    );
    api.sim.shutdown().await;
}
