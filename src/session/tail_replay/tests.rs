use super::*;
use crate::session::Update;
use serde_json::{Value, json};

fn examples() -> Value {
    serde_json::from_str(include_str!("../../../assets/event-payloads.json")).unwrap()
}

/// A long history of `turns` turns: messages, tool calls with results and diffs, todos,
/// approvals (one left waiting early on), a question, workspace changes and a queue.
fn history(turns: u64) -> Vec<String> {
    let examples = examples();
    let mut out = Vec::new();
    let mut push = |kind: &str, payload: Value| {
        let mut env = examples[kind].clone();
        env["seq"] = (out.len() as u64 + 1).into();
        env["created_at"] = (1_789_319_090_000 + out.len() as i64 * 40).into();
        env["payload"] = payload;
        out.push(env.to_string());
    };
    for t in 0..turns {
        let turn = json!({"turnId": format!("turn_{t}")});
        push(
            "user.message",
            json!({"text": format!("question {t}\nsecond line")}),
        );
        push("turn.started", turn.clone());
        if t == 3 {
            push(
                "approval.requested",
                json!({"toolCallId": "call_early", "name": "bash", "args": {"command": "rm -rf /"}, "sensitive": true}),
            );
            push("sandbox.paused", json!({"state": "paused"}));
            push("message.queued", json!({"text": "later", "position": 1}));
        }
        for c in 0..4 {
            let call = format!("call_{t}_{c}");
            push(
                "agent.tool_call",
                json!({"toolCallId": call, "toolName": "bash", "args": {"command": format!("grep -rn thing{c} src")}}),
            );
            push(
                "agent.tool_result",
                json!({"toolCallId": call, "toolName": "bash", "isError": c == 3, "cancelled": false, "summary": format!("{} lines of output", t * c)}),
            );
            push(
                "file.changed",
                json!({"path": format!("/workspace/src/f{c}.ts"), "changeType": "modified", "diff": "@@ -1 +1 @@\n-a\n+b\n", "toolCallId": call}),
            );
        }
        push(
            "agent.todos",
            json!({"items": [{"label": "read", "status": "done"}, {"label": format!("step {t}"), "status": "pending"}]}),
        );
        if t % 10 == 5 {
            let call = format!("call_ok_{t}");
            push(
                "approval.requested",
                json!({"toolCallId": call, "name": "bash", "args": {"command": "deploy"}, "sensitive": false}),
            );
            push(
                "approval.resolved",
                json!({"toolCallId": call, "approved": true}),
            );
        }
        push(
            "agent.message",
            json!({"text": format!("Answer {t}: {}", "words ".repeat(20))}),
        );
        push("turn.ended", turn);
    }
    push("sandbox.resumed", json!({"state": "running"}));
    push(
        "preview.ready",
        json!({"port": 3000, "url": "https://p.gobare.dev"}),
    );
    out
}

fn fresh() -> SessionView {
    SessionView::new("s").with_transcript_budget(48 * 1024)
}

fn full(records: &[String]) -> SessionView {
    let mut v = fresh();
    for json in records {
        v.apply(Update::Event(Event::parse(json).unwrap()));
    }
    v
}

/// Replays as a restart does: returns the view and the window's start.
fn windowed(records: &[String]) -> (SessionView, usize) {
    let mut v = fresh();
    let refs: Vec<&[u8]> = records.iter().map(|s| s.as_bytes()).collect();
    let plan = TailReplay::plan(&v, &refs);
    for (i, json) in records.iter().enumerate() {
        match plan.step(i) {
            Step::Full => {
                v.apply(Update::Event(Event::parse(json).unwrap()));
            }
            Step::Lasting => v.apply_before_window(&Event::parse(json).unwrap()),
            Step::PassOver => v.pass_before_window(i as u64 + 1),
        }
    }
    assert!(
        plan.covered(&v),
        "the transcript dropped entries inside the window"
    );
    (v, plan.window_start())
}

fn assert_same(a: &mut SessionView, b: &mut SessionView) {
    let entries = |v: &SessionView| {
        v.transcript()
            .entries()
            .iter()
            .map(|e| e.kind.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(entries(a), entries(b), "transcript");
    assert_eq!(a.log().rows(), b.log().rows(), "Events pane");
    assert_eq!(a.turns(), b.turns(), "Turn pane");
    assert_eq!(a.actions(), b.actions(), "waits");
    assert_eq!(a.workspace(), b.workspace(), "workspace");
    assert_eq!(a.last_seq(), b.last_seq());
    assert_eq!(a.notice(), b.notice());
    assert_eq!(
        a.take_fetches(),
        b.take_fetches(),
        "what is read after the replay"
    );
}

#[test]
fn a_replay_from_the_tail_shows_what_a_full_replay_shows() {
    let records = history(700);
    let mut whole = full(&records);
    let (mut tail, start) = windowed(&records);
    assert!(
        start > records.len() / 4,
        "most of the log is not decoded: {start} of {}",
        records.len()
    );
    assert!(whole.transcript().dropped() > 0);
    assert_same(&mut whole, &mut tail);
    assert!(
        tail.actions()
            .pending()
            .iter()
            .any(|a| a.call_id == "call_early"),
        "a wait from before the window is still there"
    );
}

#[test]
fn a_short_history_is_replayed_whole() {
    let records = history(50);
    let (mut tail, start) = windowed(&records);
    assert_eq!(start, 0);
    assert_same(&mut full(&records), &mut tail);
}

#[test]
fn a_window_whose_entries_fit_the_budget_asks_for_a_full_replay() {
    let records = history(700);
    let mut v = SessionView::new("s").with_transcript_budget(48 * 1024);
    let refs: Vec<&[u8]> = records.iter().map(|s| s.as_bytes()).collect();
    let plan = TailReplay::plan(&v, &refs);
    assert!(plan.window_start() > 0);
    // Nothing applied: nothing dropped, so the window cannot vouch for what came before.
    assert!(!plan.covered(&v));
    v.apply(Update::Event(Event::parse(&records[0]).unwrap()));
    assert!(TailReplay::everything().covered(&v));
}
