//! What a glance at a session shows is true: the Turn pane after a round trip through the
//! fleet, the workspace's usage lines. The real binary in a pty against the simulator.

use crate::support;

use std::time::Duration;

use crate::support::app::{COLS, attach, status_line};
use crate::support::live::{pinging_sim, wait_live};
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

/// The Turn pane's lines (the right column below Events).
fn turn_pane(s: &vt100::Screen) -> String {
    let text = s.contents();
    let start = text.find("┌ Turn").unwrap_or(0);
    text[start..].lines().take(6).collect::<Vec<_>>().join("\n")
}

/// Turn-list reads the simulator answered so far.
fn turn_list_reads(sim: &gobare_sim::Simulator) -> usize {
    sim.request_counts()
        .get("GET /v1/sessions/{session_id}/turns")
        .copied()
        .unwrap_or(0)
}

/// The Turn pane's first line, its own column only: the phase and the clock.
fn turn_head(s: &vt100::Screen) -> String {
    let rows: Vec<String> = s.rows(0, COLS).collect();
    let Some((row, at)) = rows
        .iter()
        .enumerate()
        .find_map(|(i, r)| Some((i, r.find("┌ Turn")?)))
    else {
        return String::new();
    };
    let col = rows[row][..at].chars().count() as u16;
    s.rows(col, COLS - col).nth(row + 1).unwrap_or_default()
}

/// A `#long` turn working with one message queued behind it.
fn a_turn_working_with_one_queued(pty: &mut Pty) {
    wait_live(pty, TIMEOUT);
    pty.send_keys("a long job #long");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the turn working",
        |s| turn_pane(s).contains("● working"),
        TIMEOUT,
    );
    // A message queued behind it: its turn exists on the server, not started.
    pty.send_keys("and then the docs");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the message queued",
        |s| turn_pane(s).contains("queue: 1"),
        TIMEOUT,
    );
}

/// Back in the session (a new process or a new screen): once the turns read since `reads`
/// has been answered — the clock then moved twice, each a frame drawn after it — the Turn
/// pane says the turn works, never that it is queued.
fn working_once_the_turns_are_read_again(pty: &Pty, sim: &gobare_sim::Simulator, reads: usize) {
    pty.wait_for(
        "the session again, its turn working",
        |s| status_line(s).contains("● live") && turn_pane(s).contains("● working"),
        TIMEOUT,
    );
    pty.wait_for(
        "the turns read again",
        |_| turn_list_reads(sim) > reads,
        TIMEOUT,
    );
    for _ in 0..2 {
        let head = pty.with_screen(turn_head);
        pty.wait_for("the clock to move", |s| turn_head(s) != head, TIMEOUT);
    }
    let pane = pty.with_screen(turn_pane);
    assert!(
        pane.contains("● working") && !pane.contains("queued"),
        "{}",
        pty.screen_text()
    );
}

#[test]
fn the_turn_pane_says_working_after_the_fleet_and_back() {
    let sim = pinging_sim(1.0);
    let session = sim.sim.create_session(Some("round trip"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    a_turn_working_with_one_queued(&mut pty);
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the fleet",
        |s| s.contents().contains("Fleet · 1 session"),
        TIMEOUT,
    );
    let reads = turn_list_reads(&sim.sim);
    pty.send_keys(keys::ENTER);
    working_once_the_turns_are_read_again(&pty, &sim.sim, reads);
}

#[test]
fn the_turn_pane_says_working_after_a_restart() {
    let sim = pinging_sim(1.0);
    let session = sim.sim.create_session(Some("restart"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    a_turn_working_with_one_queued(&mut pty);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
    let reads = turn_list_reads(&sim.sim);
    let pty = attach(&session, &home, &sim.sim);
    working_once_the_turns_are_read_again(&pty, &sim.sim, reads);
}
