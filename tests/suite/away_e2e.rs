#![cfg(unix)]
//! "While you were away", the real binary in a pty on the simulator: a session quit, then
//! a turn fails (`#error`) and an approval is asked (`#approval`) while the app is closed;
//! opened again, the digest at the top says both (the failure with its reason), and Esc
//! closes it. The fleet opened after its last visit says the same of the session. The
//! terminal unfocused longer than `[away] unfocused_minutes` (a minute made short with
//! `GOBARE_AWAY_MINUTE_MS`) is an absence too: focus-out and focus-in written into the pty
//! as a terminal reports them.

use crate::support;
use crate::support::app::{launch_on, quit, spawn};
use crate::support::live::wait_live;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_api::model::{EventPayload, Text, TurnStatus};
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(40);

/// Until the session's latest turn has failed.
fn until_failed(sim: &support::sim::Sim, session: &str) {
    let client = ApiClient::new(ClientOptions::new(
        sim.sim.url(),
        Token::new(sim.sim.token()),
    ))
    .unwrap();
    support::app::until(
        "the #error turn failed",
        TIMEOUT,
        || {
            let turns = sim.within(|_| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(client.list_turns(session, &Page::ordered(Order::Desc)))
            });
            turns
                .ok()?
                .data
                .first()
                .filter(|t| t.status == TurnStatus::Failed)
                .map(|_| ())
        },
        || "no failed turn".into(),
    );
}

#[test]
fn a_restart_shows_what_failed_and_what_waits_until_esc() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("nightly export"));
    sim.sim.emit(
        &session,
        EventPayload::UserMessage(Text {
            text: "before the break".into(),
        }),
    );
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["attach", &session], &home, &sim.sim);
    pty.wait_for_text("before the break", TIMEOUT);
    assert!(quit(&mut pty, TIMEOUT).success());
    assert!(
        support::app::on_disk(&home, &sim.sim, &session)
            .cursor
            .is_some(),
        "the visit is on disk"
    );

    // Away: a turn fails, then the agent asks for approval.
    sim.within(|s| s.send_message(&session, "nightly run #error"));
    until_failed(&sim, &session);
    sim.within(|s| s.send_message(&session, "restart the worker #approval"));
    sim.until_waiting(&session);

    let mut pty = spawn(&["attach", &session], &home, &sim.sim);
    pty.wait_for(
        "the digest with the failure and the decision",
        |s| {
            let text = s.contents();
            text.contains("While you were away")
                && text.contains("1 turn failed")
                && text.contains("1 decision waiting on you")
                && text.contains("approval")
        },
        TIMEOUT,
    );
    let text = pty.screen_text();
    let top: Vec<&str> = text.lines().take(12).collect();
    assert!(
        top.iter().any(|l| l.contains("While you were away")),
        "at the top: {text}"
    );
    // The reason under the failure: the turn's error or the agent's last.
    let failed_at = top
        .iter()
        .position(|l| l.contains("1 turn failed"))
        .unwrap();
    let reason = top[failed_at + 1].trim_matches(|c: char| c == '│' || c.is_whitespace());
    assert!(
        !reason.is_empty() && !reason.contains("no reason"),
        "{text}"
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the digest closed",
        |s| !s.contents().contains("While you were away"),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());

    // The fleet: nothing to say on its first visit here. A turn fails in another session;
    // opened again, the digest names that one, and not the approval that waited before.
    let mut fleet = spawn(&["fleet"], &home, &sim.sim);
    fleet.wait_for_text("nightly export", TIMEOUT);
    assert!(!fleet.screen_text().contains("While you were away"));
    fleet.send_keys("q");
    assert!(fleet.wait_exit(TIMEOUT).success());
    let other = sim.sim.create_session(Some("weekly report"));
    sim.within(|s| s.send_message(&other, "weekly run #error"));
    until_failed(&sim, &other);
    let mut fleet = spawn(&["fleet"], &home, &sim.sim);
    fleet.wait_for(
        "the fleet's digest",
        |s| {
            let text = s.contents();
            // The fleet's digest: what failed, each session on a line with its reason
            // (no cursor was kept on the first visit, nothing having come on the org
            // stream then: told from the session list, and it says so).
            text.contains("While you were away")
                && text.contains("from the session list only")
                && text.contains("Failed: 1 session")
                && text.contains("weekly report: ")
                && !text.contains("open it for the reason")
        },
        TIMEOUT,
    );
    let text = fleet.screen_text();
    let banner: Vec<&str> = text.lines().take_while(|l| !l.starts_with('└')).collect();
    assert!(
        !banner.iter().any(|l| l.contains("nightly export")),
        "old news: {text}"
    );
    fleet.send_keys(keys::ESC);
    fleet.wait_for(
        "the fleet's digest closed",
        |s| !s.contents().contains("While you were away"),
        TIMEOUT,
    );
    fleet.send_keys("q");
    assert!(fleet.wait_exit(TIMEOUT).success());
}

/// What a terminal with focus reporting on sends when its window loses and gets focus.
const FOCUS_OUT: &str = "\x1b[O";
const FOCUS_IN: &str = "\x1b[I";

#[test]
fn focus_away_past_unfocused_minutes_shows_the_digest_on_return() {
    // A minute of `unfocused_minutes` lasts this long here.
    const MINUTE: Duration = Duration::from_millis(300);
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("nightly export"));
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/gobare-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[away]\nunfocused_minutes = 1\n",
    )
    .unwrap();
    let mut pty = launch_on(&sim.sim, &["attach", &session], &home)
        .env("GOBARE_AWAY_MINUTE_MS", MINUTE.as_millis().to_string())
        .spawn();
    wait_live(&pty, TIMEOUT);

    // Focus leaves. The key typed after it is on screen only once the app has read both:
    // the absence began no later than that.
    pty.send_keys(FOCUS_OUT);
    pty.send_keys("z");
    pty.wait_for(
        "the key typed after focus left",
        |s| support::app::bottom(s, 6).contains('z'),
        TIMEOUT,
    );
    let left = Instant::now();
    sim.within(|s| s.send_message(&session, "nightly run #error"));
    until_failed(&sim, &session);
    pty.wait_for_text("✗ failed", TIMEOUT);
    assert!(!pty.screen_text().contains("While you were away"));
    // Away a minute (as made short) at least: the clock says so, nothing is hoped for.
    if let Some(rest) = MINUTE.checked_sub(left.elapsed()) {
        std::thread::sleep(rest);
    }
    pty.send_keys(FOCUS_IN);
    pty.wait_for(
        "the digest of the absence",
        |s| {
            let text = s.contents();
            text.contains("While you were away") && text.contains("1 turn failed")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ESC);
    pty.wait_for(
        "the digest closed",
        |s| !s.contents().contains("While you were away"),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());
}
