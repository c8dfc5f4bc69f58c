//! One Enter is one message, with the real binary in a pseudo-terminal: text typed (and
//! edited) while a send is in flight — the server slow to answer 202, or the send waiting
//! out a 503 `Retry-After` — is a new draft; the pending send is shown above the box and
//! arrives once, unchanged, under one key. A bracketed paste with a carriage return in it
//! is text, never a send.

use crate::support;

use std::time::Duration;

use crate::support::app::{bottom, input_box, on_disk, until};
use crate::support::live::{attach_new, pinging_sim};
use gobare_sim::{AcceptedMessage, Faults, Simulator};
use gobare_test_support::pty::{Pty, keys};
use tempfile::TempDir;

const TIMEOUT: Duration = Duration::from_secs(40);

/// Backspace as a terminal sends it.
const BACKSPACE: &str = "\x7f";

/// Types `text`, waits until the box shows it, and presses Enter.
fn type_and_send(pty: &mut Pty, text: &str) {
    pty.send_keys(text);
    pty.wait_for(
        "the text in the box",
        |s| input_box(s).contains(text),
        TIMEOUT,
    );
    pty.send_keys(keys::ENTER);
}

/// Types a second thought and edits it, so the box holds `"second idea"`.
fn type_and_edit_a_new_draft(pty: &mut Pty) {
    pty.send_keys("second thought");
    pty.send_keys(&BACKSPACE.repeat("thought".len()));
    pty.send_keys("idea");
}

/// The send of `text` shown pending above the box (`label`: "sending" or "to retry").
fn pending_shown(s: &vt100::Screen, label: &str, text: &str) -> bool {
    bottom(s, 6).contains(&format!("{label}: {text}"))
}

fn accepted(sim: &Simulator) -> Vec<AcceptedMessage> {
    sim.accepted_messages()
}

/// The key the app stored for its pending send of `text`.
fn pending_key(pty: &Pty, home: &TempDir, sim: &Simulator, session: &str, text: &str) -> String {
    until(
        "the pending send on disk",
        TIMEOUT,
        || {
            let pending = on_disk(home, sim, session).pending_send?;
            assert_eq!(
                pending.text, text,
                "the pending send is the text of the Enter"
            );
            Some(pending.idempotency_key)
        },
        || pty.screen_text(),
    )
}

/// After the race: the first send settled with exactly one message under `key`, the edited
/// draft still in the box and on disk, unsent. Then Enter on the draft is its own message.
fn check_one_message_then_the_draft_sends_on_its_own(
    pty: &mut Pty,
    home: &TempDir,
    sim: &Simulator,
    session: &str,
    key: &str,
) {
    pty.wait_for(
        "the first send settled (no longer shown pending), the draft still in the box",
        |s| !pending_shown(s, "sending", "first intent") && input_box(s).contains("second idea"),
        TIMEOUT,
    );
    until(
        "the pending send cleared and the draft saved",
        TIMEOUT,
        || {
            let state = on_disk(home, sim, session);
            (state.pending_send.is_none() && state.draft == "second idea").then_some(())
        },
        || pty.screen_text(),
    );
    assert_eq!(
        accepted(sim),
        vec![AcceptedMessage {
            key: Some(key.to_string()),
            text: "first intent".into(),
        }],
        "one message, the original text, under the one key"
    );
    assert_eq!(sim.messages_with_key(key), 1);

    pty.send_keys(keys::ENTER);
    until(
        "the draft sent as its own message",
        TIMEOUT,
        || (accepted(sim).len() == 2).then_some(()),
        || pty.screen_text(),
    );
    let messages = accepted(sim);
    assert_eq!(messages[1].text, "second idea");
    assert_ne!(messages[1].key, messages[0].key, "a new message, a new key");
    assert!(support::app::quit(pty, TIMEOUT).success());
}

