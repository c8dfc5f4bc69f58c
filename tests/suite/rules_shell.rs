#![cfg(unix)]
//! `gobare-tui rules` and `list --label` against the simulator, checked on its record: the
//! exact rule sent under a key, the simulator then running that command unasked in the
//! next turn, the mode applied from the next turn, and refusals that send nothing.

use crate::support::cli::{Home, run_against as run, stderr_of as stderr, stdout_of as stdout};
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, IdempotencyKey, Order, Page};
use gobare_api::model::{Input, Session, SessionStatus};
use gobare_api::session_patch::SessionPatch;
use gobare_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const RESTART: &str = "systemctl restart export-worker";

fn client(sim: &Simulator) -> ApiClient {
    ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap()
}

async fn until(sim: &Simulator, id: &str, what: &str, done: impl Fn(&Session) -> bool) -> Session {
    let client = client(sim);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let session = client.get_session(id).await.unwrap();
        if done(&session) {
            return session;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: {session:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Turns of `id` that ended, oldest first.
async fn ended_turns(sim: &Simulator, id: &str) -> usize {
    client(sim)
        .list_turns(id, &Page::ordered(Order::Asc).with_limit(100))
        .await
        .unwrap()
        .data
        .iter()
        .filter(|t| t.completed_at.is_some())
        .count()
}

/// Waits until `n` turns of `id` ended or a decision waits.
async fn settled(sim: &Simulator, id: &str, n: usize) -> Session {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let s = client(sim).get_session(id).await.unwrap();
        if !s.required_actions.is_empty() || ended_turns(sim, id).await >= n {
            return s;
        }
        assert!(tokio::time::Instant::now() < deadline, "{s:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allow_rule_from_the_shell_is_exact_and_the_next_turn_runs_it_unasked() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("restart the worker"));
    sim.send_message(&id, "#approval restart the export worker");
    let waiting = until(&sim, &id, "an approval waits", |s| {
        !s.required_actions.is_empty()
    })
    .await;
    let home = Home::new();
    let spec = format!("bash:command={RESTART}");
    let out = run(&sim, &home, &["rules", &id[..8], "--allow", &spec]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains(&format!("1. allow  bash  command \"{RESTART}\"")),
        "{said}"
    );
    assert!(said.contains("may match more widely"), "{said}");
    let patches = sim.patches();
    assert_eq!(patches.len(), 1, "{patches:?}");
    assert_eq!(
        patches[0].body,
        json!({"agent": {"permission_rules": [
            {"decision": "allow", "tool": "bash", "command": RESTART}]}})
    );
    assert!(patches[0].key.is_some(), "sent under an Idempotency-Key");

    let call_id = waiting.required_actions[0].call_id.clone();
    client(&sim)
        .send(
            &id,
            &Input::Approval {
                call_id,
                approved: true,
            },
            &IdempotencyKey::new(),
        )
        .await
        .unwrap();
    settled(&sim, &id, 1).await;
    sim.send_message(&id, "#approval restart it again");
    let after = settled(&sim, &id, 2).await;
    assert!(
        after.required_actions.is_empty(),
        "the second restart was not asked for: {after:?}"
    );
    assert_eq!(sim.answers().len(), 1, "only the first was answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mode_goes_as_sent_and_applies_from_the_next_turn() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("per step"));
    let home = Home::new();
    let out = run(&sim, &home, &["rules", &id, "--mode", "per_step", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let shown: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(shown["approval_mode"], "per_step");
    assert_eq!(shown["changed"], true);
    assert!(
        stderr(&out).contains("from the next turn"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        sim.patches()[0].body,
        json!({"agent": {"approval_mode": "per_step"}})
    );
    sim.send_message(&id, "#quick fix the export");
    let s = settled(&sim, &id, 1).await;
    assert_eq!(s.status, SessionStatus::RequiresAction, "per_step asks");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_say_why_and_send_nothing() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("refusals"));
    let home = Home::new();
    let out = run(&sim, &home, &["rules", &id, "--remove", "3"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no rule 3"), "{}", stderr(&out));
    let out = run(&sim, &home, &["rules", &id, "--allow", "bash:file=/x"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(sim.patches().is_empty(), "{:?}", sim.patches());

    // A token that may only read: the server's refusal, in words.
    let url = sim.url().to_string();
    let read_only = sim.mint_token(&["sessions:read"]);
    let out = home
        .tokio_command(&["--api", &url, "rules", &id, "--mode", "plan"])
        .env("GOBARE_TOKEN", &read_only)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("sessions:write"), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains(&read_only),
        "the token is never printed"
    );
    assert!(sim.patches().is_empty());

    // Shown, never changed, without options.
    let out = run(&sim, &home, &["rules", &id]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("approval mode: auto"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("rules: none"), "{}", stdout(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_filters_by_label_on_the_server_and_shows_labels() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let tagged = sim.create_session(Some("nightly"));
    let other = sim.create_session(Some("other"));
    let labels = BTreeMap::from([("job".to_string(), "8842".to_string())]);
    client(&sim)
        .patch_session(
            &tagged,
            &SessionPatch::labels(labels),
            &IdempotencyKey::new(),
        )
        .await
        .unwrap();
    let home = Home::new();
    let out = run(&sim, &home, &["list", "--label", "job=8842", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["id"], tagged.as_str());
    assert_eq!(rows[0]["labels"], json!({"job": "8842"}));
    assert!(!stdout(&out).contains(&other));
    assert!(
        sim.requests()
            .iter()
            .any(|r| r.starts_with("GET /v1/sessions?") && r.contains("metadata=job%3A8842")),
        "filtered on the server: {:?}",
        sim.requests()
    );
    let out = run(&sim, &home, &["list"]).await;
    assert!(stdout(&out).contains("[job=8842]"), "{}", stdout(&out));
    let out = run(&sim, &home, &["list", "--label", "job"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
