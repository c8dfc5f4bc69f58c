//! A stream that opens at once and starts its replay late (the simulator's
//! `Faults::delay_replay_ms`: four times the history's quiet spell): `export --format jsonl`
//! writes every event of the session and `diff` prints its file changes, as when the replay
//! starts at once. Counting the quiet spell from the open ended both before the first event
//! (issue 49.6: 0 events and "no file changes", exit 0).

use crate::support::cli::{Home, run_against, stderr_of, stdout_of};
use gobare_sim::{Faults, SimConfig, Simulator};
use gobare_tui::export::history::END_QUIET;
use std::time::Duration;

/// How long after the stream opened its replay starts.
const LATE: Duration = END_QUIET.saturating_mul(4);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_that_starts_late_is_exported_and_diffed_whole() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = crate::support::sim::settled_session(&sim, "late replay", "#quick fix the CSV totals")
        .await;
    let home = Home::new();
    // The session's changes as `diff` prints them from a replay that starts at once.
    let at_once = run_against(&sim, &home, &["diff", &id]).await;
    assert!(at_once.status.success(), "{}", stderr_of(&at_once));
    let changes = stdout_of(&at_once);
    assert!(
        changes.contains("diff --git"),
        "the turn edited files: {changes:?} {}",
        stderr_of(&at_once)
    );

    sim.set_faults(Faults {
        delay_replay_ms: LATE.as_millis() as u64,
        ..Faults::default()
    });
    let started = tokio::time::Instant::now();
    let out = run_against(&sim, &home, &["export", &id, "--format", "jsonl"]).await;
    let took = started.elapsed();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    let seqs: Vec<u64> = stdout_of(&out)
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect(line);
            assert_eq!(value["session_id"], id.as_str());
            value["seq"].as_u64().expect("persisted only")
        })
        .collect();
    // The simulator holds this one session: its record is the session's history.
    assert_eq!(
        seqs,
        (1..=sim.last_seq()).collect::<Vec<u64>>(),
        "every event of the session once, in order: {err}"
    );
    assert_eq!(seqs.len() as u64, sim.stored_events());
    assert!(
        took >= LATE,
        "the replay was held: the export took {took:?}"
    );

    let late = run_against(&sim, &home, &["diff", &id]).await;
    assert!(late.status.success(), "{}", stderr_of(&late));
    assert_eq!(stdout_of(&late), changes, "{}", stderr_of(&late));
    sim.shutdown().await;
}
