//! What a glance at the fleet shows is true: every row filled in without being selected
//! (a turn started before the fleet opened has its clock, its queue, usage and artifacts,
//! from one page of turns), a fleet that cannot know says why instead of counting nothing,
//! and the filter shows every match from the top.

use std::time::Duration;

use crate::support;
use crate::support::app::fleet_list_rows as list_rows;
use crate::support::app::{launch, spawn, spawn_sized};
use gobare_sim::{Faults, SimConfig};
use gobare_test_support::pty::keys;

const TIMEOUT: Duration = Duration::from_secs(40);

fn title_line(s: &vt100::Screen) -> String {
    s.contents().lines().next().unwrap_or_default().to_string()
}

/// The row's last three figures: artifacts, usage and age (the row ends with them).
fn figures(row: &str) -> Option<(String, String, String)> {
    let mut words = row.split_whitespace().rev();
    let age = words.next()?.to_string();
    let usage = words.next()?.to_string();
    let artifacts = words.next()?.to_string();
    Some((artifacts, usage, age))
}

/// A clock as the Turn column shows one (its first word): "7s", "3m", "1h".
fn is_clock(word: &str) -> bool {
    // A running workspace's usage counts in minutes, its first minute as `<1m`.
    let word = word.trim_start_matches('<');
    let digits = word.trim_end_matches(['s', 'm']);
    !digits.is_empty()
        && word.ends_with(['s', 'm'])
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == 'm' || c == 'h')
}

