//! Any rule removed or edited, the labels set and the model switched from the session, in a
//! pseudo-terminal against the simulator, checked on its record: each change is shown whole
//! and asked, nothing is sent before `y`, and the `PATCH` body is exactly what was shown,
//! under an Idempotency-Key. A refused change is said in words.

use crate::support;

use std::time::Duration;

use crate::support::app::{attach, until};
use crate::support::live::wait_live;
use crate::support::sim::Sim;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::model::{AgentRequest, CreateSession, Session};
use gobare_sim::{Faults, SimConfig};
use gobare_test_support::pty::keys;
use serde_json::json;

const TIMEOUT: Duration = Duration::from_secs(40);

fn start_sim() -> Sim {
    support::sim::start(SimConfig {
        speed: 10.0,
        ping_interval: Duration::from_secs(1),
        ..SimConfig::for_tests()
    })
}

/// The screen's words, borders and quotes out, joined across rows.
fn flat(s: &vt100::Screen) -> String {
    s.contents()
        .replace(['│', '"', '\n'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The session as the API reads it now.
fn read_session(sim: &Sim, id: &str) -> Session {
    let client = ApiClient::new(ClientOptions::new(
        sim.sim.url(),
        Token::new(sim.sim.token()),
    ))
    .unwrap();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(client.get_session(id))
        .unwrap()
}

fn three_rules() -> serde_json::Value {
    json!([
        {"decision": "allow", "tool": "bash", "command": "make test"},
        {"decision": "deny", "path": "/etc"},
        {"decision": "allow", "tool": "bash", "command": "cargo fmt"},
    ])
}

fn session_with(sim: &Sim, title: &str, rules: bool) -> String {
    let mut labels = std::collections::BTreeMap::new();
    labels.insert("job".to_string(), "8842".to_string());
    sim.sim.create_session_from(CreateSession {
        title: Some(title.into()),
        metadata: Some(labels),
        agent: Some(AgentRequest {
            permission_rules: rules.then(|| three_rules().as_array().unwrap().clone()),
            ..AgentRequest::default()
        }),
        ..CreateSession::default()
    })
}

#[test]
fn any_rule_is_removed_or_edited_sending_exactly_the_list_shown() {
    let sim = start_sim();
    let session = session_with(&sim, "rules list", true);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.wait_for(
        "the rules read",
        |s| s.contents().contains("rules (3)"),
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.send_keys("R");
    pty.wait_for("the rules list", |s| flat(s).contains("Rules · 3"), TIMEOUT);
    pty.send_keys("j");
    pty.send_keys("x");
    pty.wait_for(
        "the list that will be sent",
        |s| {
            let f = flat(s);
            f.contains("Sent as the session's whole list (2 rules)")
                && f.contains("removed: deny any tool path /etc")
        },
        TIMEOUT,
    );
    assert!(sim.sim.patches().is_empty(), "nothing sent before y");
    pty.send_keys("y");
    until(
        "the removal in the simulator's record",
        TIMEOUT,
        || (!sim.sim.patches().is_empty()).then_some(()),
        || pty.screen_text(),
    );
    let patches = sim.sim.patches();
    assert_eq!(
        patches[0].body,
        json!({"agent": {"permission_rules": [
            {"decision": "allow", "tool": "bash", "command": "make test"},
            {"decision": "allow", "tool": "bash", "command": "cargo fmt"},
        ]}})
    );
    assert!(patches[0].key.is_some(), "sent under an Idempotency-Key");
    pty.wait_for(
        "two rules listed",
        |s| s.contents().contains("rules (2)"),
        TIMEOUT,
    );

    // `e` edits the selected rule's command on a line; `y` typed there is text.
    pty.send_keys("R");
    pty.wait_for(
        "the rules list again",
        |s| flat(s).contains("Rules · 2"),
        TIMEOUT,
    );
    pty.send_keys("e");
    pty.wait_for(
        "the line",
        |s| flat(s).contains("command: make test"),
        TIMEOUT,
    );
    pty.send_keys(" -- --nocapture y");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the list with the edited rule",
        |s| {
            let f = flat(s);
            f.contains("Sent as the session's whole list (2 rules)")
                && f.contains("* 1. allow bash command make test -- --nocapture y")
                && f.contains("may match more widely")
        },
        TIMEOUT,
    );
    assert_eq!(sim.sim.patches().len(), 1, "nothing sent before y");
    pty.send_keys("y");
    until(
        "the edit in the simulator's record",
        TIMEOUT,
        || (sim.sim.patches().len() == 2).then_some(()),
        || pty.screen_text(),
    );
    let patches = sim.sim.patches();
    assert_eq!(
        patches[1].body,
        json!({"agent": {"permission_rules": [
            {"decision": "allow", "tool": "bash", "command": "make test -- --nocapture y"},
            {"decision": "allow", "tool": "bash", "command": "cargo fmt"},
        ]}})
    );
    assert!(patches[1].key.is_some());
    assert_ne!(patches[0].key, patches[1].key, "one key per change");
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn l_in_the_panes_sets_the_labels_shown_and_a_refusal_is_said() {
    let sim = start_sim();
    let session = session_with(&sim, "labels", false);
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.wait_for(
        "the labels read",
        |s| flat(s).contains("labels job=8842"),
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.send_keys("l");
    pty.wait_for(
        "the labels line",
        |s| flat(s).contains("labels: job=8842"),
        TIMEOUT,
    );
    pty.send_keys(" team=billing");
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the whole set, asked",
        |s| flat(s).contains("whole set of labels: job=8842 team=billing"),
        TIMEOUT,
    );
    assert!(sim.sim.patches().is_empty(), "nothing sent before y");
    pty.send_keys("y");
    until(
        "the labels in the simulator's record",
        TIMEOUT,
        || (!sim.sim.patches().is_empty()).then_some(()),
        || pty.screen_text(),
    );
    let patches = sim.sim.patches();
    assert_eq!(
        patches[0].body,
        json!({"metadata": {"job": "8842", "team": "billing"}})
    );
    assert!(patches[0].key.is_some());
    pty.wait_for(
        "the pane's labels",
        |s| flat(s).contains("labels job=8842 team=billing"),
        TIMEOUT,
    );

    // The service refuses the next change: said in words, nothing taken.
    sim.sim.set_faults(Faults {
        read_only_sessions: true,
        ..Faults::default()
    });
    pty.send_keys("l");
    pty.wait_for(
        "the labels line",
        |s| flat(s).contains("labels: job=8842 team=billing"),
        TIMEOUT,
    );
    pty.send_keys(keys::CTRL_U);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the clear, asked",
        |s| flat(s).contains("Clear every label"),
        TIMEOUT,
    );
    pty.send_keys("y");
    pty.wait_for(
        "the refusal, naming the scope",
        |s| {
            s.contents().contains("could not set the labels")
                && s.contents().contains("sessions:write")
        },
        TIMEOUT,
    );
    assert_eq!(
        sim.sim.patches().len(),
        1,
        "the refused change is not recorded"
    );
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}

#[test]
fn c_switches_the_model_after_naming_it_and_the_next_turn_runs_on_it() {
    let sim = start_sim();
    let session = sim.sim.create_session(Some("model"));
    let home = tempfile::tempdir().unwrap();
    let mut pty = attach(&session, &home, &sim.sim);
    wait_live(&pty, TIMEOUT);
    pty.wait_for(
        "the model read",
        |s| flat(s).contains("model MiniMax-M3"),
        TIMEOUT,
    );
    pty.send_keys(keys::SHIFT_TAB);
    pty.send_keys("C");
    pty.wait_for(
        "the credentials and their models",
        |s| {
            let f = flat(s);
            f.contains("cred_d05a6c3e9f1b2477") && f.contains("MiniMax-M3 (now)")
        },
        TIMEOUT,
    );
    // The last model, then the one above it: glm-5.
    pty.send_keys("G");
    pty.send_keys("k");
    pty.wait_for("glm-5 selected", |s| flat(s).contains("› glm-5"), TIMEOUT);
    pty.send_keys(keys::ENTER);
    pty.wait_for(
        "the switch named",
        |s| {
            flat(s).contains(
                "Switch to glm-5 via cred_d05a6c3e9f1b2477 (keeps workspace and transcript)?",
            )
        },
        TIMEOUT,
    );
    assert!(sim.sim.patches().is_empty(), "nothing sent before y");
    pty.send_keys("y");
    until(
        "the switch in the simulator's record",
        TIMEOUT,
        || (!sim.sim.patches().is_empty()).then_some(()),
        || pty.screen_text(),
    );
    let patches = sim.sim.patches();
    assert_eq!(
        patches[0].body,
        json!({"agent": {"model": "glm-5", "model_credential_id": "cred_d05a6c3e9f1b2477"}})
    );
    assert!(patches[0].key.is_some());
    let after = read_session(&sim, &session);
    assert_eq!(after.agent.model.as_deref(), Some("glm-5"));
    assert_eq!(
        after.agent.model_credential_id.as_deref(),
        Some("cred_d05a6c3e9f1b2477")
    );
    pty.wait_for(
        "the pane's model",
        |s| flat(s).contains("model glm-5"),
        TIMEOUT,
    );
    pty.send_keys("i");
    pty.send_keys("fix the export #quick");
    pty.send_keys(keys::ENTER);
    pty.wait_for_text("(answered by glm-5)", TIMEOUT);
    assert!(support::app::quit(&mut pty, TIMEOUT).success());
}
