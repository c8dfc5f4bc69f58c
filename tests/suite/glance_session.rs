//! What a glance at a session shows is true: the Turn pane after a round trip through the
//! fleet, the workspace's usage lines. The real binary in a pty against the simulator.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, status_line};
use crate::support::pty::{Pty, keys};
use gobare_sim::SimConfig;

const TIMEOUT: Duration = Duration::from_secs(40);

fn wait_live(pty: &Pty) {
    pty.wait_for("live", |s| status_line(s).contains("● live"), TIMEOUT);
}

/// The Turn pane's lines (the right column below Events).
fn turn_pane(s: &vt100::Screen) -> String {
    let text = s.contents();
    let start = text.find("┌ Turn").unwrap_or(0);
    text[start..].lines().take(6).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_turn_pane_says_working_after_the_fleet_and_back() {
    let sim = support::sim::start(SimConfig {
        speed: 1.0,
        ping_interval: Duration::from_secs(1),
        ..SimConfig::for_tests()
    });
    let session = sim.sim.create_session(Some("round trip"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty);
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
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the fleet",
        |s| s.contents().contains("Fleet · 1 session"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the session again, its turn working",
        |s| status_line(s).contains("● live") && turn_pane(s).contains("● working"),
        TIMEOUT,
    );
    assert!(
        !pty.with_screen(|s| turn_pane(s).contains("queued")),
        "{}",
        pty.screen_text()
    );
}