#[test]
fn every_row_is_live_without_being_selected_for_a_turn_started_before_the_fleet_opened() {
    let sim = support::sim::start(SimConfig::for_tests());
    let busy = sim.sim.create_session(Some("busy before"));
    sim.within(|s| {
        s.send_message(&busy, "restart the worker #approval");
        // Queued behind the running turn: a turn not started yet.
        s.send_message(&busy, "and then tidy up");
    });
    // Asking comes after the todos: all of it before the fleet opens, so the todos can only
    // come from the replay (a fleet open sooner would see them live and need none).
    sim.until_waiting(&busy);
    sim.sim.add_artifact(
        &busy,
        "turn_earlier",
        "/workspace/outputs/report.md",
        b"ok".to_vec(),
    );
    let idle = sim.sim.create_session(Some("idle other"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for(
        "both rows",
        |s| {
            let rows = list_rows(s);
            rows.len() == 2 && rows[1].contains("idle other")
        },
        TIMEOUT,
    );
    // The cursor goes to the other row: the busy one is never selected.
    pty.send_keys("G");
    pty.wait_for(
        "the busy row's clock, todos, queue, artifacts and usage, unselected",
        |s| {
            list_rows(s).iter().any(|r| {
                let words: Vec<&str> = r.split_whitespace().collect();
                r.starts_with("  busy before")
                    && r.contains("needs you: approval")
                    && words.iter().any(|w| is_clock(w))
                    // The approval scenario marks one of its three todos done before asking,
                    // after the request read (the checklist's first line, done from the start).
                    && words.contains(&"2/4")
                    && words.contains(&"+1")
                    && figures(r).is_some_and(|(art, usage, _)| art == "1" && is_clock(&usage))
            })
        },
        TIMEOUT,
    );
    assert!(
        pty.with_screen(|s| list_rows(s)[1].starts_with('›')),
        "the other row stayed selected"
    );
    let requests = sim.sim.requests();
    let turn_reads: Vec<&String> = requests
        .iter()
        .filter(|r| r.starts_with(&format!("GET /v1/sessions/{busy}/turns")))
        .collect();
    assert_eq!(turn_reads.len(), 1, "one page of turns: {turn_reads:#?}");
    assert!(
        turn_reads[0].contains("limit=100") && turn_reads[0].contains("order=desc"),
        "{turn_reads:#?}"
    );
    // The todos came from one replay of the busy session's own stream; the idle one has
    // no turn running, so none.
    let replays = |id: &str| {
        requests
            .iter()
            .filter(|r| r.starts_with(&format!("GET /v1/sessions/{id}/events")))
            .count()
    };
    assert_eq!(replays(&busy), 1, "{requests:#?}");
    assert_eq!(replays(&idle), 0, "{requests:#?}");
    let usage = format!("GET /v1/sessions/{idle}/usage");
    assert!(
        requests.contains(&usage),
        "the idle row's usage too: {requests:#?}"
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

/// An address nothing listens on.
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("127.0.0.1:{port}")
}

#[test]
fn an_unreachable_server_is_named_with_a_countdown_and_nothing_is_counted() {
    let host = closed_port();
    let home = tempfile::tempdir().unwrap();
    let url = format!("http://{host}");
    let mut pty = launch(&["fleet"], &home)
        .api(&url, "gbr_pat_test_token")
        .spawn();
    let said = format!("cannot reach {host} (connection refused) — retrying in");
    pty.wait_for(
        "the unreachable server named",
        |s| s.contents().contains(&said),
        TIMEOUT,
    );
    pty.with_screen(|s| {
        assert!(
            title_line(s).contains("Fleet · not listed yet"),
            "{}",
            s.contents()
        );
        assert!(!s.contents().contains("need you"), "{}", s.contents());
    });
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn a_refused_token_is_said_as_such() {
    let sim = support::sim::start(SimConfig::for_tests());
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch(&["fleet"], &home)
        .api(sim.sim.url().as_str(), "gbr_pat_not_the_right_one")
        .spawn();
    pty.wait_for(
        "the refused token",
        |s| s.contents().contains("token refused (401):"),
        TIMEOUT,
    );
    pty.with_screen(|s| {
        assert!(
            !s.contents().contains("need you"),
            "counted nothing: {}",
            s.contents()
        );
        assert!(!s.contents().contains("gbr_pat_"), "the token never shown");
    });
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn a_refused_org_stream_names_the_scope_and_the_poll_and_the_rows_still_show() {
    let sim = support::sim::start(SimConfig::for_tests());
    sim.sim.set_faults(Faults {
        refuse_org_stream: true,
        ..Faults::default()
    });
    sim.sim.create_session(Some("listed anyway"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for(
        "the refusal and the listed row",
        |s| {
            s.contents()
                .contains("org stream refused (403, needs sessions:read) — polling every 10 s")
                && list_rows(s).iter().any(|r| r.contains("listed anyway"))
                && title_line(s).contains("1 session · 0 need you")
        },
        TIMEOUT,
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn the_filter_shows_every_match_from_the_top_after_scrolling_to_the_bottom() {
    let sim = support::sim::start(SimConfig::for_tests());
    for i in 0..30 {
        let title = if i % 3 == 0 {
            format!("alpha {i}")
        } else {
            format!("beta {i}")
        };
        sim.sim.create_session(Some(&title));
    }
    let home = tempfile::tempdir().unwrap();
    // 20 rows: 15 list rows, fewer than the 30 sessions.
    let mut pty = spawn_sized(&["fleet"], &home, &sim.sim, 120, 20);
    pty.wait_for(
        "the fleet listed",
        |s| title_line(s).contains("30 sessions"),
        TIMEOUT,
    );
    pty.send_keys("G");
    pty.wait_for(
        "scrolled to the bottom",
        |s| list_rows(s).last().is_some_and(|r| r.starts_with('›')),
        TIMEOUT,
    );
    pty.send_keys("/alpha");
    pty.wait_for(
        "all ten matches",
        |s| {
            let rows = list_rows(s);
            // The whole word typed: "/al" already shows the same ten rows.
            s.contents().contains("filter: alpha▏")
                && rows.len() == 10
                && rows.iter().all(|r| r.contains("alpha "))
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    // Esc and a letter in one read would be Alt+letter.
    pty.wait_for(
        "the filter cleared",
        // The unfiltered rows back, not only the filter's line gone.
        |s| !s.contents().contains("filter:") && list_rows(s).iter().any(|r| r.contains("beta ")),
        TIMEOUT,
    );
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}
