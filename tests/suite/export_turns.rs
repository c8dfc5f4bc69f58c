//! The Markdown export tells each turn as it happened, against the simulator: one section
//! per turn with its prompt under its heading (a queued one too), a steer marked as one,
//! a decision naming its tool and command, a function call with its result, the todo list
//! once, and a closing line with the outcome (the duration, or why it failed) and the
//! turn's artifacts.

use crate::support::actions::{Rig, client_for, message, steer};
use crate::support::cli::Home;
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::model::{
    ArtifactsState, Input, RequiredAction, RequiredActionKind, SessionStatus, TurnStatus,
};
use gobare_sim::SimConfig;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const FUNCTION_OUTPUT: &str = "order A-4471 shipped on 2026-11-30";

async fn send(client: &ApiClient, id: &str, input: Input) {
    client
        .send(id, &input, &IdempotencyKey::new())
        .await
        .unwrap_or_else(|e| panic!("{} refused: {e}", input.type_name()));
}

/// Waits for the session's first required action of `kind`.
async fn required(rig: &Rig, id: &str, kind: RequiredActionKind) -> RequiredAction {
    let s = rig
        .until_session(id, "a required action", |s| {
            s.required_actions.iter().any(|a| a.kind == kind)
        })
        .await;
    s.required_actions
        .into_iter()
        .find(|a| a.kind == kind)
        .unwrap()
}

/// Waits until the session's `turns` turns have all settled and published.
async fn settled(rig: &Rig, id: &str, turns: usize) {
    rig.until_session(id, "the session to settle", |s| {
        matches!(s.status, SessionStatus::Idle | SessionStatus::Failed)
    })
    .await;
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let page = gobare_api::client::Page::ordered(gobare_api::client::Order::Asc);
        let list = rig.client.list_turns(id, &page).await.unwrap();
        let done = list.data.len() == turns
            && list.data.iter().all(|t| {
                t.status != TurnStatus::Working
                    && t.artifacts
                        .as_ref()
                        .is_some_and(|a| *a != ArtifactsState::Pending)
            });
        if done {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{:?}", list.data);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The part of `md` from `from` up to the next `until` (or its end).
fn between<'a>(md: &'a str, from: &str, until: &str) -> &'a str {
    let start = md
        .find(from)
        .unwrap_or_else(|| panic!("no {from:?} in\n{md}"));
    let rest = &md[start..];
    let end = rest[from.len()..]
        .find(until)
        .map_or(rest.len(), |n| n + from.len());
    &rest[..end]
}

/// Where `what` is in `section` (a panic naming both when it is not).
fn has(section: &str, what: &str) -> usize {
    section
        .find(what)
        .unwrap_or_else(|| panic!("no {what:?} in\n{section}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_turn_is_one_section_from_its_prompt_to_its_outcome() {
    let rig = Rig::start(SimConfig::for_tests()).await;
    let sim = &rig.sim;
    let client = client_for(sim);
    let id = sim.create_session(Some("the story"));
    sim.declare_function(&id, "lookup_order", None);

    // Turn 1 asks to restart a service; while it waits, a steer and a queued message.
    send(&client, &id, message("#approval restart the stuck worker")).await;
    let approval = required(&rig, &id, RequiredActionKind::Approval).await;
    send(&client, &id, steer("keep the logs of the old process")).await;
    send(&client, &id, message("#function look up the order")).await;
    let approve = Input::Approval {
        call_id: approval.call_id,
        approved: true,
    };
    send(&client, &id, approve).await;
    // Turn 2 (the queued message) calls the client's function.
    let call = required(&rig, &id, RequiredActionKind::FunctionCall).await;
    let result = Input::ToolResult {
        turn_id: call.turn_id,
        call_id: call.call_id,
        success: true,
        output: Some(FUNCTION_OUTPUT.into()),
        error: None,
    };
    send(&client, &id, result).await;
    settled(&rig, &id, 2).await;
    // Turn 3 fails; turn 4 publishes a report.
    send(&client, &id, message("#error apply the migration")).await;
    settled(&rig, &id, 3).await;
    send(&client, &id, message("#quick fix the CSV totals")).await;
    settled(&rig, &id, 4).await;

    let home = Home::new();
    let file = home.path("story.md");
    let api = sim.url().to_string();
    let out = tokio::time::timeout(
        TIMEOUT,
        home.tokio_command(&["--api", &api, "export", &id, "--output"])
            .arg(&file)
            .env("GOBARE_TOKEN", sim.token())
            .output(),
    )
    .await
    .expect("the export ends")
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(&file).unwrap();

    assert_eq!(md.matches("\n## Turn ").count(), 4, "{md}");
    assert!(!md.contains("Message without a turn"), "{md}");
    let turn = |n: u32| between(&md, &format!("\n## Turn {n} · "), "\n## ");

    // Turn 1: the prompt under its heading, the steer marked, the decision named.
    let one = turn(1);
    let prompt = has(one, "### You · ");
    assert!(one[prompt..].starts_with("### You · 2"), "{one}");
    assert!(has(one, "#approval restart the stuck worker") > prompt);
    let steered = has(one, "### You · steer (sent while the turn ran) · ");
    assert!(has(one, "keep the logs of the old process") > steered);
    has(one, "### Approval asked for `bash` (sensitive) · ");
    let decision = has(one, "### Decision: approved `bash` · ");
    assert!(has(one, "Command: `systemctl restart export-worker`") > decision);
    has(one, ": queued #1: #function look up the order*");
    assert!(
        !one.contains("### You · queued"),
        "the next prompt is not in it"
    );
    assert_eq!(one.matches("### Todos · ").count(), 1, "{one}");
    assert!(has(one, "- [x] Verify the queue drains") > decision);
    let closing = has(one, "**Turn 1: completed in ");
    assert!(closing > has(one, "### Todos · "), "the outcome closes it");

    // Turn 2: the queued prompt, the function call and its result.
    let two = turn(2);
    assert!(has(two, "### You · queued · ") < has(two, "#function look up the order"));
    let called = has(two, "### Function call `lookup_order` · ");
    assert!(has(two, "\"order_id\": \"A-4471\"") > called);
    let resolved = has(two, "### Function result `lookup_order`: succeeded · ");
    assert!(
        has(two, FUNCTION_OUTPUT) > resolved,
        "the agent's reply quotes it"
    );
    assert_eq!(two.matches("### Todos · ").count(), 1, "{two}");
    has(two, "**Turn 2: completed in ");

    // Turn 3: failed, with its code and message.
    let three = turn(3);
    has(three, "#error apply the migration");
    let closing = has(three, "**Turn 3: failed after ");
    let reason = has(
        three,
        " — provider_error: the model provider returned 502\n",
    );
    assert!(reason > closing, "{three}");
    assert_eq!(three.matches("### Todos · ").count(), 1, "{three}");

    // Turn 4: its artifact on the closing line; the agent's own headings under the turn's.
    let four = turn(4);
    has(four, "**Turn 4: completed in ");
    has(four, "Artifacts: `/workspace/outputs/report.md` (151 B)");
    has(four, "\n##### Fixed: CSV totals off by a cent\n");
    assert!(!md.contains("\n## Fixed"), "{md}");
    assert!(
        !md.contains("*artifact: "),
        "named once, on its turn's closing line"
    );
    rig.sim.shutdown().await;
}
