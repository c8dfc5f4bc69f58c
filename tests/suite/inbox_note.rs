//! An approval decided from the fleet's inbox with a note, as a session decides one (issue
//! 54.3), in a pty against the simulator: `t` types the note, Enter keeps it, the prompt
//! says `approve + note`, and `y` (twice: the approval is sensitive) or `n` sends the
//! decision and then the note as a steer — both in the simulator's record, each under an
//! Idempotency-Key of its own.

use std::time::{Duration, Instant};

use crate::support;
use crate::support::app::spawn;
use gobare_api::model::{Content, Input};
use gobare_sim::{AcceptedInput, SimConfig};
use gobare_test_support::pty::{Pty, keys};

const TIMEOUT: Duration = Duration::from_secs(40);

/// Until the simulator took an approval and a steer for `session`: both, in the order taken.
fn decision_and_note(sim: &support::sim::Sim, session: &str) -> Vec<AcceptedInput> {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let taken: Vec<AcceptedInput> = sim
            .sim
            .inputs()
            .into_iter()
            .filter(|i| i.session_id == session)
            .filter(|i| matches!(i.input, Input::Approval { .. } | Input::Steer { .. }))
            .collect();
        if taken.len() >= 2 {
            return taken;
        }
        assert!(
            Instant::now() < deadline,
            "the simulator took only {taken:?}"
        );
        // The simulator's record is read as the client's requests land.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// In the inbox at `session`'s approval: Tab, `t`, the note, Enter; the prompt says the
/// note goes along.
fn decide_with_note(pty: &mut Pty, note: &str) {
    pty.send_keys(keys::TAB);
    pty.wait_for_text("Deciding", TIMEOUT);
    pty.send_keys("t");
    pty.wait_for_text("note: ▏", TIMEOUT);
    pty.send_keys(note);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the decision's keys taking the note along",
        |s| {
            let shown = s.contents();
            shown.contains("approve + note")
                && shown.contains("deny + note")
                && shown.contains(&format!("with the note \"{note}\""))
        },
        TIMEOUT,
    );
}

fn check(taken: &[AcceptedInput], approved: bool, note: &str) {
    let [decision, steer] = taken else {
        panic!("{taken:?}")
    };
    assert!(
        matches!(decision.input, Input::Approval { approved: a, .. } if a == approved),
        "{taken:?}"
    );
    assert_eq!(
        steer.input,
        Input::Steer {
            content: Content::Text(note.into())
        }
    );
    let (Some(k1), Some(k2)) = (&decision.key, &steer.key) else {
        panic!("unkeyed: {taken:?}")
    };
    assert_ne!(k1, k2, "each input under a key of its own");
}

#[test]
fn an_approval_and_a_denial_from_the_inbox_carry_their_notes_as_steers() {
    // At real speed the turn still runs when the note lands after the decision.
    let sim = support::sim::start(SimConfig {
        speed: 1.0,
        ..SimConfig::for_tests()
    });
    let approve = sim.sim.create_session(Some("restart the worker"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = spawn(&["fleet"], &home, &sim.sim);
    pty.wait_for_text("Fleet · 1 session", TIMEOUT);
    sim.within(|s| s.send_message(&approve, "restart it #approval"));
    pty.send_keys("i");
    pty.wait_for_text("approval⚠", TIMEOUT);

    decide_with_note(&mut pty, "only the export worker");
    pty.send_keys("y");
    pty.wait_for_text("SENSITIVE", TIMEOUT);
    assert!(sim.sim.answers().is_empty(), "the first y asks again");
    pty.send_keys("y");
    check(
        &decision_and_note(&sim, &approve),
        true,
        "only the export worker",
    );

    let deny = sim.sim.create_session(Some("restart another"));
    sim.within(|s| s.send_message(&deny, "restart it #approval"));
    pty.wait_for(
        "the second approval in the inbox",
        |s| s.contents().contains("restart another"),
        TIMEOUT,
    );
    pty.wait_for(
        "the first one gone from the inbox",
        |s| !s.contents().contains("restart the worker"),
        TIMEOUT,
    );
    decide_with_note(&mut pty, "not during the release");
    pty.send_keys("n");
    check(
        &decision_and_note(&sim, &deny),
        false,
        "not during the release",
    );
    pty.send_keys(keys::ESC);
    pty.wait_for_text("Fleet · 2 sessions", TIMEOUT);
    pty.send_keys("q");
    assert!(pty.wait_exit(TIMEOUT).success());
}
