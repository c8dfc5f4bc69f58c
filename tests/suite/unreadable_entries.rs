#![cfg(unix)]
//! Entries a server lists that cannot be read (issue 49.8): `list`, `inbox` and `report`
//! read the rest, count what they left out, say it on stderr (and in `report`'s
//! `partial`), and exit 1 so that a script does not take the output as whole. The
//! simulator's `Faults::spoil_session_list` drops every listed required action's `call_id`
//! and adds a session without an `id` to the list.

use crate::support::cli::Home;
use crate::support::cli::{run_against as run, stderr_of as stderr, stdout_of as stdout};
use crate::support::fleet::settled_fleet;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Page};
use gobare_sim::{Faults, SimConfig, Simulator};
use serde_json::Value;

/// A settled fleet of 6 with its list spoiled: the fleet's ids, and how many required
/// actions wait across it.
async fn spoiled_fleet() -> (Simulator, Vec<String>, usize) {
    let sim = Simulator::start(SimConfig::for_tests().with_fleet(6))
        .await
        .unwrap();
    let fleet = settled_fleet(&sim).await;
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
    let listed = client
        .list_sessions(&Page::default().with_limit(100))
        .await
        .unwrap();
    let actions: usize = listed.data.iter().map(|s| s.required_actions.len()).sum();
    assert!(
        actions >= 3,
        "the approval, question and function call wait"
    );
    sim.set_faults(Faults {
        spoil_session_list: true,
        ..Faults::default()
    });
    (sim, fleet, actions)
}

fn said_left_out(err: &str, actions: usize) -> bool {
    err.contains(&format!(
        "1 session and {actions} required actions could not be read ("
    )) && err.contains("session without a readable id: missing field `id`")
        && err.contains("missing field `call_id`")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_every_readable_session_and_counts_what_it_left_out() {
    let (sim, fleet, actions) = spoiled_fleet().await;
    let home = Home::new();
    let out = run(&sim, &home, &["list", "--json"]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(said_left_out(&err, actions), "{err}");
    assert!(err.contains("the list is not whole"), "{err}");
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every session that reads is listed, the three waiting ones still first and still
    // needing you, though what they need could not be read.
    for id in &fleet {
        assert!(rows.iter().any(|r| r["id"] == id.as_str()), "{id} missing");
    }
    for waiting in [&fleet[1], &fleet[2], &fleet[5]] {
        let row = rows.iter().find(|r| r["id"] == waiting.as_str()).unwrap();
        assert_eq!(row["attention"], "needs you", "{row}");
    }
    assert!(rows[..3].iter().all(|r| r["attention"] == "needs you"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_keeps_the_sessions_that_wait_and_calls_itself_partial() {
    let (sim, fleet, actions) = spoiled_fleet().await;
    let home = Home::new();
    let out = run(&sim, &home, &["report", "--since", "1h", "--json"]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(said_left_out(&err, actions), "{err}");
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let partial = report["partial"].as_str().unwrap_or_default();
    assert!(said_left_out(partial, actions), "{report:#}");
    let ids: Vec<&str> = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    for waiting in [&fleet[1], &fleet[2], &fleet[5]] {
        assert!(ids.contains(&waiting.as_str()), "{waiting} not in {ids:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inbox_lists_what_each_session_read_says_and_counts_the_list_it_could_not_read() {
    let (sim, fleet, _) = spoiled_fleet().await;
    let home = Home::new();
    let out = run(&sim, &home, &["inbox", "--json"]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The actions the list could not give, each session's own read gave: only the session
    // without an id is left out.
    assert!(
        err.contains("1 session could not be read (session without a readable id"),
        "{err}"
    );
    assert!(err.contains("the inbox is not whole"), "{err}");
    // Each waiting session's own read is whole: its decision is listed.
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for waiting in [&fleet[1], &fleet[2], &fleet[5]] {
        assert!(
            rows.iter().any(|r| r["session_id"] == waiting.as_str()),
            "{waiting} not in {rows:?}"
        );
    }
}
