//! The changes view in the real binary against the simulator: `D` on a selected turn shows
//! its files, and a comment on a marked line goes out as one message quoting file and line
//! (on the simulator's record, with an idempotency key) only after `S` and then `y`; Ctrl+C
//! over the view asks where the question can be seen.

use crate::support;
use crate::support::app::{attach, bottom, until};
use crate::support::live::wait_live;
use gobare_sim::SimConfig;
use gobare_test_support::pty::{Pty, keys};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(40);

fn wait(pty: &Pty, what: &str, check: impl Fn(&str) -> bool) {
    pty.wait_for(what, |s| check(&s.contents()), TIMEOUT);
}

#[test]
fn a_comment_on_a_turns_changes_is_sent_as_one_message_after_s_then_y() {
    let sim = support::sim::start(SimConfig::for_tests());
    let session = sim.sim.create_session(Some("changes"));
    sim.within(|s| s.send_message(&session, "#edits tidy the library"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    wait(&pty, "the turn to end", |s| s.contains("── ✓ completed in"));

    // A draft in the box: quitting will ask.
    pty.send_keys("a draft to keep");
    pty.send_keys(keys::SHIFT_TAB);
    pty.wait_for("the panes", |s| bottom(s, 5).contains("Panes · "), TIMEOUT);
    pty.send_keys("[");
    pty.send_keys("D");
    // The title counts the files only once they are read (the transcript behind names
    // the same paths).
    wait(&pty, "the turn's changes", |s| {
        s.contains("Changes · turn turn_") && s.contains(" · 3 files +8 −6 ")
    });
    // The library is the third file (after the repository's old document, removed, and
    // the note, created); its first line gets a comment.
    pty.send_keys("]");
    wait(&pty, "the note's diff", |s| s.contains("2/3 notes/todo.md"));
    pty.send_keys("]");
    wait(&pty, "the library's diff", |s| s.contains("3/3 src/lib.rs"));
    pty.send_keys("j");
    pty.send_keys("c");
    wait(&pty, "the comment line", |s| s.contains("comment: "));
    pty.send_keys("say what changed in the greeting");
    pty.send_keys(keys::ENTER);
    wait(&pty, "the comment kept", |s| {
        s.contains("» say what changed in the greeting")
    });
    // S asks; Enter is not yes (n then says nothing was sent); S again, y sends.
    let reviews = || {
        sim.sim
            .accepted_messages()
            .into_iter()
            .filter(|m| m.text.starts_with("Review of the changes"))
            .collect::<Vec<_>>()
    };
    pty.send_keys("S");
    wait(&pty, "the question", |s| s.contains("y sends · n keeps it"));
    pty.send_keys(keys::ENTER);
    pty.send_keys("n");
    wait(&pty, "not sent", |s| {
        s.contains("not sent: the comments are kept")
    });
    assert!(reviews().is_empty(), "Enter does not send");
    pty.send_keys("S");
    wait(&pty, "the question again", |s| {
        s.contains("y sends · n keeps it")
    });
    pty.send_keys("y");
    let sent = until(
        "the simulator to accept the review",
        TIMEOUT,
        || reviews().pop(),
        || pty.screen_text(),
    );
    assert!(
        sent.text.starts_with("Review of the changes in turn turn_"),
        "{}",
        sent.text
    );
    assert!(
        sent.text
            .contains("\nIn src/lib.rs removed line 1:\n> -//! A small library.\n"),
        "{}",
        sent.text
    );
    assert!(
        sent.text.ends_with("\nsay what changed in the greeting\n"),
        "{}",
        sent.text
    );
    assert!(sent.key.is_some(), "sent with an idempotency key");
    assert_eq!(reviews().len(), 1, "sent once");
    // Ctrl+C over the view asks where the question can be seen (the next key answers it).
    pty.send_keys(keys::CTRL_C);
    pty.wait_for(
        "the quit question over the view",
        |s| bottom(s, 10).contains("Quit?") && s.contents().contains("Changes · "),
        TIMEOUT,
    );
    pty.send_keys("y");
    assert!(pty.wait_exit(TIMEOUT).success());
}
