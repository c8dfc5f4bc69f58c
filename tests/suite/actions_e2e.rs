//! The real binary in a pseudo-terminal against a simulator started here, acting on the
//! session: send and see the answer, steer mid-turn, approve, cancel with its confirmation,
//! quit; then come back: draft, history and the stream cursor are restored.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, bottom, spawn, status_line, tab_to_decide};
use crate::support::live::{attach_new, attach_new_sized, pinging_sim, wait_live};
use crate::support::sim::Sim;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_test_support::pty::keys;

const TIMEOUT: Duration = Duration::from_secs(40);

#[test]
fn send_steer_approve_cancel_and_quit() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new(&sim.sim, "acting", TIMEOUT);

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
    // Accepted: the box is cleared. Tab gives the prompt the keys; the approval is
    // sensitive, so `y` asks once more in the input area before it is sent.
    pty.wait_for(
        "the input box to clear",
        |s| !bottom(s, 4).contains("use the staging host"),
        TIMEOUT,
    );
    tab_to_decide(
        &mut pty,
        |s| bottom(s, 14).contains("Deciding") && bottom(s, 14).contains("approve (asks again)"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the second step",
        |s| bottom(s, 8).contains("SENSITIVE"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the approval to land",
        |s| status_line(s).contains("approved"),
        TIMEOUT,
    );
    pty.wait_for_text("draining again", TIMEOUT);
    // A decision holds the keys after it: Esc to type again.
    pty.send_keys(keys::ESC);
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);

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
    pty.wait_for(
        "the cancel question in the input area",
        |s| bottom(s, 5).contains("Cancel the running turn?"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the turn to read cancelled",
        |s| s.contents().contains("cancelled"),
        TIMEOUT,
    );

    let status = support::app::quit(&mut pty, TIMEOUT);
    assert!(status.success(), "{status:?}\n{}", pty.screen_text());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn coming_back_restores_draft_history_and_resumes_from_the_stored_cursor() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "return", TIMEOUT);
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
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    // What the first run saw last, as it stored it on the way out.
    let store = stored(&home, &sim);
    let stored = store.load_session(&session);
    let cursor = stored.cursor.expect("a cursor was stored");
    assert!(cursor >= last_seen, "stored {cursor}, seen {last_seen}");
    assert_eq!(stored.draft, "an unsent draft");
    assert_eq!(stored.history.entries(), ["first words"]);
    let opens_before = sim.sim.stream_opens().len();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
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
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn with_no_session_to_reopen_the_fleet_lists_sessions_and_enter_opens_one() {
    let sim = pinging_sim(10.0);
    sim.sim.create_session(Some("older work"));
    sim.sim.create_session(Some("newer work"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&[], &home, &sim.sim);
    pty.wait_for(
        "both sessions listed in the fleet",
        |s| {
            let text = s.contents();
            text.contains("Fleet · 2 sessions")
                && text.contains("older work")
                && text.contains("newer work")
        },
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
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
    assert!(pty.is_cooked(), "terminal restored");
}

#[test]
fn ctrl_o_leaves_the_app_for_the_fleet() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new(&sim.sim, "round trip", TIMEOUT);
    pty.send_keys(keys::CTRL_O);
    pty.wait_for(
        "the fleet",
        |s| s.contents().contains("Fleet · 1 session") && s.contents().contains("round trip"),
        TIMEOUT,
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
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
    let sim = pinging_sim(10.0);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(
        &["new", "--title", "fix the flaky test", "hello there"],
        &home,
        &sim.sim,
    );
    wait_live(&pty, TIMEOUT);
    pty.wait_for_text("hello there", TIMEOUT);
    pty.wait_for_text("completed", TIMEOUT);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

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
    assert_eq!(on_disk.history.entries(), ["hello there"]);
    assert_eq!(on_disk.pending_send, None);
}

/// `gobare-tui new` with no message opens the new session, idle, and sends nothing.
#[test]
fn new_without_a_message_opens_an_idle_session() {
    let sim = pinging_sim(10.0);
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["new"], &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
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

/// The session's waiting actions as the simulator has them.
fn required_actions(sim: &Sim, session: &str) -> Vec<gobare_api::model::RequiredAction> {
    let (rt, client) = client_for(sim);
    rt.block_on(client.get_session(session))
        .unwrap()
        .required_actions
        .to_vec()
}

/// With a sensitive approval waiting, a reply typed the way a person types it stays text:
/// nothing is approved or denied, and the box holds every character.
#[test]
fn typing_a_reply_during_an_approval_decides_nothing() {
    let sim = pinging_sim(10.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "approval", TIMEOUT);
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    pty.wait_for(
        "the prompt to say how to decide",
        |s| bottom(s, 14).contains("Tab to decide"),
        TIMEOUT,
    );
    for reply in ["yes but only after checking the logs", " no wait"] {
        pty.send_keys(reply);
    }
    pty.wait_for_text("checking the logs no wait", TIMEOUT);
    assert!(
        pty.screen_text()
            .contains("yes but only after checking the logs no wait"),
        "every character typed is in the box:\n{}",
        pty.screen_text()
    );
    let waiting = required_actions(&sim, &session);
    assert_eq!(waiting.len(), 1, "the approval still waits: {waiting:?}");
    assert!(!pty.screen_text().contains("approved"));
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
    assert_eq!(
        required_actions(&sim, &session).len(),
        1,
        "quitting answered nothing"
    );
}

/// With a question waiting, "2 days ago it worked" is text, not option 2.
#[test]
fn typing_a_reply_during_a_question_picks_nothing() {
    let sim = pinging_sim(10.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "question", TIMEOUT);
    pty.send_keys("which region? #question");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks you", TIMEOUT);
    pty.send_keys("2 days ago it worked");
    pty.wait_for_text("2 days ago it worked", TIMEOUT);
    let waiting = required_actions(&sim, &session);
    assert_eq!(waiting.len(), 1, "the question still waits: {waiting:?}");
    pty.wait_for(
        "the box to say Enter answers",
        |s| bottom(s, 6).contains("Enter answer"),
        TIMEOUT,
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
    assert_eq!(
        required_actions(&sim, &session).len(),
        1,
        "nothing answered"
    );
}

/// At 70×20 the cancel confirmation is readable whole in the input area.
#[test]
fn the_cancel_confirmation_is_readable_at_70x20() {
    let sim = pinging_sim(1.0);
    let (_, _home, mut pty) = attach_new_sized(&sim.sim, "narrow", 70, 20, TIMEOUT);
    pty.send_keys("a long job #long");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the long turn to run",
        |s| bottom(s, 6).contains("Ctrl+X cancel"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_X);
    pty.wait_for(
        "the whole question and its keys",
        |s| bottom(s, 6).contains("Cancel the running turn?") && bottom(s, 6).contains("n/Esc no"),
        TIMEOUT,
    );
    pty.send_keys("n");
    pty.wait_for_text("not cancelled", TIMEOUT);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

/// Ctrl+X with nothing running says so and asks nothing.
#[test]
fn cancel_with_nothing_running_says_so() {
    let sim = pinging_sim(10.0);
    let (_, _home, mut pty) = attach_new(&sim.sim, "idle", TIMEOUT);
    pty.send_keys(keys::CTRL_X);
    pty.wait_for(
        "the notice",
        |s| status_line(s).contains("nothing is running to cancel"),
        TIMEOUT,
    );
    assert!(!pty.screen_text().contains("Cancel the running turn?"));
    pty.send_keys(keys::CTRL_C);
    assert!(
        pty.wait_exit(TIMEOUT).success(),
        "nothing in flight: quits at once"
    );
}

/// After a restart a pending sensitive approval is still marked sensitive, reads "waiting",
/// and still takes two steps to approve.
#[test]
fn a_restart_keeps_a_pending_approval_sensitive_and_waiting() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "restart", TIMEOUT);
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("approval (sensitive)", TIMEOUT);
    let last_seen = sim.sim.last_seq();
    pty.wait_for(
        "the status bar to reach the last seq",
        |s| status_line(s).contains(&format!("seq {last_seen}")),
        TIMEOUT,
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.wait_for(
        "the approval read back as sensitive and waiting",
        |s| {
            let text = s.contents();
            text.contains("approval (sensitive)") && text.contains("waiting for approval")
        },
        TIMEOUT,
    );
    assert!(!pty.screen_text().contains("outcome not in the history"));
    tab_to_decide(&mut pty, |s| bottom(s, 14).contains("Deciding"), TIMEOUT);
    pty.send_keys("y");
    pty.wait_for(
        "the second step",
        |s| bottom(s, 8).contains("SENSITIVE"),
        TIMEOUT,
    );
    pty.send_keys("n");
    assert_eq!(required_actions(&sim, &session).len(), 1, "still waiting");
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

/// Ctrl+T adds the box's text to the session as context: recorded as a `context` item, shown
/// in the transcript, the box emptied, and no turn started.
#[test]
fn ctrl_t_adds_context_without_starting_a_turn() {
    let sim = pinging_sim(10.0);
    let (session, _home, mut pty) = attach_new(&sim.sim, "context", TIMEOUT);
    pty.send_keys("the staging db is read-only today");
    pty.send_keys(keys::CTRL_T);
    pty.wait_for(
        "the context in the transcript and the box empty",
        |s| {
            s.contents()
                .contains("context: the staging db is read-only today")
                && !support::app::input_box(s).contains("read-only")
        },
        TIMEOUT,
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());

    let (rt, client) = client_for(&sim);
    let items = rt
        .block_on(client.list_items(&session, &Page::ordered(Order::Asc)))
        .unwrap()
        .data;
    let kinds: Vec<&str> = items.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["context"],
        "one context item, nothing else: {items:?}"
    );
    // As the reference records it: the text in `detail.text`, `content` empty.
    assert_eq!(items[0].detail["text"], "the staging db is read-only today");
    let turns = rt
        .block_on(client.list_turns(&session, &Page::default()))
        .unwrap()
        .data;
    assert!(turns.is_empty(), "no turn started: {turns:?}");
}
