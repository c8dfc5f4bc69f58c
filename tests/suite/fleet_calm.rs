//! The fleet in a pty on the simulator's fleet activity (`--fleet 60 --fleet-activity 50`):
//! while hundreds of events change the rows' states, the selected row keeps its line on
//! the screen, and no approval granted at once is announced. How far the activity got is
//! read from the simulator's event count, never from the clock.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support;
use crate::support::app::fleet_list_rows as list_rows;
use crate::support::app::spawn_sized;
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;

const TIMEOUT: Duration = Duration::from_secs(60);
/// Events the simulator emits while the screen is watched.
const WATCHED_EVENTS: u64 = 500;

/// Notifications on: as a terminal whose focus is not known would have them.
fn always_notifying_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[notify]\nwhen = \"always\"\n").unwrap();
    home
}

/// The selected row's line in the list and its session's name (the row's first cells).
fn selected(s: &vt100::Screen) -> Option<(usize, String)> {
    list_rows(s)
        .into_iter()
        .enumerate()
        .find(|(_, r)| r.starts_with('›'))
        .map(|(line, row)| (line, row.chars().take(40).collect()))
}

#[test]
fn on_a_busy_fleet_the_selected_row_keeps_its_line_and_a_granted_approval_rings_nothing() {
    let sim = support::sim::start(SimConfig {
        fleet_activity: 50,
        ..SimConfig::for_tests().with_fleet(60)
    });
    let home = always_notifying_home();
    let mut pty = spawn_sized(&["fleet"], &home, &sim.sim, 160, 48);
    // Every row named (an untitled session's first message is read after the list): a row
    // renamed under the selection is not the selection moving.
    pty.wait_for(
        "sixty sessions listed, each by its name",
        |s| {
            let shown = s.contents();
            shown.contains("Fleet · 60 sessions") && !shown.contains("(untitled)")
        },
        TIMEOUT,
    );
    // To the middle of the screen: rows above it and below it change state (a row that
    // took a turn long enough moves band above it, and the list scrolls under it).
    for _ in 0..20 {
        pty.send_keys(keys::DOWN);
    }
    pty.wait_for(
        "the 21st row selected",
        |s| selected(s).is_some_and(|(line, _)| line == 20),
        TIMEOUT,
    );
    let (_, mut name) = pty.with_screen(selected).unwrap();
    let from = sim.sim.last_seq();
    let mut lines = BTreeSet::new();
    let mut screens = 0;
    support::app::until(
        "the simulator's activity",
        TIMEOUT,
        || {
            // Each look is a screen as drawn by then; the loop ends on the event count.
            let (line, row) = pty.with_screen(selected).unwrap_or_default();
            // An untitled row's first message may be read after it was selected: its name
            // comes, the row stays.
            if name.starts_with("› (untitled)") && !row.starts_with("› (untitled)") {
                name = row.clone();
            }
            assert!(
                row == name,
                "the selection left its session: {row:?} ≠ {name:?}"
            );
            lines.insert(line);
            screens += 1;
            (sim.sim.last_seq() >= from + WATCHED_EVENTS).then_some(())
        },
        String::new,
    );
    assert_eq!(
        lines.len(),
        1,
        "the selected row kept one line over {screens} looks: {lines:?}"
    );
    let bytes = pty.raw_bytes();
    let text = String::from_utf8_lossy(&bytes);
    let approvals = text.matches("needs you: approval\x07").count();
    assert_eq!(
        approvals,
        0,
        "~{} approvals were asked and granted at once: none is news",
        WATCHED_EVENTS / 12
    );
    pty.send_keys("q");
}
