#![cfg(unix)]
//! Acting from the shell (`send`, `cancel`, `answer`, `wait`, `inbox`) against the
//! simulator, checked on its record: what was posted, under which key, and each exit
//! status a script reads.

use crate::support::cli::{Home, run_against as run, stderr_of as stderr, stdout_of as stdout};
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_api::model::{Input, Session, SessionStatus};
use gobare_sim::{SimConfig, Simulator};
use serde_json::Value;
use std::time::Duration;

fn client(sim: &Simulator) -> ApiClient {
    ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap()
}

/// Reads the session until `done` holds (bounded).
async fn until(sim: &Simulator, id: &str, what: &str, done: impl Fn(&Session) -> bool) {
    let client = client(sim);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let session = client.get_session(id).await.unwrap();
        if done(&session) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: {session:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn waiting_on_you(sim: &Simulator, id: &str) {
    until(sim, id, "a decision waits", |s| {
        !s.required_actions.is_empty()
    })
    .await;
}

fn posts_to(sim: &Simulator, id: &str) -> usize {
    let path = format!("POST /v1/sessions/{id}/events");
    sim.requests()
        .iter()
        .filter(|r| r.starts_with(&path))
        .count()
}

async fn user_texts(sim: &Simulator, id: &str) -> Vec<String> {
    let items = client(sim)
        .list_items(id, &Page::ordered(Order::Asc).with_limit(100))
        .await
        .unwrap()
        .data;
    items
        .into_iter()
        .filter(|i| i.role.as_deref() == Some("user"))
        .map(|i| i.content)
        .collect()
}

/// The simulator with a slow scripted agent: a turn runs long enough to steer and cancel.
async fn slow_sim() -> Simulator {
    Simulator::start(SimConfig {
        speed: 20.0,
        ..SimConfig::for_tests()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_posts_once_under_one_key_and_says_what_was_accepted() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("from a script"));
    let home = Home::new();
    let out = run(
        &sim,
        &home,
        &["send", &id[..8], "#quick Summarise the repo"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("sent"), "{}", stdout(&out));
    let accepted = sim.accepted_messages();
    assert_eq!(accepted.len(), 1, "{accepted:?}");
    assert_eq!(accepted[0].text, "#quick Summarise the repo");
    assert!(accepted[0].key.is_some(), "sent under an Idempotency-Key");

    // From standard input.
    let mut command = home.tokio_command(&["--api", sim.url().as_str(), "send", &id, "-"]);
    command
        .env("GOBARE_TOKEN", sim.token())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    use tokio::io::AsyncWriteExt;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"#quick and the tests\n").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(sim.accepted_messages().len(), 2);
    assert_eq!(sim.accepted_messages()[1].text, "#quick and the tests\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steer_and_cancel_with_nothing_running_send_nothing() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("idle"));
    let home = Home::new();
    let out = run(&sim, &home, &["send", &id, "go faster", "--steer"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to steer"),
        "{}",
        stderr(&out)
    );
    let out = run(&sim, &home, &["cancel", &id]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("nothing is running"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        posts_to(&sim, &id),
        0,
        "nothing posted: {:?}",
        sim.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sensitive_approval_takes_sensitive_and_the_note_arrives_as_a_steer() {
    let sim = slow_sim().await;
    let id = sim.create_session(Some("restart the worker"));
    sim.send_message(&id, "#approval restart the export worker");
    waiting_on_you(&sim, &id).await;
    let home = Home::new();

    // `wait` returns 4 as soon as the approval waits.
    let out = run(&sim, &home, &["wait", &id]).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("waiting on you: approval"),
        "{}",
        stdout(&out)
    );

    let before = posts_to(&sim, &id);
    let out = run(&sim, &home, &["answer", &id, "--approve"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("sensitive"), "{}", stderr(&out));
    assert_eq!(posts_to(&sim, &id), before, "nothing posted");
    assert!(sim.answers().is_empty());

    let out = run(
        &sim,
        &home,
        &[
            "answer",
            &id,
            "--approve",
            "--sensitive",
            "--note",
            "only this once",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let answers = sim.answers();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(matches!(
        answers[0].input,
        Input::Approval { approved: true, .. }
    ));
    assert!(
        user_texts(&sim, &id)
            .await
            .iter()
            .any(|t| t == "only this once"),
        "the note is in the transcript as the person's words"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_says_failed_with_3_cancelled_with_6_and_timed_out_with_5() {
    let sim = slow_sim().await;
    let home = Home::new();

    let failing = sim.create_session(Some("fails"));
    sim.send_message(&failing, "#error deploy");
    let out = run(&sim, &home, &["wait", &failing, "--json"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let said: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(said["outcome"], "failed");
    assert!(said["turn_id"].as_str().unwrap().starts_with("turn_"));

    let long = sim.create_session(Some("long"));
    sim.send_message(&long, "#long refactor everything");
    until(&sim, &long, "the turn runs", |s| {
        s.status == SessionStatus::Working
    })
    .await;
    let out = run(&sim, &home, &["wait", &long, "--timeout", "1s"]).await;
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(stdout(&out).contains("timed out"), "{}", stdout(&out));

    let out = run(&sim, &home, &["cancel", &long]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&sim, &home, &["wait", &long]).await;
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("cancelled"), "{}", stdout(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inbox_lists_every_decision_across_sessions_soonest_deadline_first() {
    let sim = slow_sim().await;
    let later = sim.create_session(Some("later"));
    sim.declare_function(&later, "lookup_order", Some(3_000));
    let sooner = sim.create_session(Some("sooner"));
    sim.declare_function(&sooner, "lookup_order", Some(600));
    let never = sim.create_session(Some("no deadline"));
    for (id, text) in [
        (&later, "#function look up A-1"),
        (&sooner, "#function look up A-2"),
        (&never, "#approval restart it"),
    ] {
        sim.send_message(id, text);
    }
    for id in [&later, &sooner, &never] {
        waiting_on_you(&sim, id).await;
    }
    let home = Home::new();
    let out = run(&sim, &home, &["inbox", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let order: Vec<&str> = rows
        .iter()
        .map(|r| r["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [sooner.as_str(), later.as_str(), never.as_str()]);
    for r in &rows {
        for key in ["session_id", "call_id", "type", "expires_at"] {
            assert!(r.get(key).is_some(), "{key}: {r}");
        }
    }
    assert_eq!(rows[0]["type"], "function_call");
    assert!(rows[0]["expires_at"].is_i64());
    assert_eq!(rows[2]["type"], "approval");
    assert_eq!(rows[2]["sensitive"], true);
    assert!(rows[2]["expires_at"].is_null());
}

/// The README's scripting example, as written there.
fn readme_example() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<!-- scripting-example -->")
        .expect("the example's marker");
    let end = readme.find("<!-- /scripting-example -->").expect("its end");
    let block = &readme[start..end];
    let code = block.split("```sh\n").nth(1).expect("a sh block");
    code.split("```").next().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_scripting_example_approves_and_passes() {
    let sim = slow_sim().await;
    let home = Home::new();
    let bin_dir = std::path::Path::new(crate::support::cli::BIN)
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = tokio::process::Command::new("sh");
    command
        .args(["-c", &readme_example()])
        .env("PATH", path)
        .env("GOBARE_API", sim.url().as_str())
        .env("GOBARE_TOKEN", sim.token())
        .env("XDG_CONFIG_HOME", home.path("config"))
        .env("XDG_STATE_HOME", home.path("state"))
        .env("HOME", home.path(""))
        .env("GOBARE_STREAM_SLOT_RELEASE_MS", "0")
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("the script finishes")
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let answers = sim.answers();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(matches!(
        answers[0].input,
        Input::Approval { approved: true, .. }
    ));
    let text = stdout(&out);
    assert!(
        text.contains("approval"),
        "the inbox said what it asked: {text}"
    );
    assert!(text.contains("completed"), "{text}");
}
