//! One runtime under the fleet and the sessions: switching between them never leaves the
//! alternate screen, and the fleet keeps drawing and answering keys while a write it asked
//! for waits on a slow server.

use std::time::Duration;

use crate::support;
use crate::support::app::{spawn, status_line};
use crate::support::live::wait_live;
use gobare_sim::{Faults, SimConfig};
use gobare_test_support::pty::keys;

const TIMEOUT: Duration = Duration::from_secs(40);
const ENTER_ALTERNATE: &[u8] = b"\x1b[?1049h";
const LEAVE_ALTERNATE: &[u8] = b"\x1b[?1049l";

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The fleet's rows below its header, without the frame.
fn rows(s: &vt100::Screen) -> Vec<String> {
    s.contents()
        .lines()
        .skip(2)
        .map(|l| l.trim_matches('│').trim().to_string())
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn ctrl_o_enter_ctrl_o_never_leaves_the_alternate_screen() {
    let sim = support::sim::start(SimConfig::for_tests());
    let first = sim.sim.create_session(Some("first job"));
    let _second = sim.sim.create_session(Some("second job"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["attach", &first], &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    for round in 0..2 {
        pty.send_keys(keys::CTRL_O);
        pty.wait_for(
            "the fleet, at the session's row",
            |s| {
                let rows = rows(s);
                rows.len() == 2
                    && rows
                        .iter()
                        .any(|r| r.starts_with('›') && r.contains("first job"))
            },
            TIMEOUT,
        );
        pty.send_keys(keys::ENTER);
        pty.wait_for(
            "the same session again",
            |s| status_line(s).contains("● live") && status_line(s).contains("first job"),
            TIMEOUT,
        );
        let bytes = pty.raw_bytes();
        assert_eq!(
            count(&bytes, ENTER_ALTERNATE),
            1,
            "round {round}: entered once"
        );
        assert_eq!(
            count(&bytes, LEAVE_ALTERNATE),
            0,
            "round {round}: never left"
        );
    }
    pty.send_keys(keys::CTRL_O);
    pty.wait_for("the fleet", |s| rows(s).len() == 2, TIMEOUT);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    let bytes = pty.raw_bytes();
    assert_eq!(count(&bytes, ENTER_ALTERNATE), 1);
    assert_eq!(count(&bytes, LEAVE_ALTERNATE), 1, "left once, at the end");
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn the_fleet_draws_and_answers_keys_while_a_rename_waits_on_a_slow_server() {
    let sim = support::sim::start(SimConfig::for_tests());
    let _other = sim.sim.create_session(Some("another row"));
    std::thread::sleep(Duration::from_millis(5));
    let slow = sim.sim.create_session(Some("slow to rename"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for(
        "both rows",
        |s| {
            rows(s)
                .iter()
                .filter(|r| r.contains("slow to rename") || r.contains("another row"))
                .count()
                == 2
        },
        TIMEOUT,
    );
    // Rows in creation order: go down to the one to rename.
    pty.send_keys(keys::DOWN);
    pty.wait_for(
        "the row to rename selected",
        |s| {
            rows(s)
                .iter()
                .any(|r| r.starts_with('›') && r.contains("slow to rename"))
        },
        TIMEOUT,
    );
    // The server holds the rename until the test lets it go (a minute: far past the test).
    sim.sim.set_faults(Faults {
        delay_session_writes_ms: 60_000,
        ..Faults::default()
    });
    pty.send_keys("r");
    pty.wait_for_text("new title: slow to rename", TIMEOUT);
    pty.send_keys("\x15");
    pty.send_keys("renamed while you wait");
    pty.send_keys(keys::ENTER);
    let patch = format!("PATCH /v1/sessions/{slow}");
    support::app::until(
        "the rename sent",
        TIMEOUT,
        || sim.sim.requests().contains(&patch).then_some(()),
        || format!("{:#?}", sim.sim.requests()),
    );
    pty.wait_for_text("renaming…", TIMEOUT);
    // While the server holds it: keys move the selection and open the key list.
    pty.send_keys(keys::UP);
    pty.wait_for(
        "the selection moved while the rename waits",
        |s| {
            rows(s)
                .iter()
                .any(|r| r.starts_with('›') && r.contains("another row"))
        },
        TIMEOUT,
    );
    pty.send_keys("?");
    pty.wait_for_text("the fleet's keys (this list)", TIMEOUT);
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the key list closed",
        |s| {
            !s.contents().contains("the fleet's keys (this list)")
                && s.contents().contains("renaming…")
        },
        TIMEOUT,
    );
    assert!(
        pty.with_screen(|s| !s.contents().contains("renamed while you wait")),
        "not renamed before the server answered"
    );
    // And q quits at once, the answer still pending.
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn a_slow_rename_lands_once_the_server_answers() {
    let sim = support::sim::start(SimConfig::for_tests());
    let slow = sim.sim.create_session(Some("slow to rename"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for(
        "the row, selected",
        |s| {
            rows(s)
                .iter()
                .any(|r| r.starts_with('›') && r.contains("slow to rename"))
        },
        TIMEOUT,
    );
    sim.sim.set_faults(Faults {
        delay_session_writes_ms: 1_500,
        ..Faults::default()
    });
    pty.send_keys("r");
    pty.wait_for_text("new title: slow to rename", TIMEOUT);
    pty.send_keys("\x15");
    pty.send_keys("now renamed");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("renaming…", TIMEOUT);
    pty.wait_for(
        "the new title, once answered",
        |s| {
            rows(s).first().is_some_and(|r| r.contains("now renamed"))
                && s.contents().contains("renamed")
        },
        TIMEOUT,
    );
    let patches = sim
        .sim
        .requests()
        .into_iter()
        .filter(|r| *r == format!("PATCH /v1/sessions/{slow}"))
        .count();
    assert_eq!(patches, 1, "one rename, no retry of an answered write");
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}
