//! Search in the real binary against the simulator: `/` and a query count the matches over
//! the whole session as typed, `n` goes to the next older match and the transcript scrolls
//! to it, Esc ends the search; from the Events pane types match too; `type:NAME` is the
//! Events pane's type filter. `n` selects the match, so `c` copies it; `/` opens an empty
//! query and ↑ there recalls the one before.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, status_line};
use gobare_api::model::{EventPayload, Text};
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(30);

fn message(text: &str) -> EventPayload {
    EventPayload::UserMessage(Text { text: text.into() })
}

fn shows(pty: &Pty, text: &str) -> bool {
    pty.screen_text().contains(text)
}

#[test]
fn a_query_counts_matches_and_n_scrolls_to_the_next_one() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("search"));
    // An old match far above the screen, a recent one, and filler between and after.
    sim.sim
        .emit(&session, message("the FIRST needle, long ago"));
    for i in 0..60 {
        sim.sim.emit(&session, message(&format!("filler {i}")));
    }
    sim.sim.emit(&session, message("a second needle, recently"));
    for i in 60..63 {
        sim.sim.emit(&session, message(&format!("filler {i}")));
    }
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "caught up",
        |s| status_line(s).contains(&format!("seq {last}")),
        TIMEOUT,
    );
    assert!(
        !shows(&pty, "FIRST needle"),
        "the old match starts off screen"
    );

    pty.send_keys(keys::SHIFT_TAB);

    pty.wait_for(
        "pane navigation",
        |s| s.contents().contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("/needle");
    pty.wait_for(
        "both matches counted as typed, the newest current",
        |s| status_line(s).contains("search: needle▏  1/2"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the kept search in the status bar",
        |s| status_line(s).contains("/needle 1/2 · n older"),
        TIMEOUT,
    );
    pty.send_keys("n");
    pty.wait_for(
        "n scrolled the transcript to the older match",
        |s| status_line(s).contains("/needle 2/2") && s.contents().contains("FIRST needle"),
        TIMEOUT,
    );
    assert!(
        pty.screen_text().contains("(scrolled)"),
        "the transcript left the bottom:\n{}",
        pty.screen_text()
    );
    pty.send_keys("N");
    pty.wait_for(
        "N back to the newer match",
        |s| status_line(s).contains("/needle 1/2"),
        TIMEOUT,
    );

    // `/` opens an empty query (↑ would recall this one); Esc there ends the search.
    pty.send_keys("/");
    pty.wait_for(
        "the bar again, empty",
        |s| status_line(s).contains("search: ▏  ↑ needle"),
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the search ended",
        |s| !status_line(s).contains("needle") && s.contents().contains("Panes · "),
        TIMEOUT,
    );

    // From the Events pane a type that holds the query is a match too: no text holds
    // "user.mess", every row's type does.
    pty.send_keys(keys::TAB);
    pty.send_keys("/user.mess");
    pty.wait_for(
        "every user.message row counted",
        |s| status_line(s).contains("search: user.mess▏  1/65"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.send_keys("n");
    pty.wait_for(
        "n steps to the next older row",
        |s| status_line(s).contains("/user.mess 2/65"),
        TIMEOUT,
    );
    pty.send_keys("/");
    pty.wait_for(
        "the bar again, empty",
        |s| status_line(s).contains("search: ▏  ↑ user.mess"),
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the search ended",
        |s| !status_line(s).contains("user.mess"),
        TIMEOUT,
    );

    // `type:` filters the Events pane, as `/` always did.
    pty.send_keys("/type:turn");
    pty.wait_for(
        "the Events pane filtered by type",
        |s| s.contents().contains("[type ~ turn]"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    support::app::quit(&mut pty, TIMEOUT);
}

#[test]
fn a_match_the_transcript_no_longer_keeps_is_found_and_said_so() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("long"));
    sim.sim
        .emit(&session, message("the zebra-7 request, before everything"));
    let oldest = sim.sim.last_seq();
    // Far more than 1 MiB of transcript entries: the oldest leave memory.
    sim.sim.seed_events(&session, 20_000);
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[transcript]\nmemory_mib = 1\n").unwrap();

    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "caught up",
        |s| status_line(s).contains(&format!("seq {last}")),
        Duration::from_secs(90),
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "pane navigation",
        |s| s.contents().contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("/ZEBRA-7");
    pty.wait_for(
        "the one match found, out of memory",
        |s| status_line(s).contains(&format!("1/1 · not in memory (event {oldest})")),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the kept search says where the match is",
        |s| {
            status_line(s).contains(&format!(
                "/ZEBRA-7 1/1 · n older · N newer · not in memory (event {oldest})"
            ))
        },
        TIMEOUT,
    );
    support::app::quit(&mut pty, TIMEOUT);
}

/// After a restart only the log's tail is replayed; the history before it is indexed off the
/// loop, and a query typed meanwhile is run again once it is: the oldest match is found.
#[test]
fn after_a_restart_a_match_from_before_the_replay_window_is_found() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("long, restarted"));
    sim.sim
        .emit(&session, message("the zebra-7 request, before everything"));
    let oldest = sim.sim.last_seq();
    sim.sim.seed_events(&session, 20_000);
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let caught_up = |pty: &Pty| {
        pty.wait_for(
            "caught up",
            |s| status_line(s).contains(&format!("seq {last}")),
            Duration::from_secs(90),
        )
    };
    let mut pty = attach(&session, &home, &sim.sim);
    caught_up(&pty);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    let mut pty = attach(&session, &home, &sim.sim);
    caught_up(&pty);
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "pane navigation",
        |s| s.contents().contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("/ZEBRA-7");
    pty.wait_for(
        "the one match, before the replay window",
        |s| status_line(s).contains(&format!("1/1 · not in memory (event {oldest})")),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn n_selects_the_match_so_c_copies_it_and_up_in_an_empty_bar_recalls_the_query() {
    use base64::Engine as _;
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("search-select"));
    let older = "the FIRST needle, long ago";
    sim.sim.emit(&session, message(older));
    for i in 0..40 {
        sim.sim.emit(&session, message(&format!("filler {i}")));
    }
    sim.sim.emit(&session, message("a second needle, recently"));
    sim.sim.emit(&session, message("the last filler"));
    let last = sim.sim.last_seq();
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "caught up",
        |s| status_line(s).contains(&format!("seq {last}")),
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for(
        "pane navigation",
        |s| s.contents().contains("Panes · "),
        TIMEOUT,
    );
    pty.send_keys("/needle");
    pty.wait_for(
        "both matches counted",
        |s| status_line(s).contains("search: needle▏  1/2"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.send_keys("n");
    pty.wait_for(
        "the older match current and selected",
        |s| status_line(s).contains("/needle 2/2") && s.contents().contains("[selected"),
        TIMEOUT,
    );
    pty.send_keys("c");
    pty.wait_for_text(&format!("copied {} chars", older.chars().count()), TIMEOUT);
    let b64 = base64::engine::general_purpose::STANDARD.encode(older);
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    assert!(
        raw.contains(&format!("\x1b]52;c;{b64}\x07")),
        "c copied the match's entry"
    );
    // N back to the newer match selects it too: `c` copies that one.
    let newer = "a second needle, recently";
    pty.send_keys("N");
    pty.wait_for(
        "the newer match current",
        |s| status_line(s).contains("/needle 1/2") && s.contents().contains("[selected"),
        TIMEOUT,
    );
    pty.send_keys("c");
    pty.wait_for_text(&format!("copied {} chars", newer.chars().count()), TIMEOUT);
    let b64 = base64::engine::general_purpose::STANDARD.encode(newer);
    let raw = String::from_utf8_lossy(&pty.raw_bytes()).into_owned();
    assert!(
        raw.contains(&format!("\x1b]52;c;{b64}\x07")),
        "c after N copied the newer match's entry"
    );

    // A new `/` starts empty; ↑ there brings the last query back, searched again.
    pty.send_keys("/");
    pty.wait_for(
        "an empty query",
        |s| status_line(s).contains("search: ▏"),
        TIMEOUT,
    );
    pty.send_keys(keys::UP);
    pty.wait_for(
        "the query recalled and run",
        |s| status_line(s).contains("search: needle▏  1/2"),
        TIMEOUT,
    );
    // With a query, ↑ steps to the older match again.
    pty.send_keys(keys::UP);
    pty.wait_for(
        "↑ steps once the query is there",
        |s| status_line(s).contains("search: needle▏  2/2"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    support::app::quit(&mut pty, TIMEOUT);
}
