//! The real binary in a pseudo-terminal against a simulator started here, acting on the
//! session: send and see the answer, steer mid-turn, approve, cancel with its confirmation,
//! quit; then come back: draft, history and the stream cursor are restored.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, bottom, spawn, status_line};
use crate::support::pty::{Pty, keys};
use crate::support::sim::Sim;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_sim::SimConfig;

const TIMEOUT: Duration = Duration::from_secs(40);

fn start_sim(speed: f64) -> Sim {
    support::sim::start(SimConfig {
        speed,
        ping_interval: Duration::from_secs(1),
        ..SimConfig::for_tests()
    })
}

fn wait_live(pty: &Pty) {
    pty.wait_for("live", |s| status_line(s).contains("● live"), TIMEOUT);
}

#[test]
fn send_steer_approve_cancel_and_quit() {
    let sim = start_sim(10.0);
    let session = sim.sim.create_session(Some("acting"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty);

    // Send, and the agent answers.
    pty.send_keys("fix the export please");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("reproducing the problem", TIMEOUT);
    pty.wait_for_text("completed", TIMEOUT);

    // A turn that waits for approval: it runs until answered, so it can be steered.
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    pty.wait_for(
        "the box title to offer steering",
        |s| bottom(s, 8).contains("Ctrl+S steer"),
        TIMEOUT,
    );
    pty.send_keys("use the staging host");
    pty.send_keys(keys::CTRL_S);
    pty.wait_for(
        "the steer to be accepted",
        |s| status_line(s).contains("steering the running turn"),
        TIMEOUT,
    );
    // Accepted: the box is cleared, and the prompt takes y.
    pty.wait_for(
        "the input box to clear",
        |s| !bottom(s, 4).contains("use the staging host"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the approval to land",
        |s| status_line(s).contains("approved"),
        TIMEOUT,
    );
    pty.wait_for_text("draining again", TIMEOUT);

    // The approved turn settles (the box stops offering steer), then a long turn runs
    // and is cancelled after confirming.
    pty.wait_for(
        "the approved turn to settle",
        |s| !bottom(s, 8).contains("Ctrl+S steer"),
        TIMEOUT,
    );
    pty.send_keys("a long job #long");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the long turn to run",
        |s| status_line(s).contains("the agent is on it") && bottom(s, 8).contains("Ctrl+X cancel"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_X);
    pty.wait_for_text("Cancel the running turn? finished work stays", TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the turn to read cancelled",
        |s| s.contents().contains("cancelled"),
        TIMEOUT,
    );

    pty.send_keys(keys::CTRL_C);
    let status = pty.wait_exit(TIMEOUT);
    assert!(status.success(), "{status:?}\n{}", pty.screen_text());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn coming_back_restores_draft_history_and_resumes_from_the_stored_cursor() {
    let sim = start_sim(10.0);
    let session = sim.sim.create_session(Some("return"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty);
    pty.send_keys("first words");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("completed", TIMEOUT);
    let last_seen = sim.sim.last_seq();
    pty.wait_for(
        "the status bar to reach the last seq",
        |s| status_line(s).contains(&format!("seq {last_seen} ")),
        TIMEOUT,
    );
    pty.send_keys("an unsent draft");
    pty.wait_for_text("an unsent draft", TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());

    // What the first run saw last, as it stored it on the way out.
    let store = stored(&home, &sim);
    let stored = store.load_session(&session);
    let cursor = stored.cursor.expect("a cursor was stored");
    assert!(cursor >= last_seen, "stored {cursor}, seen {last_seen}");
    assert_eq!(stored.draft, "an unsent draft");
    assert_eq!(stored.history, vec!["first words"]);
    let opens_before = sim.sim.stream_opens().len();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty);
    pty.wait_for(
        "the draft back in the box",
        |s| bottom(s, 4).contains("an unsent draft"),
        TIMEOUT,
    );
    let opens = sim.sim.stream_opens();
    assert_eq!(
        opens.get(opens_before),
        Some(&Some(cursor)),
        "resumed from the stored cursor, not replayed: {opens:?}"
    );
    // Up at the first line: the history from the last run.
    pty.send_keys(keys::UP);
    pty.wait_for(
        "the last message from history",
        |s| bottom(s, 4).contains("first words"),
        TIMEOUT,
    );
    pty.send_keys(keys::DOWN);
    pty.wait_for(
        "the draft again",
        |s| bottom(s, 4).contains("an unsent draft"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
}

#[test]
fn with_no_session_to_reopen_the_picker_lists_sessions_and_enter_opens_one() {
    let sim = start_sim(10.0);
    sim.sim.create_session(Some("older work"));
    sim.sim.create_session(Some("newer work"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&[], &home, &sim.sim);
    pty.wait_for(
        "both sessions listed",
        |s| s.contents().contains("older work") && s.contents().contains("newer work"),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "a session opened live",
        |s| {
            let status = status_line(s);
            status.contains("● live") && status.contains(" work")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn ctrl_o_leaves_the_app_for_the_picker() {
    let sim = start_sim(10.0);
    let session = sim.sim.create_session(Some("round trip"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty);
    pty.send_keys("\x0f");
    pty.wait_for(
        "the picker",
        |s| s.contents().contains("Sessions · Enter open") && s.contents().contains("round trip"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

/// A client for `sim` with a runtime to drive it from a plain test thread.
fn client_for(sim: &Sim) -> (tokio::runtime::Runtime, ApiClient) {
    let client = ApiClient::new(ClientOptions::new(
        sim.sim.url(),
        Token::new(sim.sim.token()),
    ))
    .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    (rt, client)
}

/// The store the app keeps under the test's home, for `sim`.
fn stored(home: &tempfile::TempDir, sim: &Sim) -> gobare_tui::store::StateStore {
    gobare_tui::store::StateStore::open(&home.path().join("state/gobare-tui"), &sim.sim.url())
        .unwrap()
}

/// `gobare-tui new` as the product runs it (§11.1): create without input, subscribe live with
/// no cursor, and only then send the first message, so it is the session's first event.
#[test]
fn new_subscribes_live_before_sending_and_the_first_message_is_the_first_event() {
    let sim = start_sim(10.0);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(
        &["new", "--title", "fix the flaky test", "hello there"],
        &home,
        &sim.sim,
    );
    wait_live(&pty);
    pty.wait_for_text("hello there", TIMEOUT);
    pty.wait_for_text("completed", TIMEOUT);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());

    assert_eq!(sim.sim.stream_opens()[0], None, "opened live, no cursor");
    let (rt, client) = client_for(&sim);
    let sessions = rt
        .block_on(client.list_sessions(&Page::default()))
        .unwrap()
        .data;
    assert_eq!(sessions.len(), 1, "one session created");
    let session = &sessions[0];
    assert_eq!(session.title.as_deref(), Some("fix the flaky test"));
    let items = rt
        .block_on(client.list_items(&session.id, &Page::ordered(Order::Asc)))
        .unwrap()
        .data;
    assert_eq!(
        items[0].content, "hello there",
        "the first message is the first item"
    );
    let sent = items.iter().filter(|i| i.content == "hello there").count();
    assert_eq!(sent, 1, "sent once");
    let on_disk = stored(&home, &sim).load_session(&session.id);
    assert_eq!(on_disk.history, vec!["hello there"]);
    assert_eq!(on_disk.pending_send, None);
}

/// `gobare-tui new` with no message opens the new session, idle, and sends nothing.
#[test]
fn new_without_a_message_opens_an_idle_session() {
    let sim = start_sim(10.0);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["new"], &home, &sim.sim);
    wait_live(&pty);
    pty.send_keys(keys::CTRL_C);
    assert!(pty.wait_exit(TIMEOUT).success());
    let id = stored(&home, &sim)
        .last_session()
        .expect("the new session is remembered");
    let (rt, client) = client_for(&sim);
    let session = rt.block_on(client.get_session(&id)).unwrap();
    assert_eq!(session.status.as_str(), "idle");
    let items = rt
        .block_on(client.list_items(&id, &Page::default()))
        .unwrap()
        .data;
    assert!(items.is_empty(), "nothing sent: {items:?}");
}
