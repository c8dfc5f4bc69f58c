//! The session's rules and mode from the app, in a pseudo-terminal against the simulator,
//! checked on its record: `a` on a waiting approval shows the exact rule, asks, then
//! approves and sends the rule; the simulator runs that command unasked in the next turn.
//! `M` in the panes asks, sets the mode, and the next turn follows it.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, bottom, tab_to_decide, until};
use crate::support::live::wait_live;
use crate::support::sim::Sim;
use gobare_api::model::TurnStatus;
use gobare_sim::SimConfig;
use gobare_test_support::pty::keys;
use serde_json::json;

const TIMEOUT: Duration = Duration::from_secs(40);
const RESTART: &str = "systemctl restart export-worker";

fn start_sim() -> Sim {
    support::sim::start(SimConfig {
        speed: 10.0,
        ping_interval: Duration::from_secs(1),
        ..SimConfig::for_tests()
    })
}

/// Turns of `session` that completed.
fn completed(sim: &Sim, session: &str) -> usize {
    sim.turns(session)
        .iter()
        .filter(|t| t.status == TurnStatus::Completed)
        .count()
}

#[test]
fn an_allow_rule_from_an_approval_is_exact_and_the_next_turn_runs_it_unasked() {
    let sim = start_sim();
    let session = sim.sim.create_session(Some("rules"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.send_keys("restart the worker #approval");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    tab_to_decide(
        &mut pty,
        |s| bottom(s, 14).contains("Deciding") && bottom(s, 14).contains("a allow always"),
        TIMEOUT,
    );
    pty.send_keys("a");
    pty.wait_for(
        "the whole rule, asked first",
        |s| {
            let b = bottom(s, 10).replace(['│', '\n'], " ");
            let flat = b.split_whitespace().collect::<Vec<_>>().join(" ");
            flat.contains("SENSITIVE")
                && flat.contains(&format!("command \"{RESTART}\""))
                && flat.contains("may match more widely")
        },
        TIMEOUT,
    );
    assert!(sim.sim.patches().is_empty(), "nothing sent before y");
    assert!(sim.sim.answers().is_empty(), "nothing decided before y");
    pty.send_keys("y");
    // The notice is passing; the simulator's record and the pane's list stay.
    until(
        "the rule in the simulator's record",
        TIMEOUT,
        || (!sim.sim.patches().is_empty()).then_some(()),
        || pty.screen_text(),
    );
    pty.wait_for(
        "the rule listed in the Workspace pane",
        |s| s.contents().contains("rules (1)"),
        TIMEOUT,
    );
    let patches = sim.sim.patches();
    assert_eq!(patches.len(), 1, "{patches:?}");
    assert_eq!(
        patches[0].body,
        json!({"agent": {"permission_rules": [
            {"decision": "allow", "tool": "bash", "command": RESTART}]}})
    );
    assert!(patches[0].key.is_some(), "sent under an Idempotency-Key");
    let answers = sim.sim.answers();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(matches!(
        answers[0].input,
        gobare_api::model::Input::Approval { approved: true, .. }
    ));
    until(
        "the approved turn to complete",
        TIMEOUT,
        || (completed(&sim, &session) == 1).then_some(()),
        || pty.screen_text(),
    );

    // The next turn asks for the same restart: the rule runs it without asking.
    pty.send_keys(keys::ESC);
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    pty.send_keys("restart it again #approval");
    pty.send_keys(keys::ENTER);
    until(
        "the second turn to complete unasked",
        TIMEOUT,
        || (completed(&sim, &session) == 2).then_some(()),
        || {
            format!(
                "{:?}\n{}",
                sim.required_actions(&session),
                pty.screen_text()
            )
        },
    );
    assert_eq!(
        sim.sim.answers().len(),
        1,
        "the second restart was not asked for"
    );

    // X in the panes names the newest rule and removes it after y.
    pty.send_keys(keys::SHIFT_TAB);
    pty.send_keys("X");
    pty.wait_for(
        "the removal question naming the rule",
        |s| {
            let flat = bottom(s, 8)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            flat.contains("Remove the newest rule") && flat.contains(RESTART)
        },
        TIMEOUT,
    );
    assert_eq!(sim.sim.patches().len(), 1, "nothing sent before y");
    pty.send_keys("y");
    until(
        "the removal in the simulator's record",
        TIMEOUT,
        || (sim.sim.patches().len() == 2).then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(
        sim.sim.patches()[1].body,
        json!({"agent": {"permission_rules": []}})
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn m_sets_the_mode_after_asking_and_the_next_turn_follows_it() {
    let sim = start_sim();
    let session = sim.sim.create_session(Some("mode"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.send_keys(keys::SHIFT_TAB);
    pty.send_keys("M");
    pty.wait_for(
        "the mode question",
        |s| {
            let flat = bottom(s, 8)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            flat.contains("approval mode to per_step") && flat.contains("from the next turn")
        },
        TIMEOUT,
    );
    assert!(sim.sim.patches().is_empty(), "nothing sent before y");
    pty.send_keys("y");
    until(
        "the mode in the simulator's record",
        TIMEOUT,
        || (!sim.sim.patches().is_empty()).then_some(()),
        || pty.screen_text(),
    );
    assert_eq!(
        sim.sim.patches()[0].body,
        json!({"agent": {"approval_mode": "per_step"}})
    );
    pty.send_keys("i");
    pty.wait_for("typing", |s| bottom(s, 5).contains("Typing ·"), TIMEOUT);
    pty.send_keys("fix the export #quick");
    pty.send_keys(keys::ENTER);
    // Under `auto` the quick fix never asks; under per_step its first edit does.
    pty.wait_for_text("The agent asks to run a tool", TIMEOUT);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}
