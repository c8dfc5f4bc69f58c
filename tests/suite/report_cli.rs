#![cfg(unix)]
//! `gobare-tui report` against the simulator's fleet: the JSON's shape and figures (a turn
//! failed with its reason, decisions waiting by kind), the text, and the exit status of a
//! bad `--since` and of no token.

use crate::support::cli::Home;
use crate::support::cli::{run_against as run, stderr_of as stderr, stdout_of as stdout};
use crate::support::fleet::settled_fleet;
use gobare_sim::{SimConfig, Simulator};
use serde_json::Value;

fn session<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {report:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_json_and_text_say_what_failed_and_what_waits() {
    let sim = Simulator::start(SimConfig::for_tests().with_fleet(6))
        .await
        .unwrap();
    let fleet = settled_fleet(&sim).await;
    let home = Home::new();

    let out = run(&sim, &home, &["report", "--since", "1h", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "one object, one line");
    let report: Value = serde_json::from_str(&text).unwrap();
    for key in [
        "since",
        "until",
        "sessions_listed",
        "totals",
        "partial",
        "sessions",
    ] {
        assert!(report.get(key).is_some(), "{key} missing: {report:#}");
    }
    let (since, until) = (
        report["since"].as_i64().unwrap(),
        report["until"].as_i64().unwrap(),
    );
    assert_eq!(until - since, 3_600_000, "--since 1h");
    assert_eq!(report["partial"], Value::Null);
    assert!(report["sessions_listed"].as_u64().unwrap() >= 6);
    let totals = &report["totals"];
    assert!(totals["turns_failed"].as_u64().unwrap() >= 1, "{totals}");
    assert!(
        totals["decisions_waiting"].as_u64().unwrap() >= 3,
        "{totals}"
    );

    let failed = session(&report, &fleet[4]);
    assert_eq!(failed["turns"]["failed"], 1, "{failed:#}");
    for key in ["completed", "failed", "cancelled", "outcome_unread"] {
        assert!(failed["turns"][key].is_u64(), "{key}: {failed:#}");
    }
    let reason = failed["failed"][0]["reason"].as_str().unwrap();
    assert!(!reason.is_empty(), "{failed:#}");
    assert!(
        failed["failed"][0]["turn_id"]
            .as_str()
            .unwrap()
            .starts_with("turn_")
    );
    for key in [
        "decisions",
        "artifacts",
        "workspace",
        "usage",
        "workspace_now",
        "events",
    ] {
        assert!(failed.get(key).is_some(), "{key}: {failed:#}");
    }
    let kinds: Vec<&str> = [1, 2, 5]
        .iter()
        .map(|&i| {
            let s = session(&report, &fleet[i]);
            assert_eq!(s["decisions_waiting"], 1, "{s:#}");
            let d = &s["decisions"][0];
            assert!(
                d["call_id"].is_string() && d.get("expires_at").is_some(),
                "{d}"
            );
            d["type"].as_str().unwrap()
        })
        .collect();
    assert_eq!(kinds, ["approval", "question", "function_call"]);
    // Each request told as the inbox tells it: the command, the question with its options.
    let what = |i: usize| session(&report, &fleet[i])["decisions"][0]["what"].to_string();
    assert!(
        what(1).trim_matches('"').contains(' '),
        "the command too: {}",
        what(1)
    );
    assert!(
        what(2).contains('?') && what(2).contains(" ["),
        "{}",
        what(2)
    );
    // What waits on the user comes first.
    let first = &report["sessions"][0];
    assert!(
        first["decisions_waiting"].as_u64().unwrap() > 0,
        "{report:#}"
    );

    let out = run(&sim, &home, &["report", "--since", "1h"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Since "), "{text}");
    assert!(text.contains("1 turn failed"), "{text}");
    assert!(text.contains("1 decision waiting on you"), "{text}");
    assert!(text.contains(&format!("({})", fleet[4])), "{text}");
    assert!(!text.contains('\u{1b}'), "no escape sequence: {text:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_since_is_a_usage_error_and_no_token_says_how_to_give_one() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let home = Home::new();
    let out = run(&sim, &home, &["report", "--since", "yesterday"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--since \"yesterday\""),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());

    let out = home
        .tokio_command(&["--api", sim.url().as_str(), "report"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("GOBARE_TOKEN"), "{}", stderr(&out));

    let help = home.std_command(&["report", "--help"]).output().unwrap();
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--since") && help.contains("--json") && help.contains("Exit status"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_counts_every_turn_in_the_window_past_the_first_page_under_rate_limits() {
    // The reference's budget, enforced: 120 a minute, as a busy organization's token has.
    let sim = Simulator::start(SimConfig {
        rate_limits: gobare_sim::RateLimits::default(),
        ..SimConfig::for_tests()
    })
    .await
    .unwrap();
    let busy = sim.create_session(Some("nightly"));
    // One turn a minute: 230 settled in the last four hours, more than two pages of 100.
    sim.seed_turns(&busy, 230, std::time::Duration::from_secs(30));
    let quiet = sim.create_session(Some("quiet"));
    sim.seed_turns(&quiet, 3, std::time::Duration::from_secs(60));
    let home = Home::new();
    let out = run(&sim, &home, &["report", "--since", "5h", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["partial"], Value::Null, "{report:#}");
    assert_eq!(session(&report, &busy)["turns"]["completed"], 230);
    assert_eq!(session(&report, &quiet)["turns"]["completed"], 3);
    assert_eq!(report["totals"]["turns_completed"], 233);
    // Three pages of the busy session's turns, read in order.
    let pages = sim
        .requests()
        .iter()
        .filter(|r| r.starts_with(&format!("GET /v1/sessions/{busy}/turns")))
        .count();
    assert_eq!(pages, 3, "{:?}", sim.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_that_could_not_read_everything_says_what_and_exits_non_zero() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("lost"));
    sim.seed_turns(&id, 2, std::time::Duration::from_secs(60));
    // Its turns cannot be read: the report must not call itself whole.
    sim.set_faults(gobare_sim::Faults {
        fail_turn_lists: true,
        ..gobare_sim::Faults::default()
    });
    let home = Home::new();
    let out = run(&sim, &home, &["report", "--since", "1h", "--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not whole") && stderr(&out).contains("could not be read"),
        "{}",
        stderr(&out)
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(report["partial"].is_string(), "{report:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untitled_session_goes_by_its_first_message_as_list_names_it() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(None);
    sim.seed_turns(&id, 1, std::time::Duration::from_secs(60));
    let home = Home::new();
    let listed = stdout(&run(&sim, &home, &["list"]).await);
    let first = listed
        .lines()
        .find(|l| l.contains(&id[..8]) || l.contains("Step "))
        .unwrap_or_else(|| panic!("{id} not listed: {listed}"));
    assert!(
        first.contains("tidy"),
        "list names it by its message: {first}"
    );

    let out = run(&sim, &home, &["report", "--since", "1h"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains(&format!("session {}", &id[..8])),
        "named by its id: {text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("Step ") && l.contains("tidy")),
        "named by its first message: {text}"
    );
}
