//! The production question shape (the question's text in the action's `name`, options as
//! objects with a `label`) answered from a stored-cursor attach: `question.asked` is not
//! in the replay, so the options come from `required_actions` alone.

use crate::support;
use crate::support::app::{attach, quit, status_line, tab_to_decide, until};
use crate::support::live::attach_new;
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(40);

#[test]
fn a_production_question_is_answered_from_a_stored_cursor_attach() {
    let sim = support::sim::start(SimConfig {
        speed: 10.0,
        ..SimConfig::for_tests()
    });
    let (session, home, mut pty) = attach_new(&sim.sim, "choice", TIMEOUT);
    pty.send_keys("which way #choice");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks you", TIMEOUT);
    let last_seen = sim.sim.last_seq();
    pty.wait_for(
        "the status bar to reach the last seq",
        |s| status_line(s).contains(&format!("seq {last_seen}")),
        TIMEOUT,
    );
    assert!(quit(&mut pty, TIMEOUT).success());

    let opens_before = sim.sim.stream_opens().len();
    let mut pty = attach(&session, &home, &sim.sim);
    pty.wait_for(
        "the question and its options, read from the listed action",
        |s| {
            let text = s.contents();
            text.contains("Roll back to v2.3.1 or patch forward?")
                && text.contains("1. roll back")
                && text.contains("2. patch")
        },
        TIMEOUT,
    );
    let opens = sim.sim.stream_opens();
    assert!(
        matches!(opens.get(opens_before), Some(Some(c)) if *c >= last_seen),
        "resumed after question.asked, not replayed: {opens:?}"
    );
    tab_to_decide(&mut pty, |s| s.contents().contains("Deciding"), TIMEOUT);
    pty.send_keys("2");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("You chose patch", TIMEOUT);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = support::actions::client_for(&sim.sim);
    let answered = until(
        "the answer on the simulator's record",
        TIMEOUT,
        || {
            let s = rt.block_on(client.get_session(&session)).ok()?;
            s.required_actions.is_empty().then_some(s)
        },
        || pty.screen_text(),
    );
    assert!(answered.required_actions.is_empty());
    assert!(quit(&mut pty, TIMEOUT).success());
}

/// A question that takes only its options never invites other text, and text it refuses
/// stays in the box as an answer: Enter again never sends it as a message behind it.
#[test]
fn a_question_that_takes_only_its_options_keeps_refused_text_as_an_answer() {
    let sim = support::sim::start(SimConfig {
        speed: 10.0,
        ..SimConfig::for_tests()
    });
    let (_, _home, mut pty) = attach_new(&sim.sim, "choice", TIMEOUT);
    pty.send_keys("which way #choice");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the question, its options, and a hint that takes only them",
        |s| {
            let text = s.contents();
            text.contains("2. patch")
                && text.contains("it takes no other answer")
                && !text.contains("or type an answer")
        },
        TIMEOUT,
    );
    pty.send_keys("maybe later");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the refusal naming the options",
        |s| {
            s.contents()
                .contains("takes only one of its options: “roll back”, “patch”")
        },
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
    pty.send_keys("\x15");
    pty.send_keys("patch");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("You chose patch", TIMEOUT);
    let sent: Vec<String> = sim
        .sim
        .accepted_messages()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(sent, ["which way #choice"], "refused text became a message");
    assert!(quit(&mut pty, TIMEOUT).success());
}
