#![cfg(unix)]
//! A stream that connects and says nothing (`Faults::stall`: open, no frame, no ping, as
//! behind a buffering proxy): the status bar never says live; after one silent connection
//! the session is read through its resources and the transcript shows what its items
//! show; once the stream speaks again it is live. `export` of such a session fails rather
//! than writing an empty history.

use crate::support::app::{launch_on, status_line};
use crate::support::cli::{Home, stderr_of};
use crate::support::live::wait_live;
use gobare_sim::{Faults, SimConfig, Simulator};
use std::time::Duration;

/// What the tests' client takes for dead silence: 2 s, not the reference's 45 s.
const IDLE_MS: &str = "2000";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_stream_is_named_and_the_session_read_through_its_items() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = crate::support::sim::settled_session(
        &sim,
        "behind a proxy",
        "#quick Summarise the storage layer",
    )
    .await;
    sim.set_faults(Faults {
        stall: true,
        ..Faults::default()
    });
    let home = tempfile::tempdir().unwrap();
    let mut pty = launch_on(&sim, &["attach", &id], &home)
        .env("GOBARE_STREAM_IDLE_TIMEOUT_MS", IDLE_MS)
        .spawn();

    pty.wait_for(
        "the silent connection named",
        |s| status_line(s).contains("◌ connected, nothing received"),
        Duration::from_secs(20),
    );
    assert!(
        !pty.with_screen(status_line).contains("● live"),
        "{}",
        pty.screen_text()
    );
    // One silent connection later: the resources stand in, and say so.
    pty.wait_for(
        "the resources read instead",
        |s| status_line(s).contains("reading the session every 15 s"),
        Duration::from_secs(30),
    );
    pty.wait_for(
        "the message, from the items",
        |s| s.contents().contains("Summarise the storage layer"),
        Duration::from_secs(20),
    );
    let requests = sim.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with(&format!("GET /v1/sessions/{id}/items"))),
        "the items were read: {requests:?}"
    );

    // The stream speaks again: live, and the fallback's words go.
    sim.set_faults(Faults::default());
    wait_live(&pty, Duration::from_secs(30));
    assert!(
        !pty.with_screen(status_line).contains("reading the session"),
        "{}",
        pty.screen_text()
    );
    pty.send_keys("\x11");
}

/// A message sent on a stream that says nothing does not vanish until the watchdog gives up:
/// 5 s without its echo and the session is read, the message shown from its items.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_into_a_silent_stream_is_shown_from_the_items() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("behind a proxy"));
    sim.set_faults(Faults {
        stall: true,
        ..Faults::default()
    });
    let home = tempfile::tempdir().unwrap();
    // The watchdog far away: only the unechoed send can start the reads.
    let mut pty = launch_on(&sim, &["attach", &id], &home)
        .env("GOBARE_STREAM_IDLE_TIMEOUT_MS", "600000")
        .spawn();
    pty.wait_for(
        "the stream open",
        |s| status_line(s).contains("◌ connected"),
        Duration::from_secs(20),
    );
    pty.send_keys("#quick Summarise the storage layer\r");
    pty.wait_for(
        "the sent message, read from the items",
        |s| {
            // The box empty (sent) and the text on the screen: in the transcript.
            s.contents().contains("Summarise the storage layer")
                && s.contents().contains("Type a message…")
                && status_line(s).contains("reading the session every 15 s")
        },
        Duration::from_secs(30),
    );
    assert!(
        sim.requests()
            .iter()
            .any(|r| r.starts_with(&format!("GET /v1/sessions/{id}/items"))),
        "the items were read"
    );
    assert!(!pty.with_screen(status_line).contains("● live"));
    assert!(
        !pty.with_screen(status_line).contains("loading history"),
        "{}",
        pty.screen_text()
    );
    pty.send_keys("\x11");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_of_a_stalled_stream_fails_instead_of_writing_nothing() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id =
        crate::support::sim::settled_session(&sim, "behind a proxy", "#quick Write the changelog")
            .await;
    sim.set_faults(Faults {
        stall: true,
        ..Faults::default()
    });
    let home = Home::new();
    let out_file = home.path("history.jsonl");
    let mut command = home.tokio_command(&[
        "--api",
        sim.url().as_str(),
        "export",
        &id,
        "--format",
        "jsonl",
        "--output",
        out_file.to_str().unwrap(),
    ]);
    command
        .env("GOBARE_TOKEN", sim.token())
        .env("GOBARE_STREAM_IDLE_TIMEOUT_MS", IDLE_MS);
    let out = tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .expect("export gives up")
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("sent nothing"),
        "{}",
        stderr_of(&out)
    );
    assert!(!out_file.exists(), "no empty history left behind");
}
