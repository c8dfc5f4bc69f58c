#![cfg(unix)]
//! Issue 47's budgets end to end, printed as `perf: …` lines (run with `--ignored`; release
//! build recommended): the fleet (the real binary in a pty, a session open in front of it)
//! on a busy organization with the reference's rate limits, and meanwhile from another
//! process on the same token `report --since 1h` (held against the simulator's record,
//! read with a token of its own) and a 50-artifact download, each timed. The fleet's own
//! requests a minute by class and the lowest `general` remaining come from its log.

use crate::support::app::{spawn_sized, status_line};
use crate::support::cli::{Home, run_against_within, stderr_of};
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_api::model::TurnStatus;
use gobare_sim::{RateLimits, SimConfig, Simulator};
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a command beside the fleet may take before the figure is a failure.
const LONG: Duration = Duration::from_secs(600);

/// Turns completed in [since, until] by the simulator's record, read with `token`.
async fn completed_between(sim: &Simulator, token: &str, since: i64, until: i64) -> u64 {
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(token))).unwrap();
    let mut count = 0;
    for id in sim.session_ids() {
        let mut page = Page::ordered(Order::Desc).with_limit(100);
        loop {
            let list = client.list_turns(&id, &page).await.unwrap();
            count += list
                .data
                .iter()
                .filter(|t| {
                    t.status == TurnStatus::Completed
                        && t.completed_at.is_some_and(|at| since <= at && at <= until)
                })
                .count() as u64;
            match list.last_id.filter(|_| list.has_more) {
                Some(last) => page = Page::ordered(Order::Desc).with_limit(100).after(last),
                None => break,
            }
        }
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a perf figure: minutes long; run with --ignored"]
async fn perf_fleet_report_and_download_share_one_budget() {
    let fleet: usize = std::env::var("PERF_FLEET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let activity: u32 = std::env::var("PERF_FLEET_ACTIVITY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let settle = Duration::from_secs(
        std::env::var("PERF_FLEET_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(120),
    );
    let sim = Simulator::start(SimConfig {
        rate_limits: RateLimits::default(),
        fleet_activity: activity,
        ..SimConfig::for_tests().with_fleet(fleet)
    })
    .await
    .unwrap();
    let outputs = sim.create_session(Some("fifty outputs"));
    for i in 0..50 {
        sim.add_artifact(
            &outputs,
            "turn_00000000000000a1",
            &format!("/workspace/outputs/part-{i:02}.bin"),
            vec![i as u8; 64 * 1024],
        );
    }
    let record_token = sim.mint_token(&["sessions:read"]);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn_sized(&["fleet"], &home, &sim, 160, 48);
    pty.wait_for(
        "the fleet's rows",
        |s| crate::support::app::fleet_list_rows(s).len() > 10,
        Duration::from_secs(60),
    );
    // A session open in front of the fleet (Enter again if the first came before the
    // fleet took keys).
    for attempt in 0.. {
        pty.send_keys("\r");
        let opened = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < opened
            && !pty.with_screen(|s| {
                status_line(s).contains("connected") || status_line(s).contains("live")
            })
        {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        if pty.with_screen(|s| {
            status_line(s).contains("connected") || status_line(s).contains("live")
        }) {
            break;
        }
        assert!(attempt < 5, "no session opened: {}", pty.screen_text());
    }
    tokio::time::sleep(settle).await;

    let cli_home = Home::new();
    let started = Instant::now();
    let out = run_against_within(
        &sim,
        &cli_home,
        &["report", "--since", "1h", "--json"],
        LONG,
    )
    .await;
    let took = started.elapsed();
    let report: Value =
        serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap_or_default();
    let (since, until) = (
        report["since"].as_i64().unwrap_or(0),
        report["until"].as_i64().unwrap_or(0),
    );
    let record = completed_between(&sim, &record_token, since, until).await;
    println!(
        "perf: report --since 1h beside the fleet ({fleet} sessions, {activity} events/s) = {:.1} s, exit {:?}, turns_completed {} vs the record's {record}{}",
        took.as_secs_f64(),
        out.status.code(),
        report["totals"]["turns_completed"],
        if out.status.success() {
            String::new()
        } else {
            format!(" ({})", stderr_of(&out).trim())
        },
    );

    let dir = cli_home.path("saved");
    let started = Instant::now();
    let out = run_against_within(
        &sim,
        &cli_home,
        &["artifacts", &outputs, "--download", dir.to_str().unwrap()],
        LONG,
    )
    .await;
    let saved = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    println!(
        "perf: artifacts --download (50 x 64 KiB) beside the fleet = {:.1} s, exit {:?}, {saved} saved",
        started.elapsed().as_secs_f64(),
        out.status.code(),
    );
    pty.send_keys("\x11");
    let logs = home.path().join("state/gobare-tui/logs");
    for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text
            .lines()
            .filter(|l| l.contains("requests in the last minute"))
        {
            println!(
                "perf: fleet minute: {}",
                line.split("INFO").last().unwrap_or(line).trim()
            );
        }
    }
}