#[test]
fn typing_while_the_202_is_slow_is_a_new_draft_and_the_send_arrives_once() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "slow accept", TIMEOUT);
    // Long enough that the typing below happens while the send waits for its 202 (the
    // screen check proves it did), short of the client's request timeout.
    sim.sim.set_faults(Faults {
        delay_send_accept_ms: 4_000,
        ..Faults::default()
    });

    type_and_send(&mut pty, "first intent");
    let key = pending_key(&pty, &home, &sim.sim, &session, "first intent");
    type_and_edit_a_new_draft(&mut pty);
    pty.wait_for(
        "the send pending above the box and the edited draft in it, at once",
        |s| pending_shown(s, "sending", "first intent") && input_box(s).contains("second idea"),
        TIMEOUT,
    );
    sim.sim.set_faults(Faults::default());
    check_one_message_then_the_draft_sends_on_its_own(&mut pty, &home, &sim.sim, &session, &key);
}

#[test]
fn typing_while_a_send_waits_out_retry_after_is_a_new_draft_and_the_send_arrives_once() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "retry after", TIMEOUT);
    sim.sim.set_faults(Faults {
        refuse_sends: 2,
        refuse_retry_after_secs: 3,
        ..Faults::default()
    });

    type_and_send(&mut pty, "first intent");
    let key = pending_key(&pty, &home, &sim.sim, &session, "first intent");
    pty.wait_for(
        "the countdown above the box",
        |s| pending_shown(s, "to retry", "first intent"),
        TIMEOUT,
    );
    type_and_edit_a_new_draft(&mut pty);
    pty.wait_for(
        "the send waiting to retry above the box and the edited draft in it, at once",
        |s| pending_shown(s, "to retry", "first intent") && input_box(s).contains("second idea"),
        TIMEOUT,
    );
    check_one_message_then_the_draft_sends_on_its_own(&mut pty, &home, &sim.sim, &session, &key);
    assert_eq!(
        sim.sim.faults().refuse_sends,
        0,
        "both refusals were used up"
    );
}

#[test]
fn a_carriage_return_inside_a_bracketed_paste_is_a_newline_not_a_send() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "paste", TIMEOUT);

    pty.send_paste("line1\rline2\r\nline3");
    pty.wait_for(
        "all three lines in the box",
        |s| {
            let input = bottom(s, 6);
            input.contains("│line1") && input.contains("│line2") && input.contains("│line3")
        },
        TIMEOUT,
    );
    until(
        "the pasted draft saved",
        TIMEOUT,
        || (on_disk(&home, &sim.sim, &session).draft == "line1\nline2\nline3").then_some(()),
        || pty.screen_text(),
    );
    let sent = accepted(&sim.sim);
    assert!(sent.is_empty(), "a paste sends nothing: {sent:?}");
    assert!(
        !pty.with_screen(|s| bottom(s, 8).contains("sending")),
        "no send pending:\n{}",
        pty.screen_text()
    );
    // The draft is left; the quit question says so.
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn a_paste_that_holds_its_own_end_then_a_carriage_return_sends_nothing() {
    let sim = pinging_sim(10.0);
    let (session, home, mut pty) = attach_new(&sim.sim, "paste end", TIMEOUT);

    // What tmux writes for a pasted text holding `ESC[201~`: the paste ends early, and the
    // rest (a carriage return among it) follows in the same read, then the real end.
    pty.send_keys("\x1b[200~one\x1b[201~\rtwo\r\x1b[201~");
    pty.wait_for(
        "both lines in the box",
        |s| {
            let input = bottom(s, 6);
            input.contains("│one") && input.contains("│two")
        },
        TIMEOUT,
    );
    until(
        "the pasted draft saved",
        TIMEOUT,
        || {
            let draft = on_disk(&home, &sim.sim, &session).draft;
            (draft.starts_with("one\ntwo")).then_some(())
        },
        || pty.screen_text(),
    );
    let sent = accepted(&sim.sim);
    assert!(sent.is_empty(), "the paste sent nothing: {sent:?}");
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}
