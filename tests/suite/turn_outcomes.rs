//! A first attach to a long history: the turns on the first screen say how they ended
//! (their separators and the Turn pane, with each turn's own elapsed time), read from the
//! newest page of turns, never one request per turn. The real binary in a pty against the
//! simulator.

use crate::support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::app::bottom;
use crate::support::app::{COLS, attach, status_line};
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(120);
const TURNS: usize = 4_000;
const DAY: Duration = Duration::from_secs(24 * 3600);

const LIST_TURNS: &str = "GET /v1/sessions/{session_id}/turns";
const ONE_TURN: &str = "GET /v1/sessions/{session_id}/turns/{turn_id}";

/// The column the side panes start at (where the Turn pane's border is drawn).
fn side_column(s: &vt100::Screen) -> Option<u16> {
    s.rows(0, COLS).find_map(|row| {
        let at = row.find("┌ Turn")?;
        Some(row[..at].chars().count() as u16)
    })
}

/// The transcript column's rows and the Turn pane's rows.
fn columns(s: &vt100::Screen) -> (Vec<String>, Vec<String>) {
    let Some(col) = side_column(s) else {
        return (Vec::new(), Vec::new());
    };
    // Inside the transcript's border only: its top and bottom rows are lines too.
    let left = s.rows(0, col).filter(|r| r.starts_with('│')).collect();
    let right: Vec<String> = s.rows(col, COLS - col).collect();
    let turn = right
        .iter()
        .skip_while(|r| !r.starts_with("┌ Turn"))
        .take_while(|r| !r.starts_with('└'))
        .cloned()
        .collect();
    (left, turn)
}

/// Every outcome on screen is read: the Turn pane says the last turn completed in its own
/// 3 s, and each separator in view says how its turn ended.
fn settled(s: &vt100::Screen) -> bool {
    let (left, turn) = columns(s);
    let separators = left.iter().filter(|r| r.contains("──")).count();
    separators > 0
        && left.iter().all(|r| !r.contains("turn ended ──"))
        && turn.iter().any(|r| r.contains("✓ completed  3s"))
        && turn.iter().all(|r| !r.contains("settling"))
}

/// The transcript's rows show separators, each saying how its turn ended in its 3 s.
fn separators_settled(s: &vt100::Screen) -> bool {
    let (left, _) = columns(s);
    let separators = left.iter().filter(|r| r.contains("──")).count();
    separators > 0
        && left
            .iter()
            .filter(|r| r.contains("✓ completed in 3s"))
            .count()
            == separators
}

fn caught_up(s: &vt100::Screen, last: u64) -> bool {
    let status = status_line(s);
    status.contains("● live")
        && status.contains(&format!("seq {last} "))
        && !status.contains("replaying")
}

fn count(counts: &BTreeMap<String, usize>, route: &str) -> usize {
    counts.get(route).copied().unwrap_or(0)
}

/// Turn-list reads that asked for the newest page (no cursor).
fn newest_pages(requests: &[String]) -> usize {
    requests
        .iter()
        .filter(|r| r.contains("/turns?") && !r.contains("after="))
        .count()
}

#[test]
fn a_first_attach_to_four_thousand_turns_shows_every_visible_outcome_from_the_newest_page() {
    let sim = support::sim::start(SimConfig {
        replay_cap: TURNS * 12 + 1_000,
        ..SimConfig::for_tests()
    });
    let session = sim.sim.create_session(Some("long history"));
    sim.sim.seed_turns(&session, TURNS, 79 * DAY);
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let pty: Pty = attach(&session, &home, &sim.sim);

    pty.wait_for("caught up", |s| caught_up(s, last), TIMEOUT);
    let caught_up_at = Instant::now();
    let at_caught_up = sim.sim.request_counts();
    pty.wait_for("every outcome on screen", settled, TIMEOUT);
    let took = caught_up_at.elapsed();
    let at_settled = sim.sim.request_counts();
    let requests = sim.sim.requests();
    println!(
        "perf: outcomes on a caught-up screen of {TURNS} turns = {} ms after catching up \
         (turn lists {} / single turns {} when caught up; {} / {} when settled, {} newest pages)",
        took.as_millis(),
        count(&at_caught_up, LIST_TURNS),
        count(&at_caught_up, ONE_TURN),
        count(&at_settled, LIST_TURNS),
        count(&at_settled, ONE_TURN),
        newest_pages(&requests),
    );
    assert_eq!(
        count(&at_settled, ONE_TURN),
        0,
        "a page gave every outcome: no turn read on its own"
    );
    let pages = newest_pages(&requests);
    assert!(
        (1..=2).contains(&pages),
        "the newest page read once at attach (and once more caught up): {pages}\n{requests:#?}"
    );
    assert!(
        requests
            .iter()
            .filter(|r| r.contains("/turns?"))
            .all(|r| r.contains("limit=100")),
        "turns read by the page of 100: {requests:#?}"
    );
}

/// Older separators say how they ended once the pages behind the newest are read, one at a
/// time in the background, and no further back than the oldest separator.
#[test]
fn the_oldest_separators_are_filled_from_older_pages_read_in_the_background() {
    const FEW: usize = 250;
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("older pages"));
    sim.sim.seed_turns(&session, FEW, DAY);
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let mut pty: Pty = attach(&session, &home, &sim.sim);
    pty.wait_for("caught up", |s| caught_up(s, last), TIMEOUT);
    pty.wait_for("every outcome on screen", settled, TIMEOUT);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes have the keys",
        |s| bottom(s, 4).contains("Panes"),
        TIMEOUT,
    );
    pty.send_keys("g");
    pty.wait_for(
        "the first turns at the top, each saying how it ended",
        |s| {
            // The whole top frame (a frame half drawn shows the old rows below it).
            let text = columns(s).0.join("\n");
            ["Step 0: tidy", "Step 1: tidy", "Step 2: tidy"]
                .iter()
                .all(|step| text.contains(step))
                && !text.contains("Step 249")
                && separators_settled(s)
        },
        TIMEOUT,
    );
    let requests = sim.sim.requests();
    let lists: Vec<&String> = requests.iter().filter(|r| r.contains("/turns")).collect();
    assert_eq!(newest_pages(&requests), 1, "{lists:#?}");
    // 250 turns: the newest 100, then 100 and 50 older.
    let older: Vec<&&String> = lists.iter().filter(|r| r.contains("after=")).collect();
    assert_eq!(older.len(), 2, "{lists:#?}");
    assert_eq!(count(&sim.sim.request_counts(), ONE_TURN), 0);
}
