//! Paging back against the simulator: with a transcript budget far below the session's
//! history, or after a restart whose replay started at the log's tail, scrolling to the top
//! reads the entries not in memory back from the local event log, page by page, until the
//! session's first message is on screen.

use crate::support;
use crate::support::app::{attach, bottom, quit, status_line};
use gobare_api::model::{EventPayload, Text};
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const FIRST: &str = "the very first question of this session";
const MARKER: &str = "earlier entries not kept in memory";

#[test]
fn scrolling_to_the_top_reads_the_dropped_entries_back_from_the_local_log() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("paging back"));
    sim.sim.emit(
        &session,
        EventPayload::UserMessage(Text { text: FIRST.into() }),
    );
    sim.sim.seed_events(&session, 20_000);
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[transcript]\nmemory_mib = 1\n").unwrap();

    let mut pty = attach(&session, &home, &sim.sim);
    let pages = page_back_to_the_first_message(&mut pty, &sim);
    assert!(pages > 0, "the budget had dropped the first message");
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// After a restart the transcript starts at the replay window (the log's tail): the
/// entries before it page back from the log as dropped ones do.
#[test]
fn after_a_restart_scrolling_up_pages_back_the_history_before_the_replay_window() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("paging back after a restart"));
    sim.sim.emit(
        &session,
        EventPayload::UserMessage(Text { text: FIRST.into() }),
    );
    sim.sim.seed_events(&session, 20_000);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, &sim);
    assert!(quit(&mut pty, TIMEOUT).success());

    let mut pty = attach(&session, &home, &sim.sim);
    let pages = page_back_to_the_first_message(&mut pty, &sim);
    assert!(pages > 0, "the transcript started after the first message");
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// Waits until live, then scrolls to the top page after page until the session's first
/// message shows. Returns the pages read back.
fn page_back_to_the_first_message(
    pty: &mut gobare_test_support::pty::Pty,
    sim: &support::sim::Sim,
) -> u32 {
    wait_live(pty, sim);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "the panes mode",
        |s| bottom(s, 5).contains("Panes · "),
        TIMEOUT,
    );
    let mut pages = 0;
    loop {
        pty.send_keys("g");
        pty.wait_for(
            "the top: the first message, or the marker of what was dropped",
            |s| s.contents().contains(FIRST) || s.contents().contains(MARKER),
            TIMEOUT,
        );
        if pty.screen_text().contains(FIRST) {
            break;
        }
        assert!(
            !pty.screen_text().contains("no local event log"),
            "{}",
            pty.screen_text()
        );
        // The page above is read back: entries come in above the top row, which is then
        // no longer the oldest, and the marker leaves.
        pty.wait_for(
            "a page read back",
            |s| !s.contents().contains(MARKER),
            TIMEOUT,
        );
        pages += 1;
        assert!(pages < 30, "{}", pty.screen_text());
    }
    pages
}

fn wait_live(pty: &gobare_test_support::pty::Pty, sim: &support::sim::Sim) {
    let last = sim.sim.last_seq().to_string();
    pty.wait_for(
        "the whole history, live",
        |s| status_line(s).contains("● live") && status_line(s).contains(&last),
        TIMEOUT,
    );
}
