#![cfg(unix)]
//! Finding sessions from the command line, against the simulator: `list` (text and JSON,
//! attention first, what each waits for), session id prefixes (unique, ambiguous, none),
//! and plain `gobare-tui` when the session it remembers is gone.

use crate::support;
use crate::support::cli::Home;
use crate::support::cli::{run_against as run, stderr_of as stderr, stdout_of as stdout};
use crate::support::fleet::settled_fleet;
use gobare_sim::{SimConfig, Simulator};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const TIMEOUT: Duration = Duration::from_secs(40);

fn rank(attention: &str) -> u8 {
    match attention {
        "needs you" => 0,
        "failed" => 1,
        "working" => 2,
        "idle" => 3,
        other => panic!("unknown attention {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_json_puts_waiting_sessions_first_and_says_what_each_needs() {
    let sim = Simulator::start(SimConfig::for_tests().with_fleet(6))
        .await
        .unwrap();
    let fleet = settled_fleet(&sim).await;
    let home = Home::new();

    let out = run(&sim, &home, &["list", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 6);
    let row = |i: usize| rows.iter().find(|r| r["id"] == fleet[i].as_str()).unwrap();
    assert_eq!(row(1)["needs"], "approval");
    assert_eq!(row(2)["needs"], "question");
    assert_eq!(row(5)["needs"], "function_call");
    for i in [0, 3, 4] {
        assert_eq!(row(i)["needs"], Value::Null, "{}", row(i));
    }
    assert_eq!(row(4)["status"], "failed");
    assert_eq!(row(2)["parent_session_id"], fleet[0].as_str());
    // Untitled: the first message stands in, never an id.
    assert_eq!(row(3)["title_from_first_message"], true);
    let title = row(3)["title"].as_str().unwrap();
    assert!(title.starts_with("Summarise this repository"), "{title}");
    assert_eq!(row(4)["title"], "Billing migration 1");
    for r in &rows {
        for key in [
            "workspace",
            "created_at",
            "updated_at",
            "status",
            "attention",
        ] {
            assert!(r.get(key).is_some(), "{key} missing from {r}");
        }
        assert_eq!(r["id"].as_str().unwrap().len(), 36, "full ids: {r}");
    }
    // Attention first (needs you, failed, working, idle), then the most recent.
    let keys: Vec<(u8, i64)> = rows
        .iter()
        .map(|r| {
            (
                rank(r["attention"].as_str().unwrap()),
                -r["updated_at"].as_i64().unwrap(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "{rows:#?}");
    assert_eq!(keys.iter().filter(|(r, _)| *r == 0).count(), 3);

    // Filters go to the API; --root takes a prefix.
    let out = run(&sim, &home, &["list", "--json", "--status", "failed"]).await;
    let failed = stdout(&out);
    let failed: Vec<&str> = failed.lines().collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].contains(&fleet[4]));
    let lead_prefix = &fleet[0][..13];
    let out = run(&sim, &home, &["list", "--json", "--root", lead_prefix]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let mut crew: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    crew.sort();
    let mut expected = fleet[..3].to_vec();
    expected.sort();
    assert_eq!(crew, expected);
    let requests = sim.requests();
    assert!(
        requests.iter().any(|r| r.contains("status=failed")),
        "{requests:#?}"
    );
    assert!(
        requests
            .iter()
            .any(|r| r.contains(&format!("root={}", fleet[0]))),
        "{requests:#?}"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_text_is_one_line_per_session_waiting_ones_first() {
    let sim = Simulator::start(SimConfig::for_tests().with_fleet(6))
        .await
        .unwrap();
    let fleet = settled_fleet(&sim).await;
    let home = Home::new();
    let out = run(&sim, &home, &["list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    for line in &lines[..3] {
        assert!(line.contains("needs you: "), "{text}");
    }
    assert!(lines[3].contains("  failed  "), "{text}");
    let line_of = |i: usize| *lines.iter().find(|l| l.starts_with(&fleet[i])).unwrap();
    assert!(line_of(1).contains("needs you: approval"), "{text}");
    assert!(line_of(2).contains("needs you: question"), "{text}");
    assert!(line_of(5).contains("needs you: function_call"), "{text}");
    assert!(
        line_of(1).ends_with("Restart the stuck export worker #approval (1)"),
        "{text}"
    );
    assert!(line_of(2).ends_with("Fix the failing deploy 1"), "{text}");
    assert!(line_of(3).contains("  idle  "), "{text}");

    // First messages are read once per untitled session, then remembered.
    let item_reads = |from: usize| {
        sim.requests()[from..]
            .iter()
            .filter(|r| r.contains("/items?"))
            .count()
    };
    assert_eq!(item_reads(0), 3, "one read per untitled session");
    let before = sim.requests().len();
    let again = run(&sim, &home, &["list"]).await;
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(item_reads(before), 0, "{:#?}", &sim.requests()[before..]);
    assert!(stdout(&again).contains("Restart the stuck export worker #approval (1)"));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_list_page_is_asked_again_after_retry_after() {
    let sim = Simulator::start(SimConfig {
        rate_limits: gobare_sim::RateLimits {
            general_per_minute: 60,
            enforce: true,
            ..gobare_sim::RateLimits::default()
        },
        ..SimConfig::for_tests()
    })
    .await
    .unwrap();
    for i in 0..3 {
        sim.create_session(Some(&format!("job {i}")));
    }
    // Another program on the token spends the bucket (this crate's client would pace
    // itself and never run it dry).
    crate::support::sim::spend_the_budget(&sim).await;
    let before = sim.requests().len();
    let home = Home::new();
    let out = run(&sim, &home, &["list", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 3);
    let asked = sim.requests()[before..]
        .iter()
        .filter(|r| r.starts_with("GET /v1/sessions?"))
        .count();
    assert!(asked >= 2, "refused once, then asked again: {asked}");
    sim.shutdown().await;
}

/// A session with a few events, and a first character of an id that two or more sessions
/// share (among 40, some first character is always shared).
fn sessions_with_a_shared_prefix(sim: &Simulator) -> (Vec<String>, String) {
    let ids: Vec<String> = (0..40)
        .map(|i| sim.create_session(Some(&format!("job {i}"))))
        .collect();
    let shared = ids
        .iter()
        .map(|id| &id[..1])
        .find(|p| ids.iter().filter(|id| id.starts_with(p)).count() >= 2)
        .unwrap()
        .to_string();
    (ids, shared)
}

/// `tail ID --from 0`'s first line, then the process is stopped.
async fn first_tailed_line(sim: &Simulator, home: &Home, id: &str) -> String {
    let url = sim.url().to_string();
    let mut child = home
        .tokio_command(&["--api", &url, "tail", id, "--from", "0"])
        .env("GOBARE_TOKEN", sim.token())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(TIMEOUT, lines.next_line())
        .await
        .expect("a line in time")
        .unwrap()
        .expect("a line");
    child.kill().await.unwrap();
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_prefix_names_its_session_and_a_full_id_costs_no_list() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let (ids, _) = sessions_with_a_shared_prefix(&sim);
    let target = &ids[7];
    sim.seed_events(target, 3);
    let home = Home::new();

    let before = sim.requests().len();
    let line = first_tailed_line(&sim, &home, &target[..13]).await;
    assert!(line.contains(target.as_str()), "{line}");
    let lists = |from: usize| {
        sim.requests()[from..]
            .iter()
            .filter(|r| r.starts_with("GET /v1/sessions?"))
            .count()
    };
    assert!(lists(before) >= 1, "a prefix is resolved from the list");

    let before = sim.requests().len();
    let line = first_tailed_line(&sim, &home, target).await;
    assert!(line.contains(target.as_str()), "{line}");
    assert_eq!(lists(before), 0, "{:#?}", &sim.requests()[before..]);
    sim.shutdown().await;
}

/// The health check's connection carries the stream too: one connection, one start-up,
/// however many requests `tail` makes before it prints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tail_opens_its_stream_on_the_health_checks_connection() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("one connection"));
    sim.seed_events(&id, 3);
    let line = first_tailed_line(&sim, &Home::new(), &id).await;
    assert!(line.contains(id.as_str()), "{line}");
    let requests = sim.requests();
    assert_eq!(requests[0], "GET /v1/health", "{requests:?}");
    assert!(
        requests[1].starts_with(&format!("GET /v1/sessions/{id}/events")),
        "{requests:?}"
    );
    assert_eq!(sim.connections_accepted(), 1, "{requests:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ambiguous_prefix_lists_the_candidates_and_exits_2() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let (ids, shared) = sessions_with_a_shared_prefix(&sim);
    let candidates: Vec<(usize, &String)> = ids
        .iter()
        .enumerate()
        .filter(|(_, id)| id.starts_with(&shared))
        .collect();
    let home = Home::new();
    for command in ["tail", "attach"] {
        let out = run(&sim, &home, &[command, &shared]).await;
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains(&format!("matches {} sessions", candidates.len())),
            "{err}"
        );
        for (i, id) in candidates.iter().take(10) {
            assert!(err.contains(&format!("  {id}  job {i}\n")), "{err}");
        }
        assert!(out.stdout.is_empty());
    }

    let unused = (0..=255u8)
        .map(|b| format!("{b:02x}"))
        .find(|p| !ids.iter().any(|id| id.starts_with(p.as_str())))
        .unwrap();
    let out = run(&sim, &home, &["tail", &unused]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("no session id starts with \"{unused}\"")),
        "{err}"
    );
    sim.shutdown().await;
}

#[test]
fn a_remembered_session_that_is_gone_is_forgotten_and_the_fleet_opens() {
    let sim = support::sim::start(SimConfig::for_tests().with_fleet(6));
    let home = tempfile::tempdir().unwrap();
    let store =
        gobare_tui::store::StateStore::open(&home.path().join("state/gobare-tui"), &sim.sim.url())
            .unwrap();
    let gone = "0badc0de-0000-4000-8000-000000000000";
    store.set_last_session(gone).unwrap();

    let mut pty = support::app::spawn(&[], &home, &sim.sim);
    pty.wait_for(
        "the fleet with the notice and untitled sessions by first message",
        |s| {
            let text = s.contents();
            text.contains("Fleet · 6 sessions")
                && text.contains("(0badc0de-0000-4000-8000-000000000000) no longer exists")
                && text.contains("Restart the stuck export worker")
        },
        TIMEOUT,
    );
    let screen = pty.screen_text();
    for id in sim.sim.fleet() {
        assert!(
            !screen.contains(&id[..8]),
            "no id prefix as a label:\n{screen}"
        );
    }
    assert_eq!(store.last_session(), None, "forgotten");
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

/// On a terminal `list` names its columns first; piped (above), it prints rows only.
#[test]
fn list_on_a_terminal_starts_with_a_header_line() {
    let sim = support::sim::start(SimConfig::for_tests());
    let id = sim.sim.create_session(Some("headed"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = support::app::spawn(&["list"], &home, &sim.sim);
    assert!(pty.wait_exit(TIMEOUT).success());
    let lines: Vec<String> = pty.with_screen(|s| {
        s.contents()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    });
    assert!(
        lines[0].starts_with("SESSION") && lines[0].contains("STATE") && lines[0].contains("TITLE"),
        "{lines:#?}"
    );
    assert!(
        lines[1].starts_with(&id) && lines[1].ends_with("headed"),
        "{lines:#?}"
    );
}
